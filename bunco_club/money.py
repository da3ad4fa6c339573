"""The club's money as pure rules (standard library only): an amount a person typed read in whole
cents, a buy-in's state read from its entries, and a statement added up from ledger lines.

Money is integer cents, signed as the float sees it: money in (a buy-in paid, dues) is positive,
money out (a payout, a supply bought) negative. A balance is a sum of entries, never a stored total
(docs/DESIGN.md §3, §9): these functions add up what they are given and keep nothing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

# The kinds of entry (LedgerEntry.Kind's values): the buy-in's four, then the rest.
BUY_IN_CASH = "buy_in_cash"
BUY_IN_OTHER = "buy_in_other"
BUY_IN_WAIVED = "buy_in_waived"
BUY_IN_OWED = "buy_in_owed"
PAYOUT = "payout"
SUPPLY = "supply"
DUES = "dues"
ADJUSTMENT = "adjustment"
BUY_IN_KINDS = (BUY_IN_CASH, BUY_IN_OTHER, BUY_IN_WAIVED, BUY_IN_OWED)
PAID_KINDS = (BUY_IN_CASH, BUY_IN_OTHER)
# A buy-in that keeps a member's seat under "paid tonight keeps your seat next month": paid, or
# waived by the host.
SETTLED_KINDS = (BUY_IN_CASH, BUY_IN_OTHER, BUY_IN_WAIVED)

# How a tie for a prize was settled (the payout's `tie_rule`): outright, shared, rolled off, drawn.
TIE_NONE = ""
TIE_SPLIT = "split"
TIE_ROLL_OFF = "roll_off"
TIE_DRAWN = "drawn"
TIE_RULES = (TIE_NONE, TIE_SPLIT, TIE_ROLL_OFF, TIE_DRAWN)

# The most one entry may carry, in whole units of money (10,000.00): a club's envelope, not a bank.
MAX_UNITS = 10_000


class BadAmount(ValueError):
    """An amount that is not whole money in the expected spelling; `reason` says which way."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# Why an amount is refused (the view says it in words, in the reader's language).
EMPTY, FORMAT, TOO_BIG, ZERO = "empty", "format", "too_big", "zero"


def parse_amount(raw: str, *, decimal_separator: str = ".", allow_zero: bool = False) -> int:
    """`raw` read as a positive amount in whole cents: ASCII digits, then optionally the reader's
    decimal separator and exactly two digits ("5", "5.50" in English, "5,50" in Spanish). No sign,
    no exponent, no grouping, no other script's digits: anything else is refused (BadAmount), so
    "1e9", "-5", "5,00" in English, "²" and twenty digits never become money."""
    text = str(raw).strip()
    if not text:
        raise BadAmount(EMPTY)
    pattern = rf"([0-9]{{1,6}})(?:{re.escape(decimal_separator)}([0-9]{{2}}))?"
    found = re.fullmatch(pattern, text, flags=re.ASCII)
    if found is None:
        raise BadAmount(FORMAT)
    units, cents = int(found.group(1)), int(found.group(2) or 0)
    if units > MAX_UNITS or (units == MAX_UNITS and cents):
        raise BadAmount(TOO_BIG)
    amount = units * 100 + cents
    if amount == 0 and not allow_zero:
        raise BadAmount(ZERO)
    return amount


def cents_text(cents: int, *, decimal_separator: str = ".") -> str:
    """An amount of cents as digits ("-12.50"), as the CSV and the amount fields write it."""
    sign = "-" if cents < 0 else ""
    units, rest = divmod(abs(cents), 100)
    return f"{sign}{units}{decimal_separator}{rest:02d}"


@dataclass(frozen=True)
class BuyInState:
    """A member's buy-in for one party, read from its live entries (those neither reversed nor
    reversals), oldest first: the last says how it stands; an owed buy-in followed by a payment
    was settled late."""

    kind: str = ""  # one of BUY_IN_KINDS, "" when nothing is recorded
    settled_late: bool = False

    @property
    def is_paid(self) -> bool:
        return self.kind in PAID_KINDS

    @property
    def keeps_seat(self) -> bool:
        return self.kind in SETTLED_KINDS


def buy_in_state(kinds: Iterable[str]) -> BuyInState:
    """How a buy-in stands from the kinds of its live entries, oldest first."""
    listed = [kind for kind in kinds if kind in BUY_IN_KINDS]
    if not listed:
        return BuyInState()
    last = listed[-1]
    return BuyInState(kind=last, settled_late=last in PAID_KINDS and BUY_IN_OWED in listed[:-1])


@dataclass(frozen=True)
class Line:
    """One ledger entry as a statement reads it."""

    kind: str
    amount: int  # cents, signed as the float sees it
    member: str = ""  # the member's (or guest's) name, "" for the club's own


@dataclass
class PersonFigures:
    """One person's season: what they paid in (buy-ins and dues), what they won, what they owe."""

    name: str
    paid_in: int = 0
    won: int = 0
    owes: int = 0  # buy-ins still owed (a count: the caller reads it off the buy-ins' states)

    @property
    def net(self) -> int:
        """Won less paid in: what the season gave them."""
        return self.won - self.paid_in


@dataclass
class Statement:
    """A season's money, added up from its entries (every one: reversals cancel what they reverse)."""

    paid_in: int = 0  # buy-ins paid and dues
    paid_out: int = 0  # payouts (positive: what went out)
    supplies: int = 0  # supplies bought (positive: what went out)
    adjustments: int = 0  # signed
    people: dict[str, PersonFigures] = field(default_factory=dict)

    @property
    def net(self) -> int:
        """What the season added to the float (negative: what it took from it)."""
        return self.paid_in - self.paid_out - self.supplies + self.adjustments

    def rows(self) -> list[PersonFigures]:
        return sorted(self.people.values(), key=lambda person: person.name.casefold())


def statement(lines: Iterable[Line]) -> Statement:
    """The season's figures from its entries: for the club, and for each person named."""
    totals = Statement()
    for line in lines:
        person = totals.people.setdefault(line.member, PersonFigures(line.member)) if line.member else None
        if line.kind in (*PAID_KINDS, DUES):
            totals.paid_in += line.amount
            if person is not None:
                person.paid_in += line.amount
        elif line.kind == PAYOUT:
            totals.paid_out -= line.amount
            if person is not None:
                person.won -= line.amount
        elif line.kind == SUPPLY:
            totals.supplies -= line.amount
        elif line.kind == ADJUSTMENT:
            totals.adjustments += line.amount
    return totals
