"""The engine's decisions that live play asks instead of repeating them (docs/DESIGN.md §3, "One source
per rule"): who wins a table, who wins a roll-off under each tie break, whether a wipeout applies,
and a seat's team, partner and opponents (docs/RULES.md §4.1, §4.2, §4.3)."""

from __future__ import annotations

import pytest

from games.rules.bunco import (
    OFFICIAL,
    IllegalRoll,
    IllegalSeating,
    Rules,
    opponent_seats,
    other_team,
    partner_seat,
    places,
    roll_off_winner,
    score_roll_with,
    table_winner,
    target_for_round,
    team_of_seat,
    wipeout_applies,
)

SUDDEN_DEATH = Rules(tie_break="sudden_death")


# --- Who wins a table ---


@pytest.mark.parametrize(("a", "b", "winner"), [(21, 14, "A"), (3, 30, "B"), (0, 1, "B"), (-2, 0, "B")])
def test_the_team_with_more_points_wins_the_table(a, b, winner):
    assert table_winner(a, b) == winner


@pytest.mark.parametrize("points", [0, 14, 21])
def test_a_tie_has_no_winner_yet(points):
    assert table_winner(points, points) is None


# --- Roll-offs ---


def test_a_full_turn_roll_off_has_no_winner_until_every_seat_has_rolled():
    assert roll_off_winner(OFFICIAL, 5, 0, cycle_over=False) is None
    assert roll_off_winner(OFFICIAL, 5, 0, cycle_over=True) == "A"


def test_a_full_turn_roll_off_still_tied_after_every_seat_has_rolled_goes_on():
    assert roll_off_winner(OFFICIAL, 3, 3, cycle_over=True) is None


def test_sudden_death_is_won_by_the_first_team_ahead_whether_or_not_every_seat_has_rolled():
    assert roll_off_winner(SUDDEN_DEATH, 0, 1, cycle_over=False) == "B"
    assert roll_off_winner(SUDDEN_DEATH, 2, 0, cycle_over=True) == "A"
    assert roll_off_winner(SUDDEN_DEATH, 0, 0, cycle_over=False) is None


def test_the_rules_say_whether_ties_are_sudden_death():
    assert SUDDEN_DEATH.sudden_death
    assert not OFFICIAL.sudden_death


# --- Wipeout ---


def test_a_wipeout_applies_only_when_the_house_rule_is_on_and_ones_are_not_up():
    wipeout = Rules(wipeout=True)
    assert wipeout_applies(wipeout, 4)
    assert not wipeout_applies(wipeout, 1)
    assert not wipeout_applies(OFFICIAL, 4)


@pytest.mark.parametrize("round_number", range(1, 25))
def test_scoring_three_ones_agrees_with_whether_a_wipeout_applies(round_number):
    target = target_for_round(round_number)
    rules = Rules(wipeout=True)
    assert score_roll_with([1, 1, 1], target, rules).wipeout == wipeout_applies(rules, target)


def test_whether_a_wipeout_applies_needs_a_number_up():
    with pytest.raises(IllegalRoll):
        wipeout_applies(Rules(wipeout=True), 7)


# --- Seats, teams, partners, opponents ---


def test_seats_0_and_2_are_team_a_and_seats_1_and_3_team_b():
    assert [team_of_seat(seat) for seat in range(4)] == ["A", "B", "A", "B"]


def test_partners_sit_opposite():
    assert [partner_seat(seat) for seat in range(4)] == [2, 3, 0, 1]


def test_a_seats_opponents_are_the_seats_either_side():
    assert [opponent_seats(seat) for seat in range(4)] == [(1, 3), (2, 0), (3, 1), (0, 2)]


def test_the_other_team():
    assert (other_team("A"), other_team("B")) == ("B", "A")


@pytest.mark.parametrize("seat", [-1, 4, "0", 1.0, True])
def test_a_seat_outside_the_table_is_refused(seat):
    with pytest.raises(IllegalSeating):
        partner_seat(seat)
    with pytest.raises(IllegalSeating):
        team_of_seat(seat)
    with pytest.raises(IllegalSeating):
        opponent_seats(seat)


def test_places_uses_the_same_teams_partners_and_opponents():
    seats = ["Ann", "Bob", "Cat", "Dee"]
    found = places([seats])
    for seat, name in enumerate(seats):
        place = found[name]
        assert place.team == team_of_seat(seat)
        assert place.partner == seats[partner_seat(seat)]
        assert place.opponents == tuple(seats[other] for other in opponent_seats(seat))
