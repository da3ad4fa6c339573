"""Many phones at once (docs/DESIGN.md §3–§4): parallel taps at one table, retried taps, the race for
the bell, taps and an undo while the bell rings, and two tables finishing together; from real
threads, each with its own database connection.

On PostgreSQL the threads really overlap and row locks order them; on SQLite the IMMEDIATE write
lock runs them one after another. Either way the figures must come out exact, and no request
may fail (a lock-order deadlock shows up here as an OperationalError from one of the threads).
"""

from __future__ import annotations

import random
import threading
import time
import types
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from games.night import actions
from games.night import taps as tap_statements
from games.night.actions import RoundClosed
from games.night.models import Night, Player, Round, TableRound, Tally
from games.rules import bunco
from live.models import Event
from tests.builders import started_night, table

pytestmark = pytest.mark.django_db(transaction=True)

THREADS = 4
TAPS = 250
COPIED_TAPS = 60  # taps sent by every thread at once in the race of copies


def in_parallel(jobs: list[Callable[[], Any]], timeout: float = 120) -> list[Any]:
    """Run each job in its own thread, all released at once; each returns its result or the
    exception it raised. Every thread uses, then closes, its own database connection."""
    barrier = threading.Barrier(len(jobs))
    results: list[Any] = [None] * len(jobs)

    def run(index: int, job: Callable[[], Any]) -> None:
        try:
            barrier.wait(timeout=30)
            results[index] = job()
        except BaseException as error:  # handed back to the test, which decides
            results[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(index, job), daemon=True) for index, job in enumerate(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    assert not any(thread.is_alive() for thread in threads), "a thread is still running"
    return results


def plan_taps(seed: int) -> list[tuple[str, int, str]]:
    """One phone's taps: (team, points, key), a seeded mix of +1/+2/+5 for both teams."""
    rng = random.Random(seed)
    return [(rng.choice("AB"), rng.choice(actions.POINT_BUTTONS), f"phone{seed}-tap{i}") for i in range(TAPS)]


def send(night_pk: int, table_number: int, taps: list[tuple[str, int, str]]) -> Callable[[], list[int]]:
    def job() -> list[int]:
        night = Night.objects.get(pk=night_pk)  # this thread's own connection and copy
        return [
            actions.record_tally(night=night, table_number=table_number, team=team, points=points, key=key).pk
            for team, points, key in taps
        ]

    return job


def expected_totals(plans: list[list[tuple[str, int, str]]]) -> dict[str, int]:
    totals = {"A": 0, "B": 0}
    for taps in plans:
        for team, points, _ in taps:
            totals[team] += points
    return totals


def no_errors(results: list[Any]) -> None:
    errors = [result for result in results if isinstance(result, BaseException)]
    assert not errors, errors


def test_parallel_taps_at_one_table_give_exact_totals_and_the_same_taps_again_add_nothing():
    night = started_night()
    plans = [plan_taps(seed) for seed in range(THREADS)]
    results = in_parallel([send(night.pk, 2, taps) for taps in plans])
    no_errors(results)

    expected = expected_totals(plans)
    assert table(night, 2).totals() == expected
    row = TableRound.objects.with_totals().get(pk=table(night, 2).pk)
    assert (row.points_a, row.points_b) == (expected["A"], expected["B"])
    assert Tally.objects.filter(night=night).count() == THREADS * TAPS
    assert len({pk for pks in results for pk in pks}) == THREADS * TAPS
    # Each tap's event carries the table's totals as they stood under the lock: in log order they
    # only ever grow, and the last one is the final score, so no tap ever missed another's points.
    seen = [
        event.data["a"] + event.data["b"]
        for event in Event.objects.on(night.channel).filter(kind="tally").order_by("id")
    ]
    assert len(seen) == THREADS * TAPS
    assert all(earlier < later for earlier, later in zip(seen, seen[1:], strict=False))
    assert seen[-1] == expected["A"] + expected["B"]
    assert Round.objects.get(night=night, number=1).status == Round.Status.PLAYING

    # Every phone sends its taps again (a retry after a lost answer), in parallel and in another
    # order: each gets back the tally it recorded the first time, and nothing is added.
    again = in_parallel([send(night.pk, 2, list(reversed(taps))) for taps in plans])
    no_errors(again)
    assert [list(reversed(pks)) for pks in again] == results
    assert table(night, 2).totals() == expected
    assert Tally.objects.filter(night=night).count() == THREADS * TAPS
    assert Event.objects.on(night.channel).filter(kind="tally").count() == THREADS * TAPS


def test_copies_of_the_same_taps_racing_each_other_are_counted_once():
    night = started_night(seed=2)
    taps = plan_taps(7)[:COPIED_TAPS]
    # Every thread sends the same taps in the same order, all released at once: each tap has up
    # to four copies in flight together (a phone retrying while its first request is pending).
    results = in_parallel([send(night.pk, 3, taps) for _ in range(THREADS)])
    no_errors(results)
    assert all(pks == results[0] for pks in results)
    assert len(set(results[0])) == COPIED_TAPS
    assert table(night, 3).totals() == expected_totals([taps])
    assert Tally.objects.filter(night=night).count() == COPIED_TAPS
    assert Event.objects.on(night.channel).filter(kind="tally").count() == COPIED_TAPS


def push(night_pk: int, team: str, tap: tuple[int, bool], roller: Player) -> Callable[[], Tally]:
    """One head-table phone's last tap: `tap` is (points, is it a Bunco rolled by `roller`)."""
    points, is_bunco = tap

    def job() -> Tally:
        return actions.record_tally(
            night=Night.objects.get(pk=night_pk), table_number=1, team=team, points=points,
            bunco_player=roller if is_bunco else None, key=f"last-{team}",
        )  # fmt: skip

    return job


@pytest.mark.parametrize(
    ("tap_a", "tap_b"),
    [((1, False), (1, False)), ((2, False), (5, False)), ((1, False), (0, True))],
    ids=["one-each", "two-and-five", "one-against-a-bunco"],
)
def test_two_head_teams_crossing_21_at_the_same_instant_ring_the_bell_exactly_once(tap_a, tap_b):
    for attempt in range(3):
        night = started_night(seed=10 + attempt)
        for team in "AB":
            for points in (5, 5, 5, 5):
                actions.record_tally(night=night, table_number=1, team=team, points=points)
        head = table(night, 1)
        players = {seat.team: seat.player for seat in head.seats.select_related("player") if seat.position in (0, 1)}

        results = in_parallel([push(night.pk, "A", tap_a, players["A"]), push(night.pk, "B", tap_b, players["B"])])
        tallies = [result for result in results if isinstance(result, Tally)]
        refused = [result for result in results if isinstance(result, RoundClosed)]
        assert len(tallies) == 1 and len(refused) == 1, results
        won = tallies[0].team
        lost = "B" if won == "A" else "A"

        assert Event.objects.on(night.channel).filter(kind="bell").count() == 1
        assert Event.objects.on(night.channel).get(kind="bell").data["team"] == won
        head = table(night, 1)
        assert (head.status, head.winner) == (TableRound.Status.DONE, won)
        totals = head.totals()
        assert totals[lost] == 20 and totals[won] == 20 + tallies[0].points
        assert not Tally.objects.filter(night=night, key=f"last-{lost}").exists()
        assert Round.objects.get(night=night, number=1).status == Round.Status.BELL
        assert {table(night, n).status for n in (2, 3)} == {TableRound.Status.FINISHING}


def held_for_a_moment(monkeypatch, step: str) -> threading.Event:
    """The night's `step` (a function of games/night/actions/ or of the tap's statements,
    games/night/taps.py, wherever a module calls it) made to signal when it starts and then hold
    its transaction 0.3 s before going on, so a racing request is really in flight meanwhile (a
    wider window, never a deadline)."""
    started = threading.Event()
    modules = [tap_statements] + [module for module in vars(actions).values()
                        if isinstance(module, types.ModuleType) and module.__name__.startswith(actions.__name__)]
    calling = [module for module in modules if hasattr(module, step)]
    assert calling, f"no module of the night's actions has {step}"
    original = getattr(calling[0], step)

    def slowly(*args: Any) -> Any:
        started.set()
        time.sleep(0.3)
        return original(*args)

    for module in calling:
        monkeypatch.setattr(module, step, slowly)
    return started


@pytest.fixture
def slow_decisions(monkeypatch) -> threading.Event:
    """Holds every table's decision (the bell's at the head table, a finished turn's) for a moment
    inside its transaction, and signals when one starts: what races it is then really in flight
    at the same time, where a real night's window is a few milliseconds."""
    return held_for_a_moment(monkeypatch, "decide_table")


def test_taps_and_an_undo_at_other_tables_while_the_bell_rings_all_go_through(slow_decisions):
    night = started_night(16, seed=3)
    phone = TableRound.objects.get(round__night=night, number=2).seats.get(position=0).player
    actions.record_tally(night=night, table_number=2, team="A", points=2, entered_by=phone)
    for points in (5, 5, 5, 5):
        actions.record_tally(night=night, table_number=1, team="A", points=points)

    def ring() -> Tally:
        return actions.record_tally(night=Night.objects.get(pk=night.pk), table_number=1, team="A", points=1)

    def undo() -> Tally:
        assert slow_decisions.wait(10)  # the bell's transaction is under way
        return actions.undo_tally(night=Night.objects.get(pk=night.pk), table_number=2, entered_by=phone)

    def tap(table_number: int) -> Callable[[], list[int]]:
        taps = send(night.pk, table_number, [("B", 1, f"t{table_number}-{i}") for i in range(3)])

        def job() -> list[int]:
            assert slow_decisions.wait(10)
            return taps()

        return job

    results = in_parallel([ring, undo, tap(3), tap(4)])
    no_errors(results)
    assert Event.objects.on(night.channel).filter(kind="bell").count() == 1
    assert table(night, 1).winner == "A"
    assert table(night, 2).totals() == {"A": 0, "B": 0}
    assert table(night, 3).totals() == table(night, 4).totals() == {"A": 0, "B": 3}
    assert {table(night, n).status for n in (2, 3, 4)} == {TableRound.Status.FINISHING}


def test_the_last_two_tables_finishing_at_the_same_moment_close_the_round_once(slow_decisions):
    night = started_night(seed=4)
    actions.record_tally(night=night, table_number=2, team="A", points=1)
    actions.record_tally(night=night, table_number=3, team="B", points=1)
    for points in (5, 5, 5, 5, 1):
        actions.record_tally(night=night, table_number=1, team="B", points=points)
    seating = [
        list(tr.seats.order_by("position").values_list("player__name", flat=True))
        for tr in TableRound.objects.filter(round__night=night, round__number=1).order_by("number")
    ]

    def finish(table_number: int) -> Callable[[], TableRound]:
        return lambda: actions.finish_turn(night=Night.objects.get(pk=night.pk), table_number=table_number)

    no_errors(in_parallel([finish(2), finish(3)]))
    assert [table(night, n).winner for n in (1, 2, 3)] == ["B", "A", "B"]
    assert Round.objects.get(night=night, number=1).status == Round.Status.CLOSED
    assert Round.objects.get(night=night, number=2).status == Round.Status.READY
    assert Night.objects.get(pk=night.pk).current_round == 2
    assert Event.objects.on(night.channel).filter(kind="state", data__what="moved").count() == 1
    moved = [
        list(tr.seats.order_by("position").values_list("player__name", flat=True))
        for tr in TableRound.objects.filter(round__night=night, round__number=2).order_by("number")
    ]
    assert moved == bunco.next_seating_with(seating, ["B", "A", "B"])


@pytest.fixture
def slow_bell(monkeypatch) -> threading.Event:
    """Holds the bell's transaction for a moment after it has moved the other tables to finishing
    (their rows locked until it commits), as it decides the head table, and signals when it gets
    there: a tap at one of those tables then waits for its table's lock and is handed the row the
    bell left."""
    return held_for_a_moment(monkeypatch, "decide_table")


def test_a_tap_that_waited_for_its_table_while_the_bell_rang_is_taken_at_the_finishing_table(slow_bell):
    night = started_night(12, seed=5)
    for points in (5, 5, 5, 5):
        actions.record_tally(night=night, table_number=1, team="A", points=points)

    def ring() -> Tally:
        return actions.record_tally(night=Night.objects.get(pk=night.pk), table_number=1, team="A", points=1)

    def tap() -> list[int]:
        assert slow_bell.wait(10)  # the bell has locked the other tables' rows
        return send(night.pk, 2, [("B", 2, "during-the-bell")])()

    results = in_parallel([ring, tap])
    no_errors(results)  # on PostgreSQL the tap read the round as playing and was refused as late
    assert table(night, 2).totals() == {"A": 0, "B": 2}
    assert table(night, 2).status == TableRound.Status.FINISHING
    assert Event.objects.on(night.channel).filter(kind="bell").count() == 1


def test_the_last_two_sudden_death_roll_offs_decided_at_the_same_moment_close_the_round_once(slow_decisions):
    """Each roll-off tap locks the round's row before it looks at the other tables (as a finished
    turn does): without it, each of two taps deciding at once saw the other table still rolling off,
    and neither closed the round."""
    night = started_night(12, seed=6, rules=bunco.Rules(tie_break="sudden_death"))
    for number in (2, 3):
        actions.record_tally(night=night, table_number=number, team="A", points=2)
        actions.record_tally(night=night, table_number=number, team="B", points=2)
    for points in (5, 5, 5, 5, 1):
        actions.record_tally(night=night, table_number=1, team="A", points=points)  # the bell
    for number in (2, 3):
        assert actions.finish_turn(night=night, table_number=number).status == TableRound.Status.ROLL_OFF

    def break_the_tie(number: int) -> Callable[[], Tally]:
        return lambda: actions.record_tally(night=Night.objects.get(pk=night.pk), table_number=number, team="B",
                                            points=1)

    no_errors(in_parallel([break_the_tie(2), break_the_tie(3)]))
    assert [table(night, n).winner for n in (1, 2, 3)] == ["A", "B", "B"]
    assert Round.objects.get(night=night, number=1).status == Round.Status.CLOSED
    assert Event.objects.on(night.channel).filter(kind="state", data__what="moved").count() == 1
    assert Night.objects.get(pk=night.pk).current_round == 2
