"""Background jobs of clubs: thin, each calls bunco_club.mail (docs/DESIGN.md §2, §3).

The substitute invitation and the swap request are enqueued by their actions once the transaction
commits. `send_due_reminders` (RSVP nudges, the host's reminder, and any invitation or swap whose
email an enqueue lost) runs from Celery beat in the scaled layout (settings.CELERY_BEAT_SCHEDULE),
from the in-process clock of the embedded default (settings.CLOCK_TICKERS: the clock ticks every
second, so its ticker keeps its own time) and from cron with `python manage.py send_reminders`.
Every email is recorded as it goes (`mail.send_once`): however often these run, each goes once.
The actions import this module to enqueue; it imports only bunco_club.mail, one floor down.
"""

from __future__ import annotations

import logging

from celery import shared_task
from django.conf import settings

from bunco_club import mail
from live.sweeps import AtMostOnceEvery

logger = logging.getLogger(__name__)


@shared_task(ignore_result=True)
def send_sub_invitation(invitation_id: int) -> bool:
    return mail.send_sub_invitation(invitation_id)


@shared_task(ignore_result=True)
def send_swap_request(swap_id: int) -> bool:
    return mail.send_swap_request(swap_id)


@shared_task(ignore_result=True)
def send_dish_offer(offer_id: int) -> bool:
    return mail.send_dish_offer(offer_id)


@shared_task(ignore_result=True)
def send_party_cancelled(party_id: int) -> int:
    return mail.send_party_cancelled(party_id)


@shared_task(ignore_result=True)
def send_party_changed(party_id: int, was_starts_at: str | None = None, was_location: str | None = None) -> int:
    return mail.send_party_changed(party_id, was_starts_at, was_location)


@shared_task(ignore_result=True)
def send_box_missing(handover_id: int) -> int:
    return mail.send_box_missing(handover_id)


@shared_task(ignore_result=True)
def send_due_reminders() -> int:
    sent = mail.send_due_reminders()
    if sent:
        logger.info("Sent %d club reminder(s)", sent)
    return sent


REMINDERS = AtMostOnceEvery(lambda: getattr(settings, "REMINDERS_INTERVAL_SECONDS", 300))


def send_due_reminders_when_due() -> None:
    """The in-process clock's ticker: the reminders, at most once per
    REMINDERS_INTERVAL_SECONDS (default 5 minutes) in this process."""
    if REMINDERS.due():
        send_due_reminders()
