"""The tournament's actions (docs/RULES.md §1.7): registration, timed rounds, turns, the clock, cuts,
strikes, play-offs, the face-off and the final places."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from bunco_club.actions import NightSheet, record_night_results
from bunco_club.models import Party, Season
from live.models import Event
from tests.builders import START, entrant, groups_of, make_club, make_member, make_tournament
from tournaments import actions, brackets, deciding
from tournaments.models import Entrant, Group, Tournament, TournamentRound, Turn

pytestmark = pytest.mark.django_db

MINUTE = timedelta(minutes=1)


def play(group: Group, points: dict[str, int], at=START) -> None:
    """Each named player of the group enters one turn."""
    for name, banked in points.items():
        actions.record_turn(group=group, entrant=group.round.tournament.entrants.get(name=name), points=banked, now=at)


def close_all(tournament: Tournament, at=None) -> None:
    current = tournament.current_round()
    assert current is not None
    deciding.close_round_if_due(at or current.ends_at + timedelta(minutes=3))


# --- Registration ---------------------------------------------------------------------------------


def test_it_refuses_a_duplicate_or_empty_name_and_changes_nothing(director):
    tournament = make_tournament(director, 2)
    with pytest.raises(actions.BadEntry, match="already registered"):
        actions.register(tournament, "  ann   1 ")
    with pytest.raises(actions.BadEntry, match="name"):
        actions.register(tournament, "   ")
    assert tournament.entrants.count() == 2


def test_it_refuses_a_round_length_outside_twenty_to_thirty_minutes(director):
    with pytest.raises(actions.BadEntry, match="20 to 30"):
        actions.create_tournament(director=director, name="Too quick", round_minutes=10)


def test_it_removes_no_shows_at_round_one_and_takes_late_arrivals_before_it(director):
    tournament = make_tournament(director, 6)
    late = actions.register(tournament, "Late Larry")
    actions.check_in(tournament, late)
    absent = actions.register(tournament, "Absent Abe")
    actions.start_round(tournament, now=START)
    assert Entrant.objects.get(pk=absent.pk).status == Entrant.Status.NO_SHOW
    assert Entrant.objects.get(pk=late.pk).status == Entrant.Status.IN
    with pytest.raises(actions.NotNow, match="Registration is closed"):
        actions.register(tournament, "Too Late")


# --- Starting a round -----------------------------------------------------------------------------


def test_it_splits_a_round_into_the_fewest_groups_and_stores_when_it_ends(tournament):
    tournament = make_tournament(tournament.director, 13, name="Thirteen")
    round_ = actions.start_round(tournament, now=START)
    groups = groups_of(tournament)
    assert [len(group.players()) for group in groups] == brackets.group_sizes(13) == [5, 4, 4]
    assert all(group.ends_at == START + timedelta(minutes=20) for group in groups)
    assert all(group.final_at == START + timedelta(minutes=22) for group in groups)
    assert round_.ends_at == START + timedelta(minutes=20)
    assert Event.objects.filter(channel=tournament.channel, kind="tournament_state",
                                data__what="round_started").exists()


def test_it_gives_groups_of_different_sizes_minutes_per_player_when_asked(director):
    tournament = make_tournament(director, 13, per_player_minutes=5)
    actions.start_round(tournament, now=START)
    assert [group.ends_at for group in groups_of(tournament)] == [
        START + timedelta(minutes=25), START + timedelta(minutes=20), START + timedelta(minutes=20)]


def test_it_deals_seeded_groups_in_snake_order(director):
    tournament = make_tournament(director, 12, grouping=Tournament.Grouping.SEEDED)
    actions.start_round(tournament, now=START)
    assert [[p.name for p in group.players()] for group in groups_of(tournament)] == [
        ["Ann 01", "Ann 04", "Ann 05", "Ann 08", "Ann 09", "Ann 12"],
        ["Ann 02", "Ann 03", "Ann 06", "Ann 07", "Ann 10", "Ann 11"],
    ]


def test_a_random_draw_is_the_same_for_the_same_seed(director):
    first = make_tournament(director, 12, name="A", seed=3)
    second = make_tournament(director, 12, name="B", seed=3)
    for tournament in (first, second):
        actions.start_round(tournament, now=START)
    assert [[p.name for p in g.players()] for g in groups_of(first)] == [
        [p.name for p in g.players()] for g in groups_of(second)]


# --- Turns ----------------------------------------------------------------------------------------


def test_it_derives_the_scores_from_the_entered_turns(tournament):
    actions.start_round(tournament, now=START)
    group = groups_of(tournament)[0]
    first, second, *_ = [p.name for p in group.players()]
    play(group, {first: 1250, second: 0})
    play(group, {first: 300})
    assert group.scores()[first] == 1550
    assert group.scores()[second] == 0
    assert not hasattr(Entrant, "score")


def test_a_vengeance_takes_the_penalty_off_the_leaders_as_they_stood_never_below_zero(tournament):
    actions.start_round(tournament, now=START)
    group = groups_of(tournament)[0]
    a, b, c, d, *_ = [p.name for p in group.players()]
    play(group, {a: 6000, b: 8000, c: 8000, d: 1000})
    play(group, {a: 900})
    actions.record_turn(group=group, entrant=entrant(tournament, a), points=0, now=START)
    scores = group.scores()
    assert (scores[a], scores[b], scores[c], scores[d]) == (6900, 8000, 8000, 1000)
    actions.record_turn(group=group, entrant=entrant(tournament, d), points=500, vengeance=True, now=START)
    scores = group.scores()
    assert (scores[a], scores[b], scores[c], scores[d]) == (6900, 5500, 5500, 1500)
    # Never below 0: the leader at 1,000 hit by a Vengeance of 2,500.
    e = group.players()[4].name
    actions.record_turn(group=group, entrant=entrant(tournament, e), points=50, vengeance=True, now=START)
    assert group.scores()[a] == 4400


def test_a_bust_with_a_vengeance_ticked_is_refused_and_changes_nothing(tournament):
    """docs/RULES.md §1.4: a Vengeance bites only when the turn fills, so a bust never hits the leaders."""
    actions.start_round(tournament, now=START)
    group = groups_of(tournament)[0]
    a, b, *_ = group.players()
    play(group, {a.name: 3000})
    with pytest.raises(actions.BadEntry, match="only when the turn fills") as refused:
        actions.record_turn(group=group, entrant=b, points=0, vengeance=True, now=START, key="v")
    assert 400 <= refused.value.status < 500
    assert group.scores()[a.name] == 3000
    assert group.turns.count() == 1


def test_a_sole_leader_cannot_play_a_vengeance(tournament):
    actions.start_round(tournament, now=START)
    group = groups_of(tournament)[0]
    leader = group.players()[0]
    play(group, {leader.name: 500})
    with pytest.raises(actions.BadEntry, match="sole leader"):
        actions.record_turn(group=group, entrant=leader, points=300, vengeance=True, now=START)
    assert group.turns.count() == 1


def test_it_refuses_malformed_points_and_players_of_another_group(tournament):
    actions.start_round(tournament, now=START)
    here, there = groups_of(tournament)
    for points in (-50, 75, 10**9):
        with pytest.raises(actions.BadEntry):
            actions.record_turn(group=here, entrant=here.players()[0], points=points, now=START)
    with pytest.raises(actions.BadEntry, match="doesn't play"):
        actions.record_turn(group=here, entrant=there.players()[0], points=50, now=START)
    assert Turn.objects.count() == 0


def test_the_must_bust_penalty_takes_points_off_never_below_zero(director):
    tournament = make_tournament(director, 4, must_bust_penalty=True)
    actions.start_round(tournament, now=START)
    group = groups_of(tournament)[0]
    player = group.players()[0]
    play(group, {player.name: 400})
    actions.record_turn(group=group, entrant=player, points=-600, now=START)
    assert group.scores()[player.name] == 0


def test_a_retried_turn_counts_once_and_a_retried_undo_undoes_once(tournament):
    actions.start_round(tournament, now=START)
    group = groups_of(tournament)[0]
    player = group.players()[0]
    for _ in range(2):
        actions.record_turn(group=group, entrant=player, points=500, now=START, key="tap-1")
    actions.record_turn(group=group, entrant=player, points=300, now=START, key="tap-2")
    for _ in range(2):
        actions.undo_last_turn(group=group, now=START, key="undo-1")
    assert group.scores()[player.name] == 500


def test_a_key_reused_with_other_content_is_refused_with_409_never_taken_for_a_retry(tournament):
    """Issue 16 T3: a turn entered 0.4 s after another, carrying its key, was taken for a retry."""
    actions.start_round(tournament, now=START)
    group = groups_of(tournament)[0]
    a, b, *_ = group.players()
    actions.record_turn(group=group, entrant=a, points=500, now=START, key="k1")
    reused = [
        (b, 500, False),  # another player
        (a, 600, False),  # other points
        (a, 500, True),  # a Vengeance this time
    ]
    for player, points, vengeance in reused:
        with pytest.raises(actions.KeyReused, match="already used for another entry") as refused:
            actions.record_turn(group=group, entrant=player, points=points, vengeance=vengeance, now=START, key="k1")
        assert refused.value.status == 409
    with pytest.raises(actions.KeyReused):
        actions.undo_last_turn(group=group, now=START, key="k1")
    actions.undo_last_turn(group=group, now=START, key="u1")
    with pytest.raises(actions.KeyReused):
        actions.record_turn(group=group, entrant=a, points=500, now=START, key="u1")
    # The same key and the same content is the retry: answered with the first, counted once.
    first = Turn.objects.get(key="k1")
    assert actions.record_turn(group=group, entrant=a, points=500, now=START, key="k1") == first
    assert group.turns.count() == 2
    assert group.scores()[a.name] == 0


def test_a_directors_correction_or_strike_with_a_key_counts_once_and_its_key_is_never_reused(tournament):
    actions.start_round(tournament, now=START)
    group = groups_of(tournament)[0]
    a, b, *_ = group.players()
    turn = actions.record_turn(group=group, entrant=a, points=500, now=START, key="t1")
    for _ in range(2):
        actions.add_correction(group=group, entrant=a, points=150, now=START, key="c1")
    with pytest.raises(actions.KeyReused):
        actions.add_correction(group=group, entrant=b, points=150, now=START, key="c1")
    for _ in range(2):
        actions.correct_turn(turn=turn, now=START, key="s1")
    other = actions.record_turn(group=group, entrant=b, points=300, now=START)
    with pytest.raises(actions.KeyReused):
        actions.correct_turn(turn=other, now=START, key="s1")
    with pytest.raises(actions.KeyReused):
        actions.correct_turn(turn=other, now=START, key="t1")
    assert group.scores() == {**group.scores(), a.name: 150, b.name: 300}


def test_a_key_of_another_group_is_refused(tournament):
    actions.start_round(tournament, now=START)
    here, there = groups_of(tournament)
    actions.record_turn(group=here, entrant=here.players()[0], points=500, now=START, key="k")
    with pytest.raises(actions.NotYourGroup):
        actions.record_turn(group=there, entrant=there.players()[0], points=500, now=START, key="k")


def test_the_director_strikes_out_an_entry_and_the_sheet_is_replayed(tournament):
    actions.start_round(tournament, now=START)
    group = groups_of(tournament)[0]
    a, b, *_ = group.players()
    play(group, {a.name: 3000})
    mistaken = Turn.objects.get(group=group)
    actions.record_turn(group=group, entrant=b, points=50, vengeance=True, now=START)
    assert group.scores()[a.name] == 500
    actions.correct_turn(turn=mistaken, now=START)
    assert group.scores()[a.name] == 0
    actions.add_correction(group=group, entrant=a, points=150, now=START)
    assert group.scores()[a.name] == 150


# --- The clock ------------------------------------------------------------------------------------


def test_no_new_turn_starts_at_ends_at_but_the_turn_under_way_is_entered_in_the_grace_period(tournament):
    actions.start_round(tournament, now=START)
    group = groups_of(tournament)[0]
    a, b, *_ = group.players()
    ends = group.ends_at
    assert ends is not None
    actions.record_turn(group=group, entrant=a, points=500, now=ends + timedelta(seconds=30))
    group.refresh_from_db()
    assert group.status == Group.Status.FINAL
    with pytest.raises(actions.NotNow, match="final"):
        actions.record_turn(group=group, entrant=b, points=500, now=ends + timedelta(seconds=40))


def test_after_the_grace_period_no_turn_is_taken_even_before_the_clock_ticks(tournament):
    actions.start_round(tournament, now=START)
    group = groups_of(tournament)[0]
    assert group.final_at is not None
    with pytest.raises(actions.NotNow, match="grace period is over"):
        actions.record_turn(group=group, entrant=group.players()[0], points=50, now=group.final_at)


def test_it_ends_the_round_on_time_by_itself_and_twice_is_once(tournament):
    round_ = actions.start_round(tournament, now=START)
    assert deciding.close_round_if_due(START + timedelta(minutes=21)) == 0
    assert deciding.close_round_if_due(START + timedelta(minutes=22)) == 2
    assert deciding.close_round_if_due(START + timedelta(minutes=22)) == 0
    round_.refresh_from_db()
    finals = Event.objects.filter(channel=tournament.channel, data__what="group_final")
    assert [event.data["groups"] for event in finals] == [[1, 2]]
    # Nobody scored: every group is tied at the line, so the round goes to its play-offs.
    assert round_.status == TournamentRound.Status.PLAY_OFF


def test_the_sweep_costs_one_query_when_nothing_is_due(tournament):
    actions.start_round(tournament, now=START)
    with CaptureQueriesContext(connection) as queries:
        deciding.close_round_if_due(START + MINUTE)
    assert len(queries) <= 2


def test_the_director_extends_a_groups_time(tournament):
    actions.start_round(tournament, now=START)
    group = groups_of(tournament)[0]
    actions.extend_group(group=group, minutes=5, now=START + MINUTE)
    group.refresh_from_db()
    assert group.ends_at == START + timedelta(minutes=25)
    deciding.close_round_if_due(START + timedelta(minutes=23))
    group.refresh_from_db()
    assert group.status == Group.Status.PLAYING


# --- Deciding a round -----------------------------------------------------------------------------


def scored_round(tournament: Tournament, scores: dict[str, int]) -> TournamentRound:
    """Start a round, enter each listed player's one turn, close it on time."""
    round_ = actions.start_round(tournament, now=START + timedelta(hours=tournament.rounds.count()))
    for group in groups_of(tournament):
        for player in group.players():
            if scores.get(player.name):
                actions.record_turn(group=group, entrant=player, points=scores[player.name], now=round_.started_at)
    close_all(tournament)
    round_.refresh_from_db()
    return round_


def test_single_elimination_takes_the_top_half_across_groups(tournament):
    scores = {f"Ann {n:02d}": n * 100 for n in range(1, 13)}
    round_ = scored_round(tournament, scores)
    assert round_.status == TournamentRound.Status.DECIDED
    assert sorted(round_.outcome["advancing"]) == [f"Ann {n:02d}" for n in range(7, 13)]
    assert tournament.players_in().count() == 6
    assert set(tournament.entrants.filter(status=Entrant.Status.ELIMINATED).values_list("out_in_round", flat=True)) == {1}


def test_players_tied_at_the_line_play_off_until_untied(tournament):
    scores = {f"Ann {n:02d}": n * 100 for n in range(1, 13)}
    scores["Ann 06"] = scores["Ann 07"] = 700
    round_ = scored_round(tournament, scores)
    assert round_.status == TournamentRound.Status.PLAY_OFF
    assert sorted(round_.tied()) == ["Ann 06", "Ann 07"]
    play_off = round_.groups.get(play_off=1)
    assert play_off.ends_at is None
    play(play_off, {"Ann 06": 300, "Ann 07": 300})
    round_.refresh_from_db()
    assert round_.status == TournamentRound.Status.PLAY_OFF
    again = round_.groups.get(play_off=2)
    play(again, {"Ann 06": 0, "Ann 07": 50})
    round_.refresh_from_db()
    assert round_.status == TournamentRound.Status.DECIDED
    assert "Ann 07" in round_.outcome["advancing"]
    assert entrant(tournament, "Ann 06").status == Entrant.Status.ELIMINATED
    with pytest.raises(actions.NotNow, match="final"):
        actions.record_turn(group=again, entrant=entrant(tournament, "Ann 07"), points=50, now=START)


def test_the_director_decides_a_tie_when_the_tournament_says_so(director):
    tournament = make_tournament(director, 4, ties=Tournament.Ties.DIRECTOR)
    round_ = scored_round(tournament, {"Ann 1": 500, "Ann 2": 500, "Ann 3": 500})
    assert round_.status == TournamentRound.Status.PLAY_OFF
    assert not round_.groups.filter(play_off__gt=0).exists()
    with pytest.raises(actions.BadEntry, match="every tied player"):
        actions.decide_tie(round_=round_, order=[entrant(tournament, "Ann 1")], now=START)
    actions.decide_tie(round_=round_, order=[entrant(tournament, n) for n in ("Ann 3", "Ann 1", "Ann 2")],
                       now=START)
    round_.refresh_from_db()
    assert round_.outcome["advancing"] == ["Ann 3", "Ann 1"]


def test_double_elimination_carries_strikes_forward_and_a_second_strike_eliminates(director):
    tournament = make_tournament(director, 8, format=Tournament.Format.DOUBLE)
    first = scored_round(tournament, {f"Ann {n}": n * 100 for n in range(1, 9)})
    assert first.outcome["strikes"] == {f"Ann {n}": (1 if n <= 4 else 0) for n in range(1, 9)}
    assert sorted(first.struck_now()) == ["Ann 1", "Ann 2", "Ann 3", "Ann 4"]
    assert tournament.players_in().count() == 8
    second = scored_round(tournament, {f"Ann {n}": (9 - n) * 100 for n in range(1, 9)})
    assert sorted(second.outcome["eliminated"]) == []
    assert second.outcome["strikes"] == dict.fromkeys((f"Ann {n}" for n in range(1, 9)), 1)
    third = scored_round(tournament, {f"Ann {n}": n * 100 for n in range(1, 9)})
    assert sorted(third.outcome["eliminated"]) == ["Ann 1", "Ann 2", "Ann 3", "Ann 4"]
    assert tournament.players_in().count() == 4


def test_two_players_play_the_face_off_and_the_winner_is_champion_with_places_for_everyone(director):
    tournament = make_tournament(director, 3)
    scored_round(tournament, {"Ann 1": 100, "Ann 2": 200, "Ann 3": 300})
    face_off = actions.start_round(tournament, now=START + timedelta(hours=2))
    assert face_off.kind == TournamentRound.Kind.FACE_OFF
    assert face_off.ends_at - face_off.started_at == timedelta(minutes=15)
    group = face_off.groups.get()
    play(group, {"Ann 2": 1000, "Ann 3": 500}, at=face_off.started_at)
    deciding.close_round_if_due(face_off.ends_at + timedelta(minutes=2))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert tournament.champion() == entrant(tournament, "Ann 2")
    assert list(tournament.entrants.order_by("final_place").values_list("name", "final_place")) == [
        ("Ann 2", 1), ("Ann 3", 2), ("Ann 1", 3)]


def test_a_tied_face_off_plays_off_turn_by_turn(director):
    tournament = make_tournament(director, 2)
    face_off = actions.start_round(tournament, now=START)
    assert face_off.is_face_off
    deciding.close_round_if_due(face_off.ends_at + timedelta(minutes=2))
    face_off.refresh_from_db()
    assert face_off.status == TournamentRound.Status.PLAY_OFF
    play(face_off.groups.get(play_off=1), {"Ann 1": 50, "Ann 2": 300})
    assert tournament.champion() == entrant(tournament, "Ann 2")


def test_a_player_drops_between_rounds_but_not_during_one(tournament):
    round_ = actions.start_round(tournament, now=START)
    leaving = entrant(tournament, "Ann 12")
    with pytest.raises(actions.NotNow, match="under way"):
        actions.drop_entrant(tournament, leaving)
    for group in groups_of(tournament):
        for player in group.players():
            actions.record_turn(group=group, entrant=player, points=int(player.name[-2:]) * 100, now=START)
    close_all(tournament)
    round_.refresh_from_db()
    assert "Ann 12" in round_.outcome["advancing"]
    actions.drop_entrant(tournament, leaving)
    leaving.refresh_from_db()
    assert (leaving.status, leaving.out_in_round) == (Entrant.Status.DROPPED, 1)
    second = actions.start_round(tournament, now=START + timedelta(hours=1))
    assert sum(len(group.players()) for group in second.groups.all()) == 5


def test_a_drop_that_leaves_one_player_makes_them_champion(director):
    tournament = make_tournament(director, 3)
    scored_round(tournament, {"Ann 1": 100, "Ann 2": 200, "Ann 3": 300})
    actions.drop_entrant(tournament, entrant(tournament, "Ann 2"))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    assert tournament.champion() == entrant(tournament, "Ann 3")
    # The dropped player gets no place and was never eliminated by score.
    assert list(tournament.entrants.order_by("name").values_list("name", "final_place", "status")) == [
        ("Ann 1", 2, "eliminated"), ("Ann 2", None, "dropped"), ("Ann 3", 1, "in")]


def test_scores_cannot_be_corrected_once_the_round_is_ranked(tournament):
    round_ = scored_round(tournament, {f"Ann {n:02d}": n * 100 for n in range(1, 13)})
    turn = Turn.objects.filter(group__round=round_).first()
    assert turn is not None
    with pytest.raises(actions.NotNow, match="ranked"):
        actions.correct_turn(turn=turn, now=START)


def test_seeds_come_from_the_clubs_season_standings_members_with_results_first(director):
    club = make_club(name="Seed Club")
    members = {name: make_member(club, name=name) for name in ("Ann", "Bob", "Cy", "Di")}
    season = Season.objects.create(club=club, name="This year")
    party = Party.objects.create(club=club, season=season, starts_at=timezone.now())
    record_night_results(party, [
        NightSheet("Bob", wins=16, losses=8), NightSheet("Di", wins=14, losses=10), NightSheet("Ann", wins=9, losses=15),
    ])
    tournament = make_tournament(director, 0, club=club, grouping=Tournament.Grouping.SEEDED)
    for member in members.values():
        actions.register_member(tournament, member)
    actions.register(tournament, "Walk-in Wes")

    actions.seed_by_club_standings(tournament)

    seeds = list(tournament.entrants.order_by("seed_rank").values_list("name", flat=True))
    assert seeds == ["Bob", "Di", "Ann", "Cy", "Walk-in Wes"]


def test_a_tournament_without_a_club_cannot_seed_from_standings(tournament):
    with pytest.raises(actions.BadEntry, match="no club"):
        actions.seed_by_club_standings(tournament)
