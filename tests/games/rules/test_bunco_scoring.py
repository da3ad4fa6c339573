"""Bunco rounds and rolls (docs/RULES.md §4.1, §4.2): the number up, scoring every roll, house rules."""

from __future__ import annotations

from collections import Counter
from itertools import product

import pytest

from games.rules.bunco import (
    BuncoError,
    IllegalRoll,
    IllegalRound,
    RollOutcome,
    RollScore,
    Rules,
    score_roll,
    score_roll_with,
    set_of_round,
    target_for_round,
)

ALL_ROLLS = list(product(range(1, 7), repeat=3))


# --- the number up ---


@pytest.mark.parametrize(
    ("round_number", "number_up"),
    [(1, 1), (2, 2), (6, 6), (7, 1), (12, 6), (13, 1), (19, 1), (24, 6)],
)
def test_the_number_up_counts_one_to_six_within_each_set(round_number, number_up):
    assert target_for_round(round_number) == number_up


def test_overall_round_13_has_ones_up_and_round_12_sixes():
    assert (target_for_round(13), target_for_round(12)) == (1, 6)


def test_a_night_has_four_sets_of_six_rounds():
    assert [set_of_round(r) for r in (1, 6, 7, 12, 13, 18, 19, 24)] == [1, 1, 2, 2, 3, 3, 4, 4]


@pytest.mark.parametrize("round_number", [0, 25, -1, 100, 1.0, "1", True, None])
def test_there_is_no_round_outside_1_to_24(round_number):
    with pytest.raises(IllegalRound, match="rounds 1 to 24"):
        target_for_round(round_number)


# --- the worked examples of §4.6 that are a single roll ---


def test_three_of_the_number_up_is_a_bunco_worth_21_and_the_roller_rolls_again():
    assert score_roll([4, 4, 4], target_for_round(4)) == RollScore(points=21, bunco=True, keeps_turn=True)


def test_three_of_another_number_is_a_baby_bunco_worth_5_and_the_roller_rolls_again():
    assert score_roll([6, 6, 6], 4) == RollScore(points=5, bunco=False, keeps_turn=True)


def test_two_of_the_number_up_score_2_and_the_roller_rolls_again():
    assert score_roll([4, 2, 4], 4) == RollScore(points=2, bunco=False, keeps_turn=True)


def test_one_of_the_number_up_scores_1_and_the_roller_rolls_again():
    assert score_roll((1, 5, 3), 1) == RollScore(points=1, bunco=False, keeps_turn=True)


def test_a_roll_without_the_number_up_scores_nothing_and_the_dice_pass():
    assert score_roll([1, 2, 3], 4) == RollScore(points=0, bunco=False, keeps_turn=False)


def test_a_roll_score_is_frozen():
    score = score_roll([4, 4, 4], 4)
    with pytest.raises(AttributeError):
        score.points = 0  # type: ignore[misc]


# --- every roll for every number up, against the rule table of §4.2 ---


def rule_table(roll: tuple[int, ...], number_up: int) -> tuple[int, bool]:
    """The table of §4.2 read row by row: (team points, Bunco?)."""
    faces = Counter(roll)
    if faces[number_up] == 3:
        return 21, True
    if len(faces) == 1:
        return 5, False
    return faces[number_up], False  # two t's: 2, one t: 1, none: 0


@pytest.mark.parametrize("number_up", range(1, 7))
def test_all_216_rolls_score_as_the_rule_table_says(number_up):
    for roll in ALL_ROLLS:
        points, bunco = rule_table(roll, number_up)
        assert score_roll(roll, number_up) == RollScore(points, bunco, keeps_turn=points > 0), roll


@pytest.mark.parametrize("number_up", range(1, 7))
def test_each_number_up_has_one_bunco_five_baby_buncos_and_120_rolls_that_pass(number_up):
    scores = Counter(score_roll(roll, number_up).points for roll in ALL_ROLLS)
    # one t: 3 * 5 * 5 orders; two t's: 3 * 5; none, not a triple: 5^3 - 5
    assert scores == {21: 1, 5: 5, 2: 15, 1: 75, 0: 120}


def test_the_official_rules_score_like_the_contract_function():
    for number_up, roll in product(range(1, 7), ALL_ROLLS):
        plain = score_roll(roll, number_up)
        ruled = score_roll_with(roll, number_up, Rules())
        assert (ruled.points, ruled.bunco, ruled.keeps_turn, ruled.wipeout) == (*vars(plain).values(), False)


# --- house rules ---


def test_with_baby_bunco_ends_turn_a_baby_bunco_scores_5_and_passes_the_dice():
    rules = Rules(baby_bunco_ends_turn=True)
    assert score_roll_with([6, 6, 6], 4, rules) == RollOutcome(points=5, bunco=False, keeps_turn=False)


def test_with_baby_bunco_ends_turn_a_bunco_still_keeps_the_turn():
    assert score_roll_with([4, 4, 4], 4, Rules(baby_bunco_ends_turn=True)).keeps_turn


def test_with_wipeout_three_ones_when_ones_are_not_up_wipe_out_and_pass():
    outcome = score_roll_with([1, 1, 1], 3, Rules(wipeout=True))
    assert outcome == RollOutcome(points=0, bunco=False, keeps_turn=False, wipeout=True)


@pytest.mark.parametrize("round_number", [1, 7, 13, 19])
def test_with_wipeout_three_ones_when_ones_are_up_are_still_a_bunco(round_number):
    outcome = score_roll_with([1, 1, 1], target_for_round(round_number), Rules(wipeout=True))
    assert outcome == RollOutcome(points=21, bunco=True, keeps_turn=True)


def test_without_wipeout_three_ones_when_ones_are_not_up_are_a_baby_bunco():
    assert score_roll_with([1, 1, 1], 3, Rules()) == RollOutcome(points=5, bunco=False, keeps_turn=True)


def test_a_tie_break_other_than_roll_off_or_sudden_death_is_refused():
    with pytest.raises(ValueError, match="tie_break"):
        Rules(tie_break="coin_toss")  # type: ignore[arg-type]


# --- bad dice ---


@pytest.mark.parametrize(
    "dice",
    [
        [1, 2],
        [1, 2, 3, 4],
        [],
        [0, 1, 2],
        [1, 2, 7],
        [1.0, 2, 3],
        [True, 1, 1],
        ["1", "2", "3"],
        "123",
        None,
        5,
    ],
)
def test_anything_but_three_dice_of_1_to_6_is_refused(dice):
    with pytest.raises(IllegalRoll) as raised:
        score_roll(dice, 4)
    assert isinstance(raised.value, ValueError)
    assert "dice" in str(raised.value).lower()


@pytest.mark.parametrize("number_up", [0, 7, 1.5, None])
def test_a_number_up_outside_1_to_6_is_refused(number_up):
    with pytest.raises(IllegalRoll, match="number up"):
        score_roll([1, 2, 3], number_up)


def test_the_house_rule_scorer_refuses_bad_dice_too():
    with pytest.raises(BuncoError, match="three dice"):
        score_roll_with([4, 4], 4, Rules())
