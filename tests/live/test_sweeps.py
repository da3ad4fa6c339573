"""A sweep of the in-process clock runs at most once per its interval: the one throttle
(live/sweeps.py) that the reminders and the purge of abandoned nights both tick through."""

from __future__ import annotations

import pytest
from django.test import override_settings

from bunco_club import tasks as club_tasks
from games.night import tasks as night_tasks
from live import sweeps
from live.sweeps import AtMostOnceEvery


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(sweeps.time, "monotonic", fake)
    return fake


def test_a_sweep_is_due_at_the_first_tick_then_once_its_interval_has_passed(clock: Clock) -> None:
    sweep = AtMostOnceEvery(lambda: 60)
    assert sweep.due()
    clock.now += 59
    assert not sweep.due()
    clock.now += 1
    assert sweep.due()
    assert not sweep.due()


def test_a_sweeps_interval_is_read_at_each_tick(clock: Clock) -> None:
    seconds = [60.0]
    sweep = AtMostOnceEvery(lambda: seconds[0])
    assert sweep.due()
    clock.now += 10
    seconds[0] = 5
    assert sweep.due()


@override_settings(REMINDERS_INTERVAL_SECONDS=300)
def test_the_clubs_reminders_go_at_most_once_per_their_interval(clock: Clock, monkeypatch: pytest.MonkeyPatch) -> None:
    sent: list[float] = []

    def send_due_reminders() -> int:
        sent.append(clock.now)
        return 0

    monkeypatch.setattr(club_tasks, "send_due_reminders", send_due_reminders)
    monkeypatch.setattr(club_tasks.REMINDERS, "last", None)
    club_tasks.send_due_reminders_when_due()
    clock.now += 299
    club_tasks.send_due_reminders_when_due()
    assert sent == [1000.0]
    clock.now += 1
    club_tasks.send_due_reminders_when_due()
    assert sent == [1000.0, 1300.0]


def test_the_reminders_and_the_purge_tick_through_the_one_throttle() -> None:
    assert isinstance(club_tasks.REMINDERS, AtMostOnceEvery)
    assert isinstance(night_tasks.PURGE, AtMostOnceEvery)
