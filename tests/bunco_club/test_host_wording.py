"""Issue 42, wording (the club's part): a party nobody hosts yet read "hosted by no host yet", and a
host was asked "Are you coming?" to her own party, on her page and in her reminder."""

from __future__ import annotations

import datetime

import pytest
from django.core import mail
from django.urls import reverse

from bunco_club import actions
from bunco_club.links import my_club_path
from bunco_club.mail import send_due_reminders
from tests.builders import member_phone, soon, text

pytestmark = pytest.mark.django_db


def test_a_party_nobody_hosts_yet_says_so_instead_of_hosted_by_no_host_yet(host_client, client, club):
    party = actions.add_party(club, starts_at=soon())

    page = text(host_client.get(reverse("clubs:party", args=[club.slug, party.pk])))
    feed = client.get(reverse("clubs:club_feed", args=[club.feed_code])).content.decode().replace("\r\n ", "")

    assert "hosted by no host yet" not in page.lower() and "· no host yet" in page
    assert "hosted by no host yet" not in feed.lower() and "DESCRIPTION:No host yet." in feed
    # And once it has hosts, it says who they are.
    actions.edit_party(party, starts_at=party.starts_at, location=party.location, host=club.members.get(name="Ada"),
                       cohost=club.members.get(name="Bea"))
    page = text(host_client.get(reverse("clubs:party", args=[club.slug, party.pk])))
    feed = client.get(reverse("clubs:club_feed", args=[club.feed_code])).content.decode().replace("\r\n ", "")
    assert "· hosted by Ada & Bea" in page and "DESCRIPTION:Hosted by Ada & Bea." in feed
    assert "no host yet" not in page.lower()


def test_a_host_is_asked_whether_she_plays_at_her_own_party_not_whether_she_is_coming(club):
    ada, bea = club.members.get(name="Ada"), club.members.get(name="Bea")
    actions.add_party(club, starts_at=soon(), host=ada)

    hers = text(member_phone(ada).get(my_club_path(ada.code)))
    guests = text(member_phone(bea).get(my_club_path(bea.code)))

    assert "Are you coming?" not in hers and "You host this one: will you play too?" in hers
    assert "Are you coming?" in guests


def test_a_hosts_reminder_does_not_ask_her_to_come_to_her_own_party(club):
    ada, bea = club.members.get(name="Ada"), club.members.get(name="Bea")
    party = actions.add_party(club, starts_at=soon(), host=ada)
    mail.outbox.clear()

    send_due_reminders(party.starts_at - datetime.timedelta(days=1))

    to_ada = [message for message in mail.outbox if message.to == [ada.email]]
    to_bea = [message for message in mail.outbox if message.to == [bea.email]]
    assert to_ada and not [message for message in to_ada
                           if "coming?" in f"{message.subject} {message.body}" or "hosted by Ada" in message.body]
    assert [message.subject for message in to_ada if message.subject.endswith("will you play too?")]
    assert [message for message in to_ada if "You host Maple Street Bunco's Bunco" in message.body] == []
    assert [message.subject for message in to_bea] == [f"{club.name} on {party.local_start:%A %d %B, %H:%M}: "
                                                       "are you coming?"]
