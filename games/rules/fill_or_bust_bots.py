"""PLACEHOLDER until the bots branch lands (replaced by it)."""

from __future__ import annotations

import random
from typing import Any

from games.rules import dice
from games.rules.fill_or_bust import ActionKind, FillOrBustTable, bot_decide
from games.rules.table import IllegalMove

LEVELS = ("easy", "threshold", "strong")


def choose_move(table: FillOrBustTable, seat: int, level: str, rng: random.Random) -> dict[str, Any]:
    moves = table.legal_moves(seat)
    if not moves:
        raise IllegalMove("It is not this seat's move.")
    if level == "easy":
        return dice.choice(rng, moves)
    action = bot_decide(table.state, rng)
    if action.kind is ActionKind.KEEP:
        return {"kind": "keep", "dice": list(action.dice)}
    return {"kind": action.kind.value}
