"""A host's nights page: every night they host (their own and their clubs'), the finished ones with
their prizes, older ones a page further; linked from the home page, which shows only the latest
(issue 9, fault 11)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from games.night import actions
from games.night.models import Night
from tests.builders import alert_of, make_night, make_user, play_round

pytestmark = pytest.mark.django_db

NIGHTS = reverse("games:host_nights")


def hosted_night(user: User, title: str, **fields: Any) -> Night:
    return make_night(6, host_user=user, title=title, **fields)


def finished_with_prizes(user: User, title: str) -> Night:
    night = hosted_night(user, title)
    play_round(night, random.Random(2))
    actions.end_night(Night.objects.get(pk=night.pk))
    actions.award_prizes(night, rng=random.Random(2))
    return night


def test_the_nights_page_needs_a_login():
    response = Client().get(NIGHTS)
    assert response.status_code == 302
    assert reverse("login") in response["Location"]


def test_a_host_sees_their_finished_nights_with_their_prizes_and_the_night_under_way(host_client, host):
    finished = finished_with_prizes(host, "June night")
    hosted_night(host, "Tonight")
    page = host_client.get(NIGHTS).content.decode()
    assert "June night" in page and "Tonight" in page
    assert reverse("games:prizes", args=[finished.code]) in page
    for award in finished.awards.select_related("player"):
        assert award.player.name in page
    assert "Most Wins" in page
    assert "$30.00" in page  # the pot: 6 players at $5


def test_a_host_sees_their_clubs_nights_but_not_other_hosts_nights(host_client, host):
    from bunco_club.models import Club

    club = Club.objects.get(hosts=host)
    make_night(6, club=club, title="Club night")
    hosted_night(make_user("someone-else"), "Not theirs")
    page = host_client.get(NIGHTS).content.decode()
    assert "Club night" in page
    assert "Not theirs" not in page


def test_older_nights_are_a_page_further_not_lost(host_client, host):
    for number in range(1, 25):
        hosted_night(host, f"Night number {number:02d}")
    first = host_client.get(NIGHTS).content.decode()
    assert "Night number 24" in first and "Night number 01" not in first
    second = host_client.get(NIGHTS, {"page": "2"}).content.decode()
    assert "Night number 01" in second


def test_a_bad_page_number_is_a_400_with_a_message(host_client):
    response = host_client.get(NIGHTS, {"page": "²"})
    assert response.status_code == 400
    assert alert_of(response) == "The page number must be a whole number, written with the digits 0 to 9."


def test_the_home_page_links_to_the_nights_page(host_client):
    assert NIGHTS in host_client.get(reverse("home")).content.decode()
