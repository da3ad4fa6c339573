"""The games a game table can play: the one place that names them (docs/DESIGN.md §2).

Each game keeps its engine, bots and table adapter together (games/rules/<game>*.py, its
`GameRules` record in `<game>_table.py`) and its templates in templates/games/table/<game>/;
games/table/ asks the record for everything and never names a game. A fourth game is its modules,
its template folder and a line here.
"""

from __future__ import annotations

from dataclasses import dataclass

from games.rules import bot_levels as levels
from games.rules import fill_or_bust_table, kismet_table, ninety_nine_table
from games.rules.table import GameRules, IllegalMove
from games.rules.words import Said, gettext_noop

# In the order "Play a game" offers them; the first is the form's choice until another is made.
GAMES: dict[str, GameRules] = {
    rules.name: rules for rules in (fill_or_bust_table.RULES, ninety_nine_table.RULES, kismet_table.RULES)
}

# The levels a bot plays at, the same for every game, and what people read for each: said once, in
# games/rules/bot_levels.py (the names never renamed: docs/CONTRACT.md).
BOT_LEVELS: tuple[str, ...] = levels.LEVELS
BOT_LEVEL_WORDS: dict[str, str] = levels.WORDS


@dataclass(frozen=True)
class BotLevel:
    """A bot level as a page offers it: `name` is posted and kept, `word` and `hint` are read."""

    name: str
    word: str
    hint: str  # "" for a game whose bots say nothing of their levels

    @property
    def label(self) -> str:
        """One line: "steady: banks once a fair amount is at risk"."""
        if not self.hint:
            return Said(self.word)
        return Said(gettext_noop("%(word)s: %(hint)s"), word=Said(self.word), hint=Said(self.hint))


def bot_levels(game: str) -> tuple[BotLevel, ...]:
    """The levels a bot plays `game` at, in BOT_LEVELS' order, with their words and `game`'s hints."""
    hints = dict(GAMES[game].bot_hints) if game in GAMES else {}
    return tuple(BotLevel(level, BOT_LEVEL_WORDS[level], hints.get(level, "")) for level in BOT_LEVELS)


def bot_level_word(level: str) -> str:
    """What people read for a stored level (the level itself for one no longer offered)."""
    return BOT_LEVEL_WORDS.get(level, level)


def game_rules(name: str) -> GameRules:
    try:
        return GAMES[name]
    except KeyError:
        raise IllegalMove(Said(gettext_noop("There is no game %(name)s at the tables; the games are %(games)s."),
                               name=repr(name), games=", ".join(GAMES))) from None
