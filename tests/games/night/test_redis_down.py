"""With REDIS_URL pointing at a Redis that is down, the site carries on (issue: live push degrades
to the poll with one clear log line, never a 500)."""

from __future__ import annotations

import re
import time

import httpx
import pytest

from live.models import Event
from tests.conftest import start_server

DEAD_REDIS = "redis://127.0.0.1:1/0"  # nothing listens on port 1


@pytest.fixture
def site_with_dead_redis(transactional_db, tmp_path):
    server = start_server(tmp_path, extra_env={"REDIS_URL": DEAD_REDIS, "EVENTS_HEARTBEAT_SECONDS": "1"})
    yield server
    server.stop()


def test_pages_load_posts_save_and_streams_catch_up_from_the_log_when_redis_is_down(site_with_dead_redis):
    url = site_with_dead_redis.url
    with httpx.Client(base_url=url, timeout=10) as phone:
        page = phone.get("/check/", follow_redirects=True)  # a fresh check room
        assert page.status_code == 200
        room = page.url.path  # /check/<room>/
        found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
        assert found is not None
        token = found.group(1)

        with httpx.stream("GET", url + "/events" + room, timeout=10) as stream:
            lines = stream.iter_lines()
            assert next(lines).startswith("retry:")
            posted = phone.post(room + "ping/", data={"name": "Fran", "csrfmiddlewaretoken": token},
                                headers={"HX-Request": "true"})
            assert posted.status_code == 200
            # Pub/sub is dead, so the ping arrives through the heartbeat's look at the log.
            deadline = time.monotonic() + 5
            caught_up = False
            for line in lines:
                if "Fran" in line:
                    caught_up = True
                    break
                if time.monotonic() > deadline:
                    break
            assert caught_up

    assert Event.objects.filter(kind="ping", data__sender="Fran").exists()
    log = site_with_dead_redis.log()
    assert log.count("Live push is off: Redis at redis://127.0.0.1:1/0 is unreachable") == 1
    assert "Traceback" not in log
    assert " 500 " not in log


def test_hosts_log_in_and_phones_join_when_the_rate_limits_cache_is_down(site_with_dead_redis):
    from games.links import join_path
    from tests.builders import make_night, make_user

    make_user()
    night = make_night(names=["Alice", "Bea", "Carmen", "Dana"], seed=1)
    with httpx.Client(base_url=site_with_dead_redis.url, timeout=10) as host:
        page = host.get("/accounts/login/")
        found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
        assert found is not None
        token = found.group(1)
        response = host.post("/accounts/login/", data={
            "username": "host", "password": "bunco-night", "csrfmiddlewaretoken": token,
        })
        assert response.status_code == 302
    with httpx.Client(base_url=site_with_dead_redis.url, timeout=10) as phone:
        assert phone.get(join_path(night.code)).status_code == 200
        # Only bad links are counted (issue 8): a forged one is refused as usual, not with a 500.
        good = join_path(night.code)
        assert phone.get(good[:-4] + ("aaa/" if not good.endswith("aaa/") else "bbb/")).status_code == 403
    log = site_with_dead_redis.log()
    assert "Rate limit login not checked, the cache is down" in log
    assert "Rate limit bad-join not checked, the cache is down" in log
    assert "Traceback" not in log
