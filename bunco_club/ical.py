"""iCal feeds (the icalendar library): a club's feed (every party, with host and address) and a
member's personal feed (their hosting dates and the parties they said yes to).

Each party is one VEVENT whose UID never changes (`party-<id>@<club slug>.bunco-club`: nothing in
it depends on the site's address) and whose SEQUENCE is the party's `sequence`, bumped by every
change of time, place, host or a cancellation: a subscribed calendar updates the event instead of
adding a second one. A cancelled party stays in the feed with STATUS:CANCELLED. A feed is written in one language (a
member's feed in the member's, the club's in the club's): one plain SUMMARY per event, no LANGUAGE
parameter, which calendars read unevenly.

Times are the club's local times with a TZID, and the feed carries the VTIMEZONE of the club's
zone, so a phone in another zone shows the right hour. The VTIMEZONE is written in the form most
calendars write (`vtimezone`): a yearly RRULE for each change of the clocks ("the second Sunday of
March at 02:00"), with an UNTIL where the zone's rules changed within the feed's years. icalendar's
own (`add_missing_timezones`) lists every change as an RDATE, which dateutil, and so vobject,
read an hour off in summer (issue 42, C2).
"""

from __future__ import annotations

import datetime
import functools
import zoneinfo
from calendar import monthrange
from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Q
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from icalendar import Calendar, Event, Timezone, TimezoneDaylight, TimezoneStandard

from bunco_club.links import absolute
from bunco_club.models import NOTES_MAX, RSVP, Club, Member, Party

PARTY_LENGTH = datetime.timedelta(hours=3)


def party_uid(party: Party) -> str:
    return f"party-{party.pk}@{party.club.slug}.bunco-club"


def bunco_title(club_name: str) -> str:
    """"Oak Lane Bunco", never "Oak Lane Bunco Bunco"."""
    return club_name if club_name.casefold().rstrip(" !.").endswith("bunco") else _("%(club)s Bunco") % {
        "club": club_name}


def _summary(party: Party, hosting: bool) -> str:
    """The event's one plain SUMMARY, in the feed's language."""
    if hosting:
        title = _("%(club)s: you host Bunco") % {"club": party.club.name}
    elif party.host is not None:
        title = _("%(title)s at %(hosts)s's") % {"title": bunco_title(party.club.name), "hosts": party.hosts_label()}
    else:
        title = bunco_title(party.club.name)
    return _("Cancelled: %(title)s") % {"title": title} if party.is_cancelled else title


def _event(party: Party, *, for_member: Member | None = None) -> Event:
    event = Event()
    event.add("uid", party_uid(party))
    event.add("sequence", party.sequence)
    event.add("dtstamp", timezone.now())
    start = party.local_start
    event.add("dtstart", start)
    event.add("dtend", start + PARTY_LENGTH)
    hosting = for_member is not None and party.is_hosted_by_member(for_member)
    event.add("status", "CANCELLED" if party.is_cancelled else "CONFIRMED")
    event.add("summary", _summary(party, hosting))
    if party.location:
        event.add("location", party.location)
    hosted_by = party.hosted_by_label()
    lines = [f"{hosted_by[:1].upper()}{hosted_by[1:]}."]  # "Hosted by Ada." or "No host yet."
    if party.notes:
        # The actions refuse longer notes; a party saved before the cap carries its first NOTES_MAX.
        lines.append(party.notes[:NOTES_MAX])
    event.add("description", "\n".join(lines))
    event.add("url", absolute(reverse("clubs:party", args=[party.club.slug, party.pk]), club=party.club))
    return event


def _calendar(name: str, club: Club, parties: Iterable[Party], *, for_member: Member | None = None) -> bytes:
    calendar = Calendar()
    calendar.add("prodid", "-//Bunco Club//bunco_club//EN")
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("x-wr-calname", name)
    calendar.add("x-wr-timezone", club.zone.key)
    parties = list(parties)
    zones: set[str] = set()
    for party in parties:
        event = _event(party, for_member=for_member)
        calendar.add_component(event)
        zones.update(str(event[field].params["TZID"]) for field in ("DTSTART", "DTEND") if "TZID" in event[field].params)
    if parties:
        years = sorted(party.local_start.year for party in parties)
        for key in sorted(zones):  # the club's zone (none for UTC: its times end in Z)
            calendar.add_component(vtimezone(key, years[0], years[-1]))
    return calendar.to_ical()


def club_feed(club: Club) -> bytes:
    """Every party of the club, in the club's language."""
    parties = club.parties.select_related("club", "host", "cohost").order_by("starts_at")
    with translation.override(club.language):
        return _calendar(bunco_title(club.name), club, parties)


def member_feed(member: Member) -> bytes:
    """The member's hosting dates and the parties they said yes to (or count as coming to without an
    answer, where the club counts its members by default: `Party.counts_as_coming`), in the
    member's language (the club's until they choose): each subscriber's feed is made for them."""
    coming = Q(host=member) | Q(cohost=member) | Q(rsvps__member=member, rsvps__answer=RSVP.Answer.YES)
    if Party(club=member.club).counts_as_coming(member, None):
        coming |= ~Q(pk__in=RSVP.objects.filter(member=member).values("party_id"))
    parties = (
        Party.objects.filter(club_id=member.club_id).filter(coming)
        .distinct().select_related("club", "host", "cohost").order_by("starts_at")
    )
    with translation.override(member.reads):
        name = _("%(club)s: %(name)s's Bunco") % {"club": member.club.name, "name": member.name}
        return _calendar(name, member.club, parties, for_member=member)


# --- The club's time zone, as calendars write it ----------------------------------------------

WEEKDAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")  # RFC 5545's, Monday first as Python's
Rule = tuple[str, str | int]  # ("BYDAY", "2SU"), ("BYDAY", "-1SU") or ("BYMONTHDAY", 22)


@dataclass(frozen=True)
class Change:
    """One change of a zone's clocks: when (UTC), the clocks' time just before it, and the offset
    and name after it."""

    at: datetime.datetime
    wall: datetime.datetime  # naive: what the clocks showed as they changed (DTSTART's meaning)
    offset_from: datetime.timedelta
    offset_to: datetime.timedelta
    name: str

    @property
    def daylight(self) -> bool:
        """A change putting the clocks forward starts a DAYLIGHT part, one putting them back a
        STANDARD part, as calendars mark them (Dublin's summer is its standard time to the tz
        database, not to Outlook or Apple); a reader's offsets come out right either way only if
        the DAYLIGHT part's TZOFFSETFROM is its STANDARD part's TZOFFSETTO (dateutil's)."""
        return self.offset_to > self.offset_from

    def kind(self) -> tuple[object, ...]:
        """What a yearly rule keeps from year to year."""
        return self.daylight, self.name, self.offset_from, self.offset_to, self.wall.month, self.wall.time()

    def rules(self) -> list[Rule]:
        """Every yearly rule this day fits, the likelier first: the 1st to 3rd weekday of the month
        (never the last), the last, the 4th or 5th, or the date itself."""
        day, weekday = self.wall.day, WEEKDAYS[self.wall.weekday()]
        nth = f"{(day - 1) // 7 + 1}{weekday}"
        last = day + 7 > monthrange(self.wall.year, self.wall.month)[1]
        fits: list[Rule] = [("BYDAY", nth)] if day <= 21 else []
        if last:
            fits.append(("BYDAY", f"-1{weekday}"))
        if day > 21:
            fits.append(("BYDAY", nth))
        return [*fits, ("BYMONTHDAY", day)]


@dataclass(frozen=True)
class Observance:
    """A STANDARD or DAYLIGHT part of a VTIMEZONE: the changes of one kind in consecutive years,
    `rule` saying which day of the month (none for a change made once); `until` is the last
    change (UTC), or None when the rule runs on past the feed's years."""

    first: Change
    rule: Rule | None
    until: datetime.datetime | None


@dataclass
class _Run:
    """Changes of one kind in consecutive years, and the yearly rules every one of them fits."""

    changes: list[Change]
    rules: list[Rule]


def _clocks(zone: zoneinfo.ZoneInfo, second: int) -> tuple[datetime.timedelta | None, str | None]:
    """What a zone's clocks show at a moment: the offset and its name."""
    moment = datetime.datetime.fromtimestamp(second, zone)
    return moment.utcoffset(), moment.tzname()


def changes(zone: zoneinfo.ZoneInfo, start: datetime.datetime, end: datetime.datetime) -> list[Change]:
    """The changes of a zone's clocks between two moments, each to the second: the clocks read a
    day apart, and a day in which they differ halved until the second of the change is found."""
    day = 86_400
    second, last = int(start.timestamp()), int(end.timestamp())
    clocks = _clocks(zone, second)
    found = []
    while second < last:
        following = _clocks(zone, second + day)
        if following != clocks:
            before, after = second, second + day
            while after - before > 1:
                middle = (before + after) // 2
                before, after = (middle, after) if _clocks(zone, middle) == clocks else (before, middle)
            at = datetime.datetime.fromtimestamp(after, datetime.UTC)
            offset_from, (offset_to, name) = clocks[0], following
            assert offset_from is not None and offset_to is not None  # a ZoneInfo always has an offset
            found.append(Change(at=at, wall=(at + offset_from).replace(tzinfo=None), offset_from=offset_from,
                                offset_to=offset_to, name=name or ""))
        second, clocks = second + day, following
    return found


@functools.lru_cache(maxsize=64)
def observances(key: str, first_year: int, last_year: int) -> tuple[Observance, ...]:
    """The zone from the year before `first_year` to the year after `last_year`, as observances:
    each kind of change (to summer time, to winter time) in yearly rules, a rule lasting while the
    changes of consecutive years keep to one (and the offset at the window's start, when nothing
    changes before `first_year`)."""
    zone = zoneinfo.ZoneInfo(key)
    start = datetime.datetime(first_year - 1, 1, 1, tzinfo=datetime.UTC)
    end = datetime.datetime(last_year + 2, 1, 1, tzinfo=datetime.UTC)
    offset, name = _clocks(zone, int(start.timestamp()))
    assert offset is not None
    runs: list[_Run] = []
    running: dict[tuple[object, ...], _Run] = {}  # the latest run of each kind of change
    for change in changes(zone, start, end):
        run = running.get(change.kind())
        if run is not None and change.wall.year == run.changes[-1].wall.year + 1:
            kept = [rule for rule in run.rules if rule in change.rules()]
            if kept:
                run.changes.append(change)
                run.rules = kept
                continue
        running[change.kind()] = run = _Run(changes=[change], rules=change.rules())
        runs.append(run)
    parts = []
    for run in runs:
        first, last = run.changes[0], run.changes[-1]
        if first is last:
            parts.append(Observance(first=first, rule=None, until=None))
        elif last.wall.year == end.year - 1:
            # Still kept in the window's last year: the zone's rule today, with no end.
            parts.append(Observance(first=first, rule=run.rules[0], until=None))
        else:
            # UNTIL is UTC (RFC 5545); dateutil (so vobject and ics) compares it with the clocks'
            # time instead, which east of Greenwich is later: the later of the two reads right in both.
            until = max(last.at, last.wall.replace(tzinfo=datetime.UTC))
            parts.append(Observance(first=first, rule=run.rules[0], until=until))
    if not runs or runs[0].changes[0].wall.year >= first_year:
        # No change of the clocks before the feed's first year: the offset they show from the
        # window's start, as if set then (a zone that never changes has only this part).
        parts.append(Observance(first=Change(at=start, wall=(start + offset).replace(tzinfo=None),
                                             offset_from=offset, offset_to=offset, name=name or ""),
                                rule=None, until=None))
    return tuple(sorted(parts, key=lambda part: part.first.at))


def vtimezone(key: str, first_year: int, last_year: int) -> Timezone:
    """The VTIMEZONE of a zone over a feed's years (the parties' first to last, a year either side),
    in yearly RRULEs as calendars write them (Apple's, Google's, Outlook's), never RDATE lists."""
    timezone_part = Timezone()
    timezone_part.add("tzid", key)
    for part in observances(key, first_year, last_year):
        first = part.first
        observance = TimezoneDaylight() if first.daylight else TimezoneStandard()
        observance.add("dtstart", first.wall)
        observance.add("tzoffsetfrom", first.offset_from)
        observance.add("tzoffsetto", first.offset_to)
        observance.add("tzname", first.name)
        if part.rule is not None:
            recurrence: dict[str, object] = {"freq": "yearly"}
            if part.until is not None:
                recurrence["until"] = part.until
            recurrence[part.rule[0].lower()] = part.rule[1]
            recurrence["bymonth"] = first.wall.month
            observance.add("rrule", recurrence)
        timezone_part.add_component(observance)
    return timezone_part
