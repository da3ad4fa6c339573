"""The connection check's ping is limited per room, not per address (issue 21): a whole hall behind
one public address used to share one limit over every room, so one party's pings held back the
others'. A room's screens are what a flood hurts, so each room counts its own pings, whoever sends
them; an address keeps a ceiling ten rooms wide (a room costs nothing to open, every ping is a row
of the event log). A refused ping is answered 429 with a sentence and logs nothing."""

from __future__ import annotations

import html

import pytest
from django.test import Client
from django.urls import reverse

from live.actions import CheckRoom, open_room
from live.models import Event

pytestmark = pytest.mark.django_db

HALL = "203.0.113.7"  # one public address for every phone in the hall
HTMX = {"HX-Request": "true"}
ROOM_FULL = "Lots of pings in this check just now: wait a few seconds, then ping again."
ADDRESS_FULL = "Lots of pings from this network just now: wait a minute, then ping again."


def ping(room: CheckRoom, name: str = "Ann", *, address: str = HALL, headers: dict[str, str] | None = None):
    return Client(REMOTE_ADDR=address).post(reverse("live:connection_check_ping", args=[room.token]), {"name": name},
                                            headers=headers or {})


def pings_in(room: CheckRoom) -> list[str]:
    return list(Event.objects.on(room.channel).filter(kind="ping").order_by("id").values_list("data__sender", flat=True))


def limits(settings, *, room: int, address: int) -> None:
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "ping": f"{room}/d", "ping-address": f"{address}/d"}


def test_pings_from_one_address_into_two_rooms_are_counted_apart(settings):
    limits(settings, room=2, address=100)
    first, second = open_room(), open_room()
    assert [ping(first, "Ann").status_code, ping(first, "Bo").status_code] == [302, 302]
    # The first room has used its limit; the second party in the hall pings as usual.
    assert [ping(second, "Cy").status_code, ping(second, "Di").status_code] == [302, 302]
    assert pings_in(first) == ["Ann", "Bo"]
    assert pings_in(second) == ["Cy", "Di"]


def test_a_room_over_its_limit_refuses_with_the_message_whoever_pings_and_logs_nothing(settings, caplog):
    limits(settings, room=2, address=100)
    room, other = open_room(), open_room()
    assert ping(room, "Ann", address="198.51.100.1").status_code == 302
    assert ping(room, "Bo", address="198.51.100.2").status_code == 302

    refused = ping(room, "Flood", address="198.51.100.3")  # another address: the room's count is the room's
    assert refused.status_code == 429
    assert ROOM_FULL in html.unescape(refused.content.decode())
    htmx = ping(room, "Flood", address="198.51.100.4", headers=HTMX)
    assert htmx.status_code == 429
    assert 'id="ping-form"' in htmx.content.decode()
    assert ROOM_FULL in html.unescape(htmx.content.decode())

    assert pings_in(room) == ["Ann", "Bo"]  # the refused pings wrote no row: no screen lit up
    assert not Event.objects.filter(data__sender="Flood").exists()
    assert not [record for record in caplog.records if record.name.split(".")[0] in {"live", "bunco_club"}]
    assert ping(other, "Cy").status_code == 302  # another room is untouched


def test_an_address_keeps_a_ceiling_over_every_room_it_opens(settings):
    """Fresh rooms are free to open: they do not reset what one address may write."""
    limits(settings, room=100, address=3)
    for name in ("Ann", "Bo", "Cy"):
        assert ping(open_room(), name).status_code == 302
    refused = ping(open_room(), "Flood")
    assert refused.status_code == 429
    assert ADDRESS_FULL in html.unescape(refused.content.decode())
    assert not Event.objects.filter(data__sender="Flood").exists()
    assert ping(open_room(), "Di", address="198.51.100.9").status_code == 302  # another address pings on


def test_a_ping_its_room_refused_does_not_count_against_the_address(settings):
    limits(settings, room=1, address=2)
    full = open_room()
    assert ping(full, "Ann").status_code == 302
    assert ping(full, "Flood").status_code == 429  # the room's refusal...
    assert ping(open_room(), "Bo").status_code == 302  # ...left the address its second ping
    assert ping(open_room(), "Flood").status_code == 429
    assert Event.objects.filter(kind="ping").count() == 2


def test_the_default_limits_leave_a_hall_of_rooms_room_to_ping(settings):
    per_room = int(settings.RATE_LIMITS["ping"].split("/")[0])
    per_address = int(settings.RATE_LIMITS["ping-address"].split("/")[0])
    assert per_address >= 10 * per_room
