"""The club's emails through a real SMTP server (aiosmtpd on a free port of 127.0.0.1), as a site
with EMAIL_HOST set sends them (issue 21): Django's SMTP backend, a real connection, the message
as the server received it. And reminders go once: the embedded default's sweep run twice, and in
the scaled layout a real Celery worker with a real `celery beat` firing the sweep every second.

The sweep needs no clock of the test's own: the party is two days away, inside the club's three
days of nudges, by the real clock the worker and beat read too. Nothing here sleeps a fixed time to
decide anything: each wait is for a condition (messages received, a worker's log line)."""

from __future__ import annotations

import errno
import re
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any, cast

import pytest
from aiosmtpd.controller import Controller
from django.core.management import call_command
from django.urls import reverse

from bunco_club import actions, tasks
from bunco_club.links import member_token
from bunco_club.models import Club, Member, Party, SentReminder
from bunco_club.site import settings as site_settings
from tests.builders import make_club, make_user, soon
from tests.bunco_club.conftest import club_mail_sent_in_the_test  # noqa: F401  (autouse: the mail tasks run here)
from tests.conftest import free_port, services_enabled
from tests.tournaments.test_clock_services import celery, logged, processes, worker  # noqa: F401  (a fixture)

WAIT = 60.0  # seconds a test waits for its messages before it fails (a busy machine is slow, never wrong)
SENDER = "bunco@localhost"  # settings.DEFAULT_FROM_EMAIL's address


@dataclass(frozen=True)
class Received:
    """One message as the SMTP server took it: the envelope and the parsed message."""

    sender: str
    recipients: tuple[str, ...]
    message: EmailMessage

    @property
    def subject(self) -> str:
        # As a mail client shows it: a subject too long for its first line is folded right after
        # "Subject:" (Python's email), and unfolding leaves the fold's space in front of it.
        return str(self.message["Subject"]).lstrip()

    @property
    def body(self) -> str:
        part = self.message.get_body(preferencelist=("plain",))
        assert part is not None
        return cast(str, cast(EmailMessage, part).get_content()).replace("\r\n", "\n")  # SMTP's lines end CRLF


class Inbox:
    """aiosmtpd's handler: keeps every message delivered, for the test's thread to read."""

    def __init__(self) -> None:
        self._messages: list[Received] = []
        self._lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        message = message_from_bytes(envelope.original_content or envelope.content, policy=policy.default)
        received = Received(envelope.mail_from, tuple(envelope.rcpt_tos), message)
        with self._lock:
            self._messages.append(received)
        return "250 Message accepted for delivery"

    @property
    def messages(self) -> list[Received]:
        with self._lock:
            return list(self._messages)

    def wait_for(self, count: int) -> list[Received]:
        """The messages once `count` have arrived (fails after WAIT seconds with what did)."""
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            if len(self.messages) >= count:
                return self.messages
            time.sleep(0.05)
        pytest.fail(f"{count} messages expected, {len(self.messages)} arrived: {[m.subject for m in self.messages]}")


@dataclass(frozen=True)
class SMTPServer:
    host: str
    port: int
    inbox: Inbox

    @property
    def env(self) -> dict[str, str]:
        """What points a site at this server (settings.mailers reads it)."""
        return {"EMAIL_HOST": self.host, "EMAIL_PORT": str(self.port)}


@pytest.fixture
def smtp_server(settings: Any) -> Iterator[SMTPServer]:
    """A real SMTP server on a free port of 127.0.0.1, and this process's mail pointed at it as
    EMAIL_HOST/EMAIL_PORT would (Django's SMTP backend). Another suite may take the port between
    the look and the bind: then another port."""
    inbox = Inbox()
    for _ in range(5):
        controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
        try:
            controller.start()
        except OSError as error:
            if error.errno != errno.EADDRINUSE:
                raise
            continue
        break
    else:
        pytest.fail("no free port held long enough for the SMTP server")
    server = SMTPServer("127.0.0.1", controller.port, inbox)
    settings.MAILERS = site_settings.mailers(server.env)
    assert settings.MAILERS["default"]["BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    yield server
    controller.stop()


@dataclass
class Club3:
    """Maple Street: Ada hosts the party two days away, Bea and Cal are regulars, Sam the sub."""

    club: Club
    party: Party
    ada: Member
    bea: Member
    cal: Member
    sam: Member


def a_club_two_days_before_a_party() -> Club3:
    club = make_club(hosts=[make_user("host")])  # three days of nudges before a party (the default)
    ada, bea, cal = (actions.add_member(club, name=name, email=f"{name.lower()}@example.com")
                     for name in ("Ada", "Bea", "Cal"))
    sam = actions.add_member(club, name="Sam", email="sam@example.com", alternate=True)
    party = actions.add_party(club, starts_at=soon(2), location="12 Maple Street", host=ada)
    return Club3(club, party, ada, bea, cal, sam)


def when(party: Party) -> str:
    return f"{party.local_start:%A %d %B, %H:%M}"


def link(member: Member) -> str:
    return reverse("clubs:my_club", args=[member_token(member.code)])


def by_recipient(messages: list[Received]) -> dict[tuple[tuple[str, ...], str], Received]:
    return {(received.recipients, received.subject): received for received in messages}


def expected_reminders(club: Club3) -> set[tuple[tuple[str, ...], str]]:
    """What the sweep owes two days before the party: a nudge to each regular who has not
    answered (Bea has; Ada, the host, is asked whether she plays too), the host's reminder, and the
    seat Bea gave up offered to Sam."""
    name, day = club.club.name, when(club.party)
    return {
        (("ada@example.com",), f"{name} on {day}: will you play too?"),
        (("cal@example.com",), f"{name} on {day}: are you coming?"),
        (("ada@example.com",), f"You host {name} on {day}"),
        (("sam@example.com",), f"{name}: a seat for you on {day}?"),
    }


# --- (a) What arrives, and to whom --------------------------------------------------------------


@pytest.mark.django_db
def test_the_club_s_emails_arrive_at_the_smtp_server_to_the_right_people(smtp_server, django_capture_on_commit_callbacks):
    club = a_club_two_days_before_a_party()
    with django_capture_on_commit_callbacks(execute=True):  # the invitation's task is enqueued on commit
        actions.answer_rsvp(club.party, club.bea, "yes")
        actions.answer_rsvp(club.party, club.bea, "no")  # her seat goes to the sub list: Sam is invited
    [invitation] = smtp_server.inbox.wait_for(1)
    call_command("send_reminders")

    received = by_recipient(smtp_server.inbox.wait_for(4))
    assert set(received) == expected_reminders(club)
    assert {message.sender for message in received.values()} == {SENDER}
    name, day = club.club.name, when(club.party)

    sub = received[(("sam@example.com",), f"{name}: a seat for you on {day}?")]
    assert sub is invitation  # sent by its own task on commit: the sweep found it gone already
    assert sub.message["To"] == "sam@example.com" and sub.message["From"] == "Bunco Club <bunco@localhost>"
    assert sub.body.startswith("Hi Sam,\n\nA seat has opened at Maple Street Bunco's Bunco night on "
                               f"{day} at 12 Maple Street. Would you like it?")
    assert link(club.sam) in sub.body

    nudge = received[(("cal@example.com",), f"{name} on {day}: are you coming?")]
    assert nudge.body.startswith(f"Hi Cal,\n\nMaple Street Bunco plays Bunco on {day} at 12 Maple Street, "
                                 "hosted by Ada. Are you coming?")
    assert "Answer yes, no or maybe here: " in nudge.body and link(club.cal) in nudge.body

    reminder = received[(("ada@example.com",), f"You host {name} on {day}")]
    assert reminder.body.startswith(f"Hi Ada,\n\nYou host Maple Street Bunco on {day}.")
    assert "So far: nobody coming yet, 1 sub invited" in reminder.body and "2 not answered yet" in reminder.body
    assert link(club.ada) in reminder.body


# --- (b) Reminders go once: the embedded default ------------------------------------------------------


@pytest.mark.django_db
def test_the_sweep_run_twice_delivers_each_reminder_once(smtp_server, django_capture_on_commit_callbacks):
    club = a_club_two_days_before_a_party()
    with django_capture_on_commit_callbacks(execute=True):
        actions.answer_rsvp(club.party, club.bea, "yes")
        actions.answer_rsvp(club.party, club.bea, "no")
    call_command("send_reminders")  # cron's way
    tasks.send_due_reminders.delay()  # the in-process clock's and beat's task (eager in the embedded default)
    call_command("send_reminders")

    received = smtp_server.inbox.messages
    assert Counter((message.recipients, message.subject) for message in received) == Counter(expected_reminders(club))
    assert SentReminder.objects.count() == 4


# --- (c) Reminders go once: a real worker and a real celery beat -----------------------------------


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(not services_enabled(), reason="needs Redis (REDIS_URL): a real worker and beat between them")
def test_a_real_worker_and_beat_deliver_each_reminder_once_however_often_beat_fires(
        smtp_server, tmp_path: Path, processes, monkeypatch):  # noqa: F811  (processes: the imported fixture)
    # The processes read these (tests.tournaments.test_clock_services.celery passes os.environ on):
    # this server for their mail, and beat's sweep every second rather than every 15 minutes.
    for variable, value in {**smtp_server.env, "REMINDERS_BEAT_SECONDS": "1"}.items():
        monkeypatch.setenv(variable, value)
    log = tmp_path / "worker.log"
    processes.append(worker(log))
    logged(log, "ready.")
    processes.append(celery(tmp_path, "beat", "--schedule", str(tmp_path / "beat-schedule")))

    club = a_club_two_days_before_a_party()
    actions.answer_rsvp(club.party, club.bea, "yes")
    actions.answer_rsvp(club.party, club.bea, "no")  # commits: Sam's invitation goes to Redis, for the worker

    smtp_server.inbox.wait_for(len(expected_reminders(club)))
    # Beat goes on firing the sweep: three more sweeps run to the end after everything arrived...
    sweeps = sweeps_done(log)
    deadline = time.monotonic() + WAIT
    while sweeps_done(log) < sweeps + 3:
        assert time.monotonic() < deadline, f"beat's sweeps stopped:\n{log.read_text(errors='replace')[-3000:]}"
        assert all(process.poll() is None for process in processes), log.read_text(errors="replace")[-3000:]
        time.sleep(0.1)
    # ...and sent nothing more: each reminder arrived exactly once.
    received = smtp_server.inbox.messages
    assert Counter((message.recipients, message.subject) for message in received) == Counter(expected_reminders(club))
    assert SentReminder.objects.count() == 4


SWEEP_DONE = re.compile(r"Task bunco_club\.tasks\.send_due_reminders\[[^\]]+\] succeeded")


def sweeps_done(log: Path) -> int:
    """How many of beat's reminder sweeps the worker has run to the end (its log says so)."""
    return len(SWEEP_DONE.findall(log.read_text(errors="replace"))) if log.exists() else 0


def test_the_site_sends_through_smtp_when_email_host_is_set():
    """What the fixture points this process at is what a site with EMAIL_HOST set uses."""
    assert site_settings.mailers({})["default"]["BACKEND"] == "django.core.mail.backends.console.EmailBackend"
    smtp = site_settings.mailers({"EMAIL_HOST": "mail.example.org", "EMAIL_PORT": "2525", "EMAIL_USE_TLS": "1"})
    assert smtp["default"]["BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert {key: smtp["default"]["OPTIONS"][key] for key in ("host", "port", "use_tls")} == {
        "host": "mail.example.org", "port": 2525, "use_tls": True}
