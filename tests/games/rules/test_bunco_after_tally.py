"""What a tally leads to, in one answer from the engine (`after_tally`, issue 30): the bell, a
table decided or rolling off, the round closed and what follows it."""

from __future__ import annotations

import pytest

from games.rules.bunco import (
    BREAK_AFTER_ROUND,
    OFFICIAL,
    ROUNDS,
    AfterTally,
    IllegalSeating,
    NextRound,
    RoundInPlay,
    Rules,
    SeatChange,
    TableAtTally,
    after_round,
    after_tally,
    next_seating_with,
)

HEAD = ["Ann", "Bob", "Cat", "Dee"]  # Ann & Cat are team A, Bob & Dee team B
SECOND = ["Eve", "Fay", "Gus", "Hal"]
SUDDEN_DEATH = Rules(tie_break="sudden_death")


def head(a: int, b: int, *, bell_rung: bool = False) -> TableAtTally:
    return TableAtTally(number=1, seats=HEAD, bell_rung=bell_rung, roll_off=0, totals={"A": a, "B": b},
                        roll_off_totals=None)


def rolling_off(number: int, ra: int, rb: int) -> TableAtTally:
    return TableAtTally(number=number, seats=SECOND, bell_rung=True, roll_off=1, totals={"A": 9, "B": 9},
                        roll_off_totals={"A": ra, "B": rb})


def round_of(*winners: str, number: int = 3, rules: Rules = OFFICIAL, **more) -> RoundInPlay:
    return RoundInPlay(number=number, rules=rules, winners=list(winners), **more)


def test_a_tally_away_from_the_head_table_and_out_of_a_roll_off_leads_to_nothing():
    second = TableAtTally(number=2, seats=SECOND, bell_rung=False, roll_off=0, totals={"A": 30, "B": 4},
                          roll_off_totals=None)
    assert after_tally(second, "A", 5, bunco=True, rules=OFFICIAL, closing=None) == AfterTally()
    assert after_tally(head(30, 4, bell_rung=True), "A", 5, bunco=True, rules=OFFICIAL, closing=None) == AfterTally()


def test_the_head_table_at_21_rings_the_bell_and_is_won_while_the_other_tables_play_on():
    outcome = after_tally(head(21, 8), "A", 1, bunco=False, rules=OFFICIAL, closing=None)
    assert outcome == AfterTally(bell=True, bell_winners=("Ann", "Cat"), winner="A")


def test_a_bunco_at_the_head_table_rings_the_bell_even_below_21():
    outcome = after_tally(head(3, 21), "B", 21, bunco=True, rules=OFFICIAL, closing=None)
    assert (outcome.bell, outcome.winner, outcome.bell_winners) == (True, "B", ("Bob", "Dee"))


def test_a_bell_on_a_tie_sends_the_head_table_to_a_roll_off():
    outcome = after_tally(head(21, 21), "A", 5, bunco=False, rules=OFFICIAL, closing=None)
    assert outcome == AfterTally(bell=True, roll_off=1)


def test_a_correction_that_takes_points_off_rings_nothing():
    assert after_tally(head(25, 3), "A", -2, bunco=False, rules=OFFICIAL, closing=None) == AfterTally()


def test_under_sudden_death_the_first_tally_that_breaks_a_roll_offs_tie_decides_the_table():
    still_tied = after_tally(rolling_off(2, 0, 0), "A", 0, bunco=False, rules=SUDDEN_DEATH, closing=None)
    assert still_tied == AfterTally()
    ahead = after_tally(rolling_off(2, 0, 2), "B", 2, bunco=False, rules=SUDDEN_DEATH, closing=None)
    assert ahead == AfterTally(winner="B")


def test_a_full_turn_roll_off_is_not_decided_by_a_tally():
    assert after_tally(rolling_off(2, 0, 2), "B", 2, bunco=False, rules=OFFICIAL, closing=None) == AfterTally()


def test_the_last_table_to_decide_closes_the_round_and_the_next_one_is_seated_by_the_movement():
    seating = [HEAD, SECOND]
    played = round_of("A", "", seating=seating, rules=SUDDEN_DEATH)
    outcome = after_tally(rolling_off(2, 5, 0), "A", 5, bunco=False, rules=SUDDEN_DEATH, closing=played)
    expected = next_seating_with(seating, ["A", "A"], SUDDEN_DEATH)
    assert outcome.winner == "A" and outcome.next_round is not None
    assert [[name for name, _team in seats] for seats in outcome.next_round.seating] == expected
    assert [[team for _name, team in seats] for seats in outcome.next_round.seating] == [["A", "B", "A", "B"]] * 2
    assert not outcome.next_round.break_follows
    assert played.winners == ["A", ""]  # the engine changes nothing it is given


def test_after_the_last_round_the_night_is_over_and_the_break_comes_after_round_twelve():
    assert after_round(round_of("A", "B", number=ROUNDS, seating=[HEAD, SECOND])) == NextRound(night_over=True)
    assert after_round(round_of("A", "B", number=BREAK_AFTER_ROUND, seating=[HEAD, SECOND])).break_follows


def test_a_round_seated_again_keeps_its_arrivals_and_refuses_changes_that_no_longer_fit():
    seating = [["Ann", "Bob", "Ghost 1", "Dee"]]
    arrived = SeatChange(kind="arrived", name="Zoe", ghost="Ghost 1")
    following = after_round(round_of("A", seating=seating, ghosts={"Ghost 1"}, seat_changes=[arrived]))
    assert "Zoe" in {name for seats in following.seating for name, _team in seats}
    crowded = [["Ann", "Ghost 1", "Cat", "Ghost 2"]]
    leaving = SeatChange(kind="left", name="Ann", ghost="Ghost 3")
    with pytest.raises(IllegalSeating):
        after_round(round_of("A", seating=crowded, ghosts={"Ghost 1", "Ghost 2"}, seat_changes=[leaving]))
