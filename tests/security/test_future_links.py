"""A signed link dated in the future, beyond a minute of clock skew between the site's processes, is
refused for every kind of dated link: a night's join link, a tournament group's link, a connection
check room (issue 21: a group link dated in the future was accepted). The check is made in the one
place that reads signatures, live/signing.py; members' personal links carry no date at all."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.links import join_path
from live import signing
from live.actions import open_room
from tests.builders import groups_of, make_night, make_tournament, make_user, text
from tournaments import actions as tournament_actions
from tournaments.links import group_path

pytestmark = pytest.mark.django_db

AHEAD_BEYOND_SKEW = timedelta(minutes=2)  # a link from a machine two minutes fast: not a clock's drift
AHEAD_WITHIN_SKEW = timedelta(seconds=30)


def night_link() -> str:
    return join_path(make_night(4).code)


def group_link() -> str:
    tournament = make_tournament(make_user("director"), 4)
    tournament_actions.start_round(tournament)
    return group_path(groups_of(tournament)[0].code)


def check_room_link() -> str:
    return reverse("live:connection_check_room", args=[open_room().token])


LINKS: dict[str, tuple[Callable[[], str], int, str]] = {
    "join link": (night_link, 403, "This join link isn't valid yet."),
    "group link": (group_link, 403, "This group link isn't valid yet."),
    "check room": (check_room_link, 404, ""),
}


def made_ahead(make: Callable[[], str], ahead: timedelta) -> str:
    """A link of this kind signed on a machine whose clock is `ahead` of the site's."""
    with time_machine.travel(timezone.now() + ahead, tick=False):
        return make()


@pytest.mark.parametrize("kind", LINKS)
def test_a_link_dated_beyond_the_clock_skew_is_refused(kind):
    make, status, message = LINKS[kind]
    link = made_ahead(make, AHEAD_BEYOND_SKEW)

    response = Client().get(link)

    assert response.status_code == status
    assert message in text(response)


@pytest.mark.parametrize("kind", LINKS)
def test_a_link_a_few_seconds_ahead_is_taken_as_a_clocks_drift(kind):
    make, _, _ = LINKS[kind]
    link = made_ahead(make, AHEAD_WITHIN_SKEW)

    assert Client().get(link).status_code in (200, 302)


def test_the_skew_allowed_is_a_minute():
    assert signing.MAX_CLOCK_SKEW_SECONDS == 60
