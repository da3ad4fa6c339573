"""The Bunco tap's walk through the project's modules, counted as scripts/tap_call_graph.py counts
it (its docstring says how): calls, not time, so it never flakes. Issue 30 asks for at most 15
stops and 5 returns: a read, one judgement, one write and one publication. The round-closing tap
(once a round) walks the same way (issue 43): its read takes the round whole, the engine's one
answer seats the next round, its write writes the seats."""

from __future__ import annotations

import pytest

from scripts.tap_call_graph import ROOT, Stop, Walk, walk_of_a_bunco_tap

pytestmark = pytest.mark.django_db


def test_a_bunco_that_rings_the_bell_walks_at_most_15_stops_with_5_returns():
    walk = walk_of_a_bunco_tap(players=12)
    assert walk.stops <= 15 and walk.returns <= 5, walk.report()
    assert walk.stops == len(walk.rooms) + walk.returns
    # The action, its statements, the engine and the event log: nothing else is walked into.
    assert walk.rooms == ["games.night.actions.tallies", "games.night.taps", "games.rules.bunco", "live.log"]


def test_a_bunco_that_closes_the_round_and_seats_the_next_walks_at_most_15_stops_with_5_returns():
    walk = walk_of_a_bunco_tap(players=4)
    assert walk.stops <= 15 and walk.returns <= 5, walk.report()
    # The same rooms as any tap: the round's close is read, answered and written with the tally.
    assert walk.rooms == ["games.night.actions.tallies", "games.night.taps", "games.rules.bunco", "live.log"]
    assert "games.night.taps.seat_following" in {str(stop) for _depth, stop in walk.functions}, walk.report()


def test_a_tap_writes_its_events_through_the_event_logs_one_insert():
    walk = walk_of_a_bunco_tap(players=12)
    assert "live.log.insert_events" in {str(stop) for _depth, stop in walk.functions}, walk.report()


def test_the_event_logs_insert_is_written_once_in_the_apps():
    """live/log.py's `insert_events` is the one INSERT into the event log: a tap and a move use it."""
    written = sorted(path.relative_to(ROOT).as_posix() for package in ("bunco_club", "games", "live", "tournaments")
                     for path in (ROOT / package).rglob("*.py")
                     if "(channel, kind, data, created_at)" in path.read_text(encoding="utf-8"))
    assert written == ["live/log.py"]


def test_the_tap_asks_the_engine_what_the_tally_leads_to_once():
    walk = walk_of_a_bunco_tap(players=4)
    asked = engine_calls_from_the_night(walk)
    assert asked.count("rule_on_tap") == 1, walk.report()
    # Whether the table takes it, the bell, the table's winner and the movement are in that one
    # answer, not asked piece by piece (building the night's Rules is no question).
    assert set(asked) <= {"rule_on_tap", "Rules.__post_init__"}, walk.report()


def engine_calls_from_the_night(walk: Walk) -> list[str]:
    """The engine's functions the night's own code calls (not those the engine calls itself)."""
    callers: list[Stop] = []
    asked = []
    for depth, stop in walk.functions:
        del callers[depth:]
        if stop.module == "games.rules.bunco" and callers and callers[-1].module.startswith("games.night."):
            asked.append(stop.name)
        callers.append(stop)
    return asked
