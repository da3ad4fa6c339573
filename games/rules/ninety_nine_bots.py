"""Bots for Ninety-Nine or Bust at a game table (docs/RULES.md §2), at the table's three levels.

Pure rules: every random choice comes from the generator passed in. The game table calls
`choose_move(table, seat, level, rng)` and gets back one of `table.legal_moves(seat)`. A bot sees
only what its seat's phone would: `table.view(seat)` (its own hand and the public count), never
another hand or the draw pile.

- **easy** ("any legal card"): a legal card drawn at random, specials and all.
- **threshold** ("keeps its specials"): the engine's `bot_card`: the highest legal number card,
  and only when no number will do a hold, a reverse, then minus 10 and last the 99. So its 99s and
  minus 10s are kept for when they are needed.
- **strong**: as threshold, except that when a number card takes the count to exactly 99 it plays
  that one rather than its highest (the next player then needs a special card).
"""

from __future__ import annotations

import random
from typing import Any, Final

from games.rules import table as table_game
from games.rules.bot_levels import LEVELS
from games.rules.ninety_nine import MAX_COUNT, ROUND_OVER, NinetyNineTable, bot_card, play_card
from games.rules.words import Said, gettext_noop

# What a page says of each level (games.rules.bot_levels.LEVELS) beside its word, in one line.
LEVEL_HINTS: Final = {
    "easy": gettext_noop("plays any card it may, at random"),
    "threshold": gettext_noop("saves its 99s and minus 10s for a tight spot"),
    "strong": gettext_noop("saves its specials and leaves the count at 99"),
}


class UnknownLevel(table_game.IllegalMove):
    """A bot level that isn't one of `LEVELS`."""


def choose_card(hand: list[Any], legal: list[Any], count: int, level: str, rng: random.Random) -> Any:
    """The card a bot at `level` plays from `hand` (whose playable cards are `legal`) on `count`."""
    if level == "easy":
        return legal[rng.randrange(len(legal))]
    if level == "strong":
        numbers = [card for card in legal if type(card) is int]
        to_99 = [card for card in numbers if play_card(count, card) == MAX_COUNT]
        if to_99:
            return to_99[0]
    return bot_card(hand, count)


def choose_move(table: NinetyNineTable, seat: int, level: str, rng: random.Random) -> dict[str, Any]:
    """The move the bot of `seat` makes now: deal after a lost round, else a card."""
    if level not in LEVELS:
        raise UnknownLevel(Said(gettext_noop("There is no bot level %(level)s; the levels are %(list)s."), level=repr(level), list=', '.join(LEVELS)))
    table.check_turn(seat)
    view = table.view(seat)
    if view.public["phase"] == ROUND_OVER:
        return {"kind": "deal"}
    hand, count = view.private["hand"], view.public["count"]
    legal = view.private["legal"]
    return {"kind": "play", "card": choose_card(hand, legal, count, level, rng)}
