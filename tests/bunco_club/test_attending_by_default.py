"""Attending by default (issue 45): where the club says so, its regulars count as coming to every
party unless they say no before the cutoff; a reminder goes before the cutoff to those who have not
answered; a "no" goes to the sub list as ever; a "no" after the cutoff is a late cancellation,
which the hosts alone see."""

from __future__ import annotations

import datetime

import pytest
import time_machine
from django.core import mail
from django.urls import reverse

from bunco_club import actions
from bunco_club.headcount import headcount
from bunco_club.mail import send_due_reminders
from bunco_club.models import RSVP, Club, SubInvitation
from tests.builders import member_phone, soon, text

pytestmark = pytest.mark.django_db

HOURS = datetime.timedelta(hours=1)


@pytest.fixture
def by_default(club):
    """The club counts its members as coming, answers due 48 hours before."""
    club.attending_by_default = True
    club.answer_cutoff_hours = 48
    club.save()
    return club


@pytest.fixture
def upcoming(by_default):
    """A party ten days from now hosted by Ada; nobody has answered."""
    party = actions.add_party(by_default, starts_at=soon(10))
    party.host = by_default.members.get(name="Ada")
    party.save()
    return party


def member(club, name):
    return club.members.get(name=name)


def test_a_club_does_not_count_its_members_by_default_unless_it_says_so(club):
    party = actions.add_party(club, starts_at=soon(10))
    assert Club().attending_by_default is False
    assert headcount(party).coming == [] and len(headcount(party).waiting) == 12


def test_the_regulars_who_have_not_answered_count_as_coming(upcoming):
    actions.answer_rsvp(upcoming, member(upcoming.club, "Bea"), "no")
    actions.answer_rsvp(upcoming, member(upcoming.club, "Cal"), "maybe")
    count = headcount(upcoming)
    assert len(count.coming) == 10 and count.tables == 3 and count.waiting == []
    assert {m.name for m in count.by_default} == {m.name for m in count.coming}
    assert "Bea" not in upcoming.coming_names() and "Ada" in upcoming.coming_names()
    assert not any(m.is_alternate for m in count.coming)  # the sub list waits for a seat as ever


def test_the_cutoff_is_the_clubs_hours_before_the_party(upcoming):
    assert upcoming.cutoff == upcoming.starts_at - 48 * HOURS
    upcoming.club.answer_cutoff_hours = 24
    assert upcoming.cutoff == upcoming.starts_at - 24 * HOURS
    assert not upcoming.is_past_cutoff(upcoming.starts_at - 25 * HOURS)
    assert upcoming.is_past_cutoff(upcoming.starts_at - 24 * HOURS)


def test_a_no_before_the_cutoff_gives_the_seat_to_the_sub_list_and_is_not_late(upcoming,
                                                                             django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        rsvp = actions.answer_rsvp(upcoming, member(upcoming.club, "Bea"), "no")
    assert not rsvp.cancelled_late
    assert [i.member.name for i in SubInvitation.objects.filter(party=upcoming)] == ["Sam"]
    assert [m.subject for m in mail.outbox if m.to == ["sam@example.com"]]


def test_a_maybe_from_a_member_counted_as_coming_gives_the_seat_up_too(upcoming):
    actions.answer_rsvp(upcoming, member(upcoming.club, "Bea"), "maybe")
    assert SubInvitation.objects.filter(party=upcoming).count() == 1


def test_a_no_after_the_cutoff_is_a_late_cancellation_and_still_pulls_in_a_sub(upcoming):
    with time_machine.travel(upcoming.cutoff + HOURS, tick=False):
        rsvp = actions.answer_rsvp(upcoming, member(upcoming.club, "Bea"), "no")
    assert rsvp.cancelled_late
    assert [m.name for m in headcount(upcoming).late] == ["Bea"]
    assert SubInvitation.objects.filter(party=upcoming, member__name="Sam").exists()


def test_a_yes_again_after_a_late_no_clears_it(upcoming):
    bea = member(upcoming.club, "Bea")
    with time_machine.travel(upcoming.cutoff + HOURS, tick=False):
        actions.answer_rsvp(upcoming, bea, "no")
        rsvp = actions.answer_rsvp(upcoming, bea, "yes")
    assert not rsvp.cancelled_late and headcount(upcoming).late == []


def test_a_late_no_from_a_member_who_had_said_no_already_is_not_late_again(upcoming):
    bea = member(upcoming.club, "Bea")
    actions.answer_rsvp(upcoming, bea, "no")
    with time_machine.travel(upcoming.cutoff + HOURS, tick=False):
        rsvp = actions.answer_rsvp(upcoming, bea, "no", note="still away")
    assert not rsvp.cancelled_late


def test_without_attending_by_default_a_late_no_is_not_counted(club):
    party = actions.add_party(club, starts_at=soon(10))
    bea = member(club, "Bea")
    actions.answer_rsvp(party, bea, "yes")
    with time_machine.travel(party.cutoff + HOURS, tick=False):
        rsvp = actions.answer_rsvp(party, bea, "no")
    assert not rsvp.cancelled_late


def test_the_hosts_alone_see_the_late_cancellations(upcoming, host_client):
    bea = member(upcoming.club, "Bea")
    with time_machine.travel(upcoming.cutoff + HOURS, tick=False):
        actions.answer_rsvp(upcoming, bea, "no")
    party_url = reverse("clubs:party", args=[upcoming.club.slug, upcoming.pk])
    host_page = text(host_client.get(party_url))
    assert "Late cancellations" in host_page
    roster = text(host_client.get(reverse("clubs:roster", args=[upcoming.club.slug])))
    assert "1 late cancellation" in roster
    member_page = text(member_phone(member(upcoming.club, "Cal")).get(party_url))
    assert "Late cancellations" not in member_page and "late cancellation" not in member_page


def test_the_party_page_says_who_counts_as_coming_and_until_when(upcoming, host_client):
    page = text(host_client.get(reverse("clubs:party", args=[upcoming.club.slug, upcoming.pk])))
    assert "Members count as coming unless they say no before" in page
    assert "12 coming" in page


def test_a_members_page_says_they_count_as_coming(upcoming):
    bea = member(upcoming.club, "Bea")
    page = text(member_phone(bea).get(bea.my_club_path))
    assert "You count as coming unless you say no before" in page


def test_the_reminder_goes_before_the_cutoff_to_those_who_have_not_answered(upcoming):
    club = upcoming.club
    actions.answer_rsvp(upcoming, member(club, "Bea"), "no")
    mail.outbox.clear()
    with time_machine.travel(upcoming.cutoff - 24 * HOURS, tick=False):
        send_due_reminders()
        send_due_reminders()  # once each, however often the job runs
    nudged = sorted(m.to[0] for m in mail.outbox if "counted as coming" in m.subject)
    assert len(nudged) == 10 and "bea@example.com" not in nudged and "sam@example.com" not in nudged
    cal = next(m for m in mail.outbox if m.to == ["cal@example.com"])
    assert "If you can't come, say no before" in cal.body and "/clubs/me/" in cal.body
    ada = next(m for m in mail.outbox if m.to == ["ada@example.com"] and "playing" in m.subject)
    assert "you're counted as playing too" in ada.body


def test_no_reminder_goes_after_the_cutoff(upcoming):
    with time_machine.travel(upcoming.cutoff + HOURS, tick=False):
        send_due_reminders()
    assert not [m for m in mail.outbox if "counted as coming" in m.subject]
    assert [m.to for m in mail.outbox if m.subject.startswith("You host")] == [["ada@example.com"]]


def test_nothing_is_nudged_before_the_nudge_days_before_the_cutoff(upcoming):
    with time_machine.travel(upcoming.cutoff - 4 * 24 * HOURS, tick=False):
        assert send_due_reminders() == 0


def test_the_reminder_is_in_each_members_language(upcoming):
    club = upcoming.club
    cal, dot = member(club, "Cal"), member(club, "Dot")
    actions.set_member_language(cal, "es")
    with time_machine.travel(upcoming.cutoff - 24 * HOURS, tick=False):
        send_due_reminders()
    spanish = next(m for m in mail.outbox if m.to == ["cal@example.com"])
    english = next(m for m in mail.outbox if m.to == ["dot@example.com"])
    assert "cuentas como que vienes" in spanish.subject and "Si no puedes venir" in spanish.body
    assert "counted as coming" in english.subject and dot.reads == "en"


def test_the_host_turns_it_on_with_its_cutoff_on_the_clubs_form(club, host_client):
    response = host_client.post(reverse("clubs:club_edit", args=[club.slug]), {
        "name": club.name, "usual_time": "19:00", "buy_in": "5", "time_zone": "UTC", "rsvp_nudge_days": "3",
        "tie_break": "roll_off", "attending_by_default": "on", "answer_cutoff_hours": "72"})
    assert response.status_code == 302
    club.refresh_from_db()
    assert club.attending_by_default and club.answer_cutoff_hours == 72


@pytest.mark.parametrize("hours", ["-1", "337", "1e2", "4.5"])
def test_a_cutoff_that_is_not_0_to_336_hours_is_refused(club, host_client, hours):
    response = host_client.post(reverse("clubs:club_edit", args=[club.slug]), {
        "name": club.name, "usual_time": "19:00", "buy_in": "5", "time_zone": "UTC", "rsvp_nudge_days": "3",
        "tie_break": "roll_off", "attending_by_default": "on", "answer_cutoff_hours": hours})
    assert response.status_code == 400
    club.refresh_from_db()
    assert not club.attending_by_default and club.answer_cutoff_hours == 48


def test_the_yes_answers_are_still_answers(upcoming):
    rsvp = actions.answer_rsvp(upcoming, member(upcoming.club, "Bea"), "yes")
    assert rsvp.answer == RSVP.Answer.YES and len(headcount(upcoming).coming) == 12


def test_a_members_calendar_carries_the_parties_they_count_as_coming_to(upcoming, club):
    bea, cal = member(club, "Bea"), member(club, "Cal")
    actions.answer_rsvp(upcoming, cal, "no")
    assert b"BEGIN:VEVENT" in member_phone(bea).get(bea.my_club_path + "calendar.ics").content
    assert b"BEGIN:VEVENT" not in member_phone(cal).get(cal.my_club_path + "calendar.ics").content


def test_a_new_time_is_told_to_those_counted_as_coming_too(upcoming, club, django_capture_on_commit_callbacks):
    actions.answer_rsvp(upcoming, member(club, "Bea"), "no")
    actions.answer_rsvp(upcoming, member(club, "Cal"), "yes")
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        actions.edit_party(upcoming, starts_at=upcoming.starts_at + HOURS, location="12 Elm Row", host=upcoming.host)
    told = {m.to[0]: m.body for m in mail.outbox}
    assert len(told) == 11 and "bea@example.com" not in told
    assert "You said yes" in told["cal@example.com"]
    assert "You count as coming: if you can't come now, say no" in told["dot@example.com"]


def test_a_cancelled_party_is_told_to_those_coming_by_the_one_rule(upcoming, django_capture_on_commit_callbacks):
    """Who is coming is `Party.coming_members` for the cancellation too: every regular (answered or
    counted by default) and, of the sub list, those who said yes (an alternate never counts by default)."""
    club = upcoming.club
    actions.answer_rsvp(upcoming, member(club, "Bea"), "no")  # her seat: Sam, first on the sub list, takes it
    actions.answer_sub_invitation(SubInvitation.objects.get(party=upcoming, member__name="Sam"), accept=True)
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        actions.cancel_party(upcoming)
    told = {message.to[0] for message in mail.outbox}
    assert told == {m.email for m in club.members.regulars()} | {member(club, "Sam").email}
    assert member(club, "Tia").email not in told
