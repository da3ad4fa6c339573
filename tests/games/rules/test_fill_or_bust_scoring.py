"""Scoring a Fill or Bust toss (docs/RULES.md §1.3), checked exhaustively against a slow reference.

The reference below is written from the rule table alone and shares no code with the module: it
enumerates every way to split the dice into units (each unit taken from the table of §1.3) and
keeps the best. The module instead precomputes tables with closed-form counting; if the two agree
on every toss of 1 to 6 dice (55,986 ordered tosses) and every selection of every toss, the fast
code is right.

No Django here: run with `python -m pytest -p no:django tests/games/rules/test_fill_or_bust*.py`.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from itertools import combinations, combinations_with_replacement, product

import pytest

from games.rules.fill_or_bust import (
    IllegalSelection,
    is_bust,
    legal_keeps,
    max_selection,
    maximal_keep,
    score_selection,
)

FACES = range(1, 7)


# --- the reference: every partition into the units of docs/RULES.md §1.3 ---------------------------------


def reference_units(
    *, six_dice_whole_toss: bool, completes_fill: bool, combo5: bool
) -> list[tuple[tuple, int]]:
    """The unit table of §1.3 for one selection: which units exist depends on the selection."""
    units = [((1,), 100), ((5,), 50), ((1, 1, 1), 1000)]
    units += [((face, face, face), 100 * face) for face in (2, 3, 4, 5, 6)]
    if six_dice_whole_toss:
        units.append(((1, 2, 3, 4, 5, 6), 1500))  # only on a toss of all six dice, all set aside
    if combo5 and completes_fill:
        units += [((2, 3), 50), ((1, 4), 50)]
    return units


def reference_best_partition(dice: tuple[int, ...], units: list[tuple[tuple, int]]) -> int | None:
    """Best total over every way to split `dice` into units with every die used; None if none.

    The first remaining die must belong to some unit; trying each unit that contains it, and
    recursing on what is left, visits every partition.
    """
    if not dice:
        return 0
    best = None
    for unit, points in units:
        if dice[0] not in unit:
            continue
        rest = list(dice)
        try:
            for die in unit:
                rest.remove(die)
        except ValueError:
            continue  # the unit needs a die that isn't there
        value = reference_best_partition(tuple(rest), units)
        if value is not None and (best is None or value + points > best):
            best = value + points
    return best


@cache
def reference_score(toss: tuple[int, ...], keep: tuple[int, ...], combo5: bool) -> int | None:
    """Points for setting aside `keep` (a sub-multiset of `toss`); None when it isn't legal."""
    whole = Counter(keep) == Counter(toss)
    units = reference_units(six_dice_whole_toss=whole and len(toss) == 6, completes_fill=whole, combo5=combo5)
    return reference_best_partition(keep, units) if keep else None


@cache
def reference_max_selection(sorted_toss: tuple[int, ...], combo5: bool) -> tuple[int, int]:
    """(points, dice) of the legal selection with the most dice, then the most points; (0, 0) = bust.

    Every subset of the dice (by position) is tried. The rules say order never matters, so this
    is computed once per multiset and every ordering of it is checked against the answer.
    """
    best = (0, 0)
    for size in range(1, len(sorted_toss) + 1):
        for positions in combinations(range(len(sorted_toss)), size):
            keep = tuple(sorted_toss[i] for i in positions)
            points = reference_score(sorted_toss, keep, combo5)
            if points is not None and (size, points) > (best[1], best[0]):
                best = (points, size)
    return best


def every_ordered_toss():
    for n in range(1, 7):
        yield from product(FACES, repeat=n)


def every_sorted_toss():
    for n in range(1, 7):
        yield from combinations_with_replacement(FACES, n)


def sub_multisets(sorted_toss: tuple[int, ...]):
    counts = Counter(sorted_toss)
    faces = sorted(counts)
    for choice in product(*(range(counts[face] + 1) for face in faces)):
        yield tuple(face for face, n in zip(faces, choice, strict=True) for _ in range(n))


def test_the_reference_agrees_with_the_rule_sheet_on_a_few_hand_scored_selections():
    # Guard the guard: if the reference were wrong, the exhaustive tests would prove nothing.
    assert reference_score((1, 1, 1, 1, 2, 3), (1, 1, 1, 1), False) == 1100
    assert reference_score((1, 2, 3, 4, 5, 6), (1, 2, 3, 4, 5, 6), False) == 1500
    assert reference_score((2, 3, 4, 5, 6), (2, 3, 4, 5, 6), False) is None
    assert reference_score((2, 3), (2, 3), True) == 50
    assert reference_score((2, 3, 5), (2, 3), True) is None
    assert reference_max_selection((2, 2, 2, 2, 2, 2), False) == (400, 6)
    assert reference_max_selection((1, 4), True) == (50, 2)


# --- every worked example of docs/RULES.md §1.6 that is about scoring --------------------------------


def test_keeping_all_scoring_dice_of_1_1_1_5_2_3_scores_1050_and_leaves_two_dice():
    assert score_selection([1, 1, 1, 5, 2, 3], [1, 1, 1, 5]) == 1050
    assert max_selection([1, 1, 1, 5, 2, 3]) == (1050, 4)


def test_keeping_only_the_three_1s_of_the_same_toss_is_a_legal_partial_selection_worth_1000():
    assert score_selection([1, 1, 1, 5, 2, 3], [1, 1, 1]) == 1000


def test_a_first_toss_of_1_to_6_is_a_straight_worth_1500_and_a_fill():
    assert score_selection([1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6]) == 1500
    assert max_selection([3, 1, 6, 2, 5, 4]) == (1500, 6)


def test_five_dice_2_to_6_are_no_straight_and_only_the_5_scores():
    assert max_selection([2, 3, 4, 5, 6]) == (50, 1)
    with pytest.raises(IllegalSelection, match="straight"):
        score_selection([2, 3, 4, 5, 6], [2, 3, 4, 5, 6])


def test_2_2_2_4_4_6_scores_200_and_leaves_three_dice():
    assert max_selection([2, 2, 2, 4, 4, 6]) == (200, 3)


def test_2_4_6_after_keeping_three_1s_is_a_bust():
    assert is_bust([2, 4, 6])
    assert max_selection([2, 4, 6]) == (0, 0)


def test_six_2s_are_two_triples_worth_400_and_a_fill():
    assert max_selection([2, 2, 2, 2, 2, 2]) == (400, 6)
    assert score_selection([2] * 6, [2] * 6) == 400


def test_three_pairs_score_nothing_so_2_2_4_4_6_6_is_a_bust():
    assert is_bust([2, 2, 4, 4, 6, 6])


def test_with_combo_5_a_last_2_and_3_score_50_and_fill_and_without_it_they_bust():
    assert max_selection([2, 3], combo5=True) == (50, 2)
    assert score_selection([2, 3], [3, 2], combo5=True) == 50
    assert not is_bust([2, 3], combo5=True)
    assert is_bust([2, 3])


# --- the rules of §1.3 one by one ---------------------------------------------------------------


def test_three_1s_are_1000_never_300_and_four_1s_are_1100():
    assert score_selection([1, 1, 1, 2, 3, 4], [1, 1, 1]) == 1000
    assert score_selection([1, 1, 1, 1, 3, 4], [1, 1, 1, 1]) == 1100


def test_there_is_no_bonus_for_four_five_or_six_of_a_kind():
    assert max_selection([3, 3, 3, 3, 2, 2]) == (300, 3)
    assert max_selection([5, 5, 5, 5, 5, 2]) == (600, 5)
    assert max_selection([6] * 6) == (1200, 6)


def test_a_straight_set_aside_only_in_part_scores_only_its_1_and_5():
    assert score_selection([1, 2, 3, 4, 5, 6], [1, 5]) == 150
    with pytest.raises(IllegalSelection):
        score_selection([1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5])


def test_with_combo_5_a_pair_scores_only_when_it_sets_aside_the_whole_toss():
    assert score_selection([1, 4, 2, 3, 5, 5], [1, 4, 2, 3, 5, 5], combo5=True) == 200
    with pytest.raises(IllegalSelection, match="last dice"):
        score_selection([1, 4, 6], [1, 4], combo5=True)


def test_with_combo_5_the_maximal_selection_prefers_a_fill_to_more_points():
    # Keeping the 1 alone is worth 100, but the whole toss as a 1+4 pair has more dice.
    assert max_selection([1, 4], combo5=True) == (50, 2)
    assert maximal_keep([4, 1], combo5=True) == (1, 4)
    assert max_selection([1, 4]) == (100, 1)


def test_the_maximal_selection_is_every_triple_and_every_1_and_5():
    assert maximal_keep([5, 2, 2, 1, 2, 6]) == (1, 2, 2, 2, 5)
    assert maximal_keep([2, 2, 4, 4, 6, 6]) == ()


def test_legal_keeps_lists_every_legal_selection_with_the_maximal_one_first():
    assert legal_keeps([1, 5, 2]) == (((1, 5), 150), ((1,), 100), ((5,), 50))
    assert legal_keeps([2, 4, 6]) == ()


# --- exhaustive checks against the reference --------------------------------------------------


@pytest.mark.parametrize("combo5", [False, True], ids=["official", "combo5"])
def test_max_selection_agrees_with_the_reference_on_every_toss_of_1_to_6_dice(combo5):
    checked = 0
    for toss in every_ordered_toss():
        expected = reference_max_selection(tuple(sorted(toss)), combo5)
        assert max_selection(toss, combo5=combo5) == expected, toss
        assert max_selection(list(toss), combo5=combo5) == expected, toss
        checked += 1
    assert checked == 6 + 36 + 216 + 1296 + 7776 + 46656


@pytest.mark.parametrize("combo5", [False, True], ids=["official", "combo5"])
def test_is_bust_agrees_with_the_reference_on_every_toss_of_1_to_6_dice(combo5):
    for toss in every_ordered_toss():
        expected = reference_max_selection(tuple(sorted(toss)), combo5) == (0, 0)
        assert is_bust(list(toss), combo5=combo5) is expected, toss


@pytest.mark.parametrize("combo5", [False, True], ids=["official", "combo5"])
def test_score_selection_agrees_with_the_reference_on_every_keep_of_every_toss(combo5):
    checked = 0
    for toss in every_sorted_toss():
        for keep in sub_multisets(toss):
            expected = reference_score(toss, keep, combo5)
            if expected is None:
                with pytest.raises(IllegalSelection):
                    score_selection(toss, keep, combo5=combo5)
            else:
                # Reversed, so neither argument arrives sorted.
                assert score_selection(toss[::-1], keep[::-1], combo5=combo5) == expected, (toss, keep)
            checked += 1
    assert checked > 10_000


@pytest.mark.parametrize("combo5", [False, True], ids=["official", "combo5"])
def test_maximal_keep_is_a_legal_keep_worth_what_max_selection_says(combo5):
    for toss in every_sorted_toss():
        points, count = max_selection(toss, combo5=combo5)
        kept = maximal_keep(toss, combo5=combo5)
        assert len(kept) == count
        if count:
            assert score_selection(toss, kept, combo5=combo5) == points
            assert legal_keeps(toss, combo5=combo5)[0] == (kept, points)


# --- errors a person can read --------------------------------------------------------------------


def test_keeping_a_die_that_scores_nothing_names_it():
    with pytest.raises(IllegalSelection) as error:
        score_selection([1, 3, 5], [3])
    assert str(error.value) == "You kept a 3, which scores nothing in [1, 3, 5]."


def test_keeping_a_fourth_die_of_a_kind_says_it_scores_nothing_beyond_the_triple():
    with pytest.raises(IllegalSelection, match=r"a 3 beyond three of a kind, which scores nothing"):
        score_selection([3, 3, 3, 3, 1], [3, 3, 3, 3])


def test_keeping_dice_the_toss_does_not_have_says_so():
    with pytest.raises(IllegalSelection, match=r"You kept two 5s, but the toss \[1, 5, 2\] has only one 5"):
        score_selection([1, 5, 2], [5, 5])
    with pytest.raises(IllegalSelection, match="has no 6s"):
        score_selection([1, 5, 2], [6, 6, 6])


def test_an_empty_selection_is_refused():
    with pytest.raises(IllegalSelection, match="at least one scoring die"):
        score_selection([1, 5, 2], [])


@pytest.mark.parametrize("toss", [[], [1, 2, 3, 4, 5, 6, 1], [0, 1], [7], [1, "5"], [True, 1]])
def test_a_toss_that_is_not_1_to_6_dice_of_1_to_6_is_refused(toss):
    with pytest.raises(IllegalSelection):
        score_selection(toss, [1])
    with pytest.raises(ValueError):
        maximal_keep(toss)


@pytest.mark.parametrize("toss", [[], [1, 2, 3, 4, 5, 6, 1], [0, 1], [7], [1, "5"], 5, [[1]]])
def test_max_selection_and_is_bust_refuse_what_is_not_a_toss(toss):
    with pytest.raises(IllegalSelection):
        max_selection(toss)
    with pytest.raises(IllegalSelection):
        is_bust(toss, combo5=True)


def test_the_errors_are_value_errors():
    assert issubclass(IllegalSelection, ValueError)
