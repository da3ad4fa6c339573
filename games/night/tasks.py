"""Background jobs of games: thin, each calls an action (docs/DESIGN.md §3).

The purge of abandoned nights runs daily from Celery beat in the scaled layout
(settings.CELERY_BEAT_SCHEDULE), at most hourly from the in-process clock of the embedded default
(settings.CLOCK_TICKERS: the clock ticks every second, so its ticker keeps its own time), and
from cron with `python manage.py purge_nights` where neither runs.
"""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from games.night import actions
from live.sweeps import AtMostOnceEvery

logger = logging.getLogger(__name__)


# The name it had before the night moved to games/night/: beat schedules and queued messages use it.
@shared_task(name="games.tasks.purge_abandoned_nights", ignore_result=True)
def purge_abandoned_nights() -> int:
    purged = actions.purge_abandoned_nights(timezone.now())
    if purged:
        logger.info("Purged %d abandoned night(s)", purged)
    return purged


PURGE = AtMostOnceEvery(lambda: settings.NIGHT_PURGE_INTERVAL_SECONDS)


def purge_abandoned_nights_when_due() -> None:
    """The in-process clock's ticker: the purge, at most once per NIGHT_PURGE_INTERVAL_SECONDS
    in this process (the first tick after start-up runs it)."""
    if PURGE.due():
        purge_abandoned_nights()
