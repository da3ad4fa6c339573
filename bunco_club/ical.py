"""iCal feeds (the icalendar library): a club's feed (every party, with host and address) and a
member's personal feed (their hosting dates and the parties they said yes to).

Each party is one VEVENT whose UID never changes (`party-<id>@<club slug>.bunco-club`: nothing in
it depends on the site's address) and whose SEQUENCE is the party's `sequence`, bumped by every
change of time, place, host or a cancellation: a subscribed calendar updates the event instead of
adding a second one. A cancelled party stays in the feed with STATUS:CANCELLED.

Times are the club's local times with a TZID, and the feed carries the VTIMEZONE of the club's
zone (icalendar's `add_missing_timezones`), so a phone in another zone shows the right hour.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable

from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from icalendar import Calendar, Event

from bunco_club.links import absolute
from bunco_club.models import NOTES_MAX, RSVP, Club, Member, Party

PARTY_LENGTH = datetime.timedelta(hours=3)


def party_uid(party: Party) -> str:
    return f"party-{party.pk}@{party.club.slug}.bunco-club"


def bunco_title(club_name: str) -> str:
    """"Oak Lane Bunco", never "Oak Lane Bunco Bunco"."""
    return club_name if club_name.casefold().rstrip(" !.").endswith("bunco") else f"{club_name} Bunco"


def _event(party: Party, *, for_member: Member | None = None) -> Event:
    event = Event()
    event.add("uid", party_uid(party))
    event.add("sequence", party.sequence)
    event.add("dtstamp", timezone.now())
    start = party.local_start
    event.add("dtstart", start)
    event.add("dtend", start + PARTY_LENGTH)
    hosting = for_member is not None and party.is_hosted_by_member(for_member)
    title = f"{party.club.name}: you host Bunco" if hosting else bunco_title(party.club.name)
    if party.host is not None and not hosting:
        title += f" at {party.hosts_label()}'s"
    if party.is_cancelled:
        title = f"Cancelled: {title}"
        event.add("status", "CANCELLED")
    else:
        event.add("status", "CONFIRMED")
    event.add("summary", title)
    if party.location:
        event.add("location", party.location)
    lines = [f"Hosted by {party.hosts_label()}."]
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
    for party in parties:
        calendar.add_component(_event(party, for_member=for_member))
    calendar.add_missing_timezones()
    return calendar.to_ical()


def club_feed(club: Club) -> bytes:
    parties = club.parties.select_related("club", "host", "cohost").order_by("starts_at")
    return _calendar(bunco_title(club.name), club, parties)


def member_feed(member: Member) -> bytes:
    """The member's hosting dates and the parties they said yes to."""
    parties = (
        Party.objects.filter(club_id=member.club_id)
        .filter(Q(host=member) | Q(cohost=member) | Q(rsvps__member=member, rsvps__answer=RSVP.Answer.YES))
        .distinct().select_related("club", "host", "cohost").order_by("starts_at")
    )
    return _calendar(f"{member.club.name}: {member.name}'s Bunco", member.club, parties, for_member=member)
