"""The levels a bot plays at, the same for every game, and what people read for each: said once.

`LEVELS` are the names kept with a seat, posted by the pages and taken by simulate_table's --level
(docs/CONTRACT.md), so never renamed; every game's bots take them (`<game>_bots.LEVELS` is this one).
`WORDS` is what people read for each, as friends at a table would name how a player plays. How a
game's bot plays at each level, in one line, is the game's own: its bots module says it
(`LEVEL_HINTS`), and the registry (games.rules.registry.bot_levels) puts each word beside its hint.
"""

from __future__ import annotations

from typing import Final

from games.rules.words import gettext_noop

LEVELS: Final[tuple[str, ...]] = ("easy", "threshold", "strong")

# Marked for translation: translated where people read them.
WORDS: Final[dict[str, str]] = {"easy": gettext_noop("easy"), "threshold": gettext_noop("steady"),
                                "strong": gettext_noop("sharp")}
