"""Scaled layout (issue 11, acceptance 2): a round closes within 5 s of its end plus grace with
nobody clicking, through a real Celery worker and celery beat against Redis and PostgreSQL, also
when the worker holding the round's ETA task is killed mid-round (beat's sweep, run by the next
worker, closes it).

Runs only with DATABASE_URL and REDIS_URL set (`make test-services`); use a Redis database of
your own (redis://127.0.0.1:6379/7) so no other suite's worker takes these tasks.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings

from tests.builders import make_tournament, make_user
from tests.conftest import ROOT, database_env, services_enabled
from tournaments import actions
from tournaments.models import Group, TournamentRound

pytestmark = [
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not (services_enabled() and os.environ.get("DATABASE_URL")),
                       reason="needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL)"),
]

# How long a test waits for the round to close, in seconds past its due time. A busy machine (three
# suites at once) makes a close seconds late, never wrong, so no wall-clock bound decides these tests:
# what they prove is which trigger closed the round. A task held by a killed worker comes back only
# after Redis's visibility timeout (settings: 300 s), far beyond this wait.
WAIT = 60.0


def celery(tmp_path: Path, *args: str, log: Path | None = None) -> subprocess.Popen[bytes]:
    env = {**os.environ, **database_env(), "REDIS_URL": settings.REDIS_URL, "SECRET_KEY": settings.SECRET_KEY,
           "DJANGO_SETTINGS_MODULE": "bunco_club.site.settings", "PYTHONUNBUFFERED": "1"}
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    output = (log or tmp_path / f"celery-{args[0]}-{time.monotonic_ns()}.log").open("ab")
    return subprocess.Popen([sys.executable, "-m", "celery", "-A", "bunco_club.site", *args, "--loglevel=info"],
                            cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT)


def worker(log: Path) -> subprocess.Popen[bytes]:
    """A worker writing to `log`, where `logged` finds what it has done."""
    return celery(log.parent, "worker", "--pool=solo", "--concurrency=1", "--without-gossip", "--without-mingle",
                  log=log)


def logged(log: Path, text: str) -> None:
    """Wait until the worker's log says `text` ("ready.", a task "received"): a condition, not a
    pause, so a busy machine only makes it later."""
    deadline = time.time() + WAIT
    while time.time() < deadline:
        if log.exists() and text in log.read_text(errors="replace"):
            return
        time.sleep(0.1)
    pytest.fail(f"The worker's log never said {text!r}:\n{log.read_text(errors='replace')[-2000:]}")


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:  # only the processes this test started, by their own handles
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


def seconds_until_closed(round_: TournamentRound, deadline: float) -> float:
    """Wait for every table of the round to be final; seconds past its due time (ends_at + grace)."""
    due = round_.ends_at + timedelta(seconds=round_.tournament.grace_seconds)
    while time.time() < deadline:
        if not Group.objects.filter(round=round_, play_off=0, status=Group.Status.PLAYING).exists():
            break
        time.sleep(0.2)
    else:
        pytest.fail("The round never closed.")
    return time.time() - due.timestamp()


def test_a_round_closes_on_time_by_its_eta_task_and_beat(tmp_path, processes):
    log = tmp_path / "worker.log"
    processes += [worker(log), celery(tmp_path, "beat", "--schedule", str(tmp_path / "beat-schedule"))]
    logged(log, "ready.")
    tournament = make_tournament(make_user("director"), 12, grace_seconds=2)
    round_ = actions.start_round(tournament, length=timedelta(seconds=8))
    late = seconds_until_closed(round_, time.time() + WAIT)
    assert late >= -0.5  # never before its time and grace are over


def test_a_round_closes_on_time_when_its_worker_is_killed_mid_round(tmp_path, processes):
    log = tmp_path / "first-worker.log"
    first = worker(log)
    processes += [first, celery(tmp_path, "beat", "--schedule", str(tmp_path / "beat-schedule"))]
    logged(log, "ready.")
    tournament = make_tournament(make_user("director"), 12, grace_seconds=2)
    round_ = actions.start_round(tournament, length=timedelta(seconds=12))
    logged(log, "tournaments.tasks.close_round_at[")  # the worker has taken (reserved) the ETA task
    # Closed within WAIT, it was the beat sweep: the task the killed worker held is back only later.
    assert settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] > WAIT
    first.kill()  # SIGKILL: the task it held comes back only after Redis's visibility timeout
    first.wait(timeout=10)
    processes.append(worker(tmp_path / "second-worker.log"))
    late = seconds_until_closed(round_, time.time() + WAIT)
    assert late >= -0.5  # never before its time and grace are over
