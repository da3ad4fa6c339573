"""Issue 21, faults: PostgreSQL stopped in the middle of a night and started again (scaled layout:
the pages and POSTs on gunicorn workers with psycopg's pool, docs/DESIGN.md §5).

The site runs on a private PostgreSQL cluster of the test's own (its database a copy of the suite's
migrated test database), gunicorn for pages and POSTs and uvicorn for streams, and eight phones
tap as fast as they can, each tap with its key and sent again with it until answered (tally.js).
The cluster is stopped (`pg_ctl stop -m fast`) and started again. While it is down every request
that needs it is answered 503 with a sentence saying what happened and what to do, never a 500
page, and the server logs each one; once it is back the pool reconnects by itself, with no restart
of the site; every tap ever acknowledged is in the database, once.

Runs only with DATABASE_URL set (`make test-services`); REDIS_URL is used when set."""

from __future__ import annotations

import os
import signal
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.conf import settings

from games.night.models import Night, Tally
from live.models import Event
from live.streams import REPLAY_OVERLAP_IDS
from tests.builders import NAMES
from tests.conftest import SERVERS, ServerProcess, start_server
from tests.reliability.conftest import PrivatePostgres
from tests.reliability.phones import (
    Stream,
    TappingPhone,
    claim_phones,
    reconnect,
    start_night,
    stop_tapping,
    tally_totals,
    wait_for,
)

pytestmark = [
    # The suite's test database is set up (and copied into the private cluster); this test writes nothing to it.
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not os.environ.get("DATABASE_URL"),
                       reason="needs PostgreSQL: run with DATABASE_URL set (make test-services)"),
]

BEFORE = 40  # taps acknowledged before PostgreSQL stops
AFTER = 40  # and after it is back
POOL_TIMEOUT = 3


@dataclass
class ScaledSite:
    web: ServerProcess  # gunicorn: pages and POSTs
    streams: ServerProcess  # uvicorn: the event streams (nginx routes /events/ to it when scaled)


@pytest.fixture
def site_on_private_postgres(transactional_db: None, tmp_path: Path, private_postgres: PrivatePostgres,
                             request: pytest.FixtureRequest) -> Iterator[ScaledSite]:
    # Migrated: a copy of the suite's test database, which pytest-django has migrated.
    private_postgres.copy_database(settings.DATABASES["default"])
    # A request waits this long for a connection before its 503 (10 s by default: the same path).
    on_the_cluster = {"DATABASE_URL": private_postgres.url, "DB_POOL_TIMEOUT": str(POOL_TIMEOUT)}
    with ThreadPoolExecutor(2) as starting:  # both at once: each takes seconds to come up
        web = starting.submit(start_server, tmp_path, kind="gunicorn", workers=2, extra_env=on_the_cluster)
        streams = starting.submit(start_server, tmp_path, extra_env={
            **on_the_cluster, "EVENTS_HEARTBEAT_SECONDS": "1", "EVENTS_STREAM_MAX_SECONDS": "300"})
        site = ScaledSite(web=web.result(), streams=streams.result())
    request.node.stash.setdefault(SERVERS, []).extend([site.web, site.streams])
    yield site
    if site.web.process.poll() is None:
        site.web.process.send_signal(signal.SIGQUIT)  # gunicorn's quick shutdown: the test is over
    site.web.stop()
    site.streams.stop()


def events_after(cluster: PrivatePostgres, code: str, player_id: int, after: int) -> list[int]:
    """The ids a phone's stream owes it after `after`: its night's channel and its own, in order."""
    (night_id,) = cluster.query(f"SELECT id FROM {Night._meta.db_table} WHERE code = %s", code)[0]
    rows = cluster.query(f"SELECT id FROM {Event._meta.db_table} WHERE channel IN (%s, %s) AND id > %s ORDER BY id",
                         f"night:{night_id}", f"night:{night_id}:player:{player_id}", after)
    return [int(str(event_id)) for (event_id,) in rows]


def stored_keys(cluster: PrivatePostgres, code: str) -> Counter[str]:
    rows = cluster.query(f"SELECT t.key FROM {Tally._meta.db_table} t JOIN {Night._meta.db_table} n "
                         "ON n.id = t.night_id WHERE n.code = %s", code)
    return Counter(str(key) for (key,) in rows)


def test_while_postgres_restarts_requests_are_answered_503_and_no_acknowledged_tap_is_lost(
        site_on_private_postgres, private_postgres):
    site = site_on_private_postgres
    night = start_night(site.web.url, NAMES[:12])
    assert night.start_round(1).status_code == 200
    phones = [TappingPhone(phone) for phone in claim_phones(site.web.url, night) if phone.table != 1]
    watcher = phones[0].phone
    stream = Stream(site.streams.url, watcher)
    wait_for("the stream's snapshot", lambda: stream.ids)
    for tapping in phones:
        tapping.start()
    try:
        acknowledged = lambda: sum(len(tapping.acknowledged()) for tapping in phones)  # noqa: E731
        wait_for(f"{BEFORE} taps acknowledged", lambda: acknowledged() >= BEFORE)

        private_postgres.stop()
        stopped_at = time.monotonic()
        told_before = {key for tapping in phones for key in tapping.acknowledged()}
        # Every phone answered 503 at least once: on a pooled connection PostgreSQL cut, or after
        # waiting POOL_TIMEOUT for one.
        wait_for("every phone's tap to be answered 5xx", lambda: all(t.failures() for t in phones))
        # The open stream ends at its next look in the log; the phone's reconnection is answered 503.
        wait_for("the open stream to end", stream.ended.is_set)
        last_seen = stream.last_event_id
        assert last_seen is not None
        refused = Stream(site.streams.url, watcher, last_event_id=last_seen)
        wait_for("the reconnection's answer", refused.ended.is_set)
        private_postgres.start()
        started_at = time.monotonic()
        wait_for(f"{AFTER} taps acknowledged with PostgreSQL back",
                 lambda: sum(1 for t in phones for when in t.acknowledged().values() if when > started_at)
                 >= AFTER)
        replayed = reconnect(site.streams.url, watcher, last_seen)  # the phone, until the stream opens
    finally:
        stop_tapping(phones)
    assert not any(tapping.is_alive() for tapping in phones)
    missed = events_after(private_postgres, night.code, watcher.player_id, last_seen)
    wait_for("the reconnected phone's replay of every event it missed",
             lambda: set(missed) <= set(replayed.ids))
    # Each once (taps went on meanwhile, from gunicorn's threads: events pushed live arrive in the
    # order they were committed, not always their ids'), and nothing from before the few it reads
    # again before Last-Event-ID (REPLAY_OVERLAP_IDS: an event committed out of id order is not lost).
    assert max(Counter(replayed.ids).values()) == 1 and min(replayed.ids) > last_seen - REPLAY_OVERLAP_IDS
    assert stream.error is None and stream.statuses == [200]  # ended as a stream ends, not cut off
    assert refused.statuses == [503]
    streams_log = site.streams.log()
    assert "A live stream ended: the database is unreachable" in streams_log
    assert "Traceback" not in streams_log and "Internal Server Error" not in streams_log

    log = tally_totals(phones)
    stored = stored_keys(private_postgres, night.code)
    assert told_before <= set(stored)  # nothing acknowledged before the stop was lost
    assert set(stored) == set(log.acknowledged) and max(stored.values()) == 1
    statuses = Counter(status for _, _, status, _ in log.failures)
    assert set(statuses) == {503}, statuses  # never a 500
    assert all("database" in body and "try again" in body.lower() for _, _, _, body in log.failures)
    server_log = site.web.log()
    assert "Internal Server Error" not in server_log
    assert server_log.count("The database is unreachable:") == len(log.failures)  # each one logged
    first_after = min(when for when in log.acknowledged.values() if when > started_at)
    late = [sent for sent, answered, _, _ in log.failures if answered > started_at]
    sent_after = [sent for sent in late if sent > started_at]
    print(f"\n{len(told_before)} taps acknowledged before the stop, all kept; {len(log.failures)} answers 503 "
          f"({len(late)} answered after PostgreSQL was back, {len(sent_after)} of them sent after), 0 500s; down {started_at - stopped_at:.1f} s; first tap "
          f"acknowledged {first_after - started_at:.2f} s after it was back; {len(stored)} taps stored, "
          f"{len(log.unanswered)} retried with their keys, each once; the open stream ended cleanly, its "
          f"reconnection was answered 503, and after the restart {len(missed)} missed events were replayed")
    for tapping in phones:
        tapping.phone.close()
    for open_stream in (stream, refused, replayed):
        open_stream.close()
    night.host.close()
