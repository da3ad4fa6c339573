"""Issue 42, C2: a club feed's VTIMEZONE is written in the RRULE form most calendars write, and two
other iCalendar readers (vobject and ics, both reading the VTIMEZONE itself through dateutil) put
every party at its moment: before and after both daylight-saving changes, in April and May, in
either hemisphere, and in a year the zone kept other rules."""

from __future__ import annotations

import datetime
import io
import zoneinfo

import pytest
from django.urls import reverse

from bunco_club import actions
from bunco_club.ical import party_uid
from bunco_club.models import Club, Party

pytestmark = pytest.mark.django_db

# Local dates around each zone's changes (2031 unless said), and in April and May: the days
# before, of and after each change, so an hour lost on any of them shows.
DATES = {
    # Second Sunday of March, first of November; in 2006 the first Sunday of April and the last of
    # October (the rules before 2007).
    "America/Chicago": ["2031-01-17", "2031-03-08", "2031-03-09", "2031-03-10", "2031-04-18", "2031-05-16",
                        "2031-07-18", "2031-11-01", "2031-11-02", "2031-11-03", "2006-03-24", "2006-04-07",
                        "2006-10-27", "2006-11-03"],
    # The last Sunday of March and of October.
    "Europe/Berlin": ["2031-03-29", "2031-03-30", "2031-03-31", "2031-04-18", "2031-05-16", "2031-10-25",
                      "2031-10-26", "2031-10-27", "2031-12-19"],
    # The first Sunday of April (back to standard time) and of October (summer time): the
    # southern summer spans the new year.
    "Australia/Sydney": ["2031-01-16", "2031-04-05", "2031-04-06", "2031-04-07", "2031-05-16", "2031-10-04",
                         "2031-10-05", "2031-10-06"],
}


def feed_of(client, club: Club, zone: str) -> tuple[bytes, list[Party]]:
    club.time_zone = zone
    club.save()
    parties = [actions.add_party(club, starts_at=club.at(datetime.date.fromisoformat(day), datetime.time(19, 0)))
               for day in DATES[zone]]
    return client.get(reverse("clubs:club_feed", args=[club.feed_code])).content, parties


def read_by_vobject(body: bytes) -> dict[str, datetime.datetime]:
    import vobject

    calendar = vobject.readOne(body.decode())
    return {str(event.uid.value): event.dtstart.value.astimezone(datetime.UTC) for event in calendar.vevent_list}


def read_by_ics(body: bytes) -> dict[str, datetime.datetime]:
    import ics

    calendar = ics.Calendar(body.decode())
    return {event.uid: event.begin.datetime.astimezone(datetime.UTC) for event in calendar.events}


@pytest.mark.parametrize("zone", sorted(DATES))
def test_vobject_and_ics_read_every_party_at_its_moment(client, club, zone):
    """vobject read the RDATE lists' summer parties an hour late; ics read them right, and must go
    on doing so."""
    body, parties = feed_of(client, club, zone)
    wanted = {party_uid(party): party.starts_at.astimezone(datetime.UTC) for party in parties}
    for reader in (read_by_vobject, read_by_ics):
        read = reader(body)
        wrong = {uid: f"{read.get(uid)} instead of {moment}" for uid, moment in wanted.items()
                 if read.get(uid) != moment}
        assert not wrong, reader.__name__
    # Each party is 19:00 on the club's clocks (the moments above are the club's 19:00).
    assert {party.local_start.hour for party in parties} == {19}


@pytest.mark.parametrize("zone", sorted(DATES))
def test_the_feeds_time_zone_is_written_as_yearly_rules_not_a_list_of_dates(client, club, zone):
    body, _parties = feed_of(client, club, zone)
    assert b"RDATE" not in body
    timezone_part = body[body.index(b"BEGIN:VTIMEZONE"):body.index(b"END:VTIMEZONE")]
    assert timezone_part.count(b"RRULE:FREQ=YEARLY;") >= 2  # a rule for each change of the clocks
    assert f"TZID:{zone}".encode() in timezone_part


def test_the_rules_in_force_today_are_the_zones_own_and_older_years_end_with_theirs(client, club):
    body, _parties = feed_of(client, club, "America/Chicago")
    lines = body.decode().replace("\r\n ", "").splitlines()
    rules = [line for line in lines if line.startswith("RRULE:")]
    # Before 2007: the first Sunday of April and the last of October, until their last change in
    # the feed's years (in UTC); since: the second Sunday of March and the first of November.
    assert "RRULE:FREQ=YEARLY;UNTIL=20060402T080000Z;BYDAY=1SU;BYMONTH=4" in rules
    assert "RRULE:FREQ=YEARLY;UNTIL=20061029T070000Z;BYDAY=-1SU;BYMONTH=10" in rules
    assert "RRULE:FREQ=YEARLY;BYDAY=2SU;BYMONTH=3" in rules
    assert "RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=11" in rules


def test_the_time_zone_reads_back_in_dateutil_as_the_zone_itself_for_every_day_of_the_feeds_years(client, club):
    """Beyond the parties' days: every hour of the feed's years, as dateutil reads the VTIMEZONE,
    has the zone's offset (the rules hold on every day, not only on the parties')."""
    from dateutil.tz import tzical

    body, _parties = feed_of(client, club, "Europe/Berlin")
    vtimezone = body[body.index(b"BEGIN:VTIMEZONE"):body.index(b"END:VTIMEZONE") + len(b"END:VTIMEZONE")]
    read = tzical(io.StringIO(vtimezone.decode())).get()
    zone = zoneinfo.ZoneInfo("Europe/Berlin")
    moment = datetime.datetime(2031, 1, 1, tzinfo=datetime.UTC)
    while moment.year == 2031:
        assert moment.astimezone(read).utcoffset() == moment.astimezone(zone).utcoffset(), moment
        moment += datetime.timedelta(hours=1)
