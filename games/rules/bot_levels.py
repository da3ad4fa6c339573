"""The levels a bot plays at, the same for every game, and what people read for each: said once.

`LEVELS` are the names kept with a seat, posted by the pages and taken by simulate_table's --level
(docs/CONTRACT.md), so never renamed; every game's bots take them (`<game>_bots.LEVELS` is this one).
`WORDS` is what people read for each, as friends at a table would name how a player plays. How a
game's bot plays at each level, in one line, is the game's own: its bots module says it
(`LEVEL_HINTS`), and the registry (games.rules.registry.bot_levels) puts each word beside its hint.
"""

from __future__ import annotations

from typing import Final

LEVELS: Final[tuple[str, ...]] = ("easy", "threshold", "strong")

WORDS: Final[dict[str, str]] = {"easy": "easy", "threshold": "steady", "strong": "sharp"}
