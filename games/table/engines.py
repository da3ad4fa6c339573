"""The games a table plays, as the table sees them: `games.rules.registry` (the one place that names
the games) and their `GameRules` records. Kept under its old name for the callers of `engine()`
and `ENGINES`; `SHORT_GOAL` stays importable from here for the tests' builders and the benches.
"""

from __future__ import annotations

from games.rules.fill_or_bust_table import SHORT_GOAL
from games.rules.registry import GAMES as ENGINES
from games.rules.registry import game_rules as engine
from games.rules.table import GameRules as Engine

__all__ = ["ENGINES", "SHORT_GOAL", "Engine", "engine"]
