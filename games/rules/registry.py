"""The games a game table can play: the one place that names them (DESIGN.md §2).

Each game keeps its engine, bots and table adapter together (games/rules/<game>*.py, its
`GameRules` record in `<game>_table.py`) and its templates in templates/games/table/<game>/;
games/table/ asks the record for everything and never names a game. A fourth game is its modules,
its template folder and a line here.
"""

from __future__ import annotations

from games.rules import fill_or_bust_bots, fill_or_bust_table, kismet_table, ninety_nine_table
from games.rules.table import GameRules, IllegalMove

# In the order "Play a game" offers them; the first is the form's choice until another is made.
GAMES: dict[str, GameRules] = {
    rules.name: rules for rules in (fill_or_bust_table.RULES, ninety_nine_table.RULES, kismet_table.RULES)
}

# The levels a bot plays at, the same words for every game (each game's bots take them).
BOT_LEVELS: tuple[str, ...] = tuple(fill_or_bust_bots.LEVELS)


def game_rules(name: str) -> GameRules:
    try:
        return GAMES[name]
    except KeyError:
        raise IllegalMove(f"There is no game {name!r} at the tables; the games are {', '.join(GAMES)}.") from None
