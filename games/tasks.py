"""The `games` app's Celery tasks, where Celery's autodiscovery looks for them (`<app>.tasks`).

The night's tasks live in games/night/tasks.py, the game tables' in games/table/tasks.py; they
are imported here so that a worker registers them, and so that settings name the in-process
tickers `games.tasks.purge_abandoned_nights_when_due` and `games.tasks.move_bots_when_due`.
"""

from games.night.tasks import purge_abandoned_nights, purge_abandoned_nights_when_due
from games.table.tasks import move_bots, move_bots_when_due

__all__ = ["move_bots", "move_bots_when_due", "purge_abandoned_nights", "purge_abandoned_nights_when_due"]
