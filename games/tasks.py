"""The `games` app's Celery tasks, where Celery's autodiscovery looks for them (`<app>.tasks`).

The night's tasks live in games/night/tasks.py; they are imported here so that a worker
registers them, and so that settings keep naming the in-process ticker
`games.tasks.purge_abandoned_nights_when_due`.
"""

from games.night.tasks import purge_abandoned_nights, purge_abandoned_nights_when_due

__all__ = ["purge_abandoned_nights", "purge_abandoned_nights_when_due"]
