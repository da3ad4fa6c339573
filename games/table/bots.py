"""Bots in the seats of a game table: which move a bot at a given level makes.

The strategies are pure and live with their game's rules (games/rules/<game>_bots.py, reached
through the game's `GameRules.bot_move`); this module asks the table's game for its bot. A bot's own choices (which of two equal keeps, say) use a
generator of their own, derived from the table's seed and the move's number, so a simulation with a
seed plays the same game twice; they reveal nothing of the dice, which come from the move's
generator.
"""

from __future__ import annotations

import random
from typing import Any

from games.rules.registry import BOT_LEVELS, game_rules
from games.rules.table import TableGame

LEVELS: tuple[str, ...] = BOT_LEVELS


def choose_move(game: TableGame, seat: int, level: str, rng: random.Random) -> dict[str, Any]:
    """The move the bot of `seat` makes now: the game's own bot (its `GameRules.bot_move`)."""
    return game_rules(game.game).bot_move(game, seat, level, rng)


def bot_rng(seed: str, number: int) -> random.Random:
    return random.Random(f"bot:{seed}:{number}")
