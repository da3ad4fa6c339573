"""Celery tasks of the club domain: thin, they take ids and call actions."""

from celery import shared_task

from bunco_club.clock import clock_tickers, tick_once


@shared_task(ignore_result=True)
def tick_clock() -> None:
    """Beat's sweep in the scaled layout: the same idempotent tickers as the in-process clock."""
    tick_once(clock_tickers())
