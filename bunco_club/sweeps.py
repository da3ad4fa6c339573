"""The club's sweeps that act (not only mail): thin, each calls an action (docs/DESIGN.md §2, §3).

`release_due_seats` gives the seats of members who had not paid the last party's buy-in by a
party's cutoff to the sub list (the rule "paid tonight keeps your seat next month", issue 45). It
runs beside the reminders' sweep (bunco_club.tasks.send_due_reminders), as often: from the
in-process clock of the embedded default (settings.CLOCK_TICKERS), from Celery beat when scaled
(settings.CELERY_BEAT_SCHEDULE) and from cron with `python manage.py send_reminders`. It sits above
the actions (bunco_club.tasks, which the actions import to enqueue, cannot call them back: no import
circles, tests/test_layout.py), and the action it calls releases each seat once however often it runs.
"""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings

from bunco_club import actions
from live.sweeps import AtMostOnceEvery

logger = logging.getLogger(__name__)


@shared_task(ignore_result=True)
def release_due_seats() -> int:
    released = actions.release_due_seats()
    if released:
        logger.info("Offered %d unpaid seat(s) to the sub list", released)
    return released


SEATS = AtMostOnceEvery(lambda: getattr(settings, "REMINDERS_INTERVAL_SECONDS", 300))


def release_due_seats_when_due() -> None:
    """The in-process clock's ticker: the sweep, at most once per REMINDERS_INTERVAL_SECONDS."""
    if SEATS.due():
        release_due_seats()
