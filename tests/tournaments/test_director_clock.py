"""The director's clock (issue 16, T6): a practice round that counts for nothing, pausing and
resuming a round's clock (paused time does not count), and ending a round now through the
clock's own close path. Every button pressed twice changes nothing the second time; a button
that no longer applies is refused with a message and changes nothing."""

from __future__ import annotations

import html
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse

from live.models import Event
from tests.builders import START, groups_of, make_tournament
from tournaments import actions, deciding
from tournaments.links import group_path
from tournaments.models import Entrant, Group, Tournament, TournamentRound

pytestmark = pytest.mark.django_db

MINUTE = timedelta(minutes=1)


def test_the_practice_round_is_off_by_default_and_lasts_two_to_ten_minutes(director):
    tournament = make_tournament(director, 6)
    assert tournament.practice_minutes is None
    with pytest.raises(actions.NotNow, match="no practice round"):
        actions.start_practice_round(tournament, now=START)
    for bad in (1, 11):
        with pytest.raises(actions.BadEntry, match="2 to 10 minutes"):
            actions.create_tournament(director=director, name="Bad practice", practice_minutes=bad)
    assert not TournamentRound.objects.filter(tournament=tournament).exists()


def test_a_practice_round_counts_for_nothing(director):
    tournament = make_tournament(director, 12, format=Tournament.Format.DOUBLE, practice_minutes=5)
    practice = actions.start_practice_round(tournament, now=START)
    assert (practice.number, str(practice)) == (0, "Practice round")
    assert practice.ends_at == START + 5 * MINUTE
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.REGISTRATION  # late arrivals still welcome
    late = actions.register(tournament, "Late Lou", checked_in=True)
    for group in groups_of(tournament):
        actions.record_turn(group=group, entrant=group.players()[0], points=3000, now=START + MINUTE)
    deciding.close_round_if_due(START + 10 * MINUTE)
    practice.refresh_from_db()
    assert practice.status == TournamentRound.Status.DECIDED
    assert practice.outcome == {"practice": True}  # no cut, no strikes
    assert not tournament.entrants.exclude(status=Entrant.Status.REGISTERED).exists()
    with pytest.raises(actions.NotNow, match="has been played"):
        actions.start_practice_round(tournament, now=START + 11 * MINUTE)

    round_one = actions.start_round(tournament, now=START + 12 * MINUTE)
    assert round_one.number == 1 and str(round_one) == "Round 1"
    assert tournament.players_in().count() == 13 and late in tournament.players_in()
    groups = groups_of(tournament)
    assert all(score == 0 for group in groups for score in group.scores().values())  # nothing carried
    deciding.close_round_if_due(round_one.ends_at + 3 * MINUTE)
    round_one.refresh_from_db()
    # Everyone scored 0: the whole field is tied, and nobody carries a strike from the practice.
    assert set(round_one.outcome["strikes_before"].values()) == {0}


def test_the_practice_round_comes_only_before_round_one(director):
    tournament = make_tournament(director, 6, practice_minutes=3)
    actions.start_round(tournament, now=START)
    with pytest.raises(actions.NotNow, match="before round 1"):
        actions.start_practice_round(tournament, now=START)
    assert not tournament.rounds.filter(number=0).exists()


def test_pausing_stops_the_clock_and_resuming_moves_every_end_by_the_pause(tournament):
    round_ = actions.start_round(tournament, now=START)
    groups = groups_of(tournament)
    ends = {}
    for group in groups:
        assert group.ends_at is not None and group.final_at is not None
        ends[group.pk] = (group.ends_at, group.final_at)
    actions.pause_round(tournament, number=1, now=START + 5 * MINUTE)
    actions.pause_round(tournament, number=1, now=START + 6 * MINUTE)  # pressed twice: no change
    round_.refresh_from_db()
    assert round_.paused_at == START + 5 * MINUTE

    group = groups[0]
    group.refresh_from_db()
    with pytest.raises(actions.NotNow, match="paused the clock"):
        actions.record_turn(group=group, entrant=group.players()[0], points=500, now=START + 7 * MINUTE)
    # Past every end and grace while paused: the clock closes nothing.
    assert deciding.close_round_if_due(START + 60 * MINUTE) == 0
    assert not Group.objects.filter(round=round_, status=Group.Status.FINAL).exists()

    actions.resume_round(tournament, number=1, now=START + 65 * MINUTE)
    actions.resume_round(tournament, number=1, now=START + 66 * MINUTE)  # pressed twice: no change
    for group in Group.objects.filter(round=round_):
        assert (group.ends_at, group.final_at) == (ends[group.pk][0] + 60 * MINUTE, ends[group.pk][1] + 60 * MINUTE)
    round_.refresh_from_db()
    assert round_.paused_at is None and round_.ends_at == START + 80 * MINUTE
    actions.record_turn(group=group, entrant=group.players()[0], points=500, now=START + 66 * MINUTE)
    assert deciding.close_round_if_due(START + 79 * MINUTE) == 0
    assert deciding.close_round_if_due(START + 83 * MINUTE) == len(groups)
    kinds = [event.data.get("what") for event in Event.objects.filter(channel=tournament.channel)]
    assert kinds.count("paused") == 1 and kinds.count("resumed") == 1


def test_end_round_now_closes_the_round_as_if_time_were_up_once(tournament):
    round_ = actions.start_round(tournament, now=START)
    groups = groups_of(tournament)
    for group in groups:
        players = group.players()
        for index, player in enumerate(players):
            actions.record_turn(group=group, entrant=player, points=500 * (index + 1), now=START + MINUTE)
    ended = actions.end_round_now(tournament, number=1, now=START + 2 * MINUTE)
    assert ended.status == TournamentRound.Status.DECIDED
    assert not Group.objects.filter(round=round_, status=Group.Status.PLAYING).exists()
    assert len(ended.outcome["advancing"]) == 6
    again = actions.end_round_now(tournament, number=1, now=START + 3 * MINUTE)  # pressed twice
    assert again.outcome == ended.outcome and again.decided_at == ended.decided_at
    assert Event.objects.filter(channel=tournament.channel, data__what="round_decided").count() == 1
    with pytest.raises(actions.NotNow):
        actions.record_turn(group=groups[0], entrant=groups[0].players()[0], points=500, now=START + 4 * MINUTE)


def test_a_paused_table_gets_more_time_only_once_the_clock_runs_again(tournament):
    actions.start_round(tournament, now=START)
    group = groups_of(tournament)[0]
    ends_at = group.ends_at
    actions.pause_round(tournament, number=1, now=START + MINUTE)
    with pytest.raises(actions.NotNow, match="resume it"):
        actions.extend_group(group=group, minutes=2, now=START + 2 * MINUTE)
    group.refresh_from_db()
    assert group.ends_at == ends_at


def test_end_round_now_ends_a_paused_round(tournament):
    round_ = actions.start_round(tournament, now=START)
    actions.pause_round(tournament, number=1, now=START + MINUTE)
    actions.end_round_now(tournament, number=1, now=START + 2 * MINUTE)
    round_.refresh_from_db()
    assert round_.paused_at is None and round_.status != TournamentRound.Status.PLAYING


def test_the_clock_buttons_refuse_a_round_that_is_not_under_way_and_change_nothing(tournament):
    with pytest.raises(actions.NotNow, match="round 1"):
        actions.pause_round(tournament, number=1, now=START)
    round_ = actions.start_round(tournament, now=START)
    with pytest.raises(actions.NotNow, match="for round 2: Round 1 is the current round"):
        actions.end_round_now(tournament, number=2, now=START)
    deciding.close_round_if_due(round_.ends_at + 3 * MINUTE)
    round_.refresh_from_db()
    assert round_.status != TournamentRound.Status.PLAYING
    for press in (actions.pause_round, actions.resume_round):
        with pytest.raises(actions.NotNow, match="Round 1"):
            press(tournament, number=1, now=round_.ends_at + 4 * MINUTE)
    round_.refresh_from_db()
    assert round_.paused_at is None


def test_the_dashboard_buttons_pause_resume_and_end_and_refuse_with_a_message(director_client, tournament):
    actions.start_round(tournament)
    pause = reverse("tournaments:pause", args=[tournament.code])
    resume = reverse("tournaments:resume", args=[tournament.code])
    end_now = reverse("tournaments:end_now", args=[tournament.code])
    page = director_client.get(reverse("tournaments:dashboard", args=[tournament.code])).content.decode()
    assert "Pause the clock" in page and "End round 1 now" in page

    response = director_client.post(pause, {"round": "1"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and "Resume the clock" in response.content.decode()
    assert "Paused" in response.content.decode() and "+2 min" not in response.content.decode()
    response = director_client.post(resume, {"round": "1"}, HTTP_HX_REQUEST="true")
    assert "Pause the clock" in response.content.decode()

    for bad, status, message in (
        ({}, 400, "That button lost its round: reload the dashboard."),
        ({"round": "x"}, 400, "The round must be a whole number, written with the digits 0 to 9."),
        ({"round": "7"}, 409, "That button was for round 7: Round 1 is the current round."),
    ):
        response = director_client.post(pause, bad, HTTP_HX_REQUEST="true")
        assert response.status_code == status, bad
        assert message in html.unescape(response.content.decode()), bad
    assert tournament.current_round().paused_at is None

    response = director_client.post(end_now, {"round": "1"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert tournament.current_round().status != TournamentRound.Status.PLAYING
    # An outsider can't press them.
    outsider = Client()
    assert outsider.post(pause, {"round": "1"}).status_code == 302  # to the login page


def test_a_paused_round_shows_paused_on_the_phone_and_the_projector(tournament):
    actions.start_round(tournament)
    actions.pause_round(tournament, number=1)
    group = groups_of(tournament)[0]
    phone = Client()
    phone.get(group_path(group.code))
    page = phone.get(reverse("tournaments:group", args=[group.code])).content.decode()
    assert "Paused" in page and "paused the clock" in page and 'id="turn-form"' not in page
    screen = Client().get(reverse("tournaments:screen", args=[tournament.code, tournament.screen_token]))
    assert "Paused" in screen.content.decode() and "data-countdown" not in screen.content.decode()


@pytest.mark.parametrize(("given", "status", "stored"), [("", 302, None), ("5", 302, 5), ("11", 400, None)])
def test_the_new_tournament_form_sets_the_practice_round_length(director_client, given, status, stored):
    response = director_client.post(reverse("tournaments:new"), {
        "name": "Practice Open", "format": "single", "round_minutes": "20", "face_off_minutes": "15",
        "grace_seconds": "120", "ties": "play_off", "grouping": "random", "point_goal": "10000",
        "vengeance_penalty": "2500", "practice_minutes": given,
    })
    assert response.status_code == status
    if status == 302:
        assert Tournament.objects.get(name="Practice Open").practice_minutes == stored
    else:
        assert "practice round" in response.content.decode() and not Tournament.objects.exists()


def test_the_projector_shows_the_practice_round_then_leaves_it_out_of_the_bracket(director):
    tournament = make_tournament(director, 6, practice_minutes=2)
    screen_url = reverse("tournaments:screen", args=[tournament.code, tournament.screen_token])
    actions.start_practice_round(tournament, now=START)
    page = Client().get(screen_url).content.decode()
    assert "Practice round" in page and page.count('<section class="bracket-round') == 1
    actions.end_round_now(tournament, number=0, now=START + MINUTE)
    actions.start_round(tournament, now=START + 2 * MINUTE)
    page = Client().get(screen_url).content.decode()
    assert "Practice round" not in page and page.count('<section class="bracket-round') == 1
