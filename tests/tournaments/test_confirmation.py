"""A table's result waits until a second phone confirms it (issue 46): reported when its scores
are final, confirmed by another player of the table on their own phone or by the director,
disputed and locked until the director settles it; the bracket reads confirmed results only."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse

from live.models import Event
from tests.builders import START, groups_of, make_tournament, phones_round
from tournaments import actions, deciding
from tournaments.links import group_path
from tournaments.models import Entrant, Group, ResultEntry, Tournament, TournamentRound, new_token

pytestmark = pytest.mark.django_db

MINUTE = timedelta(minutes=1)
SCORER = "phone-of-the-scorer"  # the phone that enters a table's turns
KEY = "0123456789abcdef0123456789abcdef"
OTHER_KEY = "fedcba9876543210fedcba9876543210"


@pytest.fixture
def confirming(director) -> Tournament:
    """Eight players in two tables of four; each table's result waits for a confirmation."""
    return make_tournament(director, 8, confirm_results=True)


def played(tournament: Tournament) -> tuple[TournamentRound, list[Group]]:
    """Round 1, every player one turn entered on their table's one phone, then time and grace up."""
    round_ = actions.start_round(tournament, now=START)
    groups = groups_of(tournament)
    for group in groups:
        for index, player in enumerate(group.players()):
            actions.record_turn(group=group, entrant=player, points=500 + 250 * index, now=START + MINUTE,
                                phone=SCORER)
    deciding.close_round_if_due(round_.ends_at + timedelta(minutes=3))
    round_.refresh_from_db()
    return round_, [Group.objects.select_related("round__tournament").get(pk=group.pk) for group in groups]


def fresh(group: Group) -> Group:
    return Group.objects.select_related("round__tournament").get(pk=group.pk)


def confirm(group: Group, index: int = 1, phone: str | None = None, **extra):
    """The group's `index`th player confirms on their own phone."""
    player = group.players()[index]
    return actions.confirm_result(group=group, entrant=player, phone=phone or f"phone-of-{player.pk}", **extra)


def test_a_typed_tables_result_is_reported_when_its_time_is_up_and_the_round_waits(confirming):
    round_, groups = played(confirming)
    assert all(group.status == Group.Status.FINAL and group.result == Group.Result.REPORTED for group in groups)
    assert round_.status == TournamentRound.Status.PLAYING and round_.outcome == {}
    reported = ResultEntry.objects.get(group=groups[0], kind=ResultEntry.Kind.REPORTED)
    assert reported.scores == groups[0].scores()
    assert Event.objects.filter(channel=confirming.channel, data__what="result_reported").exists()


def test_the_bracket_waits_until_every_tables_result_is_confirmed(confirming):
    round_, (first, second) = played(confirming)
    confirm(first)
    round_.refresh_from_db()
    assert fresh(first).result == Group.Result.CONFIRMED
    assert round_.status == TournamentRound.Status.PLAYING  # the second table's result still waits

    confirm(second)

    round_.refresh_from_db()
    assert round_.status != TournamentRound.Status.PLAYING
    assert round_.scores == {**first.scores(), **second.scores()}


def test_the_clock_does_not_decide_a_round_whose_results_wait(confirming):
    round_, _groups = played(confirming)
    deciding.close_round_if_due(round_.ends_at + timedelta(hours=2))
    round_.refresh_from_db()
    assert round_.status == TournamentRound.Status.PLAYING


def test_the_phone_that_entered_the_turns_cannot_confirm_them(confirming):
    round_, (first, _second) = played(confirming)
    with pytest.raises(actions.NotYourGroup, match="entered"):
        confirm(first, phone=SCORER)
    assert fresh(first).result == Group.Result.REPORTED
    assert not first.result_entries.exclude(kind=ResultEntry.Kind.REPORTED).exists()


def test_only_a_player_of_the_table_confirms_its_result(confirming):
    _round, (first, second) = played(confirming)
    stranger = second.players()[0]
    with pytest.raises(actions.NotYourGroup, match="doesn't play"):
        actions.confirm_result(group=first, entrant=stranger, phone="phone-of-a-stranger")
    assert fresh(first).result == Group.Result.REPORTED


def test_a_phone_answers_for_one_player_and_a_player_from_one_phone(confirming):
    _round, (first, second) = played(confirming)
    ann = first.players()[1]
    actions.confirm_result(group=first, entrant=ann, phone="anns-phone")
    assert Entrant.objects.get(pk=ann.pk).phone == "anns-phone"
    with pytest.raises(actions.NotYourGroup, match="This phone is"):  # Ann's phone answers for Ann only
        actions.confirm_result(group=second, entrant=second.players()[1], phone="anns-phone")
    cy = second.players()[2]
    Entrant.objects.filter(pk=cy.pk).update(phone="cys-phone")  # Cy's phone answered for her before
    with pytest.raises(actions.NotYourGroup, match="own phone"):
        actions.confirm_result(group=second, entrant=cy, phone="someone-elses-phone")
    assert fresh(second).result == Group.Result.REPORTED


def test_a_dispute_locks_the_result_until_the_director_settles_it_and_the_settlement_is_logged(confirming):
    round_, (first, second) = played(confirming)
    confirm(second)
    disputer = first.players()[1]
    actions.dispute_result(group=first, entrant=disputer, phone="disputer-phone", now=START + 30 * MINUTE)
    assert fresh(first).result == Group.Result.DISPUTED
    with pytest.raises(actions.NotNow, match="locked"):
        confirm(fresh(first), index=2)
    round_.refresh_from_db()
    assert round_.status == TournamentRound.Status.PLAYING

    wronged = first.players()[0]
    actions.add_correction(group=fresh(first), entrant=wronged, points=1000, now=START + 31 * MINUTE)
    before = ResultEntry.objects.get(group=first, kind=ResultEntry.Kind.REPORTED).scores[wronged.name]
    actions.settle_result(group=fresh(first), director=confirming.director, now=START + 32 * MINUTE)

    settled = ResultEntry.objects.get(group=first, kind=ResultEntry.Kind.SETTLED)
    assert settled.director == confirming.director and settled.created_at == START + 32 * MINUTE
    assert settled.scores == {wronged.name: [before, before + 1000]}
    round_.refresh_from_db()
    assert round_.status != TournamentRound.Status.PLAYING
    assert round_.scores[wronged.name] == before + 1000
    kinds = list(first.result_entries.values_list("kind", flat=True))
    assert kinds == ["reported", "disputed", "settled"]


def test_the_director_confirms_a_reported_result_without_waiting_for_a_phone(confirming):
    round_, (first, second) = played(confirming)
    actions.settle_result(group=first, director=confirming.director)
    actions.settle_result(group=second, director=confirming.director)
    round_.refresh_from_db()
    assert round_.status != TournamentRound.Status.PLAYING
    with pytest.raises(actions.NotNow, match="confirmed"):
        actions.settle_result(group=fresh(first), director=confirming.director)


def test_a_confirmation_before_the_tables_scores_are_final_is_refused(confirming):
    actions.start_round(confirming, now=START)
    group = groups_of(confirming)[0]
    with pytest.raises(actions.NotNow, match="still playing"):
        confirm(group)


def test_a_retried_confirmation_counts_once_and_its_key_with_another_answer_is_refused(confirming):
    _round, (first, _second) = played(confirming)
    one = confirm(first, key=KEY)
    again = confirm(fresh(first), key=KEY)
    assert again.pk == one.pk
    assert first.result_entries.filter(kind=ResultEntry.Kind.CONFIRMED).count() == 1
    with pytest.raises(actions.KeyReused):
        actions.dispute_result(group=fresh(first), entrant=first.players()[1], phone="x", key=KEY)
    with pytest.raises(actions.KeyReused):
        confirm(fresh(first), index=2, key=KEY)


def test_a_round_played_at_game_tables_needs_no_confirmation(confirming):
    round_ = phones_round(confirming)
    deciding.close_round_if_due(round_.ends_at)
    deciding.close_round_if_due(round_.ends_at + timedelta(minutes=10))
    round_.refresh_from_db()
    assert all(group.result == Group.Result.CONFIRMED for group in round_.groups.filter(play_off=0))
    assert not ResultEntry.objects.filter(tournament=confirming).exists()
    assert round_.status != TournamentRound.Status.PLAYING


def test_the_practice_round_needs_no_confirmation(director):
    tournament = make_tournament(director, 8, confirm_results=True, practice_minutes=5)
    practice = actions.start_practice_round(tournament, now=START)
    deciding.close_round_if_due(practice.ends_at + timedelta(minutes=3))
    practice.refresh_from_db()
    assert practice.status == TournamentRound.Status.DECIDED


def test_a_tournament_that_asks_for_no_confirmation_counts_results_at_once(director):
    tournament = make_tournament(director, 8)
    round_, groups = played(tournament)
    assert all(group.result == Group.Result.CONFIRMED for group in groups)
    assert round_.status != TournamentRound.Status.PLAYING


def test_a_play_off_resolves_only_once_its_result_is_confirmed(director):
    tournament = make_tournament(director, 8, confirm_results=True)
    round_ = actions.start_round(tournament, now=START)
    for group in groups_of(tournament):  # everyone 500: all tied at the line
        for player in group.players():
            actions.record_turn(group=group, entrant=player, points=500, now=START + MINUTE, phone=SCORER)
    deciding.close_round_if_due(round_.ends_at + timedelta(minutes=3))
    for group in groups_of(tournament):
        actions.settle_result(group=fresh(group), director=director)
    round_.refresh_from_db()
    assert round_.status == TournamentRound.Status.PLAY_OFF
    play_off = round_.groups.get(play_off=1)
    for index, player in enumerate(play_off.players()):
        actions.record_turn(group=fresh(play_off), entrant=player, points=500 * (index + 1),
                            now=START + 40 * MINUTE, phone=SCORER)
    play_off = fresh(play_off)
    round_.refresh_from_db()
    assert play_off.result == Group.Result.REPORTED
    assert round_.status == TournamentRound.Status.PLAY_OFF

    actions.confirm_result(group=play_off, entrant=play_off.players()[0], phone="a-players-own-phone")

    round_.refresh_from_db()
    assert round_.status == TournamentRound.Status.DECIDED


# --- On the pages -----------------------------------------------------------------------------------


def phone_for(group: Group) -> Client:
    """A phone that scanned the group's QR code."""
    phone = Client()
    assert phone.get(group_path(group.code)).status_code == 302
    return phone


def reported_through_a_phone(tournament: Tournament) -> tuple[Group, Client]:
    """Round 1 under way now; table 1's turns entered on its scorer's phone; then time is up."""
    round_ = actions.start_round(tournament)
    group = groups_of(tournament)[0]
    scorer = phone_for(group)
    for player in group.players():
        response = scorer.post(reverse("tournaments:group_turn", args=[group.code]),
                               {"entrant": player.pk, "points": "500", "key": new_token()}, HTTP_HX_REQUEST="true")
        assert response.status_code == 200
    deciding.close_round_if_due(round_.ends_at + timedelta(minutes=3))
    return fresh(group), scorer


def test_the_scorers_phone_is_told_another_player_confirms_and_a_players_own_phone_confirms(confirming):
    group, scorer = reported_through_a_phone(confirming)
    page = scorer.get(reverse("tournaments:group", args=[group.code])).content.decode()
    assert "This phone entered the turns" in page and "confirm</button>" not in page
    own = phone_for(group)
    player = group.players()[1]
    page = own.get(reverse("tournaments:group", args=[group.code])).content.decode()
    assert f"I&#x27;m {player.name}: confirm" in page or f"I'm {player.name}: confirm" in page

    response = own.post(reverse("tournaments:group_confirm", args=[group.code]),
                        {"entrant": player.pk, "key": KEY}, HTTP_HX_REQUEST="true")

    assert response.status_code == 200
    assert fresh(group).result == Group.Result.CONFIRMED
    refused = scorer.post(reverse("tournaments:group_confirm", args=[group.code]),
                          {"entrant": group.players()[2].pk, "key": OTHER_KEY}, HTTP_HX_REQUEST="true")
    assert refused.status_code == 409 and "is confirmed" in refused.content.decode()


def test_a_phone_that_answers_for_a_player_offers_only_that_player_and_none_at_another_table(confirming):
    group, _scorer = reported_through_a_phone(confirming)
    own = phone_for(group)
    player = group.players()[1]
    own.post(reverse("tournaments:group_dispute", args=[group.code]), {"entrant": player.pk, "key": KEY},
             HTTP_HX_REQUEST="true")
    actions.settle_result(group=fresh(group), director=confirming.director)
    other = groups_of(confirming)[1]
    assert fresh(other).result == Group.Result.REPORTED  # its time was up too (no turn entered)
    own.get(group_path(other.code))
    page = own.get(reverse("tournaments:group", args=[other.code])).content.decode()
    assert ": confirm</button>" not in page  # this phone is another table's player's
    stranger = phone_for(other)
    page = stranger.get(reverse("tournaments:group", args=[other.code])).content.decode()
    assert page.count(": confirm</button>") == len(other.players())


def test_the_scorers_phone_may_not_confirm_through_the_page_either(confirming):
    group, scorer = reported_through_a_phone(confirming)
    response = scorer.post(reverse("tournaments:group_confirm", args=[group.code]),
                           {"entrant": group.players()[1].pk, "key": KEY}, HTTP_HX_REQUEST="true")
    assert response.status_code == 403
    assert fresh(group).result == Group.Result.REPORTED


def test_the_projector_marks_an_unconfirmed_result_and_the_director_sees_it_waiting(confirming, director_client):
    group, _scorer = reported_through_a_phone(confirming)
    screen = Client().get(reverse("tournaments:screen", args=[confirming.code, confirming.screen_token]))
    assert "not confirmed" in screen.content.decode()
    dashboard = director_client.get(reverse("tournaments:dashboard", args=[confirming.code])).content.decode()
    assert "Results waiting" in dashboard
    assert reverse("tournaments:director_group", args=[confirming.code, group.pk]) in dashboard


def test_a_dispute_on_a_phone_is_settled_on_the_directors_page_and_logged(confirming, director_client):
    group, _scorer = reported_through_a_phone(confirming)
    own = phone_for(group)
    player = group.players()[1]
    response = own.post(reverse("tournaments:group_dispute", args=[group.code]),
                        {"entrant": player.pk, "key": KEY}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and "locked until the director settles it" in response.content.decode()
    sheet_url = reverse("tournaments:director_group", args=[confirming.code, group.pk])
    assert "Confirm the result as it stands" in director_client.get(sheet_url).content.decode()

    settled = director_client.post(reverse("tournaments:settle", args=[confirming.code, group.pk]), {"key": OTHER_KEY})

    assert settled.status_code == 302
    assert fresh(group).result == Group.Result.CONFIRMED
    page = director_client.get(sheet_url).content.decode()
    assert "Settled by the director" in page and "no score changed" in page
