"""Issue 21, faults: the Celery worker killed (SIGKILL) in the middle of a night and another one
started (scaled layout: celery beat's sweeps, run by whichever worker lives).

A game table of bots only keeps moving: its bots are moved by beat's `move-table-bots` sweep
(every second, games/table/tasks.py), whatever worker runs it, so the table stops only while no
worker lives and goes on once the next one starts; its moves stay one sequence (no move made twice,
none lost half-made). Club reminders go once: the RSVP nudges the first worker sent are not sent
again by the sweep the second one runs, the substitute invitation enqueued while no worker lived
is sent by the second, once, and the same task delivered again (as Redis delivers again a task a
killed worker had taken, after its visibility timeout) sends nothing (bunco_club/mail.py send_once).
The round part, a timed round closed by beat's sweep after its worker was killed, is
tests/tournaments/test_clock_services.py's.

Runs with REDIS_URL set (`make test-services`): the broker is the suite's own Redis database for
this pytest-xdist worker (tests/conftest.py)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bunco_club import actions as club_actions
from bunco_club import tasks as club_tasks
from bunco_club.models import SentReminder, SubInvitation
from games.table.models import Move
from tests.builders import email, fill_roster, make_club, make_table, make_user, soon
from tests.conftest import services_enabled
from tests.reliability.conftest import CeleryProcesses
from tests.reliability.phones import wait_for

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not services_enabled(), reason="needs Redis for Celery: run with REDIS_URL set (make test-services)"),
]

BOT_MOVES = 3  # moves a worker must be seen making


def succeeded(log: Path, task: str) -> int:
    """How many runs of the club task `task` the worker's log says succeeded."""
    return sum(1 for line in log.read_text(errors="replace").splitlines()
               if f"bunco_club.tasks.{task}[" in line and " succeeded in " in line)


def moves_made(table_pk: int) -> int:
    return Move.objects.filter(table_id=table_pk).count()


def test_bots_keep_moving_and_reminders_go_once_when_the_worker_is_killed_and_replaced(celery: CeleryProcesses):
    club = make_club(hosts=[make_user("host")])
    fill_roster(club)
    party = club_actions.add_party(club, starts_at=soon(days=2))  # within the nudges' days: they are due
    table = make_table(3, bots=["threshold", "threshold", "threshold"], options={"goal": 10000})

    celery.start("beat", "beat", "--schedule", str(celery.folder / "beat-schedule"))
    first, first_log = celery.worker("first-worker")
    club_tasks.send_due_reminders.delay()  # beat's reminders sweep (every 15 minutes), now
    wait_for("the first worker's sweep to end", lambda: succeeded(first_log, "send_due_reminders") == 1)
    nudged = SentReminder.objects.filter(kind="nudge").count()
    assert nudged == club.members.regulars().count()  # every regular nudged
    wait_for(f"{BOT_MOVES} bot moves by the first worker", lambda: moves_made(table.pk) >= BOT_MOVES)

    first.kill()  # SIGKILL: mid-night, with beat still queueing its sweeps
    first.wait(timeout=10)
    killed_at = time.monotonic()
    at_kill = moves_made(table.pk)
    bea = club.members.get(name="Bea")
    club_actions.answer_rsvp(party, bea, "yes")
    club_actions.answer_rsvp(party, bea, "no")  # its substitute's invitation waits for a worker
    invitation = SubInvitation.objects.get(party=party)
    assert not SentReminder.objects.filter(kind="sub").exists()
    assert moves_made(table.pk) == at_kill  # nothing moves the bots while no worker lives

    second, second_log = celery.worker("second-worker")
    wait_for(f"{BOT_MOVES} more bot moves by the second worker", lambda: moves_made(table.pk) >= at_kill + BOT_MOVES)
    moving_again = time.monotonic() - killed_at
    wait_for("the invitation", lambda: SentReminder.objects.filter(kind="sub").exists())
    club_tasks.send_due_reminders.delay()  # beat's next sweep, on the second worker
    club_tasks.send_sub_invitation.delay(invitation.pk)  # the invitation's task, delivered again
    wait_for("the second worker's sweep and the invitation's second delivery",
             lambda: succeeded(second_log, "send_due_reminders") == 1 and succeeded(second_log, "send_sub_invitation") == 2)

    mail = first_log.read_text(errors="replace") + second_log.read_text(errors="replace")
    for member in club.members.exclude(email=""):
        recorded = SentReminder.objects.filter(member=member).count()
        assert mail.count(f"To: {member.email}") == recorded, member.name  # each email sent once, as recorded
    sam = club.members.get(name="Sam")
    assert SentReminder.objects.filter(member=sam, kind="sub").count() == 1
    assert mail.count(f"To: {email('Sam')}") == SentReminder.objects.filter(member=sam).count()
    assert SentReminder.objects.filter(kind="nudge").count() == nudged  # the second sweep sent no nudge again
    numbers = list(Move.objects.filter(table_id=table.pk).order_by("number").values_list("number", flat=True))
    assert numbers == list(range(1, len(numbers) + 1))  # one sequence: none twice, none missing
    print(f"\n{nudged} nudges and 1 invitation, each sent once; bots made {at_kill} moves, none while no worker "
          f"lived, then {len(numbers) - at_kill} more; moving again {moving_again:.1f} s after the kill "
          "(the second worker's start included)")
