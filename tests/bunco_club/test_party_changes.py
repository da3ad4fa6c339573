"""A party's new time or place is mailed to those who said yes or maybe (issue 29, C7): once per
member and change, through the Celery task enqueued when the edit commits, with a link that opens
the member's own page."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse

from bunco_club import actions
from bunco_club.models import Club, Party
from tests.builders import soon

pytestmark = pytest.mark.django_db


@pytest.fixture
def answered(club: Club) -> Party:
    """A party ten days off at Ada's: Bea and Eve said yes, Cal maybe, Dot no; the others nothing."""
    party = actions.add_party(club, starts_at=soon(10), location="Ada's house")
    for name, answer in (("Bea", "yes"), ("Cal", "maybe"), ("Dot", "no"), ("Eve", "yes")):
        actions.answer_rsvp(party, club.members.get(name=name), answer)
    return party


def edit(host_client: Client, party: Party, captured, **changes: str):
    """The host's edit form, posted with the party as it is but for `changes`; the mail tasks the
    edit enqueued on commit are run afterwards (Celery is eager in these tests)."""
    fields = {"date": party.day.isoformat(), "time": "19:00", "location": party.location, "notes": party.notes}
    fields.update(changes)
    with captured(execute=False) as callbacks:
        response = host_client.post(reverse("clubs:party_edit", args=[party.club.slug, party.pk]), fields)
    assert response.status_code == 302
    sent_before_the_commit = len(mail.outbox)
    for callback in callbacks:
        callback()
    return sent_before_the_commit


def recipients() -> list[str]:
    return sorted(address for message in mail.outbox for address in message.to)


def test_a_new_time_is_mailed_once_to_each_member_who_said_yes_or_maybe(host_client, answered,
                                                                          django_capture_on_commit_callbacks):
    sent_before_the_commit = edit(host_client, answered, django_capture_on_commit_callbacks, time="19:30")

    assert sent_before_the_commit == 0  # enqueued on commit, never from inside the edit
    assert recipients() == ["bea@example.com", "cal@example.com", "eve@example.com"]
    cal = next(message for message in mail.outbox if message.to == ["cal@example.com"])
    assert "19:30" in cal.subject
    assert "When: " in cal.body and "19:30 (was " in cal.body and "19:00)" in cal.body
    assert "Where: Ada's house\n" in cal.body  # the place did not change: no "was"
    assert "You said maybe" in cal.body


def test_a_new_place_is_mailed_and_the_mails_link_opens_the_members_own_page(host_client, answered, club,
                                                                            django_capture_on_commit_callbacks):
    edit(host_client, answered, django_capture_on_commit_callbacks, location="Bea's flat, 3 Elm Road")

    assert recipients() == ["bea@example.com", "cal@example.com", "eve@example.com"]
    eve = next(message for message in mail.outbox if message.to == ["eve@example.com"])
    assert "now at Bea's flat, 3 Elm Road" in eve.subject
    assert "Where: Bea's flat, 3 Elm Road (was Ada's house)" in eve.body
    [link] = re.findall(r"https?://\S+", str(eve.body))
    address = urlsplit(link)
    assert address.scheme == "http" and address.netloc == "testserver"  # where the host reached the site
    page = Client().get(address.path)
    assert page.status_code == 200
    assert page.context["member"] == club.members.get(name="Eve")


def test_an_edit_that_moves_nothing_mails_nobody_and_a_second_change_mails_again_once(
        host_client, answered, django_capture_on_commit_callbacks):
    edit(host_client, answered, django_capture_on_commit_callbacks, notes="Bring a dessert")
    ada = answered.club.members.get(name="Ada")
    edit(host_client, answered, django_capture_on_commit_callbacks, notes="Bring a dessert", host=str(ada.pk))
    assert mail.outbox == []  # notes and hosts are not a new time or place

    edit(host_client, answered, django_capture_on_commit_callbacks, time="20:00")
    edit(host_client, answered, django_capture_on_commit_callbacks, time="20:00")  # the same form again
    assert recipients() == ["bea@example.com", "cal@example.com", "eve@example.com"]

    answered.refresh_from_db()
    edit(host_client, answered, django_capture_on_commit_callbacks, time="20:00", location="The church hall")
    assert len(mail.outbox) == 6 and recipients().count("bea@example.com") == 2
