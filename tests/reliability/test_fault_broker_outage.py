"""Issue 33, faults: the Celery broker (Redis) goes away three times for 8 s each, in the middle of
a game of bots, of a tournament round whose clock runs out meanwhile, and of the club's reminders,
as when somebody restarts the Wi-Fi router of a hall whose Redis is on another box.

The worker is the scaled layout's own (prefork, two processes: scripts/run_scaled.py) and beat
beside it, both on a private Redis of the test's (tests/reliability/conftest.py) that is killed and
started again on the same port. The worker must outlive every outage (Celery's retry settings:
bunco_club/site/settings.py), and once its broker is back the bots play on to the end of their
game, the round closes once, and the reminders due go once each.

Runs in `make test-services` beside the other Celery faults; the broker is the test's own."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import pytest
from celery import Celery

from bunco_club import actions as club_actions
from bunco_club.models import SentReminder
from games.table.models import Move, Table
from live.models import Event
from tests.builders import fill_roster, make_club, make_table, make_tournament, make_user, soon
from tests.conftest import services_enabled
from tests.reliability.conftest import CeleryProcesses, PrivateRedis
from tests.reliability.phones import wait_for
from tournaments import actions as tournament_actions
from tournaments.models import Group

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not services_enabled(), reason="the scaled layout's Celery: run with REDIS_URL set (make test-services)"),
]

OUTAGES = 3
# How long the broker stays away at the least: it comes back once this much time has passed and
# the worker has felt the loss (it logged a try to reconnect), however busy the machine.
OUTAGE_SECONDS = 8
OUTAGE_FELT_WITHIN = 120.0  # bounds only how long a worker that never notices takes to fail the test
MOVES_BETWEEN_OUTAGES = 2
# A game of bots ends within minutes (one move a second); this only bounds how long a broken worker
# takes to fail the test.
GAME_OVER_WITHIN = 600.0


def moves_made(table: Table) -> int:
    return Move.objects.filter(table_id=table.pk).count()


def states(tournament_channel: str, what: str) -> list[dict]:
    return [event.data for event in Event.objects.filter(channel=tournament_channel, kind="tournament_state")
            .order_by("id") if event.data.get("what") == what]


def succeeded(log_text: str, task: str) -> int:
    return sum(1 for line in log_text.splitlines() if f"{task}[" in line and " succeeded in " in line)


def test_the_worker_outlives_three_broker_outages_and_the_bots_finish_the_round_closes_once_and_reminders_go_once(
    celery: CeleryProcesses, private_redis: PrivateRedis
):
    club = make_club(hosts=[make_user("host")])
    fill_roster(club)
    club_actions.add_party(club, starts_at=soon(days=2))  # within the nudges' days: they are due
    table = make_table(3, bots=["threshold", "threshold", "threshold"])
    tournament = make_tournament(make_user("director"), 12, grace_seconds=2)
    broker = private_redis.url
    # The bots move on every beat of the sweep (1 s) rather than after a person's pause.
    beat, _ = celery.start("beat", "beat", "--schedule", str(celery.folder / "beat-schedule"), broker=broker)
    worker, worker_log = celery.worker("worker", "--concurrency=2", broker=broker, TABLE_BOT_PAUSE_SECONDS="0")
    # The round's time runs out while the broker is away: only beat's sweep can close it.
    round_ = tournament_actions.start_round(tournament, length=timedelta(seconds=OUTAGE_SECONDS))
    # A sender on the private broker, never the process's current app: the next tests' tasks go to
    # the suite's Redis.
    club_tasks = Celery(broker=broker, set_as_current=False)
    club_tasks.send_task("bunco_club.tasks.send_due_reminders")  # beat's reminder sweep, now

    for outage in range(1, OUTAGES + 1):
        wait_for(f"{MOVES_BETWEEN_OUTAGES} bot moves before outage {outage}",
                 moved_on(table, moves_made(table) + MOVES_BETWEEN_OUTAGES))
        tries_before = reconnect_tries(worker_log)
        private_redis.kill()
        wait_for(f"outage {outage}: {OUTAGE_SECONDS} s, the worker trying to reconnect",
                 felt_for(OUTAGE_SECONDS, worker_log, tries_before), timeout=OUTAGE_FELT_WITHIN)
        assert worker.poll() is None, f"the worker exited during outage {outage}:\n{worker_log.read_text()[-3000:]}"
        private_redis.start()
    club_tasks.send_task("bunco_club.tasks.send_due_reminders")  # the next sweep: due nudges went already

    wait_for("the bots to finish their game", lambda: table_over(table), timeout=GAME_OVER_WITHIN)
    wait_for("the round to close", lambda: not Group.objects.filter(round=round_, play_off=0,
                                                                     status=Group.Status.PLAYING).exists())
    wait_for("both reminder sweeps", lambda: succeeded(worker_log.read_text(errors="replace"),
                                                       "bunco_club.tasks.send_due_reminders") == 2)

    assert worker.poll() is None and beat.poll() is None  # both still alive, never restarted
    numbers = list(Move.objects.filter(table_id=table.pk).order_by("number").values_list("number", flat=True))
    assert numbers == list(range(1, len(numbers) + 1))  # one sequence: none twice, none missing
    finals = [number for state in states(tournament.channel, "group_final") if state["round"] == round_.number
              for number in state["groups"]]
    assert sorted(finals) == sorted(round_.groups.filter(play_off=0).values_list("number", flat=True))  # each once
    decided = [state for state in states(tournament.channel, "round_decided") + states(tournament.channel, "tied")
               if state["round"] == round_.number]
    assert len(decided) == 1
    mail = worker_log.read_text(errors="replace")
    # The worker counted its tries against no bound ("(2/None)"), where Celery's default gives up
    # after 100 and the worker exits.
    assert re.search(r"Trying again in [\d.]+ seconds\.\.\. \(\d+/None\)", mail)
    nudged = SentReminder.objects.filter(kind="nudge")
    assert nudged.count() == club.members.regulars().count()
    for member in club.members.regulars().exclude(email=""):
        assert mail.count(f"To: {member.email}") == 1, member.name
    print(f"\nthe worker and beat outlived {OUTAGES} outages of {OUTAGE_SECONDS} s; {len(numbers)} bot moves to the "
          f"end of the game; the round closed once; {nudged.count()} nudges, each once")


def reconnect_tries(log: Path) -> int:
    """How often the worker has logged a failed try to reach its broker."""
    return log.read_text(errors="replace").count("consumer: Cannot connect to redis://")


def felt_for(seconds: float, log: Path, tries_before: int) -> Callable[[], bool]:
    """Whether the outage begun now has lasted `seconds` and the worker has tried to reconnect in it."""
    began = time.monotonic()
    return lambda: time.monotonic() - began >= seconds and reconnect_tries(log) > tries_before


def moved_on(table: Table, wanted: int) -> Callable[[], bool]:
    """Whether the bots have made `wanted` moves, or ended their game."""
    return lambda: moves_made(table) >= wanted or table_over(table)


def table_over(table: Table) -> bool:
    return Table.objects.filter(pk=table.pk, status=Table.Status.OVER).exists()
