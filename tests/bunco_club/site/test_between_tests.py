"""The doors a test server opens between two browser tests (bunco_club/site/between_tests.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.core.cache import cache, caches
from django.test import Client

from bunco_club.site import between_tests
from bunco_club.site.clock import tick_lock, tick_unless_held


@pytest.fixture
def doors() -> Iterator[Client]:
    """The two doors, as a test server mounts them; the clock let go afterwards whatever happened."""
    yield Client(REMOTE_ADDR="127.0.0.1")
    with between_tests._holding:
        if between_tests._clock_held[0]:
            tick_lock.release()
            between_tests._clock_held[0] = False


def ticks_run() -> list[str]:
    ran: list[str] = []
    tick_unless_held([lambda: ran.append("tick")])
    return ran


def test_a_real_site_has_no_such_doors(client: Client) -> None:
    assert client.post("/between-tests/quiet/").status_code == 404
    assert client.post("/between-tests/fresh/").status_code == 404


@pytest.mark.django_db  # fresh empties the rate limits' counts, which are in the database (issue 42, S3)
@pytest.mark.urls("bunco_club.site.between_tests")
def test_quiet_holds_the_clock_until_fresh_lets_it_tick_again(doors: Client) -> None:
    assert doors.post("/quiet/").json() == {"open_streams": 0}
    assert ticks_run() == []
    assert doors.post("/quiet/").status_code == 200  # a second knock neither waits nor fails
    doors.post("/fresh/")
    assert ticks_run() == ["tick"]


@pytest.mark.django_db
@pytest.mark.urls("bunco_club.site.between_tests")
def test_fresh_forgets_what_the_last_test_left_in_the_cache(doors: Client, settings) -> None:
    cache.set("knocks:127.0.0.1", 5)
    caches[settings.RATELIMIT_USE_CACHE].set("knocks:127.0.0.1", 5)
    doors.post("/fresh/")
    assert cache.get("knocks:127.0.0.1") is None
    assert caches[settings.RATELIMIT_USE_CACHE].get("knocks:127.0.0.1") is None


@pytest.mark.urls("bunco_club.site.between_tests")
def test_only_the_machine_itself_may_knock() -> None:
    stranger = Client(REMOTE_ADDR="203.0.113.9")
    cache.set("knocks:127.0.0.1", 5)
    assert stranger.post("/quiet/").status_code == 403
    assert stranger.post("/fresh/").status_code == 403
    assert cache.get("knocks:127.0.0.1") == 5
    assert ticks_run() == ["tick"]
