"""Reminders: each goes once, however often the job runs (time-machine for the dates)."""

from __future__ import annotations

import datetime
from io import StringIO

import pytest
import time_machine
from django.conf import settings
from django.core import mail
from django.core.management import call_command

from bunco_club import actions, tasks
from bunco_club.mail import send_due_reminders
from bunco_club.models import SentReminder, SubInvitation
from tests.builders import soon

pytestmark = pytest.mark.django_db


@pytest.fixture
def upcoming(club):
    """A party ten days from now hosted by Ada; Bea, Cal and Dot said yes, Eve maybe."""
    party = actions.add_party(club, starts_at=soon(10))
    party.host = club.members.get(name="Ada")
    party.save()
    for name in ("Bea", "Cal", "Dot"):
        actions.answer_rsvp(party, club.members.get(name=name), "yes")
    actions.answer_rsvp(party, club.members.get(name="Eve"), "maybe")
    return party


def test_nothing_is_due_before_the_nudge_days(upcoming):
    assert send_due_reminders() == 0
    assert mail.outbox == []


def test_members_who_havent_answered_get_a_nudge_and_the_host_a_reminder(upcoming):
    with time_machine.travel(upcoming.starts_at - datetime.timedelta(days=2), tick=False):
        sent = send_due_reminders()
    nudged = sorted(message.to[0] for message in mail.outbox if "are you coming" in message.subject)
    # Bea, Cal, Dot and Eve answered; Ada hosts and hasn't answered: she is asked whether she plays
    # too, not whether she is coming to her own party (issue 42).
    assert nudged == [f"{name}@example.com" for name in ("fay", "gus", "hal", "ivy", "jo", "kit", "lou")]
    assert [message.to for message in mail.outbox if "will you play too" in message.subject] == [["ada@example.com"]]
    host_mail = [message for message in mail.outbox if message.subject.startswith("You host")]
    assert [message.to for message in host_mail] == [["ada@example.com"]]
    assert "3 coming, 1 ghost" in host_mail[0].body and "1 maybe" in host_mail[0].body
    assert sent == len(mail.outbox) == 9
    assert "/clubs/me/" in mail.outbox[0].body


def test_running_the_job_twice_sends_each_reminder_once(upcoming):
    with time_machine.travel(upcoming.starts_at - datetime.timedelta(days=2), tick=False):
        first = send_due_reminders()
        second = send_due_reminders()
    assert first == 9 and second == 0
    assert len(mail.outbox) == 9
    assert SentReminder.objects.count() == 9


def test_the_command_sends_the_due_reminders_once(upcoming):
    out = StringIO()
    with time_machine.travel(upcoming.starts_at - datetime.timedelta(days=1), tick=False):
        call_command("send_reminders", stdout=out)
        call_command("send_reminders", stdout=out)
    assert out.getvalue().splitlines() == ["Sent 9 reminders.", "Sent 0 reminders."]


def test_the_celery_task_sends_them_too(upcoming):
    with time_machine.travel(upcoming.starts_at - datetime.timedelta(days=1), tick=False):
        tasks.send_due_reminders.delay()
    assert len(mail.outbox) == 9


def test_a_members_nudge_days_are_the_clubs(upcoming, club):
    club.rsvp_nudge_days = 7
    club.save()
    with time_machine.travel(upcoming.starts_at - datetime.timedelta(days=6), tick=False):
        assert send_due_reminders() == 9


def test_a_party_that_has_started_gets_no_reminders(upcoming):
    with time_machine.travel(upcoming.starts_at + datetime.timedelta(minutes=5), tick=False):
        assert send_due_reminders() == 0


def test_a_sub_invitation_whose_task_was_lost_is_sent_by_the_sweep_once(upcoming, club):
    # The yes turned no outside on-commit callbacks: the invitation's own task never ran.
    actions.answer_rsvp(upcoming, club.members.get(name="Bea"), "no")
    assert mail.outbox == []
    assert send_due_reminders() == 1
    assert mail.outbox[0].to == ["sam@example.com"]
    assert send_due_reminders() == 0


def test_a_sub_invitation_sent_by_its_task_is_not_sent_again_by_the_sweep(upcoming, club,
                                                                           django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        actions.answer_rsvp(upcoming, club.members.get(name="Bea"), "no")
    assert len(mail.outbox) == 1
    assert send_due_reminders() == 0
    assert SubInvitation.objects.get().member.name == "Sam"


def test_the_clock_and_beat_run_the_reminders():
    assert "bunco_club.tasks.send_due_reminders_when_due" in settings.CLOCK_TICKERS or not settings.IN_PROCESS_CLOCK
    assert settings.CELERY_BEAT_SCHEDULE["send-club-reminders"]["task"] == "bunco_club.tasks.send_due_reminders"
    assert tasks.send_due_reminders.name == "bunco_club.tasks.send_due_reminders"


def test_a_member_without_an_email_is_skipped(upcoming, club):
    club.members.filter(name="Fay").update(email="")
    with time_machine.travel(upcoming.starts_at - datetime.timedelta(days=1), tick=False):
        send_due_reminders()
    assert len(mail.outbox) == 8
    assert not any("fay" in message.to[0] for message in mail.outbox)


def test_a_cancelled_party_sends_no_reminders(upcoming):
    actions.cancel_party(upcoming)
    mail.outbox.clear()
    with time_machine.travel(upcoming.starts_at - datetime.timedelta(days=2), tick=False):
        assert send_due_reminders() == 0
    assert [message.subject for message in mail.outbox] == []


def test_the_hosts_reminder_for_a_party_nobody_has_said_yes_to_says_so_instead_of_snacks_for_0(club):
    """Issue 29, C11: it read "0 coming, 0 ghosts (0 tables)" and "snacks for 0, the prize pot (about $0.00)"."""
    party = actions.add_party(club, starts_at=soon(10))
    party.host = club.members.get(name="Ada")
    party.save()
    actions.answer_rsvp(party, club.members.get(name="Eve"), "maybe")

    with time_machine.travel(party.starts_at - datetime.timedelta(days=2), tick=False):
        send_due_reminders()

    [host_mail] = [message for message in mail.outbox if message.subject.startswith("You host")]
    assert "So far: nobody coming yet, 1 maybe, 11 not answered yet." in host_mail.body
    assert "What to get ready: nothing yet" in host_mail.body
    assert "snacks for 0" not in host_mail.body and "$0.00" not in host_mail.body
    assert "0 coming" not in host_mail.body and "0 table" not in host_mail.body
