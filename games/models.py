"""The models of the `games` app, wherever they live in it.

Django looks for an app's models in its `models` module: this one. The app label stays `games`
and every table keeps its name (`games_night`, `games_tally`, …), so a database from before the
night moved to games/night/ migrates without a change. The Bunco night's models live in
games/night/models.py and are imported here so that Django registers them; the game tables'
(games/table/models.py) likewise. Code imports them from where they live,
never from here. The migrations refer to `games.models.new_code` and `games.models.new_token`,
hence those two names.
"""

from games.night.models import (  # noqa: F401  (imported so Django registers them)
    Night,
    Player,
    PrizeAward,
    Round,
    Seat,
    TableRound,
    Tally,
    new_code,
    new_token,
)
from games.table.models import Move, Table, TableSeat  # noqa: F401,E402
