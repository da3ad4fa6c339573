"""The Bunco box's rules (issue 45): what a count typed is, what a count leaves missing, and who
brings the box to a party. Pure, standard library only (docs/DESIGN.md §3): the club's actions
(bunco_club/actions/box.py) and pages (bunco_club/box.py) ask these.

The box is the club's kit (the bell, the dice, score cards, pencils...), a checklist of items and
how many of each the box holds. It travels from host to host along the hosting rotation: the host
of the next party receives it and counts what is there; whoever received it last has it.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from games.rules.words import Said, gettext_noop

COUNT_MAX = 999  # of one item: more than any box holds, and three digits to type
KIT_MAX_ITEMS = 30  # lines of the checklist

# The kit a club is offered when it first opens its box page: what the groups' boxes hold (issue
# 45), for three tables of four. English, marked for the catalog: the offer is written in the
# club's language, and the items are the club's own words once saved.
DEFAULT_KIT: tuple[tuple[str, int], ...] = (
    (gettext_noop("Bell"), 1),
    (gettext_noop("Dice"), 12),
    (gettext_noop("Score cards"), 12),
    (gettext_noop("Pencils"), 12),
    (gettext_noop("Envelopes (the pot and the float)"), 2),
    (gettext_noop("Notepads, one a table"), 3),
)


class BoxError(ValueError):
    """A count or a kit the box cannot take; its message (a `Said`) says what to write instead."""


def read_count(raw: object, *, item: str, least: int = 0) -> int:
    """A count typed for `item`: a whole number in the digits 0 to 9, from `least` to COUNT_MAX.
    "-1", "1.5", "²" (a digit to str.isdigit, not to int), "٣" (a digit to int) and 20 digits are
    refused by name; what was typed is not repeated (it may be anything)."""
    text = raw.strip() if isinstance(raw, str) else ""
    if not text:
        raise BoxError(Said(gettext_noop("Write how many “%(item)s” there are, in digits (0 if none)."), item=item)
                       if least == 0 else
                       Said(gettext_noop("Write how many “%(item)s” the box holds, in digits."), item=item))
    if text.startswith("-") and text[1:].isascii() and text[1:].isdigit():
        raise BoxError(Said(gettext_noop("A count is never below zero: write how many “%(item)s” as %(least)s or "
                                         "more."), item=item, least=least))
    if not (text.isascii() and text.isdigit()):
        raise BoxError(Said(gettext_noop("Write how many “%(item)s” as a whole number, with the digits 0 to 9 "
                                         "(as 12)."), item=item))
    count = int(text) if len(text) <= len(str(COUNT_MAX)) else COUNT_MAX + 1
    if not least <= count <= COUNT_MAX:
        raise BoxError(Said(gettext_noop("Write how many “%(item)s” as a number from %(least)s to %(most)s."),
                            item=item, least=least, most=COUNT_MAX))
    return count


@dataclass(frozen=True)
class Line:
    """One item as a hand-over counted it: its name, how many the kit said then, how many were there."""

    name: str
    kit: int
    counted: int

    @property
    def short(self) -> int:
        """How many are missing (0 when the box holds what the kit says, or more)."""
        return max(0, self.kit - self.counted)

    def as_record(self) -> dict[str, object]:
        return {"name": self.name, "kit": self.kit, "counted": self.counted}


def lines_of(records: Iterable[Mapping[str, object]]) -> list[Line]:
    """The lines of a count as the custody log keeps them (`Line.as_record`)."""
    return [Line(name=str(record["name"]), kit=int(str(record["kit"])), counted=int(str(record["counted"])))
            for record in records]


def record_problem(records: object) -> str | None:
    """Why a count as stored (a list of `Line.as_record`) is not one, or None when it is: what an
    imported file's count must be."""
    if not isinstance(records, list):
        return "the count is not a list"
    for number, record in enumerate(records, start=1):
        if not isinstance(record, dict) or set(record) != {"name", "kit", "counted"}:
            return f"line {number} of the count is not a name, a kit's count and a count"
        if not isinstance(record["name"], str) or not record["name"].strip():
            return f"line {number} of the count has no name"
        for key in ("kit", "counted"):
            value = record[key]
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= COUNT_MAX:
                return f"line {number} of the count: {key} is not a whole number from 0 to {COUNT_MAX}"
    return None


def missing(lines: Iterable[Line]) -> list[Line]:
    """The items counted fewer than the kit says, in the kit's order."""
    return [line for line in lines if line.counted < line.kit]


@dataclass(frozen=True)
class Bringing:
    """Where the box is for a party: who has it now (None: never received), who should bring it
    to the party's host (None when its host has it already, or nobody is known), and whether it is
    with the host already (`ready`)."""

    holder: int | None
    brings: int | None
    ready: bool


def who_brings(*, holder: int | None, hosts: Collection[int], previous_host: int | None) -> Bringing:
    """Custody follows the hosting rotation: the host of the party before brings the box to this
    party's host (`hosts`: its host and co-host), or, with no party before, whoever has it now.
    Once this party's host has it, nobody needs to bring it."""
    if holder is not None and holder in hosts:
        return Bringing(holder=holder, brings=None, ready=True)
    brings = previous_host if previous_host is not None and previous_host not in hosts else holder
    return Bringing(holder=holder, brings=brings, ready=False)
