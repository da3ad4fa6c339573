"""What one client address can open and send: streams are capped per address (refused with 429
and a sentence, whichever check rooms they follow), and the connection check's ping is rate
limited per address, over every room."""

from __future__ import annotations

import asyncio

import pytest
from django.test import AsyncClient, Client
from django.urls import reverse

from live.actions import CheckRoom, open_room
from live.models import Event
from live.streams import open_streams
from tests.live.test_events import run_async

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_streams")]

ROOM = open_room()  # signing needs no database: one room for the module's streams and pings
CHECK_STREAM = f"/events/check/{ROOM.token}/"


def test_an_address_with_too_many_streams_open_is_refused_with_429_until_one_closes(settings):
    settings.EVENTS_MAX_STREAMS_PER_ADDRESS = 2
    first, second = Client().get(CHECK_STREAM), Client().get(CHECK_STREAM)
    assert (first.status_code, second.status_code) == (200, 200)

    refused = Client().get(CHECK_STREAM)
    assert refused.status_code == 429
    assert "Too many live screens are open from this network just now (2 at most)" in refused.content.decode()
    assert refused["Retry-After"]

    first.close()  # the server closes a response when its stream ends, however it ends
    assert Client().get(CHECK_STREAM).status_code == 200


def test_the_stream_cap_counts_each_address_apart(settings):
    settings.EVENTS_MAX_STREAMS_PER_ADDRESS = 1
    assert Client(REMOTE_ADDR="10.0.0.1").get(CHECK_STREAM).status_code == 200
    assert Client(REMOTE_ADDR="10.0.0.1").get(CHECK_STREAM).status_code == 429
    assert Client(REMOTE_ADDR="10.0.0.2").get(CHECK_STREAM).status_code == 200


def test_behind_nginx_the_stream_cap_counts_by_the_real_client_address(settings):
    settings.EVENTS_MAX_STREAMS_PER_ADDRESS = 1
    settings.TRUST_X_REAL_IP = True
    nginx = "127.0.0.1"
    assert Client(REMOTE_ADDR=nginx, HTTP_X_REAL_IP="203.0.113.5").get(CHECK_STREAM).status_code == 200
    assert Client(REMOTE_ADDR=nginx, HTTP_X_REAL_IP="203.0.113.6").get(CHECK_STREAM).status_code == 200
    assert Client(REMOTE_ADDR=nginx, HTTP_X_REAL_IP="203.0.113.5").get(CHECK_STREAM).status_code == 429


def test_a_stream_that_ends_gives_its_place_back(settings):
    settings.EVENTS_MAX_STREAMS_PER_ADDRESS = 1
    settings.EVENTS_STREAM_MAX_SECONDS = 0.3

    async def scenario() -> tuple[int, int]:
        response = await AsyncClient().get(CHECK_STREAM)
        during = open_streams.count("127.0.0.1")
        async with asyncio.timeout(5):
            # The snapshot, then the stream ends. (django-stubs types AsyncClient's responses as
            # non-streaming ones, without streaming_content.)
            [_ async for _ in response.streaming_content]  # type: ignore[attr-defined]
        return during, open_streams.count("127.0.0.1")

    assert run_async(scenario()) == (1, 0)
    assert Client().get(CHECK_STREAM).status_code == 200


def test_the_default_stream_cap_lets_a_charity_night_behind_one_address_in(settings):
    assert settings.EVENTS_MAX_STREAMS_PER_ADDRESS >= 400 + 2  # 400 phones, the host, a projector


def ping(client: Client, name: str = "Ann", *, room: CheckRoom = ROOM, headers: dict[str, str] | None = None):
    return client.post(reverse("live:connection_check_ping", args=[room.token]), {"name": name}, headers=headers or {})


def test_pings_from_one_address_are_rate_limited_with_a_message(settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "ping": "2/d"}
    phone = Client()
    assert ping(phone).status_code == 302
    assert ping(phone).status_code == 302
    refused = ping(phone, "Flood")
    assert refused.status_code == 429
    assert "Lots of pings from this network just now" in refused.content.decode()
    assert Event.objects.filter(kind="ping").count() == 2

    htmx = ping(phone, "Flood", headers={"HX-Request": "true"})
    assert htmx.status_code == 429
    assert 'id="ping-form"' in htmx.content.decode()
    assert "Lots of pings" in htmx.content.decode()

    assert ping(Client(REMOTE_ADDR="10.0.0.9")).status_code == 302  # another address pings on
    assert Event.objects.filter(kind="ping").count() == 3


def test_the_ping_limit_counts_an_address_over_every_room(settings):
    """Opening a fresh room (free, nothing stored) does not reset an address's count."""
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "ping": "1/d"}
    phone = Client()
    assert ping(phone, room=open_room()).status_code == 302
    assert ping(phone, "Flood", room=open_room()).status_code == 429
    assert Event.objects.filter(kind="ping").count() == 1
