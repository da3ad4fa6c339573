"""Issue 21, faults: Redis stopped in the middle of a night and started again.

The site runs with REDIS_URL pointing at a private redis-server of the test's own (live events by
Redis pub/sub, the cache in Redis), which is killed mid-round and started again on the same port.
While it is down, taps keep saving (answered 2xx, never a 5xx), a phone's poll shows the new
scores, and a stream that stayed open catches up from the event log at its heartbeat; once it is
back, the site's relay subscribes again by itself and a phone whose connection dropped meanwhile
reconnects with Last-Event-ID and is replayed exactly what it missed, in order, nothing twice.
(tests/games/night/test_redis_down.py covers a Redis that is down from the start.)"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from games.night.models import Tally
from live.streams import REPLAY_OVERLAP_IDS
from tests.builders import NAMES
from tests.conftest import SERVERS, ServerProcess, start_server
from tests.reliability.conftest import PrivateRedis, missed_ids, received_all
from tests.reliability.phones import Phone, Stream, claim_phones, new_key, start_night, wait_for

HEARTBEAT_SECONDS = 2  # an open stream's look in the log (15 s on a real site)


@pytest.fixture
def site_on_private_redis(transactional_db: None, tmp_path: Path, private_redis: PrivateRedis,
                          request: pytest.FixtureRequest) -> Iterator[ServerProcess]:
    server = start_server(tmp_path, extra_env={
        "REDIS_URL": private_redis.url, "EVENTS_HEARTBEAT_SECONDS": str(HEARTBEAT_SECONDS),
        "EVENTS_STREAM_MAX_SECONDS": "300",
    })
    request.node.stash.setdefault(SERVERS, []).append(server)
    yield server
    server.stop()


def shown_points(phone: Phone, team: str) -> int:
    """A team's points at the phone's table, as the phone's polled live region shows them."""
    polled = phone.poll()
    assert polled.status_code == 200
    found = re.search(rf'id="r1-t{phone.table}-{team.lower()}">(\d+)<', polled.text)
    assert found is not None, polled.text
    return int(found.group(1))


def test_taps_save_and_streams_catch_up_while_redis_is_down_and_after_it_is_back(site_on_private_redis, private_redis):
    site = site_on_private_redis
    night = start_night(site.url, NAMES[:8])
    assert night.start_round(1).status_code == 200
    phones = [phone for phone in claim_phones(site.url, night) if phone.table == 2]
    tapper, kept, dropped = phones[0], phones[1], phones[2]  # three phones at table 2
    keys: list[str] = []

    def tap(count: int) -> None:
        for _ in range(count):
            keys.append(new_key())
            answer = tapper.tap(keys[-1])
            assert answer.status_code == 200, answer.text

    kept_stream = Stream(site.url, kept)
    dropped_stream = Stream(site.url, dropped)
    wait_for("both streams' snapshots", lambda: kept_stream.ids and dropped_stream.ids)
    start = kept_stream.ids[0]
    tap(5)
    wait_for("the taps on both streams", lambda: received_all(kept_stream, kept, start)
             and received_all(dropped_stream, dropped, dropped_stream.ids[0]))
    wait_for("the site's relay subscribed to Redis", lambda: private_redis.patterns() >= 1)

    private_redis.kill()
    dropped_stream.close()  # this phone's connection drops too (it reconnects once Redis is back)
    last_seen = dropped_stream.last_event_id
    assert last_seen is not None
    tap(10)  # each answered 200 at once: Redis down costs no tap
    assert shown_points(dropped, tapper.team) == 15  # the poll shows what the stream no longer brings
    wait_for("the open stream to catch up from the log", lambda: received_all(kept_stream, kept, start))
    assert "Live push is off" in site.log()

    restarted = time.monotonic()
    private_redis.start()  # same port
    wait_for("the relay to subscribe again by itself", lambda: private_redis.patterns() >= 1,
             timeout=90)
    resubscribed = time.monotonic() - restarted
    wait_for("the site to say live push is back", lambda: "Live push is back" in site.log())
    # Taps go on, one at a time, each seen on the open stream before the next (by pub/sub, or by the
    # heartbeat while the site still skips Redis: 5 s after a failed publish), until one reaches
    # Redis: a listener of the test's own then hears the site publishing again.
    with private_redis.client().pubsub() as listener:
        listener.psubscribe("bunco:0:events:*")  # database 0: private_redis.url
        heard = wait_for("the listener's subscription", lambda: listener.get_message(timeout=1))
        assert heard["type"] == "psubscribe"
        published_again = None
        while published_again is None:
            assert len(keys) < 100, "the site never published to Redis again"
            tap(1)
            wait_for("the tap on the open stream", lambda: received_all(kept_stream, kept, start))
            published_again = listener.get_message(timeout=0.1)
    replayed = Stream(site.url, dropped, last_event_id=last_seen)  # the phone reconnects
    wait_for("the reconnected phone's replay", lambda: received_all(replayed, dropped, last_seen))
    wait_for("the open stream's last taps", lambda: received_all(kept_stream, kept, start))

    # The replay is what was missed, in order, after the few before it once more (live/streams.py
    # REPLAY_OVERLAP_IDS: an event committed out of id order is not lost); the open stream had
    # everything once.
    assert replayed.ids == missed_ids(dropped, last_seen - REPLAY_OVERLAP_IDS)
    assert len(missed_ids(dropped, last_seen)) >= 11  # ten taps while Redis was down, and those after
    assert kept_stream.ids[1:] == missed_ids(kept, start)
    assert kept_stream.error is None and replayed.statuses == [200]
    stored = [str(key) for key in Tally.objects.filter(night__code=night.code).values_list("key", flat=True)]
    assert sorted(stored) == sorted(keys)
    assert shown_points(dropped, tapper.team) == len(keys)
    log = site.log()
    assert log.count("Live push is off") == 1
    assert "Traceback" not in log and '" 500' not in log
    print(f"\n{len(keys)} taps ({len(keys) - 15} after Redis was back), all answered 200 and stored once; "
          f"the relay subscribed again "
          f"{resubscribed:.1f} s after Redis restarted; the reconnected phone was replayed {len(replayed.ids)} events")
    for stream in (kept_stream, replayed):
        stream.close()
    for phone in phones:
        phone.close()
    night.host.close()
