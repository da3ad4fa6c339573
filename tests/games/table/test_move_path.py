"""A game-table move's walk through the project's modules, counted as scripts/tap_call_graph.py
counts it (its docstring says how): calls, not time, so it never flakes. Issue 43 asks a move to be
as short as a tap: at most 15 stops and 5 returns, in every game: one locked read of the table and
its game, one answer from the game, one write of the move and its events, one publication."""

from __future__ import annotations

import pytest

from scripts.tap_call_graph import GAMES, Stop, Walk, walk_of_a_move

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("game", GAMES)
def test_a_move_walks_at_most_15_stops_with_5_returns_in_every_game(game: str) -> None:
    walk = walk_of_a_move(game)
    assert walk.stops <= 15 and walk.returns <= 5, walk.report()
    # The action, its statements, the game's answer and the event log: the same rooms for every game.
    assert walk.rooms == ["games.table.actions", "games.table.statements", "games.rules.table", "live.log"], walk.report()


@pytest.mark.parametrize("game", GAMES)
def test_a_move_asks_the_game_once(game: str) -> None:
    walk = walk_of_a_move(game)
    asked = calls_from(walk, "games.table.", "games.rules.")
    # The new game, what chance produced, the views, the scores, the end and the words: one answer.
    assert asked == ["answer"], walk.report()


def test_a_move_writes_its_events_through_the_event_logs_one_insert() -> None:
    walk = walk_of_a_move("ninety_nine")  # a move of hidden hands: its hands' events too
    assert calls_from(walk, "games.table.", "live.") == ["log_events"], walk.report()


def calls_from(walk: Walk, caller: str, callee: str) -> list[str]:
    """The functions of the modules `callee` starts that functions of the modules `caller` starts
    call (not those the callee's modules call among themselves), in the walk's order."""
    callers: list[Stop] = []
    asked = []
    for depth, stop in walk.functions:
        del callers[depth:]
        if stop.module.startswith(callee) and callers and callers[-1].module.startswith(caller):
            asked.append(stop.name)
        callers.append(stop)
    return asked
