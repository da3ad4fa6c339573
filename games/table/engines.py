"""The games a game table can play, and what the table needs to know of each (DESIGN.md §2).

A table stores its game as the engine's `to_dict()` and talks to it only through
`games.rules.table.TableGame`; this registry adds the few things a table needs beyond that
interface: how to deal a new game from the table's options, how many seats the game takes, which
figures make the scoresheet, and what chance produced in a move (the cards turned and the dice
tossed, recorded with the move so that `verify_table` can check them).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.rules import fill_or_bust, ninety_nine
from games.rules.table import IllegalMove, TableGame
from games.table import kismet as kismet_table

SHORT_GOAL = 2000  # a quick game at the table: a few turns each


@dataclass(frozen=True)
class Engine:
    name: str
    label: str
    min_seats: int
    max_seats: int
    new: Callable[[Sequence[str], Mapping[str, Any], random.Random], TableGame]
    load: Callable[[Mapping[str, Any]], TableGame]
    # What chance produced between two states of the game, in the order it happened.
    chance: Callable[[TableGame, TableGame], list[list[Any]]]
    # The scoresheet after a move (points in seat order), checked by verify_table.
    scores: Callable[[TableGame], list[int]]
    # The buzzer of a timed game (a tournament round's clock): the game after time is up, or None
    # for a game that is never timed.
    time_up: Callable[[TableGame], TableGame] | None = None
    # Whether a seat may hold what others may not see (a hand of cards): then each move sends
    # every seat its private view on its own channel. Fill or Bust hides nothing but the deck.
    private_hands: bool = False
    # What the seed's commitment vouches for, in the words of the game: its heading and what
    # anyone can check once the seed is revealed.
    fairness: tuple[str, str] = ("Fair dice", "every toss and card")


# --- Fill or Bust ---------------------------------------------------------------------------------

FILL_OR_BUST_GOALS = (SHORT_GOAL, 5000, 10000)


def fill_or_bust_options(options: Mapping[str, Any]) -> tuple[fill_or_bust.Options, int | None]:
    """The rules options and the point goal a table's stored options stand for: {"goal": G} (one
    of FILL_OR_BUST_GOALS) or {"goal": None, "timed": True} (no goal: time_up ends the game), plus
    the §1.5 options by their `fill_or_bust.Options` names."""
    goal = options.get("goal", 5000)
    if goal is None and options.get("timed"):
        goal = None  # a tournament group's game: it ends when the round's clock says so
    elif type(goal) is not int or goal not in FILL_OR_BUST_GOALS:
        raise IllegalMove(f"The goal is one of {', '.join(f'{g:,}' for g in FILL_OR_BUST_GOALS)}, not {goal!r}.")
    rules = {k: v for k, v in options.items() if k not in ("goal", "timed")}
    try:
        return fill_or_bust.Options(**rules), goal
    except TypeError as error:
        raise IllegalMove(f"Unknown Fill or Bust option: {error}.") from None


def _new_fill_or_bust(names: Sequence[str], options: Mapping[str, Any], rng: random.Random) -> TableGame:
    rules, goal = fill_or_bust_options(options)
    return fill_or_bust.FillOrBustTable.new(names, rng, options=rules, goal=goal)


def _fill_or_bust_new_steps(before: TableGame, after: TableGame) -> list[tuple[Any, ...]]:
    """The steps taken from `before` to `after` (none after an undo), without walking the game's
    whole history."""
    assert isinstance(before, fill_or_bust.FillOrBustTable) and isinstance(after, fill_or_bust.FillOrBustTable)
    was, now = before.state, after.state
    if len(now.turns) == len(was.turns):
        return list(now.steps[len(was.steps) :])
    finished = now.turns[len(was.turns) :]
    steps = list(finished[0].steps[len(was.steps) :])
    for turn in finished[1:]:
        steps += turn.steps
    return steps + list(now.steps)


def _fill_or_bust_chance(before: TableGame, after: TableGame) -> list[list[Any]]:
    return fill_or_bust.step_lists(step for step in _fill_or_bust_new_steps(before, after)
                                   if step[0] in ("card", "toss"))


def _fill_or_bust_time_up(game: TableGame) -> TableGame:
    assert isinstance(game, fill_or_bust.FillOrBustTable)
    return fill_or_bust.FillOrBustTable(game.state.time_up())


def _fill_or_bust_scores(game: TableGame) -> list[int]:
    assert isinstance(game, fill_or_bust.FillOrBustTable)
    return list(game.state.sheet)


# --- Ninety-Nine or Bust ---------------------------------------------------------------------------

NINETY_NINE_MARKERS = range(1, 11)


def ninety_nine_rules(options: Mapping[str, Any]) -> ninety_nine.Rules:
    """The rules a table's stored options stand for: {"markers": M} (1 to 10; 4 by default) and,
    optionally, {"deck": {card: copies}} for another composition than RULES.md §2's 52 cards."""
    markers = options.get("markers", ninety_nine.STARTING_MARKERS)
    if type(markers) is not int or markers not in NINETY_NINE_MARKERS:
        raise IllegalMove(f"Each player starts with 1 to {NINETY_NINE_MARKERS[-1]} markers, not {markers!r}.")
    unknown = set(options) - {"markers", "deck"}
    if unknown:
        raise IllegalMove(f"Unknown Ninety-Nine or Bust option: {', '.join(sorted(unknown))}.")
    deck = options.get("deck")
    if deck is None:
        return ninety_nine.Rules(markers=markers)
    if not isinstance(deck, Mapping):
        raise IllegalMove("The deck is a number of copies per card.")
    # JSON keys are text: the number cards come back as "1".."10".
    copies = {int(card) if str(card).isdigit() and card != "99" else card: number for card, number in deck.items()}
    return ninety_nine.Rules.with_deck(copies, markers=markers)


def _new_ninety_nine(names: Sequence[str], options: Mapping[str, Any], rng: random.Random) -> TableGame:
    return ninety_nine.NinetyNineTable.new(names, rng, rules=ninety_nine_rules(options))


def _ninety_nine_chance(before: TableGame, after: TableGame) -> list[list[Any]]:
    assert isinstance(before, ninety_nine.NinetyNineTable) and isinstance(after, ninety_nine.NinetyNineTable)
    return ninety_nine.chance_between(before.state, after.state)


def _ninety_nine_scores(game: TableGame) -> list[int]:
    assert isinstance(game, ninety_nine.NinetyNineTable)
    return list(game.state.markers)


ENGINES: dict[str, Engine] = {
    "fill_or_bust": Engine(
        name="fill_or_bust",
        label="Fill or Bust",
        min_seats=2,
        max_seats=8,
        new=_new_fill_or_bust,
        load=fill_or_bust.FillOrBustTable.from_dict,
        chance=_fill_or_bust_chance,
        scores=_fill_or_bust_scores,
        time_up=_fill_or_bust_time_up,
    ),
    "ninety_nine": Engine(
        name="ninety_nine",
        label="Ninety-Nine or Bust",
        min_seats=2,
        max_seats=8,
        new=_new_ninety_nine,
        load=ninety_nine.NinetyNineTable.from_dict,
        chance=_ninety_nine_chance,
        scores=_ninety_nine_scores,
        private_hands=True,
        fairness=("Fair deal", "every shuffle and every card dealt"),
    ),
    "kismet": Engine(
        name="kismet",
        label="Kismet",
        min_seats=1,
        max_seats=8,
        new=kismet_table.new,
        load=kismet_table.load,
        chance=kismet_table.chance,
        scores=kismet_table.scores,
        fairness=("Fair dice", "every roll of the table's dice"),
    ),
}


def engine(name: str) -> Engine:
    try:
        return ENGINES[name]
    except KeyError:
        raise IllegalMove(f"There is no game {name!r} at the tables; the games are {', '.join(ENGINES)}.") from None
