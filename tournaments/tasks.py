"""The tournament's round clock (docs/DESIGN.md §5): thin, each calls `deciding.close_round_if_due`.

Embedded default: the in-process clock calls `close_rounds_when_due` every second
(settings.CLOCK_TICKERS). Scaled: `start_round` enqueues `close_round_at` with eta = the round's
end plus grace, and Celery beat's sweep (`bunco_club.site.clock.tick_clock`, and the schedule entry
for `close_rounds`) covers a task a killed worker lost. Duplicates are harmless.
The actions import this module to enqueue; it imports only tournaments.deciding, one floor down.
"""

from __future__ import annotations

from celery import shared_task

from tournaments import deciding


@shared_task(ignore_result=True)
def close_round_at() -> int:
    """The ETA task of a round: close whatever is due now (this round, and any other)."""
    return deciding.close_round_if_due()


@shared_task(ignore_result=True)
def close_rounds() -> int:
    """Beat's sweep."""
    return deciding.close_round_if_due()


def close_rounds_when_due() -> None:
    """The in-process clock's ticker (one cheap indexed query when nothing is due)."""
    deciding.close_round_if_due()
