"""Bots in the seats of a game table: which move a bot at a given level makes.

The strategies are pure and live with their game's rules (games/rules/fill_or_bust_bots.py); this
module picks the one for the table's game. A bot's own choices (which of two equal keeps, say) use a
generator of their own, derived from the table's seed and the move's number, so a simulation with a
seed plays the same game twice; they reveal nothing of the dice, which come from the move's
generator.
"""

from __future__ import annotations

import random
from typing import Any

from games.rules import fill_or_bust_bots, kismet_bots, ninety_nine_bots
from games.rules.fill_or_bust import FillOrBustTable
from games.rules.kismet import KismetTable
from games.rules.ninety_nine import NinetyNineTable
from games.rules.table import IllegalMove, TableGame

LEVELS: tuple[str, ...] = tuple(fill_or_bust_bots.LEVELS)


def choose_move(game: TableGame, seat: int, level: str, rng: random.Random) -> dict[str, Any]:
    """The move the bot of `seat` makes now."""
    if isinstance(game, FillOrBustTable):
        return fill_or_bust_bots.choose_move(game, seat, level, rng)
    if isinstance(game, NinetyNineTable):
        return ninety_nine_bots.choose_move(game, seat, level, rng)
    if isinstance(game, KismetTable):
        return kismet_bots.choose_move(game, seat, level, rng)
    raise IllegalMove(f"There are no bots for {game.game} yet.")


def bot_rng(seed: str, number: int) -> random.Random:
    return random.Random(f"bot:{seed}:{number}")
