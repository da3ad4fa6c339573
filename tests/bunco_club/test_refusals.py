"""A club's refusals reach each caller from one answer (views.refused): a member's phone and a
host's page get the page the post came from with the refusal's message, a reused key a page that
says the answer was not taken; nothing changes (issue 17)."""

from __future__ import annotations

import pytest
from django.core import mail
from django.urls import reverse

from bunco_club import actions
from bunco_club.links import member_token
from bunco_club.models import RSVP, Club, Member, Party, SubInvitation
from live.models import Event

pytestmark = pytest.mark.django_db


def state(club: Club) -> tuple[object, ...]:
    """What a refused post must leave as it was: the answers, invitations, roster, mail and event log."""
    return (
        list(RSVP.objects.filter(party__club=club).order_by("pk").values_list("member_id", "answer", "note")),
        list(SubInvitation.objects.filter(party__club=club).order_by("pk").values_list("member_id", "status")),
        list(club.members.order_by("pk").values_list("name", "is_alternate", "is_active")),
        list(club.parties.order_by("pk").values_list("starts_at", "cancelled_at")),
        len(mail.outbox), Event.objects.count(),
    )


def messages_on(html: str) -> str:
    return html.replace("&#x27;", "'")


def test_a_refused_answer_comes_back_to_the_members_phone_page_with_its_message_changing_nothing(
        member_client, member: Member, party: Party, club: Club):
    actions.cancel_party(party)
    mail.outbox.clear()
    token = member_token(member.code)
    before = state(club)
    response = member_client.post(reverse("clubs:my_rsvp", args=[token, party.pk]), {"answer": "no"}, follow=True)
    assert response.redirect_chain == [(reverse("clubs:my_club", args=[token]), 302)]
    assert "This party is cancelled: there is nothing to answer." in messages_on(response.content.decode())
    assert state(club) == before


def test_a_refused_answer_sent_from_the_party_page_comes_back_to_the_party_page(
        member_client, member: Member, party: Party, club: Club):
    before = state(club)
    response = member_client.post(reverse("clubs:my_rsvp", args=[member_token(member.code), party.pk]),
                                  {"answer": "perhaps", "back": "party"}, follow=True)
    assert response.redirect_chain == [(reverse("clubs:party", args=[club.slug, party.pk]), 302)]
    assert "Answer yes, no or maybe." in messages_on(response.content.decode())
    assert state(club) == before


def test_an_answer_reusing_a_key_with_other_content_gets_a_page_saying_it_was_not_taken(
        member_client, member: Member, party: Party, club: Club):
    url = reverse("clubs:my_rsvp", args=[member_token(member.code), party.pk])
    assert member_client.post(url, {"answer": "maybe", "key": "key-one-1234"}).status_code == 302
    before = state(club)
    response = member_client.post(url, {"answer": "no", "key": "key-one-1234"})
    html = messages_on(response.content.decode())
    assert response.status_code == 409
    assert "That wasn't taken" in html and f'href="{reverse("clubs:my_club", args=[member_token(member.code)])}"' in html
    assert state(club) == before


def test_a_hosts_refused_button_comes_back_to_the_party_page_with_its_message_changing_nothing(
        host_client, party: Party, club: Club):
    for _ in range(club.members.alternates().count()):
        actions.invite_another_sub(party)
    mail.outbox.clear()
    before = state(club)
    response = host_client.post(reverse("clubs:party_invite_sub", args=[club.slug, party.pk]), follow=True)
    assert response.redirect_chain == [(reverse("clubs:party", args=[club.slug, party.pk]), 302)]
    assert "Everyone on the sub list has been asked already." in messages_on(response.content.decode())
    assert state(club) == before


def test_a_hosts_refused_roster_button_comes_back_to_the_roster_with_its_message_changing_nothing(
        host_client, club: Club):
    regular = club.members.get(name="Ada")
    before = state(club)
    response = host_client.post(reverse("clubs:member_promote", args=[club.slug, regular.pk]), follow=True)
    assert response.redirect_chain == [(reverse("clubs:roster", args=[club.slug]), 302)]
    assert "Ada is already a regular." in messages_on(response.content.decode())
    assert state(club) == before
