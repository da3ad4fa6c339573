"""Workflows of a club: each is atomic, logs an event on the club's channel and changes nothing
when it refuses (docs/DESIGN.md §3).

Errors are `ClubError`s, or the refusals every app shares (live.refusals: NotNow, KeyReused),
carrying the HTTP status a view should answer with and a message for people. Emails (substitute
invitations, swap requests, a party's change or cancellation) are enqueued on commit
(bunco_club.tasks: a worker when scaled, eagerly in the embedded default); the tasks send them
through bunco_club.mail, one floor below, which records each so it goes once, and whose
`send_due_reminders` sweeps up anything an enqueue lost.
"""

from __future__ import annotations

import datetime
import zoneinfo
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.text import slugify

from bunco_club import rotation, tasks
from bunco_club.models import (
    CLUB_NAME_MAX,
    EMAIL_MAX,
    NAME_MAX,
    NOTES_MAX,
    PHONE_MAX,
    PLACE_MAX,
    RSVP,
    RSVP_NOTE_MAX,
    Blackout,
    Club,
    Member,
    NightRecord,
    Party,
    RSVPRequest,
    Season,
    SubInvitation,
    SwapRequest,
)
from games.rules import bunco
from live.log import log_event
from live.refusals import KeyReused, NotNow, Refusal
from live.text import has_control_characters, well_formed_key


class ClubError(Refusal):
    """A request the club cannot take; `status` is the HTTP answer, the message is for people."""

    status = 400


def _changed(club: Club | int, kind: str, **data: Any) -> None:
    """Append to the club's event log (channel `club:<id>`), published on commit."""
    club_id = club if isinstance(club, int) else club.pk
    log_event(f"club:{club_id}", kind, data)


# --- Clubs ------------------------------------------------------------------------------------

# A club's house rules: the night's (named by the engine) and how the pot is cut.
RULE_FIELDS = (*bunco.RULE_FIELDS, "one_prize_each", "split_ties", "prize_amounts")
CLUB_FIELDS = ("name", "place", "usual_time", "time_zone", "buy_in_cents", "rsvp_nudge_days", *RULE_FIELDS)


def _clean_name(raw: str, what: str = "name", limit: int = NAME_MAX) -> str:
    name = " ".join(str(raw).split())
    if not name:
        raise ClubError(f"Write a {what}.")
    if len(name) > limit:
        raise ClubError(f"“{name[:limit]}…” is too long for a {what} ({limit} letters at most).")
    return name


def _clean_text(raw: str, what: str, limit: int) -> str:
    """Text a host typed (an address, a phone number, a party's notes), trimmed; refused when
    longer than its cap (bunco_club.models), before anything is saved."""
    text = str(raw).strip()
    if len(text) > limit:
        raise ClubError(f"Shorten the {what}: {limit:,} characters at most, and this has {len(text):,}.")
    return text


def _clean_club_fields(fields: dict[str, Any]) -> dict[str, Any]:
    if "name" in fields:
        fields["name"] = _clean_name(fields["name"], "club name", CLUB_NAME_MAX)
    if "place" in fields:
        fields["place"] = _clean_text(fields["place"], "usual place", PLACE_MAX)
    if "time_zone" in fields and fields["time_zone"] not in zoneinfo.available_timezones():
        raise ClubError("Pick the club's time zone from the list, like America/Chicago.")
    return fields


def _check_hosting_room(user: Any, *, club: Club | None = None, yourself: bool = True) -> None:
    """Refuse one more club for an account that hosts settings.CLUB_MAX_PER_HOST already (`club`:
    the club it would host, not counted)."""
    most = settings.CLUB_MAX_PER_HOST
    hosted = Club.objects.filter(hosts=user)
    if club is not None:
        hosted = hosted.exclude(pk=club.pk)
    if hosted.count() < most:
        return
    if yourself:
        raise ClubError(f"You host {most} clubs already, the most one account may: hand one of them to another "
                        "host and leave it before you start another.")
    raise ClubError(f"{user.get_username()} hosts {most} clubs already, the most one account may: they need to "
                    "leave one of them first.")


RESERVED_SLUGS = frozenset({"new", "me", "calendar"})  # the club URLs' own words


def _unique_slug(name: str) -> str:
    base = (slugify(name) or "club")[:40]
    slug, number = base, 1
    while slug in RESERVED_SLUGS or Club.objects.filter(slug=slug).exists():
        number += 1
        slug = f"{base}-{number}"
    return slug


@transaction.atomic
def create_club(*, user: Any, name: str, **fields: Any) -> Club:
    """A new club; its creator becomes its host. `fields`: any of CLUB_FIELDS."""
    if not getattr(user, "is_authenticated", False):
        raise ClubError("Log in to start a club: its host needs an account.")
    unknown = set(fields) - set(CLUB_FIELDS)
    if unknown:
        raise TypeError(f"create_club got unknown fields {sorted(unknown)}")
    clean = _clean_name(name, "club name", CLUB_NAME_MAX)
    fields = _clean_club_fields(fields)
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()  # one new club at a time per account
    _check_hosting_room(user)
    club = Club.objects.create(name=clean, slug=_unique_slug(clean), **fields)
    club.hosts.add(user)
    _changed(club, "club", what="created")
    return club


@transaction.atomic
def update_club(club: Club, **fields: Any) -> Club:
    """Change the club's name, place, time, buy-in, nudge days or house rules."""
    unknown = set(fields) - set(CLUB_FIELDS)
    if unknown:
        raise TypeError(f"update_club got unknown fields {sorted(unknown)}")
    fields = _clean_club_fields(fields)
    for name, value in fields.items():
        setattr(club, name, value)
    club.save(update_fields=list(fields))
    _changed(club, "club", what="updated")
    return club


@transaction.atomic
def add_cohost(club: Club, username: str) -> Any:
    """Give another account the club's keys."""
    user = get_user_model().objects.filter(username=username.strip()).first()
    if user is None:
        raise ClubError(f"There is no account with the username “{username.strip()}”. They need to sign up first.")
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    _check_hosting_room(user, club=club, yourself=False)
    club.hosts.add(user)
    _changed(club, "club", what="cohost")
    return user


@transaction.atomic
def remove_cohost(club: Club, user: Any) -> None:
    if not club.hosts.filter(pk=user.pk).exists():
        raise ClubError(f"{user.get_username()} doesn't host this club.")
    if club.hosts.count() <= 1:
        raise ClubError("A club needs at least one host: add another host before leaving.")
    club.hosts.remove(user)
    _changed(club, "club", what="cohost")


def _locked_club(club: Club) -> None:
    """Take the club's row lock: what counts its members or parties before adding one goes one at a time."""
    Club.objects.select_for_update().filter(pk=club.pk).first()


# --- The roster -------------------------------------------------------------------------------


def _check_name_free(club: Club, name: str, *, but: Member | None = None) -> None:
    taken = club.members.filter(name__iexact=name)
    if but is not None:
        taken = taken.exclude(pk=but.pk)
    if taken.exists():
        raise ClubError(f"“{name}” is already on the roster: add a surname or an initial.")


def _next_sub_order(club: Club) -> int:
    last = club.members.filter(is_alternate=True).order_by("-sub_order").values_list("sub_order", flat=True).first()
    return (last or 0) + 1


def _check_roster_room(club: Club) -> None:
    """Refuse one more member for a club whose roster holds settings.CLUB_MAX_MEMBERS already."""
    most = settings.CLUB_MAX_MEMBERS
    if club.members.count() >= most:
        raise ClubError(f"{club.name} has {most} members already (retired ones count: they stay for the club's "
                        "history), the most a club may: start a second club for the others.")


@transaction.atomic
def add_member(club: Club, *, name: str, email: str = "", phone: str = "", alternate: bool = False) -> Member:
    """A regular, or an alternate at the end of the sub list."""
    clean = _clean_name(name)
    email, phone = _clean_text(email, "email address", EMAIL_MAX), _clean_text(phone, "phone number", PHONE_MAX)
    _locked_club(club)
    _check_roster_room(club)
    _check_name_free(club, clean)
    member = Member.objects.create(
        club=club, name=clean, email=email, phone=phone, is_alternate=alternate,
        sub_order=_next_sub_order(club) if alternate else 0,
    )
    _changed(club, "roster", member=member.pk)
    return member


@transaction.atomic
def edit_member(member: Member, *, name: str, email: str = "", phone: str = "") -> Member:
    clean = _clean_name(name)
    email, phone = _clean_text(email, "email address", EMAIL_MAX), _clean_text(phone, "phone number", PHONE_MAX)
    _check_name_free(member.club, clean, but=member)
    member.name, member.email, member.phone = clean, email, phone
    member.save(update_fields=["name", "email", "phone"])
    _changed(member.club_id, "roster", member=member.pk)
    return member


def _sub_list(club: Club) -> list[Member]:
    """The sub list locked and renumbered 1..n (its order kept)."""
    subs = list(club.members.alternates().select_for_update())
    for number, sub in enumerate(subs, start=1):
        if sub.sub_order != number:
            sub.sub_order = number
            sub.save(update_fields=["sub_order"])
    return subs


@transaction.atomic
def move_sub(member: Member, *, up: bool) -> None:
    """Move an alternate one place up (towards first invited) or down the sub list."""
    if not member.is_alternate or not member.is_active:
        raise ClubError(f"{member.name} is not on the sub list.")
    subs = _sub_list(member.club)
    index = next(i for i, sub in enumerate(subs) if sub.pk == member.pk)
    other = index - 1 if up else index + 1
    if not 0 <= other < len(subs):
        raise ClubError(f"{member.name} is already {'first' if up else 'last'} on the sub list.")
    a, b = subs[index], subs[other]
    a.sub_order, b.sub_order = b.sub_order, a.sub_order
    a.save(update_fields=["sub_order"])
    b.save(update_fields=["sub_order"])
    _changed(member.club_id, "roster", member=member.pk)


@transaction.atomic
def promote(member: Member) -> Member:
    """An alternate becomes a regular."""
    if not member.is_active:
        raise ClubError(f"{member.name} is retired: bring them back first.")
    if not member.is_alternate:
        raise ClubError(f"{member.name} is already a regular.")
    member.is_alternate = False
    member.save(update_fields=["is_alternate"])
    _sub_list(member.club)
    _changed(member.club_id, "roster", member=member.pk)
    return member


@transaction.atomic
def make_alternate(member: Member) -> Member:
    """A regular moves to the end of the sub list (their co-host pair is split)."""
    if not member.is_active:
        raise ClubError(f"{member.name} is retired: bring them back first.")
    if member.is_alternate:
        raise ClubError(f"{member.name} is already on the sub list.")
    _split_pair(member)
    member.is_alternate = True
    member.sub_order = _next_sub_order(member.club)
    member.save(update_fields=["is_alternate", "sub_order"])
    _changed(member.club_id, "roster", member=member.pk)
    return member


@transaction.atomic
def retire(member: Member) -> Member:
    """Off the roster (kept for the club's history); their co-host pair is split."""
    if not member.is_active:
        raise ClubError(f"{member.name} is already retired.")
    _split_pair(member)
    member.is_active = False
    member.save(update_fields=["is_active"])
    if member.is_alternate:
        _sub_list(member.club)
    _changed(member.club_id, "roster", member=member.pk)
    return member


@transaction.atomic
def reinstate(member: Member) -> Member:
    """A retired member comes back (an alternate at the end of the sub list)."""
    if member.is_active:
        raise ClubError(f"{member.name} is on the roster already.")
    member.is_active = True
    if member.is_alternate:
        member.sub_order = _next_sub_order(member.club)
    member.save(update_fields=["is_active", "sub_order"])
    _changed(member.club_id, "roster", member=member.pk)
    return member


def _split_pair(member: Member) -> None:
    partner = Member.objects.filter(cohost=member).first()
    if partner is not None:
        partner.cohost = None
        partner.save(update_fields=["cohost"])
    if member.cohost_id is not None:
        member.cohost = None
        member.save(update_fields=["cohost"])


@transaction.atomic
def pair_cohosts(first: Member, second: Member) -> None:
    """Two regulars who host together: one slot in the rotation, both named on the party."""
    if first.club_id != second.club_id or first.pk == second.pk:
        raise ClubError("Pick two different members of the club.")
    for member in (first, second):
        if member.is_alternate or not member.is_active:
            raise ClubError(f"{member.name} is not a regular: only regulars host.")
        if member.cohost_id is not None or Member.objects.filter(cohost=member).exists():
            raise ClubError(f"{member.name} already hosts with someone: split that pair first.")
    first.cohost = second
    first.save(update_fields=["cohost"])
    second.cohost = first
    second.save(update_fields=["cohost"])
    _changed(first.club_id, "roster", member=first.pk)


@transaction.atomic
def split_cohosts(member: Member) -> None:
    if member.cohost_id is None:
        raise ClubError(f"{member.name} hosts alone already.")
    _split_pair(member)
    _changed(member.club_id, "roster", member=member.pk)


@transaction.atomic
def claim_member(member: Member, user: Any) -> Member:
    """A member who has an account links it to their member record (from their personal link): the
    club's pages then open for them wherever they log in. An account is optional."""
    if not getattr(user, "is_authenticated", False):
        raise ClubError("Log in first, then open your personal link again.")
    member = Member.objects.select_for_update().get(pk=member.pk)
    if member.user_id is not None and member.user_id != user.pk:
        raise NotNow(f"{member.name}'s record is linked to another account already: ask the club's host.")
    if member.club.members.filter(user=user).exclude(pk=member.pk).exists():
        raise NotNow("Your account is linked to another member of this club already.")
    member.user = user
    member.save(update_fields=["user"])
    _changed(member.club_id, "roster", member=member.pk)
    return member


@transaction.atomic
def reset_member_link(member: Member) -> Member:
    """A new personal link; the old one (and its calendar feed) stops working."""
    member.code = Member._meta.get_field("code").get_default()
    member.save(update_fields=["code"])
    return member


# --- Seasons, dates and the rotation ----------------------------------------------------------


def _at(club: Club, day: datetime.date, time: datetime.time | None = None) -> datetime.datetime:
    return club.at(day, time or club.usual_time)


@transaction.atomic
def create_season(club: Club, *, name: str, starts: Sequence[datetime.datetime]) -> Season:
    """A season and a party at each of its dates (at the club's usual place)."""
    clean = _clean_name(name, "season name")
    if club.seasons.filter(name__iexact=clean).exists():
        raise ClubError(f"The club already has a season called “{clean}”.")
    if not starts:
        raise ClubError("A season needs at least one date.")
    if len(starts) > settings.SEASON_MAX_PARTIES:
        raise ClubError(f"A season has {settings.SEASON_MAX_PARTIES} dates at most, and this one has {len(starts)}: "
                        "split them into two seasons.")
    _locked_club(club)
    _check_party_room(club, adding=len(starts))
    days = sorted(club.local(start).date() for start in starts)
    for earlier, later in zip(days, days[1:], strict=False):
        if earlier == later:
            raise ClubError(f"{later:%a %d %b %Y} is in the season twice.")
    season = Season.objects.create(club=club, name=clean)
    Party.objects.bulk_create(
        [Party(club=club, season=season, starts_at=start, location=club.place) for start in sorted(starts)]
    )
    _changed(club, "season", season=season.pk)
    return season


def season_by_rule(club: Club, *, name: str, first_month: datetime.date, months: int, nth: int, weekday: int,
                   time: datetime.time | None = None) -> Season:
    """"The third Friday of every month, 7 pm" for `months` months."""
    try:
        days = rotation.monthly_dates(first_month, months, nth=nth, weekday=weekday)
    except rotation.RotationError as error:
        raise ClubError(str(error)) from error
    return create_season(club, name=name, starts=[_at(club, day, time) for day in days])


def _check_party_room(club: Club, *, adding: int = 1) -> None:
    """Refuse more parties for a club that would pass settings.CLUB_MAX_PARTIES."""
    most = settings.CLUB_MAX_PARTIES
    count = club.parties.count()
    if count + adding > most:
        room = max(0, most - count)
        raise ClubError(f"{club.name} has {count:,} parties, and a club keeps {most:,} at most (past and cancelled "
                        f"ones count: they stay for its history): there is room for {room:,} more.")


def _check_season_room(season: Season) -> None:
    """Refuse one more party for a season that has settings.SEASON_MAX_PARTIES already."""
    most = settings.SEASON_MAX_PARTIES
    if season.parties.count() >= most:
        raise ClubError(f"The season {season.name} has {most} dates already, the most a season may: "
                        "put this date in another season, or in none.")


@transaction.atomic
def add_party(club: Club, *, starts_at: datetime.datetime, season: Season | None = None, location: str | None = None,
              notes: str = "", host: Member | None = None, cohost: Member | None = None) -> Party:
    """A date chosen by hand (with its host, if the host knows already)."""
    if season is not None and season.club_id != club.pk:
        raise ClubError("That season belongs to another club.")
    location = club.place if location is None else _clean_text(location, "address", PLACE_MAX)
    notes = _clean_text(notes, "notes", NOTES_MAX)
    for member in (host, cohost):
        if member is not None and (member.club_id != club.pk or not member.is_active):
            raise ClubError(f"{member.name} is not on this club's roster.")
    if cohost is not None and (host is None or host.pk == cohost.pk):
        raise ClubError("Pick the host before a co-host, and two different people.")
    day = club.local(starts_at).date()
    nearby = club.parties.filter(starts_at__range=(starts_at - datetime.timedelta(days=1),
                                                   starts_at + datetime.timedelta(days=1))).select_related("club")
    if any(other.day == day for other in nearby):
        raise ClubError(f"The club already has a party on {day:%a %d %b %Y}.")
    _locked_club(club)
    _check_party_room(club)
    if season is not None:
        _check_season_room(season)
    party = Party.objects.create(club=club, season=season, starts_at=starts_at, host=host, cohost=cohost,
                                 location=location, notes=notes)
    _changed(club, "party", party=party.pk)
    return party


def _touch(party: Party, fields: list[str]) -> None:
    """Save a change a calendar must see: SEQUENCE goes up, the UID stays."""
    party.sequence += 1
    party.save(update_fields=[*fields, "sequence"])


_KEEP = object()  # edit_party's "leave the season as it is"


@transaction.atomic
def edit_party(party: Party, *, starts_at: datetime.datetime, location: str, notes: str = "",
               host: Member | None = None, cohost: Member | None = None, season: Any = _KEEP) -> Party:
    """The host edits a party by hand (time, place, notes, who hosts, its season). A new time or
    place is mailed to the members who said they are coming."""
    location, notes = _clean_text(location, "address", PLACE_MAX), _clean_text(notes, "notes", NOTES_MAX)
    party = Party.objects.select_for_update().select_related("club").get(pk=party.pk)
    if season is not _KEEP and season is not None and season.club_id != party.club_id:
        raise ClubError("That season belongs to another club.")
    if season is not _KEEP and season is not None and season.pk != party.season_id:
        _locked_club(party.club)
        _check_season_room(season)
    if party.is_cancelled:
        raise NotNow("This party is cancelled: add a new date instead.")
    for member in (host, cohost):
        if member is not None and (member.club_id != party.club_id or not member.is_active):
            raise ClubError(f"{member.name} is not on this club's roster.")
    if host is not None and cohost is not None and host.pk == cohost.pk:
        raise ClubError("The host and co-host must be two different people.")
    if cohost is not None and host is None:
        raise ClubError("Pick the host before a co-host.")
    before = (party.starts_at, party.location, party.host_id, party.cohost_id)
    moved = (party.starts_at, party.location) != (starts_at, location)
    party.starts_at, party.location, party.notes = starts_at, location, notes
    party.host, party.cohost = host, cohost
    fields = ["starts_at", "location", "notes", "host", "cohost"]
    if season is not _KEEP:
        party.season = season
        fields.append("season")
    if before != (party.starts_at, party.location, party.host_id, party.cohost_id):
        _touch(party, fields)
    else:
        party.save(update_fields=fields)
    if moved:
        # Who said yes or maybe is told once the edit commits, with what the party was (issue 29, C7).
        _enqueue("send_party_changed", party.pk, was_starts_at=before[0].isoformat(), was_location=before[1])
    _changed(party.club_id, "party", party=party.pk)
    return party


@transaction.atomic
def cancel_party(party: Party) -> Party:
    """The party is off: it stays in the calendars as cancelled, open sub invitations lapse, and
    every member is told by email."""
    party = _locked_party(party)
    if party.is_cancelled:
        raise NotNow("This party is cancelled already.")
    if party.is_past:
        raise NotNow("This party is over: there is nothing to cancel.")
    party.cancelled_at = timezone.now()
    party.open_seats = 0
    _touch(party, ["cancelled_at", "open_seats"])
    party.sub_invitations.filter(status=SubInvitation.Status.INVITED).update(status=SubInvitation.Status.TOO_LATE,
                                                                             answered_at=party.cancelled_at)
    _enqueue("send_party_cancelled", party.pk)
    _changed(party.club_id, "party", party=party.pk)
    return party


@transaction.atomic
def note_site_address(club: Club, address: str) -> None:
    """Remember the address (scheme://host[:port]) a host of the club reached the site at: emails
    and calendar entries link there (unless settings.SITE_URL says otherwise)."""
    address = address.rstrip("/")[:200]
    if address and address != club.site_address:
        Club.objects.filter(pk=club.pk).update(site_address=address)
        club.site_address = address


@transaction.atomic
def set_blackouts(member: Member, days: Iterable[datetime.date]) -> None:
    """The dates a member can't host (replacing the ones they had)."""
    wanted = set(days)
    member.blackouts.exclude(date__in=wanted).delete()
    have = set(member.blackouts.values_list("date", flat=True))
    Blackout.objects.bulk_create([Blackout(member=member, date=day) for day in sorted(wanted - have)])
    _changed(member.club_id, "roster", member=member.pk)


def _hosting_units(club: Club) -> list[tuple[Member, Member | None]]:
    """The regulars as rotation slots: a co-host pair is one slot (roster order of the first)."""
    units: list[tuple[Member, Member | None]] = []
    placed: set[int] = set()
    regulars = list(club.members.regulars().select_related("cohost"))
    active = {member.pk for member in regulars}
    for member in regulars:
        if member.pk in placed:
            continue
        partner = member.cohost if member.cohost_id in active else None
        units.append((member, partner))
        placed.update({member.pk, *([partner.pk] if partner else [])})
    return units


@transaction.atomic
def assign_hosts(season: Season, *, now: datetime.datetime | None = None) -> list[Party]:
    """Give every party of the season still to come a host by the fair rotation (rotation.py):
    past parties keep theirs and count as hostings, like earlier seasons do; co-hosts host
    together. Returns the parties planned."""
    now = now or timezone.now()
    club = season.club
    units = _hosting_units(club)
    if not units:
        raise ClubError("Add the club's regular members before planning who hosts.")
    parties = list(season.parties.select_for_update().filter(starts_at__gte=now, cancelled_at__isnull=True)
                   .select_related("club").order_by("starts_at"))
    if not parties:
        raise NotNow("Every party of this season is over: there is nothing left to plan.")
    keys = [str(first.pk) for first, _ in units]
    by_key = dict(zip(keys, units, strict=True))
    away: dict[int, set[datetime.date]] = {}
    for blackout in Blackout.objects.filter(member__club=club):
        away.setdefault(blackout.member_id, set()).add(blackout.date)
    earlier = club.parties.filter(starts_at__lt=parties[0].starts_at, cancelled_at__isnull=True)
    blackouts = {}
    hosted_before = {}
    for key, (first, second) in by_key.items():
        people = [first.pk] + ([second.pk] if second else [])
        blackouts[key] = set().union(*(away.get(pk, set()) for pk in people))
        hosted_before[key] = earlier.filter(Q(host_id__in=people) | Q(cohost_id__in=people)).count()
    plan = rotation.plan_rotation(keys, [party.day for party in parties],
                                  blackouts=blackouts, hosted_before=hosted_before)
    for party, planned in zip(parties, plan, strict=True):
        host, cohost = by_key[planned] if planned is not None else (None, None)
        if (party.host_id, party.cohost_id) != (getattr(host, "pk", None), getattr(cohost, "pk", None)):
            party.host, party.cohost = host, cohost
            _touch(party, ["host", "cohost"])
    _changed(club, "season", season=season.pk)
    return parties


# --- Swap requests ----------------------------------------------------------------------------


@transaction.atomic
def request_swap(requester: Member, *, give: Party, take: Party) -> SwapRequest:
    """`requester` asks the host of `take` to swap dates with them."""
    if give.club_id != requester.club_id or take.club_id != requester.club_id:
        raise ClubError("Both parties must be this club's.")
    if not give.is_hosted_by_member(requester):
        raise ClubError("You can only offer a date you host.")
    if give.pk == take.pk:
        raise ClubError("Pick someone else's date to swap with.")
    if take.host is None or take.is_hosted_by_member(requester):
        raise ClubError("That date has no other host to swap with.")
    if give.is_past or take.is_past:
        raise NotNow("Only dates still to come can be swapped.")
    if SwapRequest.objects.filter(give=give, take=take, status=SwapRequest.Status.PENDING).exists():
        raise NotNow("You have already asked for this swap: wait for the answer.")
    _check_not_away(give, take)
    swap = SwapRequest.objects.create(requested_by=requester, asked=take.host, give=give, take=take)
    _changed(requester.club_id, "swap", swap=swap.pk)
    _enqueue("send_swap_request", swap.pk)
    return swap


def _hosts_of(party: Party) -> list[Member]:
    return [member for member in (party.host, party.cohost) if member is not None]


def _check_not_away(give: Party, take: Party) -> None:
    """A swap never makes anyone host on a date they marked as away: the hosts of `give` would
    host on `take`'s date and those of `take` on `give`'s."""
    for party, other in ((give, take), (take, give)):
        for member in _hosts_of(other):
            if member.blackouts.filter(date=party.day).exists():
                raise NotNow(f"{member.name} is away on {party.day:%a %d %b %Y}: this swap would make "
                                  f"them host that day. Pick another date, or change their dates away first.")


@transaction.atomic
def answer_swap(swap: SwapRequest, *, member: Member, accept: bool) -> SwapRequest:
    """The asked member accepts (the two parties swap hosts) or declines."""
    swap = SwapRequest.objects.select_for_update().select_related("give", "take").get(pk=swap.pk)
    if member.pk != swap.asked_id:
        raise ClubError("Only the member asked can answer this swap.", )
    if swap.status != SwapRequest.Status.PENDING:
        raise NotNow(f"This swap was already answered: {swap.get_status_display().lower()}.")
    if not accept:
        swap.status = SwapRequest.Status.DECLINED
        swap.save(update_fields=["status"])
        _changed(member.club_id, "swap", swap=swap.pk)
        return swap
    give, take = (Party.objects.select_for_update().get(pk=pk) for pk in (swap.give_id, swap.take_id))
    if not give.is_hosted_by_member(swap.requested_by) or not take.is_hosted_by_member(member):
        raise NotNow("The hosts of these dates have changed since the swap was asked: it can't go ahead.")
    if give.is_past or take.is_past:
        raise NotNow("One of these dates is over: it can't be swapped any more.")
    _check_not_away(give, take)
    give.host, give.cohost, take.host, take.cohost = take.host, take.cohost, give.host, give.cohost
    _touch(give, ["host", "cohost"])
    _touch(take, ["host", "cohost"])
    swap.status = SwapRequest.Status.ACCEPTED
    swap.save(update_fields=["status"])
    _changed(member.club_id, "swap", swap=swap.pk)
    return swap


# --- RSVPs and substitutes --------------------------------------------------------------------


def _locked_party(party: Party) -> Party:
    return Party.objects.select_for_update().select_related("club").get(pk=party.pk)


RSVP_KEY_REUSED = ("This answer carries the key of an earlier answer with other content, so it was not taken. "
                   "Reload the page and answer again.")


@transaction.atomic
def answer_rsvp(party: Party, member: Member, answer: str, *, note: str | None = None, key: str | None = None) -> RSVP:
    """A member answers yes / no / maybe, with a note for the host ("bringing dessert") if they like.

    Every "no" from a regular gives their seat to the sub list, as does a "maybe" after a "yes"
    (once: `RSVP.gave_up_seat`): the first alternate in sub-list order is invited to it. A "yes"
    takes a given-up seat back while no alternate has taken it.

    `key` is the request's idempotency key: the same key with the same answer and note is a
    retry (nothing changes); the same key with anything else is refused (KeyReused, 409)."""
    if answer not in RSVP.Answer.values:
        raise ClubError("Answer yes, no or maybe.")
    clean_note = None if note is None else " ".join(str(note).split())
    if clean_note is not None and len(clean_note) > RSVP_NOTE_MAX:
        raise ClubError(f"A note is {RSVP_NOTE_MAX} letters at most.")
    if clean_note is not None and has_control_characters(clean_note):
        raise ClubError("The note holds a character that is not a letter, a digit or a sign (a control "
                        "character): write it again.")
    if key is not None and not well_formed_key(key):
        raise ClubError("This answer's key is not valid: reload the page and answer again.")
    party = _locked_party(party)
    if member.club_id != party.club_id or not member.is_active:
        raise ClubError("Only the club's members answer for its parties.")
    rsvp = RSVP.objects.filter(party=party, member=member).first()
    if key is not None:
        sent = RSVPRequest.objects.filter(member=member, key=key).first()
        if sent is not None:
            if (sent.party_id, sent.answer, sent.note) != (party.pk, answer, clean_note or ""):
                raise KeyReused(RSVP_KEY_REUSED)
            if rsvp is not None:
                return rsvp  # a retry of an answer taken already
    if party.is_cancelled:
        raise NotNow("This party is cancelled: there is nothing to answer.")
    if party.is_past:
        raise NotNow("This party is over: answers are closed.")
    before = rsvp.answer if rsvp else None
    if member.is_alternate and before != RSVP.Answer.YES:
        raise ClubError("You're on the sub list: when a seat opens you'll be invited by email, "
                        "and you answer from the invitation.")
    if rsvp is None:
        rsvp = RSVP(party=party, member=member)
    rsvp.answer = answer
    if clean_note is not None:
        rsvp.note = clean_note
    gives_up = not rsvp.gave_up_seat and (answer == RSVP.Answer.NO or
                                         (answer == RSVP.Answer.MAYBE and before == RSVP.Answer.YES))
    takes_back = rsvp.gave_up_seat and answer == RSVP.Answer.YES
    if gives_up:
        rsvp.gave_up_seat = True
        party.open_seats += 1
    elif takes_back:
        rsvp.gave_up_seat = False
        # A member who gave their seat up takes it back while nobody has taken it yet.
        party.open_seats = max(0, party.open_seats - 1)
    rsvp.save()
    if key is not None:
        RSVPRequest.objects.create(member=member, party=party, key=key, answer=answer, note=clean_note or "")
    if gives_up or takes_back:
        party.save(update_fields=["open_seats"])
    if gives_up:
        _invite_subs_for_open_seats(party)
    _changed(party.club_id, "rsvp", party=party.pk)
    return rsvp


@transaction.atomic
def mark_paid(party: Party, member: Member, *, paid: bool) -> RSVP:
    """The host has (or hasn't) a member's buy-in for this party."""
    if member.club_id != party.club_id:
        raise ClubError("Only the club's members pay its buy-in.")
    rsvp = RSVP.objects.select_for_update().filter(party=party, member=member).first()
    if rsvp is None or rsvp.answer != RSVP.Answer.YES:
        raise NotNow(f"{member.name} hasn't said they are coming: only those coming pay the buy-in.")
    if rsvp.paid != paid:
        rsvp.paid = paid
        rsvp.save(update_fields=["paid"])
        _changed(party.club_id, "rsvp", party=party.pk)
    return rsvp


def _next_alternate(party: Party) -> Member | None:
    """The first alternate in sub-list order not yet asked, not coming, not away that day."""
    asked = party.sub_invitations.values_list("member_id", flat=True)
    answered = party.rsvps.values_list("member_id", flat=True)
    away = Blackout.objects.filter(date=party.day).values_list("member_id", flat=True)
    return (party.club.members.alternates().exclude(pk__in=asked).exclude(pk__in=answered)
            .exclude(pk__in=away).first())


def _invite_subs_for_open_seats(party: Party) -> list[SubInvitation]:
    """Invite alternates, in sub-list order, until there is one invitation out per open seat."""
    invited = []
    pending = party.sub_invitations.filter(status=SubInvitation.Status.INVITED).count()
    while pending < party.open_seats:
        sub = _next_alternate(party)
        if sub is None:
            break
        invitation = SubInvitation.objects.create(party=party, member=sub)
        _enqueue("send_sub_invitation", invitation.pk)
        invited.append(invitation)
        pending += 1
    return invited


@transaction.atomic
def invite_another_sub(party: Party) -> SubInvitation:
    """The host asks the next alternate too: whoever accepts first takes the seat."""
    party = _locked_party(party)
    if not party.takes_answers:
        raise NotNow("This party is cancelled." if party.is_cancelled else "This party is over.")
    sub = _next_alternate(party)
    if sub is None:
        raise NotNow("Everyone on the sub list has been asked already.")
    invitation = SubInvitation.objects.create(party=party, member=sub)
    if party.open_seats == 0:
        party.open_seats = 1  # the host wants one more player
        party.save(update_fields=["open_seats"])
    _enqueue("send_sub_invitation", invitation.pk)
    _changed(party.club_id, "rsvp", party=party.pk)
    return invitation


SEAT_TAKEN = "Thank you! Someone else took the seat first this time: we'll ask you again next time."


@transaction.atomic
def answer_sub_invitation(invitation: SubInvitation, *, accept: bool) -> SubInvitation:
    """An invited alternate accepts (the first takes the seat: they are coming) or declines (the
    next alternate is asked). A later acceptance finds the seat taken (status TOO_LATE)."""
    party = _locked_party(invitation.party)
    invitation = SubInvitation.objects.select_related("member").get(pk=invitation.pk)
    if not party.takes_answers:
        raise NotNow("This party is cancelled." if party.is_cancelled else "This party is over.")
    if invitation.status == SubInvitation.Status.ACCEPTED:
        raise NotNow("You already have this seat: see you there!")
    if invitation.status != SubInvitation.Status.INVITED:
        raise NotNow("You've answered this invitation already.")
    invitation.answered_at = timezone.now()
    if not accept:
        invitation.status = SubInvitation.Status.DECLINED
        invitation.save(update_fields=["status", "answered_at"])
        _invite_subs_for_open_seats(party)
    elif party.open_seats == 0:
        invitation.status = SubInvitation.Status.TOO_LATE
        invitation.save(update_fields=["status", "answered_at"])
    else:
        party.open_seats -= 1
        party.save(update_fields=["open_seats"])
        invitation.status = SubInvitation.Status.ACCEPTED
        invitation.save(update_fields=["status", "answered_at"])
        RSVP.objects.update_or_create(party=party, member=invitation.member, defaults={"answer": RSVP.Answer.YES})
    _changed(party.club_id, "rsvp", party=party.pk)
    return invitation


# --- A night's results ------------------------------------------------------------------------


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
            raise ClubError(f"A score sheet has fields the club doesn't know: {error}") from error
    for figure in ("wins", "losses", "buncos", "prize_cents"):
        value = getattr(sheet, figure)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ClubError(f"{sheet.name}'s {figure.replace('_', ' ')} must be a whole number of 0 or more, "
                            f"not {value!r}.")
    return sheet


@transaction.atomic
def record_night_results(party: Party, sheets: Sequence[NightSheet | Mapping[str, Any]]) -> list[NightRecord]:
    """Store a party's night as the club's own records: one row per real player (ghosts never),
    with wins, losses, Buncos and prize money in cents. Calling it again for the same party
    (a corrected night) replaces that night's records. Members are matched by `member_id`/`member`
    or else by name in the party's club; a guest with no member record is kept by name."""
    given, party = party, _locked_party(party)
    clean = [_sheet(sheet) for sheet in sheets]
    names = [" ".join(sheet.name.split()) for sheet in clean]
    if any(not name for name in names):
        raise ClubError("Every score sheet needs the player's name.")
    if len({name.casefold() for name in names}) != len(names):
        raise ClubError("The same player appears twice in the night's sheets.")
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
    _changed(party.club_id, "results", party=party.pk)
    return stored


@transaction.atomic
def record_night_played(party: Party, *, ended_at: datetime.datetime) -> Party:
    """A party's night has ended (its last round closed, or the host ended it early): the party is
    played from now on, on every list at once, whatever its date says (issue 42, C1); its sheets
    follow when the prizes are worked out (`record_night_results`). A night re-opened to correct a
    table and ended again keeps the first end: the party was played then."""
    locked = _locked_party(party)
    if _mark_played(locked, party, at=ended_at):
        _changed(locked.club_id, "party", party=locked.pk, what="played")
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
    _changed(party.club_id, "results", party=party.pk)
    return party


# --- Emails: enqueued on commit, sent by bunco_club.mail -----------------------------------------------------------------


def _enqueue(task_name: str, pk: int, **details: str) -> None:
    """Run a mail task once the transaction commits (a worker when scaled, eagerly otherwise); the
    tasks call bunco_club.mail, never these actions. `details` are plain strings (Celery's JSON)."""
    task = getattr(tasks, task_name)
    transaction.on_commit(lambda: task.delay(pk, **details))
