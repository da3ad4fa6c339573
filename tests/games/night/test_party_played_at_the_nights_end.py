"""Issue 42, C1: a party's night played before the party's date makes the party played the moment
the night ends (its last round closed, or the host ending it early), on every page at once: not
once the host opens Prizes, which is when the night reports its sheets."""

from __future__ import annotations

import datetime
import random

import pytest
from django.core import mail
from django.urls import reverse

from bunco_club import actions as club_actions
from bunco_club.links import my_club_path
from bunco_club.mail import send_due_reminders
from bunco_club.models import Club, NightRecord, Party
from games.night import actions
from games.night.models import Night
from tests.builders import (
    NAMES,
    PLAYERS_ALL_NIGHT,
    fill_roster,
    fresh,
    logged_in,
    make_club,
    make_night,
    make_user,
    member_phone,
    play_round,
    played_night,
    soon,
    text,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def club() -> Club:
    """A host's club with its regulars (Ada to Lou) and alternates."""
    club = make_club(hosts=[make_user()])
    fill_roster(club)
    return club


@pytest.fixture
def party(club) -> Party:
    """A party ten days from now, hosted by Ada, with a later one after it."""
    club_actions.add_party(club, starts_at=soon(40))
    return club_actions.add_party(club, starts_at=soon(10), host=club.members.get(name="Ada"))


def night_of(party: Party) -> Night:
    """The party's night, played tonight (before the party's date), with six of its members."""
    names = NAMES[:PLAYERS_ALL_NIGHT]
    members = {name: party.club.members.get(name=name) for name in names}
    return make_night(PLAYERS_ALL_NIGHT, seed=7, club=party.club, party=party, members=members)


def assert_played_everywhere(party: Party) -> None:
    club = party.club
    host_page = logged_in(club.hosts.get())
    response = host_page.get(reverse("clubs:club", args=[club.slug]))
    assert party not in response.context["upcoming"] and response.context["next_party"] != party
    assert party in response.context["past"]
    assert "No nights played yet" not in text(response)
    bea = club.members.get(name="Bea")  # she never answered for this party
    my_page = member_phone(bea).get(my_club_path(bea.code))
    shown = [my_page.context["next_row"], *my_page.context["later_rows"]]
    assert party not in [row["party"] for row in shown]
    assert text(my_page).count("Are you coming?") == len(shown) == 1  # the later party only
    party_page = host_page.get(reverse("clubs:party", args=[club.slug, party.pk]))
    assert "Start this party's night" not in text(party_page) and "Open this party's night" not in text(party_page)
    assert Party.objects.get(pk=party.pk).is_played and list(Party.objects.played()) == [party]
    with pytest.raises(club_actions.NotNow, match="over"):
        club_actions.answer_rsvp(party, bea, "yes")


def test_a_party_whose_night_played_its_last_round_is_played_before_its_prizes_are_worked_out(party):
    night = played_night(PLAYERS_ALL_NIGHT, seed=7, club=party.club, party=party,
                         members={name: party.club.members.get(name=name) for name in NAMES[:PLAYERS_ALL_NIGHT]})

    assert night.status == Night.Status.FINISHED and not night.awards.exists()
    assert not NightRecord.objects.filter(party=party).exists()  # no sheets yet: nobody opened Prizes
    assert_played_everywhere(party)
    # Re-opened to correct a table, the night is being put right, not played again: still played,
    # and its sheets follow when the prizes are worked out.
    actions.reopen_last_round(fresh(night), table_number=2)
    assert Party.objects.get(pk=party.pk).is_played
    actions.finish_turn(night=fresh(night), table_number=2)
    actions.award_prizes(fresh(night))
    assert NightRecord.objects.filter(party=party).count() == PLAYERS_ALL_NIGHT
    assert_played_everywhere(party)


def test_a_party_whose_night_the_host_ended_early_is_played(party):
    night = night_of(party)
    play_round(night, random.Random(7))
    assert not Party.objects.get(pk=party.pk).is_played  # under way: not played yet

    actions.end_night(fresh(night))

    assert_played_everywhere(party)


def test_nobody_is_nudged_to_come_to_a_party_whose_night_is_over(party):
    night = night_of(party)
    play_round(night, random.Random(7))
    actions.end_night(fresh(night))
    mail.outbox.clear()

    send_due_reminders(party.starts_at - datetime.timedelta(days=1))

    assert [message.subject for message in mail.outbox if "coming" in message.subject] == []
