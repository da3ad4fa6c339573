"""Bots for Kismet at a game table (docs/RULES.md §3): which move a bot makes, and the hint a phone may show.

Pure: no Django; the bot's own generator is passed in (it picks only among equal choices, and types
in the dice of a seat that rolls real dice). Three levels, by the names the tables use for every game:

- "easy": the best immediate box. It scores after its first roll, in the box where the dice score
  most (ties in sheet order).
- "threshold": holds dice for a target. It keeps the most common face (a run of four for a Straight)
  and rerolls the rest while it has rolls left and the box it aims at is not made, then scores
  where the dice are worth most against the box's par (below).
- "strong": looks one roll ahead. Before each reroll it weighs every way of keeping dice by the
  exact expected worth of the dice after the reroll (every outcome of the dice picked up, counted
  over the 252 sorted hands), and stops when no reroll is expected to do better than scoring now.

A box's worth is a fast estimate of what it adds to the final total, not a solved table: the points
the dice score there minus the box's par (about what an average turn aimed at it scores), with a
Basic box scored at three of its face or more counted towards the 63 that earn the first bonus. The
same estimate gives the hint (`best_box`): the box that is expected to leave the best final total.
"""

from __future__ import annotations

import random
from collections import Counter
from functools import lru_cache
from itertools import combinations_with_replacement
from math import factorial
from typing import Any, Final

from games.rules.bot_levels import LEVELS
from games.rules.kismet import BASIC_BOXES, BOXES, DICE, KismetTable, Sheet, options
from games.rules.table import IllegalMove
from games.rules.words import Said, gettext_noop

# What a page says of each level (games.rules.bot_levels.LEVELS) beside its word, in one line.
LEVEL_HINTS: Final = {
    "easy": gettext_noop("scores its first roll where it's worth most"),
    "threshold": gettext_noop("holds dice for the box it's after"),
    "strong": gettext_noop("weighs every reroll before it scores"),
}

# About what a turn aimed at the box scores (three of the face for a Basic box: 63 in all, the
# first bonus step).
PAR: Final[dict[str, float]] = {
    "ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 18,
    "two_pair_same_color": 12, "three_of_a_kind": 17, "straight": 20, "flush": 12,
    "full_house": 24, "full_house_same_color": 14, "four_of_a_kind": 16, "yarborough": 21,
    "kismet": 18,
}
BONUS_PULL: Final = 35 / 6  # each Basic box at par or above is worth a share of the 35 bonus


class UnknownLevel(IllegalMove):
    """A bot level that isn't one of `LEVELS`."""


def worth(sheet: Sheet, box: str, points: int) -> float:
    """The estimated gain to the final total of writing `points` in `box` of `sheet`."""
    gain = points - PAR[box]
    if box in BASIC_BOXES:
        face = BASIC_BOXES.index(box) + 1
        if points >= 3 * face and sheet.bonus == 0:
            gain += BONUS_PULL
    return gain


def best_box(game: KismetTable) -> str:
    """The hint: of the boxes the dice on the table may go in now, the one expected to leave the
    best final total (by `worth`; ties in sheet order)."""
    state = game.state
    assert state.current is not None and state.turn is not None
    sheet = state.sheets[state.current]
    choices = state.box_choices()
    return max(state.legal_boxes(), key=lambda box: (worth(sheet, box, choices[box]), -BOXES.index(box)))


def _best_points_box(game: KismetTable) -> str:
    state = game.state
    choices = state.box_choices()
    return max(state.legal_boxes(), key=lambda box: (choices[box], -BOXES.index(box)))


def choose_move(game: KismetTable, seat: int, level: str, rng: random.Random) -> dict[str, Any]:
    """The move the bot of `seat` makes now; UnknownLevel for a level not in `LEVELS`,
    NotYourTurn when it is not the seat's move."""
    if level not in LEVELS:
        raise UnknownLevel(Said(gettext_noop("There is no bot level %(level)s; the levels are %(list)s."), level=repr(level), list=', '.join(LEVELS)))
    game.check_turn(seat)
    turn = game.state.turn
    if turn is None:
        if game.typed(seat):  # a seat of real dice: the bot rolls its own and types them in
            return {"kind": "enter", "dice": [rng.randint(1, 6) for _ in range(DICE)]}
        return {"kind": "roll"}
    if level == "easy" or game.typed(seat) or turn.rolls_left == 0:
        box = _best_points_box(game) if level == "easy" else best_box(game)
        return {"kind": "score", "box": box}
    keep = _target_keep(game) if level == "threshold" else _lookahead_keep(game)
    if keep is None:
        return {"kind": "score", "box": best_box(game)}
    return {"kind": "roll", "keep": list(keep)}


# --- threshold: hold for a target ------------------------------------------------------------------


def _target_keep(game: KismetTable) -> tuple[int, ...] | None:
    """The dice to keep for the box aimed at, or None when it is made (score now)."""
    state = game.state
    assert state.current is not None and state.turn is not None
    sheet = state.sheets[state.current]
    dice = sorted(state.turn.dice)
    made = options(dice)
    if sheet.is_open("straight") and "straight" in made:
        return None
    if (sheet.is_open("kismet") and "kismet" in made) or (sheet.is_open("full_house") and "full_house" in made):
        return None
    if sheet.is_open("straight"):
        for run in ((1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 5, 6)):
            if set(run) <= set(dice) and max(Counter(dice).values()) < 3:
                return run
    counts = Counter(dice)
    face = max(counts, key=lambda f: (counts[f], f))
    keep = (face,) * counts[face]
    if len(keep) == DICE:
        return None
    return keep


# --- strong: one roll ahead ------------------------------------------------------------------------

_HANDS: Final = tuple(combinations_with_replacement(range(1, 7), DICE))


@lru_cache(maxsize=8)
def _outcomes(count: int) -> tuple[tuple[tuple[int, ...], float], ...]:
    """Every sorted result of rolling `count` dice, with its probability."""
    found = []
    for faces in combinations_with_replacement(range(1, 7), count):
        ways = factorial(count)
        for n in Counter(faces).values():
            ways //= factorial(n)
        found.append((faces, ways / 6**count))
    return tuple(found)


def _hand_worths(game: KismetTable) -> dict[tuple[int, ...], float]:
    """The worth of scoring now, for every sorted hand of five dice, on the current sheet."""
    state = game.state
    assert state.current is not None
    sheet = state.sheets[state.current]
    open_boxes = sheet.open_boxes
    out = {}
    for hand in _HANDS:
        found = options(hand)
        out[hand] = max(worth(sheet, box, found.get(box, 0)) for box in open_boxes)
    return out


def _keeps(dice: tuple[int, ...]) -> set[tuple[int, ...]]:
    found: set[tuple[int, ...]] = set()
    for mask in range(2**DICE - 1):  # every subset but all five
        found.add(tuple(sorted(dice[i] for i in range(DICE) if mask >> i & 1)))
    return found


def _lookahead_keep(game: KismetTable) -> tuple[int, ...] | None:
    """The keep whose reroll is expected to be worth most, or None when scoring now is."""
    state = game.state
    assert state.turn is not None
    dice = tuple(sorted(state.turn.dice))
    worths = _hand_worths(game)
    best: tuple[float, tuple[int, ...]] | None = None
    for keep in sorted(_keeps(dice), key=lambda k: (-len(k), k)):
        expected = sum(p * worths[tuple(sorted(keep + rolled))] for rolled, p in _outcomes(DICE - len(keep)))
        if best is None or expected > best[0] + 1e-9:
            best = (expected, keep)
    assert best is not None
    return None if best[0] <= worths[dice] else best[1]
