"""Tournament groups played on phones (issue 18): each group of a round played on phones plays at a
game table on the server's dice and deck; each finished turn becomes the group's Turn, once; the
round clock sounds the buzzer at ends_at, the turn under way plays out, then the round closes."""

from __future__ import annotations

import io
import json
import re
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from games.table.models import Table
from games.table.replay import verify
from tests.builders import (
    START,
    entrant,
    finish_table_turn,
    groups_of,
    logged_in,
    phones_round,
    start_table_turn,
    table_game,
    table_move,
)
from tournaments import actions, deciding, digital
from tournaments.links import group_path, read_group_token
from tournaments.models import Group, Tournament, TournamentRound, Turn

pytestmark = pytest.mark.django_db

MINUTE = timedelta(minutes=1)


def sheet(group: Group) -> dict[str, int]:
    """The scoresheet at the group's game table."""
    return table_game(group).scores


def test_it_opens_one_timed_table_per_group_with_the_groups_players_in_seat_order(tournament):
    round_ = phones_round(tournament)
    groups = groups_of(tournament)
    assert round_.on_phones and len(groups) > 1
    tables = {group.table_id for group in groups}
    assert len(tables) == len(groups) and Table.objects.count() == len(groups)
    for group in groups:
        table = group.table
        assert table is not None and table.status == Table.Status.PLAYING
        assert list(table.seats.values_list("name", flat=True)) == [player.name for player in group.players()]
        assert not table.seats.exclude(bot_level="").exists()
        assert table.options == {"goal": None, "timed": True, "vengeance": tournament.vengeance_penalty,
                                 "must_bust_penalty": tournament.must_bust_penalty}
        assert table_game(group).goal is None


def test_a_round_typed_in_opens_no_table(tournament):
    actions.start_round(tournament, now=START)
    assert not Table.objects.exists()
    assert not any(group.on_phones for group in groups_of(tournament))


def test_a_turn_finished_at_the_table_becomes_the_groups_turn_exactly_once(tournament):
    phones_round(tournament)
    group = groups_of(tournament)[0]
    finish_table_turn(group)  # as the table's phone page makes its moves: the tournament isn't told
    turn = table_game(group).turns[0]

    made = digital.record_table_turns(group, START + MINUTE)
    again = digital.record_table_turns(group, START + MINUTE)

    assert [(t.kind, t.entrant.name, t.points) for t in made] == [(Turn.Kind.TURN, turn.player, turn.gained)]
    assert again == []
    assert group.turns.count() == 1
    assert group.scores() == sheet(group)


def test_the_clock_reads_a_table_that_has_moved_into_its_groups_turns(tournament):
    phones_round(tournament)
    group = groups_of(tournament)[0]
    finish_table_turn(group)
    finish_table_turn(group)

    deciding.close_round_if_due(START + 2 * MINUTE)
    deciding.close_round_if_due(START + 3 * MINUTE)

    assert group.live_turns().filter(kind=Turn.Kind.TURN).count() == 2
    assert group.scores() == sheet(group)
    group.refresh_from_db()
    assert group.status == Group.Status.PLAYING


def test_moves_made_through_the_group_record_each_finished_turn(tournament):
    phones_round(tournament)
    group = groups_of(tournament)[0]
    for _ in range(3):
        finish_table_turn(group, through_group=True, now=START + MINUTE)
    assert [t.entrant.name for t in group.live_turns().filter(kind=Turn.Kind.TURN)] == [
        turn.player for turn in table_game(group).turns]
    assert group.scores() == sheet(group)


def test_a_group_on_phones_takes_no_typed_turn(tournament):
    phones_round(tournament)
    group = groups_of(tournament)[0]
    with pytest.raises(actions.NotNow, match="plays on phones"):
        actions.record_turn(group=group, entrant=group.players()[0], points=500, now=START + MINUTE)
    assert not group.turns.exists()


def test_the_buzzer_lets_the_turn_under_way_finish_then_the_round_closes_with_the_tables_scores(tournament):
    round_ = phones_round(tournament)
    first, *others = groups_of(tournament)
    for group in [first, *others]:
        finish_table_turn(group, through_group=True, now=START + MINUTE)
    start_table_turn(first, through_group=True, now=START + 2 * MINUTE)
    ends_at = round_.ends_at

    deciding.close_round_if_due(ends_at)  # the buzzer at every table

    first.refresh_from_db()
    assert first.status == Group.Status.PLAYING and table_game(first).buzzer
    for group in others:  # between turns at the buzzer: the game ends at once, the group is final
        group.refresh_from_db()
        assert group.status == Group.Status.FINAL and table_game(group).is_over
    round_.refresh_from_db()
    assert round_.status == TournamentRound.Status.PLAYING  # the turn under way plays out first

    turns_before = len(table_game(first).turns)
    finish_table_turn(first, through_group=True, now=ends_at + MINUTE)

    game = table_game(first)
    assert game.is_over and len(game.turns) == turns_before + 1  # that turn, and no new one
    first.refresh_from_db()
    assert first.status == Group.Status.FINAL
    round_.refresh_from_db()
    assert round_.status in (TournamentRound.Status.DECIDED, TournamentRound.Status.PLAY_OFF)
    expected = {name: score for group in [first, *others] for name, score in sheet(group).items()}
    assert round_.scores == expected
    assert round_.table_scores() == expected


def test_no_new_turn_starts_at_a_table_once_its_time_is_up(tournament):
    round_ = phones_round(tournament)
    group = groups_of(tournament)[0]
    finish_table_turn(group, through_group=True, now=START + MINUTE)
    with pytest.raises(actions.NotNow, match="final"):
        table_move(group, through_group=True, now=round_.ends_at)  # between turns: the game ends
    group.refresh_from_db()
    assert table_game(group).is_over


def test_a_move_at_a_paused_rounds_table_is_refused(tournament):
    phones_round(tournament)
    actions.pause_round(tournament, number=1, now=START + MINUTE)
    group = groups_of(tournament)[0]
    with pytest.raises(actions.NotNow, match="paused"):
        table_move(group, through_group=True, now=START + 2 * MINUTE)


def test_the_grace_period_still_closes_a_group_whose_turn_never_finished(tournament):
    round_ = phones_round(tournament)
    group = groups_of(tournament)[0]
    start_table_turn(group, through_group=True, now=START + MINUTE)
    deciding.close_round_if_due(round_.ends_at + timedelta(hours=1))
    group.refresh_from_db()
    assert group.status == Group.Status.FINAL
    round_.refresh_from_db()
    assert round_.status != TournamentRound.Status.PLAYING
    assert group.table is not None
    group.table.refresh_from_db()
    assert group.table.is_over and verify(group.table).verified  # the table stops and shows its seed


def test_the_director_starts_a_round_on_phones_and_the_group_link_sends_players_to_the_table(
        tournament, director_client, client):
    response = director_client.post(f"/t/{tournament.code}/director/start/", {"on_phones": "1"})
    assert response.status_code == 302
    group = groups_of(tournament)[0]
    assert group.table is not None
    assert "is played on phones" in director_client.get(f"/t/{tournament.code}/director/").content.decode()


    client.get(group_path(group.code))
    page = client.get(f"/t/group/{group.code}/")
    assert page.status_code == 302 and page["Location"] == digital.table_path(group.table)
    assert page["Location"].endswith(f"/{group.table.code}/")


def test_a_director_who_leaves_the_box_unticked_starts_a_typed_round(tournament, director):
    logged_in(director).post(f"/t/{tournament.code}/director/start/")
    assert not Table.objects.exists()


def simulate(players: int, tournament_format: str, seed: int = 1) -> dict:
    out = io.StringIO()
    call_command("simulate_tournament", "--digital", "--players", str(players), "--format", tournament_format,
                 "--seed", str(seed), "--json", stdout=out)
    return json.loads(out.getvalue())


# 24 players double elimination is a long proof (`make proof`): past 300 s on a busy 2-core machine.
@pytest.mark.parametrize(("players", "tournament_format"), [(5, "single"), pytest.param(24, "double", marks=pytest.mark.proof)])
def test_simulate_tournament_digital_reaches_a_champion_and_every_table_verifies(players, tournament_format):
    result = simulate(players, tournament_format)

    assert result["champion"] in result["face_off"]
    tournament = Tournament.objects.get()
    champion = tournament.champion()
    assert tournament.status == Tournament.Status.FINISHED and champion is not None
    assert champion.name == result["champion"]
    groups = Group.objects.filter(play_off=0).select_related("table", "round__tournament")
    assert groups.count() == sum(len(entry["group_sizes"]) for entry in result["rounds"])
    for group in groups:
        assert group.table is not None, f"{group} of round {group.round.number} played without a table"
        assert group.table.is_over
        verdict = verify(group.table)
        assert verdict.verified, verdict.message
        assert group.scores() == sheet(group)
        assert group.live_turns().filter(kind=Turn.Kind.TURN).count() == len(table_game(group).turns)


def test_simulate_tournament_digital_plays_the_same_tournament_from_the_same_seed_on_a_fresh_database():
    first = simulate(3, "single", seed=4)
    Tournament.objects.all().delete()
    Table.objects.all().delete()  # the tables' codes, made from the seed, are free again
    second = simulate(3, "single", seed=4)
    assert {**first, "elapsed_s": 0} == {**second, "elapsed_s": 0}


def test_entrant_names_are_the_table_seats(tournament):
    phones_round(tournament)
    group = groups_of(tournament)[0]
    assert group.table is not None
    names = list(group.table.seats.values_list("name", flat=True))
    assert entrant(tournament, names[0]).name == names[0]


def test_the_director_puts_one_group_of_a_typed_round_on_phones(tournament, director_client):
    now = timezone.now()  # the group's page asks the real clock whether its time is up
    actions.start_round(tournament, now=now)
    first, second = groups_of(tournament)[:2]
    actions.record_turn(group=second, entrant=second.players()[0], points=500, now=now)

    page = director_client.get(f"/t/{tournament.code}/director/group/{first.pk}/")
    assert "Play this table on phones" in page.content.decode()
    response = director_client.post(f"/t/{tournament.code}/director/group/{first.pk}/on-phones/")
    assert response.status_code == 302
    first.refresh_from_db()
    assert first.table is not None
    assert list(first.table.seats.values_list("name", flat=True)) == [p.name for p in first.players()]

    with pytest.raises(actions.NotNow, match="entered turns"):
        actions.put_group_on_phones(group=second)
    second.refresh_from_db()
    assert second.table is None


def test_a_finished_group_table_sends_its_players_back_to_the_groups_scores(tournament, client):
    round_ = phones_round(tournament)
    group = groups_of(tournament)[0]
    assert group.table is not None
    deciding.close_round_if_due(round_.ends_at + timedelta(hours=1))
    page = client.get(reverse("tables:table", args=[group.table.code])).content.decode()
    back = re.search(r'href="/tg/([^"/]+)/"', page)  # the group's signed link (dated: not compared as text)
    assert back is not None and read_group_token(back.group(1)) == group.code
    assert f"Back to {group}&#x27;s scores" in page


def test_a_group_table_counts_down_the_rounds_clock_paused_resumed_and_extended_with_it(tournament, client):
    round_ = phones_round(tournament)
    group = groups_of(tournament)[0]
    assert group.table is not None and group.ends_at is not None
    group.table.refresh_from_db()
    assert group.table.clock_ends_at == group.ends_at and not group.table.clock_paused
    page = client.get(reverse("tables:table", args=[group.table.code])).content.decode()
    assert f'data-ends-at="{group.ends_at.isoformat()}"' in page and "js/tournament.js" in page

    actions.pause_round(tournament, number=round_.number, now=START + MINUTE)
    group.table.refresh_from_db()
    assert group.table.clock_paused
    assert "data-paused" in client.get(reverse("tables:table", args=[group.table.code])).content.decode()

    actions.resume_round(tournament, number=round_.number, now=START + 3 * MINUTE)
    actions.extend_group(group=Group.objects.get(pk=group.pk), minutes=2, now=START + 3 * MINUTE)
    group.refresh_from_db()
    group.table.refresh_from_db()
    assert not group.table.clock_paused and group.table.clock_ends_at == group.ends_at
    assert group.ends_at == round_.ends_at + 2 * MINUTE + 2 * MINUTE  # the pause's 2 minutes, then 2 more


# --- Issue 29, D1: a table stopped at the end of the grace period says so -------------------------


def test_a_table_stopped_at_the_end_of_the_grace_period_says_its_turn_under_way_counts_nothing(director):
    from games.table.renderers import STOPPED, said_of

    tournament = Tournament.objects.create(director=director, name="Cut Off", grace_seconds=60,
                                           ties=Tournament.Ties.DIRECTOR)
    for number in range(1, 4):
        actions.register(tournament, f"Ann {number}", checked_in=True)
    round_ = phones_round(tournament)
    group = groups_of(tournament)[0]
    start_table_turn(group)
    assert group.final_at is not None
    deciding.close_round_if_due(group.final_at + MINUTE)  # the buzzer, then the grace period runs out
    group.refresh_from_db()
    assert group.status == Group.Status.FINAL and digital.was_stopped(group)
    page = logged_in(director).get(reverse("tournaments:group", args=[group.code])).content.decode()
    assert STOPPED in page and "played out" not in page
    # The table's own words for its last move, once it knows it was stopped (renderers.said_of).
    assert group.table is not None
    table = group.table
    last = table.last_move()
    assert last is not None and last.move["kind"] == "time_up"
    view = table.loaded().view(None).public
    assert said_of(last.as_data(), view) == "Time is up: the turn under way is played out."
    assert said_of(last.as_data(), view, stopped=True) == STOPPED
    assert round_.pk == group.round_id
