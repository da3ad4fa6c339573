"""Replaying a table's game from its seed: for an undo, the replay page, the record and `verify_table`.

A table's game is its deal (step 0, `Table.chance_for(0, …)`: the seed and the seats' lobby
contributions) followed by its recorded moves, the n-th applied with step n's chance (the seed and
the move's `client`); an undo takes the game back to where it stood before the move it
undoes. Replaying therefore needs only the seed and the moves: what `verify` does with the revealed
seed, checking every card, toss and score against what was recorded, and the commitment against
the seed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from games.rules.dice import Chance, ChanceStream, commitment_of
from games.rules.table import IllegalMove, TableGame
from games.table.models import Move, Table

UNDO = "undo"
TIME_UP = "time_up"  # the buzzer of a timed game, recorded as a move of the seat on turn


@dataclass(frozen=True)
class Step:
    """One recorded move, the game after it, and what chance produced in it (docs/FAIRNESS.md's record:
    empty for a version 1 table)."""

    move: Move
    game: TableGame
    chance_used: list[dict[str, Any]]


def _used(chance: Chance) -> list[dict[str, Any]]:
    return chance.used if isinstance(chance, ChanceStream) else []


def dealt(table: Table, seed: str | None = None) -> tuple[TableGame, list[dict[str, Any]]]:
    """The game as dealt at the start (step 0), before any move, and what chance produced in it."""
    names, setup_input = table.deal_inputs()
    chance = table.chance_for(0, setup_input, seed)
    return table.engine.new(names, table.options, chance), _used(chance)


def deal(table: Table, seed: str | None = None) -> TableGame:
    """The game as dealt, before any move."""
    return dealt(table, seed)[0]


def replay(table: Table, moves: Iterable[Move], seed: str | None = None) -> Iterator[Step]:
    """Each move applied in order from the deal; IllegalMove if one cannot be (a record altered)."""
    history = [deal(table, seed)]
    for move in moves:
        chance = table.chance_for(move.number, move.client, seed)
        if move.move.get("kind") == UNDO:
            if len(history) < 2:
                raise IllegalMove(f"Move {move.number} undoes nothing.")
            history.pop()
        elif move.move.get("kind") == TIME_UP:
            history.append(_time_up(table, history[-1]))
        else:
            history.append(history[-1].apply(move.seat, move.move, chance))
        yield Step(move, history[-1], _used(chance))


def _time_up(table: Table, game: TableGame) -> TableGame:
    time_up = table.engine.time_up
    if time_up is None:
        raise IllegalMove(f"{table.engine.label} is not a timed game.")
    return time_up(game)


def replayed_state(table: Table, moves: Iterable[Move]) -> TableGame:
    game = deal(table)
    for step in replay(table, moves):
        game = step.game
    return game


def as_stored(replayed: Any, stored: Any) -> Any:
    """The replayed game's data without what the stored data never had: a field an engine added
    to its state after the table was stored (Fill or Bust's start roll, recorded since issue 29)
    is made again by the replay, from the same dice, but the stored state predates it. Every field
    the stored state has is still compared, at every depth."""
    if isinstance(replayed, dict) and isinstance(stored, dict):
        return {key: as_stored(value, stored[key]) for key, value in replayed.items() if key in stored}
    return replayed


@dataclass(frozen=True)
class Verdict:
    verified: bool
    message: str  # verify_table's line: "verified: …" or the first difference
    moves: int = 0  # how many recorded moves were checked, once verified (the check page says it)


def verify(table: Table, seed: str | None = None) -> Verdict:
    """Whether the table's record holds: SHA-256(seed) is the commitment published before the first
    move, and replaying every move from the seed gives every card and toss recorded, every score,
    and the game as stored. The first difference otherwise."""
    seed = seed if seed is not None else table.seed
    if commitment_of(seed) != table.commitment:
        return Verdict(False, _("the seed's SHA-256 %(hash)s is not the commitment %(commitment)s")
                       % {"hash": commitment_of(seed), "commitment": table.commitment})
    rules = table.engine
    moves = list(table.moves.order_by("number"))
    previous = deal(table, seed)
    count = 0
    try:
        for count, step in enumerate(replay(table, moves, seed), 1):
            move = step.move
            if move.number != count:
                return Verdict(False, _("move %(number)s is missing (the next recorded is %(next)s)")
                               % {"number": count, "next": move.number})
            chance = rules.chance(previous, step.game)
            if chance != move.chance:
                return Verdict(False, _("move %(number)s (%(move)s): chance gives %(chance)s, the record says "
                                        "%(recorded)s") % {"number": move.number, "move": move.move,
                                                           "chance": chance, "recorded": move.chance})
            scores = rules.scores(step.game)
            if scores != move.scores:
                return Verdict(False, _("move %(number)s (%(move)s): the scores come to %(scores)s, the record "
                                        "says %(recorded)s") % {"number": move.number, "move": move.move,
                                                                "scores": scores, "recorded": move.scores})
            previous = step.game
    except IllegalMove as error:
        return Verdict(False, _("move %(number)s cannot be replayed: %(error)s") % {"number": count + 1, "error": error})
    if as_stored(previous.to_dict(), table.state) != table.state:
        return Verdict(False, _("the game as stored is not where the moves lead"))
    return Verdict(True, f"verified: {len(moves)} moves of {rules.label} at table {table.code} replay from "
                         f"the seed, whose SHA-256 is the commitment {table.commitment}", moves=len(moves))
