"""The round clock never depends on anyone clicking: the in-process ticker, Celery's ETA task and
beat's sweep all call the one idempotent `close_round_if_due`."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
import time_machine
from django.conf import settings
from django.test import override_settings

from bunco_club.site.clock import clock_tickers, tick_once
from tests.builders import START, groups_of
from tournaments import actions, tasks
from tournaments.models import Group, TournamentRound

pytestmark = pytest.mark.django_db


@pytest.mark.skipif(not settings.IN_PROCESS_CLOCK, reason="the scaled layout runs no in-process clock")
def test_the_in_process_clock_ticks_the_tournaments_sweep():
    assert "tournaments.tasks.close_rounds_when_due" in settings.CLOCK_TICKERS
    assert tasks.close_rounds_when_due in clock_tickers()


def test_the_clocks_ticker_closes_a_round_on_time_with_nobody_clicking(tournament):
    tickers: list[Callable[[], object]] = [tasks.close_rounds_when_due]
    round_ = actions.start_round(tournament, now=START)
    with time_machine.travel(START + timedelta(minutes=21, seconds=59), tick=False):
        tick_once(tickers)
    assert Group.objects.filter(status=Group.Status.PLAYING).count() == 2
    with time_machine.travel(START + timedelta(minutes=22), tick=False):
        tick_once(tickers)
        tick_once(tickers)  # a doubled tick is harmless
    assert not Group.objects.filter(play_off=0, status=Group.Status.PLAYING).exists()
    round_.refresh_from_db()
    assert round_.status != TournamentRound.Status.PLAYING


def test_beat_sweeps_the_rounds_every_few_seconds_and_the_eta_task_closes_what_is_due(tournament):
    assert settings.CELERY_BEAT_SCHEDULE["close-tournament-rounds"] == {
        "task": "tournaments.tasks.close_rounds", "schedule": 5.0}
    actions.start_round(tournament, now=START)
    with time_machine.travel(START + timedelta(minutes=30), tick=False):
        assert tasks.close_round_at() == 2  # what a worker runs for the task
        assert tasks.close_rounds() == 0


def test_start_round_enqueues_its_eta_task_after_commit_when_scaled(tournament, django_capture_on_commit_callbacks):
    with override_settings(REDIS_URL="redis://127.0.0.1:6379/0"), django_capture_on_commit_callbacks() as callbacks:
        actions.start_round(tournament, now=START)
    assert len(callbacks) >= 2  # the event's publication and the ETA task
    assert len(groups_of(tournament)) == 2
