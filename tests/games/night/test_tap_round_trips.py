"""A tap's round trips to PostgreSQL (issue 47): the table's lock and the tap's read one statement,
sent with the transaction's BEGIN; the tally, its events and the COMMIT one more. And a tap that
waited for another's lock still reads that tap's tally (games/night/taps.py `_lock_and_read`).

Round trips are counted from libpq's own trace of the protocol (PQtrace): every message the
client sent (F) or received (B), in order; a round trip is a run of messages sent, answered.
"""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.db import connection, transaction

from games.night import actions
from games.night.models import Night, Round, Tally
from live.models import Event
from tests.builders import is_sqlite, started_night, table

pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.skipif(is_sqlite(), reason="PostgreSQL's round trips and row locks")]


@contextmanager
def traced() -> Iterator[list[str]]:
    """libpq's trace of this thread's connection while the block runs: "F" or "B", the message's
    name and its contents, one a line, in the order the client sent and read them."""
    from psycopg.pq import Trace

    connection.ensure_connection()
    driver = connection.connection
    lines: list[str] = []
    with tempfile.TemporaryFile("w+") as trace:
        driver.pgconn.trace(trace.fileno())
        driver.pgconn.set_trace_flags(Trace.SUPPRESS_TIMESTAMPS)
        try:
            yield lines
        finally:
            driver.pgconn.untrace()
            trace.seek(0)
            lines += [" ".join(line.split("\t")[:1] + line.split("\t")[2:]) for line in trace.read().splitlines()]


def round_trips(lines: list[str]) -> int:
    """How many times the client sent, then waited for the answer: its runs of messages sent."""
    sides = [line.split()[0] for line in lines]
    return sum(1 for index, side in enumerate(sides) if side == "F" and (index == 0 or sides[index - 1] == "B"))


def test_a_plain_tap_is_two_round_trips_its_begin_with_its_read_its_write_with_its_commit():
    night = started_night()
    actions.record_tally(night=night, table_number=2, team="A", points=2, key="k0")
    with traced() as lines:
        actions.record_tally(night=night, table_number=2, team="A", points=2, key="k1")
    assert round_trips(lines) == 2, lines
    sent = [line for line in lines if line.startswith("F")]
    assert any("BEGIN" in line for line in sent) and any("COMMIT" in line for line in sent), sent
    assert table(night, 2).totals()["A"] == 4
    assert Event.objects.filter(channel=night.channel, kind="tally").count() == 2


def test_a_tap_inside_a_callers_transaction_leaves_its_commit_to_the_caller():
    night = started_night()
    with pytest.raises(RuntimeError), transaction.atomic():
        actions.record_tally(night=night, table_number=2, team="A", points=2, key="k0")
        raise RuntimeError("the caller changes its mind")
    assert not Tally.objects.filter(night=night).exists()


def wait_until(condition: Callable[[], bool], what: str) -> None:
    """Until `condition` holds (it polls: the test's answer never depends on how long it took)."""
    done = threading.Event()
    for _attempt in range(3000):
        if condition():
            return
        done.wait(0.01)
    raise AssertionError(f"never: {what}")


def test_a_tap_that_waited_for_anothers_lock_reads_its_tally_and_rings_the_bell_once():
    """At the head table team A has 19; the first tap (+1) holds the table's lock, its tally written
    but not committed, while the second (+1) waits for the lock. The second's statement began
    before the first committed, so its snapshot misses the first's tally: read as it is, it would
    find 19 again, write 20 and ring no bell. Proven stale, it reads again after the lock: 21."""
    night = started_night()
    for points in (5, 5, 5, 2, 2):
        actions.record_tally(night=night, table_number=1, team="A", points=points)
    written, release = threading.Event(), threading.Event()
    results: dict[str, Any] = {}

    def tap(name: str, hold: bool) -> None:
        try:
            # The first tap's transaction ends when the test says: a caller's block around the action.
            with transaction.atomic():
                results[name] = actions.record_tally(night=Night.objects.get(pk=night.pk), table_number=1, team="A",
                                                     points=1, key=name)
                if hold:
                    written.set()
                    assert release.wait(60)
        except BaseException as error:  # handed back to the test
            results[name] = error
        finally:
            written.set()
            connection.close()

    first = threading.Thread(target=tap, args=("first", True), daemon=True)
    first.start()
    assert written.wait(60)
    second = threading.Thread(target=lambda: tap_alone("second", night.pk, results), daemon=True)
    second.start()

    def second_waits_for_the_lock() -> bool:
        with connection.cursor() as cursor:
            cursor.execute("SELECT COUNT(*) FROM pg_stat_activity WHERE datname = current_database() "
                           "AND wait_event_type = 'Lock' AND query LIKE %s", ["WITH locked%"])
            return cursor.fetchone()[0] == 1

    try:
        wait_until(second_waits_for_the_lock, "the second tap waits for the table's lock")
    finally:
        release.set()
        first.join(60)
        second.join(60)
    assert not isinstance(results["first"], BaseException), results
    assert not isinstance(results["second"], BaseException), results
    assert results["second"].table_totals == {"A": 21, "B": 0}
    assert table(night, 1).totals()["A"] == 21
    assert Round.objects.get(night=night, number=1).status == Round.Status.BELL
    assert Event.objects.filter(channel=night.channel, kind="bell").count() == 1
    tallies = list(Event.objects.filter(channel=night.channel, kind="tally").order_by("id").values_list("data", flat=True))
    assert [data["a"] for data in tallies[-2:]] == [20, 21]


def tap_alone(name: str, night_pk: int, results: dict[str, Any]) -> None:
    """A tap in its own transaction (the action's, outermost: its BEGIN and read in one round trip)."""
    try:
        results[name] = actions.record_tally(night=Night.objects.get(pk=night_pk), table_number=1, team="A",
                                             points=1, key=name)
    except BaseException as error:  # handed back to the test
        results[name] = error
    finally:
        connection.close()
