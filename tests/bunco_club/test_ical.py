"""The calendar feeds parse back with icalendar and hold exactly the right events; an edited party
keeps its UID and gets a higher SEQUENCE."""

from __future__ import annotations

import datetime
import zoneinfo

import pytest
from django.urls import reverse
from icalendar import Calendar

from bunco_club import actions
from bunco_club.ical import party_uid
from bunco_club.links import member_token
from tests.builders import soon

pytestmark = pytest.mark.django_db


def events(body: bytes) -> dict[str, dict]:
    calendar = Calendar.from_ical(body)
    return {
        str(event["UID"]): {"start": event.decoded("DTSTART"), "sequence": int(event.get("SEQUENCE", 0)),
                            "summary": str(event["SUMMARY"]), "location": str(event.get("LOCATION", ""))}
        for event in calendar.walk("VEVENT")
    }


@pytest.fixture
def parties(club):
    """Three parties: Ada hosts the first, Bea the second, nobody the third; Bea said yes to the third."""
    first = actions.add_party(club, starts_at=soon(10), location="Ada's, 1 Elm Road")
    second = actions.add_party(club, starts_at=soon(40))
    third = actions.add_party(club, starts_at=soon(70))
    actions.edit_party(first, starts_at=first.starts_at, location=first.location, host=club.members.get(name="Ada"))
    actions.edit_party(second, starts_at=second.starts_at, location="", host=club.members.get(name="Bea"))
    actions.answer_rsvp(third, club.members.get(name="Bea"), "yes")
    return first, second, third


def test_the_club_feed_holds_every_party_with_host_and_address(client, club, parties):
    response = client.get(reverse("clubs:club_feed", args=[club.feed_code]))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/calendar")
    feed = events(response.content)
    assert len(feed) == 3
    first = feed[party_uid(parties[0])]
    assert first["location"] == "Ada's, 1 Elm Road"
    assert "Ada" in first["summary"]
    assert first["start"] == parties[0].starts_at


def test_a_members_feed_holds_their_hosting_dates_and_their_yeses_only(client, club, parties, member):
    response = client.get(reverse("clubs:member_feed", args=[member_token(member.code)]))
    feed = events(response.content)
    assert sorted(feed) == sorted(party_uid(party) for party in parties[1:])
    assert "you host" in feed[party_uid(parties[1])]["summary"]


def test_editing_a_partys_time_changes_its_sequence_not_its_uid(client, club, parties):
    url = reverse("clubs:club_feed", args=[club.feed_code])
    before = events(client.get(url).content)
    first = parties[0]
    actions.edit_party(first, starts_at=first.starts_at + datetime.timedelta(hours=1), location=first.location,
                       host=first.host)
    after = events(client.get(url).content)
    uid = party_uid(first)
    assert set(after) == set(before)
    assert after[uid]["sequence"] == before[uid]["sequence"] + 1
    assert after[uid]["start"] == before[uid]["start"] + datetime.timedelta(hours=1)


def test_a_wrong_feed_code_finds_nothing(client, club):
    assert client.get(reverse("clubs:club_feed", args=["not-the-code"])).status_code == 404


def test_a_forged_personal_feed_link_finds_nothing(client, member):
    token = member_token(member.code)
    assert client.get(reverse("clubs:member_feed", args=[token[:-2] + "xx"])).status_code == 404


def test_a_personal_feed_stops_with_a_new_link(client, member):
    token = member_token(member.code)
    actions.reset_member_link(member)
    assert client.get(reverse("clubs:member_feed", args=[token])).status_code == 404


# --- Issue 16: the club's time zone, the site's address, titles and cancellations -----------------


def second_library_events(body: bytes) -> list:
    """The feed as vobject, a second iCalendar library, reads it (acceptance 3)."""
    import vobject

    calendar = vobject.readOne(body.decode())
    return list(calendar.vevent_list)


def vobject_tzid(tzinfo) -> str:
    import vobject

    return str(vobject.icalendar.TimezoneComponent.pickTzid(tzinfo))


def test_a_chicago_clubs_feed_reads_in_a_second_library_as_seven_in_the_evening_there(client, club):
    club.time_zone = "America/Chicago"
    club.save()
    winter = actions.add_party(club, starts_at=club.at(datetime.date(2031, 1, 17), datetime.time(19, 0)))
    summer = actions.add_party(club, starts_at=club.at(datetime.date(2031, 7, 18), datetime.time(19, 0)))
    body = client.get(reverse("clubs:club_feed", args=[club.feed_code])).content
    assert b"BEGIN:VTIMEZONE" in body and b"TZID:America/Chicago" in body
    assert b"DTSTART;TZID=America/Chicago:20310117T190000" in body
    by_uid = {str(event.uid.value): event for event in second_library_events(body)}
    for party in (winter, summer):
        start = by_uid[party_uid(party)].dtstart
        # 19:00 on the club's clocks, in its named zone (a phone's calendar reads the TZID as the
        # zone's name; vobject's own reading of the VTIMEZONE through dateutil's tzical is unreliable
        # past the first daylight-saving change, so the moment is checked through the name).
        assert (start.value.hour, start.value.minute) == (19, 0)
        assert vobject_tzid(start.value.tzinfo) == "America/Chicago"
        assert start.value.replace(tzinfo=zoneinfo.ZoneInfo("America/Chicago")) == party.starts_at
    # And the first library reads the VTIMEZONE itself to the same moments, summer time included.
    read = {str(event["UID"]): event.decoded("DTSTART").astimezone(datetime.UTC)
            for event in Calendar.from_ical(body).walk("VEVENT")}
    assert read == {party_uid(winter): winter.starts_at, party_uid(summer): summer.starts_at}
    assert (summer.starts_at.astimezone(datetime.UTC).hour, winter.starts_at.astimezone(datetime.UTC).hour) == (0, 1)


def test_the_feeds_and_mails_link_to_the_address_the_host_reached_the_site_at(
        client, host_client, club, member, settings, django_capture_on_commit_callbacks):
    from django.core import mail

    settings.SITE_URL = ""
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "bunco.lan"]
    party = actions.add_party(club, starts_at=soon())
    uid_before = party_uid(party)
    page = host_client.get(reverse("clubs:club", args=[club.slug]), HTTP_HOST="bunco.lan:8080").content.decode()
    assert f'href="http://bunco.lan:8080/clubs/calendar/{club.feed_code}.ics"' in page
    body = client.get(reverse("clubs:club_feed", args=[club.feed_code])).content
    event = second_library_events(body)[0]
    assert event.url.value == f"http://bunco.lan:8080/clubs/{club.slug}/parties/{party.pk}/"
    assert str(event.uid.value) == uid_before  # the address is not part of the UID
    with django_capture_on_commit_callbacks(execute=True):
        actions.answer_rsvp(party, member, "no")
    assert "Answer here: http://bunco.lan:8080/clubs/me/" in mail.outbox[-1].body


def test_site_url_when_set_is_what_mails_and_feeds_link_to(client, host_client, club, settings):
    settings.SITE_URL = "https://bunco.example.org"
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "bunco.lan"]
    party = actions.add_party(club, starts_at=soon())
    host_client.get(reverse("clubs:club", args=[club.slug]), HTTP_HOST="bunco.lan:8080")
    event = second_library_events(client.get(reverse("clubs:club_feed", args=[club.feed_code])).content)[0]
    assert event.url.value == f"https://bunco.example.org/clubs/{club.slug}/parties/{party.pk}/"


def test_a_club_called_something_bunco_is_not_called_bunco_twice(client, club):
    club.name = "Oak Lane Bunco"
    club.save()
    actions.add_party(club, starts_at=soon())
    body = client.get(reverse("clubs:club_feed", args=[club.feed_code])).content
    assert b"Bunco Bunco" not in body
    assert [str(event.summary.value) for event in second_library_events(body)] == ["Oak Lane Bunco"]


def test_a_cancelled_party_stays_in_the_feed_as_cancelled(client, club):
    party = actions.add_party(club, starts_at=soon())
    actions.cancel_party(party)
    event = second_library_events(client.get(reverse("clubs:club_feed", args=[club.feed_code])).content)[0]
    assert event.status.value == "CANCELLED" and int(event.sequence.value) == 1
