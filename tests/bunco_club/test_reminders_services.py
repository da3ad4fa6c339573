"""Scaled layout (issue 10, acceptance 2): a "no" after a "yes" reaches the first alternate through
a real Celery worker against Redis and PostgreSQL, and the reminder job run twice sends once.

Runs only with DATABASE_URL and REDIS_URL set (`make test-services`); use a Redis database of your
own (redis://127.0.0.1:6379/9) so no other suite's worker takes these tasks. The worker's mail goes
to the console backend: its log is what this test reads.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.conf import settings

from bunco_club import actions
from bunco_club.mail import send_due_reminders
from bunco_club.models import SentReminder
from tests.builders import fill_roster, make_club, make_user, soon
from tests.conftest import ROOT, database_env, services_enabled

pytestmark = [
    pytest.mark.services,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not (services_enabled() and os.environ.get("DATABASE_URL")),
                       reason="needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL)"),
]


@pytest.fixture
def worker(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], Path]]:
    env = {**os.environ, **database_env(), "REDIS_URL": settings.REDIS_URL, "SECRET_KEY": settings.SECRET_KEY,
           "DJANGO_SETTINGS_MODULE": "bunco_club.site.settings", "PYTHONUNBUFFERED": "1"}
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    log_path = tmp_path / "celery-worker.log"
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "bunco_club.site", "worker", "--pool=solo", "--concurrency=1",
         "--without-gossip", "--without-mingle", "--loglevel=info"],
        cwd=ROOT, env=env, stdout=log_path.open("ab"), stderr=subprocess.STDOUT)
    yield process, log_path
    if process.poll() is None:  # only the process this fixture started, by its own handle
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def test_a_real_worker_invites_the_first_alternate_once(worker):
    process, log_path = worker
    club = make_club(hosts=[make_user("host")])
    fill_roster(club)
    party = actions.add_party(club, starts_at=soon())
    bea = club.members.get(name="Bea")
    actions.answer_rsvp(party, bea, "yes")
    actions.answer_rsvp(party, bea, "no")  # commits: the invitation's task goes to Redis
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not SentReminder.objects.filter(kind="sub").exists():
        assert process.poll() is None, log_path.read_text(errors="replace")
        time.sleep(0.2)
    sent = SentReminder.objects.get(kind="sub")
    assert sent.member is not None and sent.member.name == "Sam"
    log = log_path.read_text(errors="replace")
    assert "sam@example.com" in log and "A seat has opened" in log
    # The sweep, run twice, sends nothing more.
    assert send_due_reminders() == 0
    assert send_due_reminders() == 0
    assert SentReminder.objects.filter(kind="sub").count() == 1
