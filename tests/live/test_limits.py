"""What one client address can open: streams are capped per address (refused with 429 and a
sentence, whichever check rooms they follow). The connection check's ping limits (per room, under a
ceiling per address) are tested in tests/security/test_ping_per_room.py."""

from __future__ import annotations

import asyncio

import pytest
from django.test import AsyncClient, Client

from live.actions import open_room
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
