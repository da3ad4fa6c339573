"""Who brings the dishes still missing (bunco_club.rotation.suggest_dishes, pure): worked examples,
the errors, and the fairness rule at every place under hypothesis."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bunco_club.rotation import RotationError, suggest_dishes

ROSTER = ["Ada", "Bea", "Cal", "Dot"]


def test_the_member_who_brought_fewest_dishes_is_asked_first():
    assert suggest_dishes(["dessert"], ROSTER, turns={"Ada": 3, "Bea": 1, "Cal": 2, "Dot": 1}) == ["Bea"]


def test_members_tied_on_their_turns_go_in_roster_order():
    assert suggest_dishes(["dessert", "drinks", "salad"], ROSTER) == ["Ada", "Bea", "Cal"]


def test_those_not_coming_are_skipped():
    assert suggest_dishes(["dessert", "drinks"], ROSTER, not_coming={"Ada", "Cal"}) == ["Bea", "Dot"]


def test_those_who_bring_something_already_are_skipped():
    assert suggest_dishes(["dessert"], ROSTER, busy={"Ada"}, turns={"Bea": 2}) == ["Cal"]


def test_nobody_is_asked_for_two_dishes_and_a_place_nobody_is_left_for_says_so():
    assert suggest_dishes(["dessert", "dessert", "drinks"], ["Ada", "Bea"]) == ["Ada", "Bea", None]


def test_no_place_missing_asks_nobody():
    assert suggest_dishes([], ROSTER) == []


def test_an_empty_roster_asks_nobody():
    assert suggest_dishes(["dessert"], []) == [None]


def test_turns_of_names_off_the_roster_are_ignored():
    assert suggest_dishes(["dessert"], ["Ada", "Bea"], turns={"Zed": 0, "Ada": 1}) == ["Bea"]


def test_a_name_twice_on_the_roster_is_refused():
    with pytest.raises(RotationError, match="more than once"):
        suggest_dishes(["dessert"], ["Ada", "Ada"])


@pytest.mark.parametrize("count", [-1, 1.5, True, "2"])
def test_turns_that_are_not_a_whole_number_are_refused(count):
    with pytest.raises(RotationError, match="whole number"):
        suggest_dishes(["dessert"], ["Ada"], turns={"Ada": count})


names = st.lists(st.sampled_from(["Ada", "Bea", "Cal", "Dot", "Eve", "Fay", "Gus"]), unique=True, max_size=7)


@given(roster=names, places=st.lists(st.sampled_from(["dessert", "drinks", "salad"]), max_size=8),
       turns=st.dictionaries(st.sampled_from(["Ada", "Bea", "Cal", "Dot", "Eve"]), st.integers(0, 5)),
       not_coming=st.sets(st.sampled_from(["Ada", "Cal", "Eve"])), busy=st.sets(st.sampled_from(["Bea", "Fay"])))
def test_every_suggestion_is_the_fairest_member_left(roster, places, turns, not_coming, busy):
    plan = suggest_dishes(places, roster, turns=turns, not_coming=not_coming, busy=busy)
    assert plan == suggest_dishes(places, roster, turns=turns, not_coming=not_coming, busy=busy)  # deterministic
    assert len(plan) == len(places)
    left = [name for name in roster if name not in not_coming and name not in busy]
    for chosen in plan:
        if not left:
            assert chosen is None
            continue
        fewest = min(turns.get(name, 0) for name in left)
        first = next(name for name in left if turns.get(name, 0) == fewest)  # then roster order
        assert chosen == first
        left.remove(first)
