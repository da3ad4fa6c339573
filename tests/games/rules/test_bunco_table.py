"""One table's Bunco round (docs/RULES.md §4.3, §4.5, §4.6): turns, the bell, finishing a turn,
roll-offs and ghosts, driven with the dice given."""

from __future__ import annotations

import pytest

from games.rules.bunco import (
    OFFICIAL,
    IllegalPlay,
    IllegalRoll,
    IllegalSeating,
    Phase,
    Rules,
    TableRound,
    Tally,
    rings_bell,
    target_for_round,
)

SEATS = ["Ann", "Bob", "Cat", "Dee"]  # Ann & Cat are team A, Bob & Dee team B
MISS = [1, 2, 3]  # no 4, 5 or 6 is up in these tests' rounds unless said otherwise


def table(*, head: bool = False, round_number: int = 4, rules: Rules = OFFICIAL, **kwargs) -> TableRound:
    return TableRound(
        kwargs.pop("seats", SEATS), target_for_round(round_number), head=head, rules=rules, **kwargs
    )


def play(t: TableRound, *rolls: list[int]) -> TableRound:
    for dice in rolls:
        t.roll(dice)
    return t


# --- turns ---


def test_seat_0_rolls_first_and_keeps_rolling_while_rolls_score():
    t = play(table(), [4, 1, 2], [4, 4, 6])
    assert (t.seat_to_roll, t.roller, t.points) == (0, "Ann", (3, 0))


def test_a_roll_that_scores_nothing_passes_the_dice_clockwise():
    t = play(table(), MISS)
    assert (t.seat_to_roll, t.roller) == (1, "Bob")
    play(t, MISS, MISS, MISS)
    assert t.seat_to_roll == 0


def test_in_round_1_a_turn_of_two_ones_then_one_then_none_scores_3_and_ends():
    t = play(table(round_number=1), [1, 1, 5], [1, 4, 6], [2, 3, 4])
    assert t.points == (3, 0)
    assert t.roller == "Bob"


def test_points_go_to_the_rollers_team():
    t = play(table(), MISS, [4, 4, 1])
    assert t.points == (0, 2)
    assert t.tallies == [Tally(2, 1, "Bob", "B", 2, False, False)]


# --- Buncos and the bell ---


def test_a_secondary_table_bunco_gives_the_team_21_the_roller_a_bunco_and_the_same_roller_rolls_again():
    t = play(table(round_number=4), MISS, [4, 4, 4])
    assert t.points == (0, 21)
    assert t.tallies[-1].roller == "Bob" and t.tallies[-1].bunco
    assert (t.roller, t.bell_rung, t.phase) == ("Bob", False, Phase.PLAYING)


def test_a_head_table_bunco_rings_the_bell():
    t = play(table(head=True, round_number=4), [4, 4, 4])
    assert t.bell_rung and t.done
    assert t.winner == "A" and t.tallies[-1].bunco


def test_a_head_table_team_at_19_rolling_two_twos_reaches_21_and_rings_the_bell():
    t = play(table(head=True, round_number=2), [5, 5, 5], [5, 5, 5], [5, 5, 5], [2, 2, 1], [2, 2, 1])
    assert t.points == (19, 0) and not t.bell_rung
    t.roll([2, 2, 6])
    assert t.points == (21, 0) and t.bell_rung and t.winner == "A"


def test_the_head_table_stops_at_once_and_takes_no_more_rolls():
    t = play(table(head=True), [4, 4, 4])
    with pytest.raises(IllegalPlay, match="over"):
        t.roll([4, 1, 1])


def test_a_secondary_table_team_at_27_without_the_bell_keeps_rolling():
    t = play(table(), *[[6, 6, 6]] * 5, [4, 4, 1])
    assert t.points == (27, 0)
    t.roll([4, 1, 2])
    assert (t.points, t.roller, t.phase) == ((28, 0), "Ann", Phase.PLAYING)


def test_when_the_bell_rings_mid_turn_at_table_3_the_roller_finishes_the_turn_and_the_points_count():
    t = play(table(), MISS, [4, 2, 3])  # Bob's last roll scored
    t.ring_bell()
    assert t.phase is Phase.FINISHING and not t.done
    play(t, [4, 4, 2], [5, 5, 5])
    assert t.points == (0, 8) and not t.done
    t.roll(MISS)
    assert t.done and t.winner == "B" and t.points == (0, 8)


def test_a_secondary_table_whose_dice_just_passed_stops_when_the_bell_rings():
    t = play(table(), [4, 1, 1], MISS)
    t.ring_bell()
    assert t.done and t.winner == "A"


def test_the_bell_rings_at_a_table_only_once():
    t = play(table(), [4, 1, 1], MISS)
    t.ring_bell()
    t.ring_bell()
    assert t.done and t.winner == "A"


def test_a_finishing_turn_ends_with_a_baby_bunco_under_the_house_rule():
    t = play(table(rules=Rules(baby_bunco_ends_turn=True)), [4, 1, 1])
    t.ring_bell()
    t.roll([6, 6, 6])
    assert t.done and t.points == (6, 0)


def test_a_head_team_reaching_21_or_a_bunco_rings_the_bell():
    assert rings_bell(21, bunco=False) and rings_bell(3, bunco=True)
    assert not rings_bell(20, bunco=False)


# --- ties ---


def tied_at_14(**kwargs) -> TableRound:
    """Ann scores 14 and misses, Bob scores 14 and misses: Cat is about to roll."""
    fourteen = [[6, 6, 6], [6, 6, 6], [4, 4, 1], [4, 4, 1], MISS]
    return play(table(**kwargs), *fourteen, *fourteen)


def test_a_tie_at_table_2_is_rolled_off_one_full_turn_per_seat_with_the_points_added():
    t = tied_at_14()
    t.ring_bell()
    assert t.phase is Phase.ROLL_OFF and t.points == (14, 14)
    assert t.roller == "Ann"  # a roll-off starts with seat 0
    play(t, [4, 1, 2], MISS)  # Ann: +1
    play(t, MISS)  # Bob
    play(t, MISS)  # Cat
    assert not t.done
    play(t, [4, 4, 1], MISS)  # Dee: +2
    assert t.done and t.winner == "B" and t.points == (15, 16)
    result = t.result()
    assert result.rolled_off and [tally.roll_off for tally in result.tallies[-2:]] == [True, True]


def test_a_roll_off_that_stays_tied_goes_round_the_table_again():
    t = tied_at_14()
    t.ring_bell()
    play(t, MISS, MISS, MISS, MISS)
    assert t.phase is Phase.ROLL_OFF and t.roller == "Ann"
    play(t, [4, 1, 1], MISS, MISS, MISS, MISS)
    assert t.done and t.winner == "A" and t.points == (15, 14)


def test_in_sudden_death_the_first_scoring_roll_wins():
    t = tied_at_14(rules=Rules(tie_break="sudden_death"))
    t.ring_bell()
    play(t, MISS, MISS)
    assert not t.done
    t.roll([4, 1, 1])  # Cat: +1 for team A
    assert t.done and t.winner == "A" and t.points == (15, 14)


def test_a_table_stopped_by_the_bell_before_anyone_scored_rolls_off():
    t = table()
    t.ring_bell()
    assert t.phase is Phase.ROLL_OFF


# --- house rule: wipeout ---


def test_a_wipeout_clears_the_teams_points_for_the_round_and_passes_the_dice():
    t = play(table(rules=Rules(wipeout=True), round_number=4), [4, 4, 1], [5, 5, 5], [1, 1, 1])
    assert t.points == (0, 0) and t.roller == "Bob"
    assert t.tallies[-1] == Tally(3, 0, "Ann", "A", -7, False, False)


# --- ghosts ---


def test_a_ghosts_seat_is_rolled_by_its_partner_who_is_credited_the_bunco():
    t = table(seats=["Ann", "Ghost 1", "Cat", "Dee"], ghosts={"Ghost 1"})
    t.roll(MISS)
    assert t.seat_to_roll == 1 and t.roller == "Dee"
    t.roll([4, 4, 4])
    assert t.tallies[-1] == Tally(2, 1, "Dee", "B", 21, True, False)
    assert t.points == (0, 21)


def test_two_ghost_partners_cannot_play_a_round():
    with pytest.raises(IllegalSeating, match="both ghosts"):
        table(seats=["G1", "Ann", "G2", "Bob"], ghosts={"G1", "G2"})


# --- misuse ---


@pytest.mark.parametrize(
    "dice", [[4, 4], [4, 4, 4, 4], [0, 4, 4], [4, 4, 7], [4.0, 4, 4], [True, 1, 1], "444", None]
)
def test_a_table_refuses_anything_but_three_dice_of_1_to_6(dice):
    t = table()
    with pytest.raises(IllegalRoll):
        t.roll(dice)
    assert t.rolls == 0 and t.points == (0, 0)


def test_a_result_is_only_given_once_the_round_is_over():
    t = table()
    with pytest.raises(IllegalPlay, match="still being played"):
        t.result()


def test_a_table_needs_four_seats_and_a_number_up():
    with pytest.raises(IllegalSeating):
        TableRound(["Ann", "Bob", "Cat"], 4)
    with pytest.raises(IllegalRoll, match="number up"):
        TableRound(SEATS, 0)
