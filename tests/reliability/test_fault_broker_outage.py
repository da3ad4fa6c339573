"""Issues 33 and 42, faults: the Celery broker (Redis) goes away ten times for 8 s each, as when
somebody restarts the Wi-Fi router of a hall whose Redis is on another box: five times while the
worker consumes (bots playing a game, a tournament round whose time runs out meanwhile), five times
while a worker is starting (as `make run-scaled` starts one again): as its process is launched
(it starts with no broker), once it has connected, once it is ready.

The worker is the scaled layout's own, started with scripts/run_scaled.py's command (prefork, two
processes; only its log level raised to info, which the test reads), and beat beside it, both on a
private Redis of the test's (tests/reliability/conftest.py) that is killed and started again on the
same port. Before issue 42 the worker died in 2 of 5 such outages ("Unrecoverable error:
AttributeError("'NoneType' object has no attribute 'hostname'")": the cause and its fix are
bunco_club/site/celery.py's, made in a second by tests/reliability/test_broker_connection.py), and
a worker tried its broker again after a pause growing to 30 s.

The worker process must never exit, and after each outage the bots must move again and the round
close within 10 s of Redis answering again (BACK_WITHIN, the issue's bound). Each is timed by the
clock of the process that did it: from the moment the test starts Redis again (a little before it
answers: an upper bound) to the `created_at` the worker gave the bot's move and the round's "group
final" event, so the test's own polling and slowness add nothing. The 10 s hold what the design sets
(a try every 2 s at most; beat's bots every second, its round sweep every 5 s) with 5 s to spare for
a busy machine's slower tasks; measured: 0.5-2.3 s for the bots, 0.5-5.1 s for the rounds. What load
cannot stretch is checked as well: every pause the worker and beat announced before trying again was
at most 2 s (bunco_club/site/celery.py RETRY_MAX_SECONDS), and no worker logged an "Unrecoverable
error".

2 min 10 s to 2 min 40 s (80 s of it Redis away; over 3 min on a loaded machine): in `make
test-services` beside the other Celery faults, where the suite's two workers share it out (`make
proof` runs without Redis, which this needs: the scaled layout's worker); the broker is the test's
own."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from subprocess import Popen
from types import SimpleNamespace
from unittest import mock

import pytest
from celery import Celery
from django.db.models import Min
from django.utils import timezone

from bunco_club import actions as club_actions
from bunco_club.models import SentReminder
from bunco_club.site.celery import RETRY_MAX_SECONDS
from games.table.models import Move, Table
from live.models import Event
from scripts.run_scaled import celery_commands
from tests.builders import fill_roster, make_club, make_table, make_tournament, make_user, soon
from tests.conftest import services_enabled
from tests.reliability.conftest import CeleryProcesses, PrivateRedis
from tests.reliability.phones import wait_for
from tournaments import actions as tournament_actions
from tournaments.models import Group, Tournament, TournamentRound

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not services_enabled(), reason="the scaled layout's Celery: run with REDIS_URL set (make test-services)"),
]

OUTAGE_SECONDS = 8
# Where the outages meet the worker: None while it consumes; else the line of its log after which
# Redis is killed while it starts ("" as soon as its process is launched).
OUTAGES: list[str | None] = ["", None, "Connected to redis://", None, "ready.", None, "", None, "Connected to redis://", None]
BACK_WITHIN = 10.0  # seconds after Redis answers again: the bots have moved and the round closed
# How long an outage may take to reach the worker (a starting worker tries its broker once Django
# is loaded); only bounds how long a worker that never notices takes to fail the test.
OUTAGE_FELT_WITHIN = 120.0
MOVES_BEFORE = 2  # bot moves a consuming worker makes before its outage
# Only bounds how long a broken worker takes to fail the test.
WAIT_AT_MOST = 120.0


def the_layouts(name: str, folder: Path) -> list[str]:
    """scripts/run_scaled.py's command for "celery worker" or "celery beat" (after `celery -A
    bunco_club.site`), at log level info."""
    command = celery_commands("celery", folder)[name]
    arguments = command[command.index("bunco_club.site") + 1:]
    arguments[arguments.index("--loglevel") + 1] = "info"
    return arguments


class Worker:
    """The worker of the moment: one at a time, each logging to a file of its own."""

    def __init__(self, celery: CeleryProcesses, broker: str) -> None:
        self.celery, self.broker = celery, broker
        self.started: list[tuple[Popen[bytes], Path]] = []

    def launch(self) -> None:
        """A worker started (the one before stopped); its bots move on every beat of the sweep (1 s)
        rather than after a person's pause."""
        if self.started:
            self.stop()
        self.started.append(self.celery.start(f"worker-{len(self.started) + 1}",
                                              *the_layouts("celery worker", self.celery.folder),
                                              broker=self.broker, TABLE_BOT_PAUSE_SECONDS="0"))

    @property
    def process(self) -> Popen[bytes]:
        return self.started[-1][0]

    @property
    def log(self) -> Path:
        return self.started[-1][1]

    def saying(self, text: str) -> Callable[[], bool]:
        """Whether its log has `text` (or it exited, which the test then reports)."""
        log = self.log
        return lambda: text in log.read_text(errors="replace") or not self.alive()

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        """Ended by the test (a warm shutdown), never by itself."""
        assert self.alive(), f"the worker exited:\n{self.log.read_text(errors='replace')[-3000:]}"
        self.process.terminate()
        self.process.wait(timeout=60)

    def logs(self) -> str:
        return "".join(log.read_text(errors="replace") for _, log in self.started)


def test_the_worker_outlives_ten_broker_outages_while_it_consumes_and_while_it_starts_and_is_back_within_10_s(
    celery: CeleryProcesses, private_redis: PrivateRedis
):
    club = make_club(hosts=[make_user("host")])
    fill_roster(club)
    club_actions.add_party(club, starts_at=soon(days=2))  # within the nudges' days: they are due
    director = make_user("director")
    broker = private_redis.url
    # A sender on the private broker, never the process's current app: the next tests' tasks go to
    # the suite's Redis. A round's own task (close_round_at, at its end) goes there too.
    sender = Celery(broker=broker, set_as_current=False)
    round_task = SimpleNamespace(close_round_at=SimpleNamespace(
        apply_async=lambda eta: sender.send_task("tournaments.tasks.close_round_at", eta=eta)))
    tables = [make_table(3, bots=["threshold"] * 3, options={"goal": 10000})]
    beat, beat_log = celery.start("beat", *the_layouts("celery beat", celery.folder), broker=broker)
    worker = Worker(celery, broker)
    worker.launch()
    wait_for("the first worker to be ready", worker.saying("ready."))
    sender.send_task("bunco_club.tasks.send_due_reminders")  # beat's reminder sweep, now
    wait_for("the reminders' sweep", lambda: succeeded(worker.logs(), "bunco_club.tasks.send_due_reminders") == 1)

    backs: list[tuple[str, float, float]] = []
    for number, starting_at in enumerate(OUTAGES, start=1):
        if Table.objects.filter(pk=tables[-1].pk, status=Table.Status.OVER).exists():
            tables.append(make_table(3, bots=["threshold"] * 3, options={"goal": 10000}, seed=len(tables) + 1))
        tournament = make_tournament(director, 6, grace_seconds=2, name=f"Outage {number}")
        with mock.patch("tournaments.actions.tasks", round_task):
            round_ = tournament_actions.start_round(tournament, length=timedelta(minutes=10))
        if starting_at is None:
            wait_for(f"{MOVES_BEFORE} bot moves before outage {number}", moved_on(tables, moves_made(tables) + MOVES_BEFORE))
        else:
            worker.launch()
            if starting_at:
                wait_for(f"the worker's {starting_at!r} before outage {number}", worker.saying(starting_at), every=0.01)
        tries_before = failed_tries(worker.log)
        private_redis.kill()
        run_out_now(round_)  # the round's time runs out while the broker is away
        wait_for(f"outage {number}: {OUTAGE_SECONDS} s, the worker trying to reconnect",
                 felt_for(OUTAGE_SECONDS, worker, tries_before), timeout=OUTAGE_FELT_WITHIN)
        assert worker.alive(), f"the worker exited in outage {number}:\n{worker.log.read_text(errors='replace')[-3000:]}"
        assert playing(round_)  # nothing closed it: no broker, no clock
        back = timezone.now()  # a little before Redis answers: the times measured from it are upper bounds
        private_redis.start()  # returns once Redis answers
        moved_at = wait_for(f"a bot move after outage {number}", first_move_after(back), timeout=WAIT_AT_MOST)
        closed_at = wait_for(f"the round of outage {number} to close", closed(round_), timeout=WAIT_AT_MOST)
        assert worker.alive(), f"the worker exited after outage {number}:\n{worker.log.read_text(errors='replace')[-3000:]}"
        assert moved_at is not None and closed_at is not None
        met = "consuming" if starting_at is None else "starting, " + (f"after {starting_at!r}" if starting_at else "launched")
        backs.append((f"{number} ({met})", (moved_at - back).total_seconds(), (closed_at - back).total_seconds()))

    sender.send_task("bunco_club.tasks.send_due_reminders")  # the next sweep: due nudges went already
    wait_for("the second reminders' sweep", lambda: succeeded(worker.logs(), "bunco_club.tasks.send_due_reminders") == 2)
    assert worker.alive() and beat.poll() is None  # beat never restarted
    report = "\n".join(f"  outage {name}: bots moving again {bots:.1f} s, round closed {clock:.1f} s after Redis"
                       for name, bots, clock in backs)
    print(f"\n{len(OUTAGES)} outages of {OUTAGE_SECONDS} s, {len(worker.started)} workers started by the test, "
          f"none exited:\n{report}")
    late = [(name, bots, clock) for name, bots, clock in backs if max(bots, clock) > BACK_WITHIN]
    assert not late, f"back later than {BACK_WITHIN:g} s after Redis:\n{report}"

    logs = worker.logs()
    assert "Unrecoverable error" not in logs
    # Every pause before another try, the worker's and beat's, at most 2 s (no bound on their number).
    pauses = [float(pause) for pause in re.findall(r"Trying again in ([\d.]+) seconds?", logs + beat_log.read_text())]
    assert pauses and max(pauses) <= RETRY_MAX_SECONDS, pauses
    assert re.search(r"Trying again in [\d.]+ seconds\.\.\. \(\d+/None\)", logs)
    # Gossip, mingle and heartbeat are left out, however the worker is started (bunco_club/site/celery.py).
    assert "mingle:" not in logs
    for table in tables:
        numbers = list(Move.objects.filter(table_id=table.pk).order_by("number").values_list("number", flat=True))
        assert numbers == list(range(1, len(numbers) + 1))  # one sequence: none twice, none missing
    for tournament in Tournament.objects.filter(director=director):
        round_ = tournament.rounds.get(number=1)
        finals = [number for state in states(tournament.channel, "group_final") if state["round"] == 1
                  for number in state["groups"]]
        assert sorted(finals) == sorted(round_.groups.filter(play_off=0).values_list("number", flat=True))  # each once
        assert len(states(tournament.channel, "round_decided") + states(tournament.channel, "tied")) == 1
    nudged = SentReminder.objects.filter(kind="nudge")
    assert nudged.count() == club.members.regulars().count()
    for member in club.members.regulars().exclude(email=""):
        assert logs.count(f"To: {member.email}") == 1, member.name


def moves_made(tables: list[Table]) -> int:
    return Move.objects.filter(table_id__in=[table.pk for table in tables]).count()


def moved_on(tables: list[Table], wanted: int) -> Callable[[], bool]:
    return lambda: moves_made(tables) >= wanted


def first_move_after(moment: datetime) -> Callable[[], datetime | None]:
    """When the first bot move after `moment` was made, by the worker's clock."""
    return lambda: (Move.objects.filter(created_at__gt=moment).order_by("created_at")
                    .values_list("created_at", flat=True).first())


def run_out_now(round_: TournamentRound) -> None:
    """The round's time runs out a second from now (its groups final then: their end plus grace)."""
    final_at = timezone.now() + timedelta(seconds=1)
    ends_at = final_at - timedelta(seconds=round_.tournament.grace_seconds)
    round_.groups.update(ends_at=ends_at, final_at=final_at)
    TournamentRound.objects.filter(pk=round_.pk).update(ends_at=ends_at)


def playing(round_: TournamentRound) -> bool:
    return Group.objects.filter(round=round_, play_off=0, status=Group.Status.PLAYING).exists()


def closed(round_: TournamentRound) -> Callable[[], datetime | None]:
    """When the round's groups were made final, by the worker's clock (the event it logged then; a
    play-off after a tie is final later)."""
    return lambda: None if playing(round_) else (
        Event.objects.filter(channel=round_.tournament.channel, kind="tournament_state", data__what="group_final")
        .aggregate(at=Min("created_at"))["at"])


def states(tournament_channel: str, what: str) -> list[dict]:
    return [event.data for event in Event.objects.filter(channel=tournament_channel, kind="tournament_state")
            .order_by("id") if event.data.get("what") == what]


def succeeded(log_text: str, task: str) -> int:
    return sum(1 for line in log_text.splitlines() if f"{task}[" in line and " succeeded in " in line)


def failed_tries(log: Path) -> int:
    """How often the worker has logged a failed try to reach its broker."""
    return log.read_text(errors="replace").count("consumer: Cannot connect to redis://")


def felt_for(seconds: float, worker: Worker, tries_before: int) -> Callable[[], bool]:
    """Whether the outage begun now has lasted `seconds` and the worker has tried to reconnect in it
    (or the worker exited, which the test then reports)."""
    began, log = time.monotonic(), worker.log
    return lambda: (time.monotonic() - began >= seconds and failed_tries(log) > tries_before) or not worker.alive()
