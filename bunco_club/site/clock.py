"""The in-process round clock of the embedded default (docs/DESIGN.md §5).

Timed rounds must end on time even with no Celery worker: in one-process mode the ASGI lifespan
runs this loop, which calls each ticker of settings.CLOCK_TICKERS once a second. Tickers are
idempotent ("close what is due"), so a late or doubled tick is harmless. In the scaled layout the
same tickers run from Celery (ETA tasks plus a beat sweep), and this loop stays off.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable

from asgiref.sync import sync_to_async
from celery import shared_task
from django.conf import settings
from django.utils.module_loading import import_string

logger = logging.getLogger("bunco_club.site.clock")

# Held while the in-process clock ticks. A test server's between-tests door holds it too, so that no
# tick writes while the suite empties the database (bunco_club/site/between_tests.py); a tick that finds
# it held is skipped, as a late tick would be.
tick_lock = threading.Lock()


def clock_tickers() -> list[Callable[[], object]]:
    return [import_string(path) for path in settings.CLOCK_TICKERS]


def tick_once(tickers: list[Callable[[], object]]) -> None:
    for ticker in tickers:
        try:
            ticker()
        except Exception:  # one broken ticker must not stop the clock for the others
            logger.exception("Clock ticker %s failed", getattr(ticker, "__name__", ticker))


async def run_clock(interval: float | None = None) -> None:
    if not settings.IN_PROCESS_CLOCK:
        return
    tickers = clock_tickers()
    if not tickers:
        return
    period = interval if interval is not None else settings.CLOCK_INTERVAL_SECONDS
    while True:
        await sync_to_async(tick_unless_held, thread_sensitive=False)(tickers)
        await asyncio.sleep(period)


def tick_unless_held(tickers: list[Callable[[], object]]) -> None:
    if tick_lock.acquire(blocking=False):
        try:
            tick_once(tickers)
        finally:
            tick_lock.release()


@shared_task(ignore_result=True)
def tick_clock() -> None:
    """Beat's sweep in the scaled layout: the same idempotent tickers as the in-process clock."""
    tick_once(clock_tickers())
