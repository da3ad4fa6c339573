"""A round seated again (after a re-open or a correction) keeps every arrival and departure the
host made in it (issue 16, N2): the leaver is not brought back, her ghost is not dropped, the late
arrival keeps her seat."""

from __future__ import annotations

import random

import pytest

from games.night import actions
from games.night.models import Night
from tests.builders import fresh, make_night, play_rounds, seated_names, seating_of, someone_at, table

pytestmark = pytest.mark.django_db


def night_with_a_leaver_and_an_arrival() -> tuple[Night, str, str]:
    """13 players, 3 rounds played; in round 4 (seated) a player leaves and Nia arrives."""
    night = make_night(13, seed=4)
    play_rounds(night, random.Random(4), 3)
    night = fresh(night)
    leaver = night.players.get(name=someone_at(night, 2))
    ghost = actions.let_player_leave(night, player=leaver, round_number=4, key="leave-1")
    actions.seat_late_arrival(fresh(night), name="Nia", round_number=4, key="arrive-1")
    assert leaver.name not in seated_names(night, 4) and "Nia" in seated_names(night, 4)
    return fresh(night), leaver.name, ghost.name


@pytest.mark.parametrize("table_number", [1, 2, 3, 4])
def test_it_keeps_the_leaver_out_and_the_arrival_in_when_any_table_of_the_round_is_reopened(table_number):
    night, leaver, _ = night_with_a_leaver_and_an_arrival()
    before = seating_of(night, 4)
    actions.reopen_last_round(night, table_number=table_number, round_number=3)
    if table_number != 1:
        actions.finish_turn(night=fresh(night), table_number=table_number, round_number=3)
    night = fresh(night)
    assert night.current_round == 4
    assert leaver not in seated_names(night, 4)
    assert "Nia" in seated_names(night, 4)
    # The same winners again: the round is seated exactly as it was, arrivals and leavers included.
    assert seating_of(night, 4) == before


def test_it_keeps_the_leaver_out_when_a_correction_changes_a_winner_and_seats_the_round_again():
    night, leaver, _ = night_with_a_leaver_and_an_arrival()
    before = seating_of(night, 4)
    loser = "B" if table(night, 2, 3).winner == "A" else "A"
    actions.correct_tally(night=night, table_number=2, team=loser, points=60, round_number=3)
    night = fresh(night)
    assert table(night, 2, 3).winner == loser
    after = seating_of(night, 4)
    assert after != before  # seated again by the movement from the corrected result
    assert leaver not in seated_names(night, 4)
    assert "Nia" in seated_names(night, 4)
    # The same people and ghosts as before the correction, at the tables the movement gives them.
    assert seated_names(night, 4) == {name for seats in before for name in seats}


def test_it_plays_the_round_seated_again_with_the_leavers_ghost_in_her_place():
    night, leaver, _ = night_with_a_leaver_and_an_arrival()
    actions.reopen_last_round(night, table_number=3, round_number=3)
    actions.finish_turn(night=fresh(night), table_number=3, round_number=3)
    play_rounds(fresh(night), random.Random(9), 2)
    night = fresh(night)
    assert leaver not in seated_names(night, 6)
    assert "Nia" in seated_names(night, 6)
