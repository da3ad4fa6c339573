"""iCal feeds (the icalendar library): a club's feed (every party, with host and address) and a
member's personal feed (their hosting dates and the parties they said yes to).

Each party is one VEVENT whose UID never changes (`party-<id>@<domain>`) and whose SEQUENCE is the
party's `sequence`, bumped by every change of time, place or host: a subscribed calendar updates
the event instead of adding a second one.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable

from django.db.models import Q
from django.utils import timezone
from icalendar import Calendar, Event

from bunco_club.links import site_url
from bunco_club.models import RSVP, Club, Member, Party

PARTY_LENGTH = datetime.timedelta(hours=3)


def _domain() -> str:
    return site_url().split("://")[-1].split("/")[0].split(":")[0] or "bunco-club.localhost"


def party_uid(party: Party) -> str:
    return f"party-{party.pk}@{_domain()}"


def _event(party: Party, *, for_member: Member | None = None) -> Event:
    event = Event()
    event.add("uid", party_uid(party))
    event.add("sequence", party.sequence)
    event.add("dtstamp", timezone.now())
    event.add("dtstart", party.starts_at)
    event.add("dtend", party.starts_at + PARTY_LENGTH)
    hosting = for_member is not None and party.is_hosted_by_member(for_member)
    title = f"{party.club.name}: you host Bunco" if hosting else f"{party.club.name} Bunco"
    if party.host is not None and not hosting:
        title += f" at {party.hosts_label()}'s"
    event.add("summary", title)
    if party.location:
        event.add("location", party.location)
    lines = [f"Hosted by {party.hosts_label()}."]
    if party.notes:
        lines.append(party.notes)
    event.add("description", "\n".join(lines))
    return event


def _calendar(name: str, parties: Iterable[Party], *, for_member: Member | None = None) -> bytes:
    calendar = Calendar()
    calendar.add("prodid", "-//Bunco Club//bunco_club//EN")
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("x-wr-calname", name)
    for party in parties:
        calendar.add_component(_event(party, for_member=for_member))
    return calendar.to_ical()


def club_feed(club: Club) -> bytes:
    parties = club.parties.select_related("club", "host", "cohost").order_by("starts_at")
    return _calendar(f"{club.name} Bunco", parties)


def member_feed(member: Member) -> bytes:
    """The member's hosting dates and the parties they said yes to."""
    parties = (
        Party.objects.filter(club_id=member.club_id)
        .filter(Q(host=member) | Q(cohost=member) | Q(rsvps__member=member, rsvps__answer=RSVP.Answer.YES))
        .distinct().select_related("club", "host", "cohost").order_by("starts_at")
    )
    return _calendar(f"{member.club.name}: {member.name}'s Bunco", parties, for_member=member)
