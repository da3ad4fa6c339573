"""A signed-in host's nights are counted by their account, never by their address: after the 30
anonymous nights an address may start, a neighbour behind the same address (a hall's Wi-Fi) cannot
keep a host from starting one (issue 21: the host got 429 for up to an hour)."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from games.night.models import Night
from tests.builders import NAMES, make_user

pytestmark = pytest.mark.django_db

HALL = "203.0.113.7"


def start_a_night(browser: Client):
    return browser.post(reverse("games:night_new"), {"names": "\n".join(NAMES[:4]), "buy_in": "0"},
                        REMOTE_ADDR=HALL)


def anonymous_nights_allowed() -> int:
    return int(settings.RATE_LIMITS["night-new"].split("/")[0])


def test_a_signed_in_host_starts_a_night_after_an_address_used_up_its_anonymous_nights():
    neighbour = Client()
    for _ in range(anonymous_nights_allowed()):
        assert start_a_night(neighbour).status_code == 302
    assert start_a_night(neighbour).status_code == 429  # the address's own limit still holds
    host = Client()
    host.force_login(make_user("host"))

    assert start_a_night(host).status_code == 302
    assert Night.objects.count() == anonymous_nights_allowed() + 1


def test_a_signed_in_hosts_nights_leave_the_address_its_anonymous_ones(settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "night-new-host": "2/d", "night-new": "2/d"}
    host = Client()
    host.force_login(make_user("host"))
    assert start_a_night(host).status_code == 302
    assert start_a_night(host).status_code == 302
    assert start_a_night(host).status_code == 429  # the host's own limit

    assert start_a_night(Client()).status_code == 302  # a guest at the same address
