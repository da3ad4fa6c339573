"""A night's results: a party played, the sheets a night reports as the club's own records, and
whether a night counts towards the standings."""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from bunco_club.actions.common import locked_party, log_change
from bunco_club.actions.refusals import ClubError
from bunco_club.models import NAME_MAX, NightRecord, Party


@dataclass(frozen=True)
class NightSheet:
    """One player's figures for a party's night, as plain data from the night."""

    name: str
    wins: int = 0
    losses: int = 0
    buncos: int = 0
    prize_cents: int = 0
    prizes: Sequence[str] = field(default_factory=tuple)  # e.g. ("most_buncos",)
    member_id: int | None = None  # the club member, when the night knew it (else matched by name)


def _sheet(raw: NightSheet | Mapping[str, Any]) -> NightSheet:
    if isinstance(raw, NightSheet):
        sheet = raw
    else:
        data = dict(raw)
        member = data.pop("member", None)
        if member is not None and "member_id" not in data:
            data["member_id"] = member if isinstance(member, int) else getattr(member, "pk", None)
        try:
            sheet = NightSheet(**data)
        except TypeError as error:
            raise ClubError(_("A score sheet has fields the club doesn't know: %(error)s") % {"error": error}) from error
    for figure in ("wins", "losses", "buncos", "prize_cents"):
        value = getattr(sheet, figure)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ClubError(_("%(name)s's %(figure)s must be a whole number of 0 or more, not %(value)s.")
                            % {"name": sheet.name, "figure": figure.replace("_", " "), "value": repr(value)})
    return sheet


@transaction.atomic
def record_night_results(party: Party, sheets: Sequence[NightSheet | Mapping[str, Any]]) -> list[NightRecord]:
    """Store a party's night as the club's own records: one row per real player (ghosts never),
    with wins, losses, Buncos and prize money in cents. Calling it again for the same party
    (a corrected night) replaces that night's records. Members are matched by `member_id`/`member`
    or else by name in the party's club; a guest with no member record is kept by name."""
    given, party = party, locked_party(party)
    clean = [_sheet(sheet) for sheet in sheets]
    names = [" ".join(sheet.name.split()) for sheet in clean]
    if any(not name for name in names):
        raise ClubError(_("Every score sheet needs the player's name."))
    if len({name.casefold() for name in names}) != len(names):
        raise ClubError(_("The same player appears twice in the night's sheets."))
    members = {member.pk: member for member in party.club.members.all()}
    by_name = {member.name.casefold(): member for member in members.values()}
    party.records.all().delete()
    records = []
    for sheet, name in zip(clean, names, strict=True):
        member = members.get(sheet.member_id) if sheet.member_id is not None else None
        member = member or by_name.get(name.casefold())
        records.append(NightRecord(party=party, member=member, name=name[:NAME_MAX], wins=sheet.wins,
                                   losses=sheet.losses, buncos=sheet.buncos, prize_cents=sheet.prize_cents,
                                   prizes=", ".join(sheet.prizes)[:200]))
    stored = NightRecord.objects.bulk_create(records)
    # Sheets come from a night that has ended (a night reports its end first): kept true for
    # sheets recorded by other means too.
    _mark_played(party, given, at=timezone.now())
    log_change(party.club_id, "results", party=party.pk)
    return stored


@transaction.atomic
def record_night_played(party: Party, *, ended_at: datetime.datetime) -> Party:
    """A party's night has ended (its last round closed, or the host ended it early): the party is
    played from now on, on every list at once, whatever its date says (issue 42, C1); its sheets
    follow when the prizes are worked out (`record_night_results`). A night re-opened to correct a
    table and ended again keeps the first end: the party was played then."""
    locked = locked_party(party)
    if _mark_played(locked, party, at=ended_at):
        log_change(locked.club_id, "party", party=locked.pk, what="played")
    return locked


def _mark_played(locked: Party, given: Party, *, at: datetime.datetime) -> bool:
    """`locked` (the party's row, locked) is played from `at` unless it was already; the caller's
    copy `given` says played too. Whether it changed."""
    changed = locked.played_at is None
    if changed:
        locked.played_at = at
        locked.save(update_fields=["played_at"])
    given.played_at = locked.played_at
    return changed


@transaction.atomic
def set_night_counts(party: Party, *, counts: bool) -> Party:
    """A host marks a past night as (not) counting towards the standings."""
    if counts == party.counts:
        return party
    party.counts = counts
    party.save(update_fields=["counts"])
    log_change(party.club_id, "results", party=party.pk)
    return party
