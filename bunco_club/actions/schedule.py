"""Seasons and parties: a season's dates (by hand or by a monthly rule), a party added, edited or
cancelled."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.dateformat import format as date_format
from django.utils.translation import gettext as _

from bunco_club import rotation
from bunco_club.actions.common import (
    clean_name,
    clean_text,
    enqueue_mail,
    figure,
    locked_club,
    locked_party,
    log_change,
    touch_party,
)
from bunco_club.actions.refusals import ClubError
from bunco_club.models import NOTES_MAX, PLACE_MAX, Club, Member, Party, Season, SubInvitation
from live.refusals import NotNow


def _at(club: Club, day: datetime.date, time: datetime.time | None = None) -> datetime.datetime:
    return club.at(day, time or club.usual_time)


@transaction.atomic
def create_season(club: Club, *, name: str, starts: Sequence[datetime.datetime]) -> Season:
    """A season and a party at each of its dates (at the club's usual place)."""
    clean = clean_name(name, "season name")
    if club.seasons.filter(name__iexact=clean).exists():
        raise ClubError(_("The club already has a season called “%(name)s”.") % {"name": clean})
    if not starts:
        raise ClubError(_("A season needs at least one date."))
    if len(starts) > settings.SEASON_MAX_PARTIES:
        raise ClubError(_("A season has %(most)s dates at most, and this one has %(count)s: split them into two "
                          "seasons.") % {"most": settings.SEASON_MAX_PARTIES, "count": len(starts)})
    locked_club(club)
    _check_party_room(club, adding=len(starts))
    days = sorted(club.local(start).date() for start in starts)
    for earlier, later in zip(days, days[1:], strict=False):
        if earlier == later:
            raise ClubError(_("%(day)s is in the season twice.") % {"day": date_format(later, "D d M Y")})
    season = Season.objects.create(club=club, name=clean)
    Party.objects.bulk_create(
        [Party(club=club, season=season, starts_at=start, location=club.place) for start in sorted(starts)]
    )
    log_change(club, "season", season=season.pk)
    return season


def season_by_rule(club: Club, *, name: str, first_month: datetime.date, months: int, nth: int, weekday: int,
                   time: datetime.time | None = None) -> Season:
    """"The third Friday of every month, 7 pm" for `months` months."""
    try:
        days = rotation.monthly_dates(first_month, months, nth=nth, weekday=weekday)
    except rotation.RotationError as error:
        raise ClubError(error.args[0]) from error
    return create_season(club, name=name, starts=[_at(club, day, time) for day in days])


def _check_party_room(club: Club, *, adding: int = 1) -> None:
    """Refuse more parties for a club that would pass settings.CLUB_MAX_PARTIES."""
    most = settings.CLUB_MAX_PARTIES
    count = club.parties.count()
    if count + adding > most:
        room = max(0, most - count)
        raise ClubError(_("%(club)s has %(count)s parties, and a club keeps %(most)s at most (past and cancelled "
                          "ones count: they stay for its history): there is room for %(room)s more.")
                        % {"club": club.name, "count": figure(count), "most": figure(most), "room": figure(room)})


def _check_season_room(season: Season) -> None:
    """Refuse one more party for a season that has settings.SEASON_MAX_PARTIES already."""
    most = settings.SEASON_MAX_PARTIES
    if season.parties.count() >= most:
        raise ClubError(_("The season %(season)s has %(most)s dates already, the most a season may: put this date "
                          "in another season, or in none.") % {"season": season.name, "most": most})


@transaction.atomic
def add_party(club: Club, *, starts_at: datetime.datetime, season: Season | None = None, location: str | None = None,
              notes: str = "", host: Member | None = None, cohost: Member | None = None) -> Party:
    """A date chosen by hand (with its host, if the host knows already)."""
    if season is not None and season.club_id != club.pk:
        raise ClubError(_("That season belongs to another club."))
    location = club.place if location is None else clean_text(location, "address", PLACE_MAX)
    notes = clean_text(notes, "notes", NOTES_MAX)
    for member in (host, cohost):
        if member is not None and (member.club_id != club.pk or not member.is_active):
            raise ClubError(_("%(name)s is not on this club's roster.") % {"name": member.name})
    if cohost is not None and (host is None or host.pk == cohost.pk):
        raise ClubError(_("Pick the host before a co-host, and two different people."))
    day = club.local(starts_at).date()
    nearby = club.parties.filter(starts_at__range=(starts_at - datetime.timedelta(days=1),
                                                   starts_at + datetime.timedelta(days=1))).select_related("club")
    if any(other.day == day for other in nearby):
        raise ClubError(_("The club already has a party on %(day)s.") % {"day": date_format(day, "D d M Y")})
    locked_club(club)
    _check_party_room(club)
    if season is not None:
        _check_season_room(season)
    party = Party.objects.create(club=club, season=season, starts_at=starts_at, host=host, cohost=cohost,
                                 location=location, notes=notes)
    log_change(club, "party", party=party.pk)
    return party


_KEEP = object()  # edit_party's "leave the season as it is"


@transaction.atomic
def edit_party(party: Party, *, starts_at: datetime.datetime, location: str, notes: str = "",
               host: Member | None = None, cohost: Member | None = None, season: Any = _KEEP) -> Party:
    """The host edits a party by hand (time, place, notes, who hosts, its season). A new time or
    place is mailed to the members who said they are coming."""
    location, notes = clean_text(location, "address", PLACE_MAX), clean_text(notes, "notes", NOTES_MAX)
    party = Party.objects.select_for_update().select_related("club").get(pk=party.pk)
    if season is not _KEEP and season is not None and season.club_id != party.club_id:
        raise ClubError(_("That season belongs to another club."))
    if season is not _KEEP and season is not None and season.pk != party.season_id:
        locked_club(party.club)
        _check_season_room(season)
    if party.is_cancelled:
        raise NotNow(_("This party is cancelled: add a new date instead."))
    for member in (host, cohost):
        if member is not None and (member.club_id != party.club_id or not member.is_active):
            raise ClubError(_("%(name)s is not on this club's roster.") % {"name": member.name})
    if host is not None and cohost is not None and host.pk == cohost.pk:
        raise ClubError(_("The host and co-host must be two different people."))
    if cohost is not None and host is None:
        raise ClubError(_("Pick the host before a co-host."))
    before = (party.starts_at, party.location, party.host_id, party.cohost_id)
    moved = (party.starts_at, party.location) != (starts_at, location)
    party.starts_at, party.location, party.notes = starts_at, location, notes
    party.host, party.cohost = host, cohost
    fields = ["starts_at", "location", "notes", "host", "cohost"]
    if season is not _KEEP:
        party.season = season
        fields.append("season")
    if before != (party.starts_at, party.location, party.host_id, party.cohost_id):
        touch_party(party, fields)
    else:
        party.save(update_fields=fields)
    if moved:
        # Who said yes or maybe is told once the edit commits, with what the party was (issue 29, C7).
        enqueue_mail("send_party_changed", party.pk, was_starts_at=before[0].isoformat(), was_location=before[1])
    log_change(party.club_id, "party", party=party.pk)
    return party


@transaction.atomic
def cancel_party(party: Party) -> Party:
    """The party is off: it stays in the calendars as cancelled, open sub invitations lapse, and
    every member is told by email."""
    party = locked_party(party)
    if party.is_cancelled:
        raise NotNow(_("This party is cancelled already."))
    if party.is_past:
        raise NotNow(_("This party is over: there is nothing to cancel."))
    party.cancelled_at = timezone.now()
    party.open_seats = 0
    touch_party(party, ["cancelled_at", "open_seats"])
    party.sub_invitations.filter(status=SubInvitation.Status.INVITED).update(status=SubInvitation.Status.TOO_LATE,
                                                                             answered_at=party.cancelled_at)
    enqueue_mail("send_party_cancelled", party.pk)
    log_change(party.club_id, "party", party=party.pk)
    return party
