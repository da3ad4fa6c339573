"""The calendar feeds parse back with icalendar and hold exactly the right events; an edited party
keeps its UID and gets a higher SEQUENCE."""

from __future__ import annotations

import datetime

import pytest
from django.urls import reverse
from icalendar import Calendar

from bunco_club import actions
from bunco_club.ical import party_uid
from bunco_club.links import member_token
from tests.bunco_club.conftest import soon

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
