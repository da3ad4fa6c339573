"""Bunco prizes (docs/RULES.md §4.7): shares of the pot in whole cents, unclaimed prizes to the draw,
ties rolled off, and the house rules."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.rules.prizes import (
    PRIZES,
    Award,
    PrizeError,
    PrizeRules,
    Sheet,
    allocate,
    allocate_detailed,
    prize_amounts,
    roll_off,
)


class LoadedDice(random.Random):
    """Dice that show the faces given, in order; everything else is a seeded generator."""

    def __init__(self, faces: list[int]) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        return self.faces.pop(0)


def sheets(*rows: tuple[str, int, int, int]) -> list[Sheet]:
    return [Sheet(name, wins, losses, buncos) for name, wins, losses, buncos in rows]


# The example of §4.7: 12 players, W and L adding up as a real night's would (144 each).
EXAMPLE = sheets(
    ("P1", 14, 10, 3),
    ("P2", 17, 7, 2),
    ("P3", 12, 12, 1),
    ("P4", 13, 11, 0),
    ("P5", 6, 18, 1),
    ("P6", 11, 13, 2),
    ("P7", 13, 11, 0),
    ("P8", 15, 9, 1),
    ("P9", 11, 13, 0),
    ("P10", 16, 8, 2),
    ("P11", 9, 15, 1),
    ("P12", 7, 17, 0),
)


@pytest.mark.parametrize("seed", range(5))
def test_the_rules_example_pays_20_15_10_8_5_and_draws_2_among_those_without_a_prize(seed):
    awards = allocate(EXAMPLE, pot=12 * 500, traveler="P6", rng=random.Random(seed))
    assert awards[:5] == [
        Award("most_buncos", "P1", 2000),
        Award("most_wins", "P2", 1500),
        Award("traveling", "P6", 1000),
        Award("fifty_fifty", "P3", 800),
        Award("most_losses", "P5", 500),
    ]
    draw = awards[5]
    assert (draw.prize, draw.amount) == ("draw", 200)
    assert draw.name in {"P4", "P7", "P8", "P9", "P10", "P11", "P12"}


def test_the_draw_picks_every_player_without_a_prize_sometimes():
    winners = {allocate(EXAMPLE, pot=6000, traveler="P6", rng=random.Random(s))[5].name for s in range(200)}
    assert winners == {"P4", "P7", "P8", "P9", "P10", "P11", "P12"}


def test_each_prize_but_most_buncos_is_rounded_down_and_most_buncos_takes_the_rest():
    amounts = prize_amounts(12345)
    assert amounts == {
        "most_buncos": 12345 - (3086 + 2057 + 1646 + 1028 + 411),
        "most_wins": 12345 * 15 // 60,
        "traveling": 12345 * 10 // 60,
        "fifty_fifty": 12345 * 8 // 60,
        "most_losses": 12345 * 5 // 60,
        "draw": 12345 * 2 // 60,
    }
    assert sum(amounts.values()) == 12345


def test_a_prize_nobody_qualifies_for_goes_to_the_draw():
    no_buncos_no_traveler_nobody_even = sheets(("Ann", 14, 10, 0), ("Bob", 10, 14, 0), ("Cat", 13, 11, 0))
    awards = allocate(no_buncos_no_traveler_nobody_even, pot=6000, traveler=None, rng=random.Random(1))
    assert [a.prize for a in awards] == ["most_wins", "most_losses", "draw"]
    assert awards[2] == Award("draw", "Cat", 2000 + 1000 + 800 + 200)


def test_nobody_with_a_win_or_a_loss_leaves_everything_but_the_draw_unclaimed():
    awards = allocate(
        sheets(("Ann", 3, 4, 0), ("Bob", 0, 0, 0)), pot=600, traveler=None, rng=random.Random(0)
    )
    # Bob's 0-0 is wins equal to losses: read literally, he takes the 50/50
    assert [(a.prize, a.name) for a in awards[:3]] == [
        ("most_wins", "Ann"),
        ("fifty_fifty", "Bob"),
        ("most_losses", "Ann"),
    ]


def test_if_everyone_already_won_the_draw_is_among_everyone():
    two = sheets(("Ann", 20, 4, 2), ("Bob", 4, 20, 0))
    draws = {allocate(two, pot=6000, traveler="Ann", rng=random.Random(s))[-1].name for s in range(40)}
    assert draws == {"Ann", "Bob"}


def test_a_tie_for_a_prize_is_rolled_off_highest_total_wins():
    tied = sheets(("Ann", 12, 12, 2), ("Bob", 12, 12, 2), ("Cat", 14, 10, 0), ("Dee", 10, 14, 0))
    # Most Buncos: Ann 1+1+1, Bob 6+6+6; then the 50/50: Ann 2+2+2, Bob 5+5+5
    awards = allocate(tied, pot=6000, traveler=None, rng=LoadedDice([1, 1, 1, 6, 6, 6, 2, 2, 2, 5, 5, 5]))
    assert awards[0] == Award("most_buncos", "Bob", 2000)
    assert Award("fifty_fifty", "Bob", 800) in awards


def test_a_roll_off_repeats_among_those_still_tied():
    result = roll_off(["Ann", "Bob", "Cat"], LoadedDice([6, 6, 6, 1, 1, 1, 6, 6, 6, 4, 4, 4, 3, 3, 3]))
    assert result.rounds == ((("Ann", 18), ("Bob", 3), ("Cat", 18)), (("Ann", 12), ("Cat", 9)))
    assert result.winner == "Ann"


def test_several_players_at_12_12_roll_off_for_the_50_50_and_exactly_one_wins():
    even = sheets(("Ann", 12, 12, 0), ("Bob", 12, 12, 0), ("Cat", 12, 12, 0), ("Dee", 14, 10, 0))
    for seed in range(20):
        awards = allocate(even, pot=6000, traveler=None, rng=random.Random(seed))
        fifty = [a for a in awards if a.prize == "fifty_fifty"]
        assert len(fifty) == 1 and fifty[0].name in {"Ann", "Bob", "Cat"}


# --- house rules ---


def test_with_one_prize_each_the_next_best_player_gets_the_prize_a_winner_would_take_twice():
    rows = sheets(("Ann", 18, 6, 3), ("Bob", 16, 8, 1), ("Cat", 12, 12, 0), ("Dee", 6, 18, 0))
    awards = allocate(
        rows, pot=6000, traveler="Ann", rng=random.Random(0), rules=PrizeRules(one_prize_each=True)
    )
    assert [(a.prize, a.name, a.amount) for a in awards] == [
        ("most_buncos", "Ann", 2000),
        ("most_wins", "Bob", 1500),
        # the traveler's holder already won: the Traveling money joins the draw
        ("fifty_fifty", "Cat", 800),
        ("most_losses", "Dee", 500),
        ("draw", awards[-1].name, 1000 + 200),
    ]


def test_with_split_ties_tied_players_share_the_prize_and_odd_cents_go_in_sheet_order():
    rows = sheets(("Ann", 12, 12, 2), ("Bob", 12, 12, 2), ("Cat", 12, 12, 2), ("Dee", 10, 14, 0))
    awards = allocate(rows, pot=6100, traveler=None, rng=random.Random(0), rules=PrizeRules(split_ties=True))
    most_buncos = [a for a in awards if a.prize == "most_buncos"]
    assert most_buncos == [
        Award("most_buncos", "Ann", 679),
        Award("most_buncos", "Bob", 678),
        Award("most_buncos", "Cat", 678),
    ]
    assert sum(a.amount for a in awards) == 6100


# --- whole dollars (the house option new nights start with) ---


def test_whole_dollars_round_each_share_down_and_give_the_odd_dollars_to_the_draw():
    # 13 players at $5: the official shares would be $21.67, $16.25, $10.83, $8.67, $5.42, $2.17.
    assert prize_amounts(6500, PrizeRules(whole_dollars=True)) == {
        "most_buncos": 2100, "most_wins": 1600, "traveling": 1000, "fifty_fifty": 800, "most_losses": 500,
        "draw": 200 + 300,
    }


def test_whole_dollars_can_give_the_odd_dollars_to_most_buncos_instead():
    amounts = prize_amounts(6500, PrizeRules(whole_dollars=True, remainder_to="most_buncos"))
    assert (amounts["most_buncos"], amounts["draw"]) == (2400, 200)
    assert sum(amounts.values()) == 6500


def test_the_contracts_default_stays_in_whole_cents():
    assert prize_amounts(6500)["most_buncos"] == 6500 - (1625 + 1083 + 866 + 541 + 216)
    assert allocate(EXAMPLE, pot=6500, traveler="P6", rng=random.Random(1))[0].amount == 2169


def test_a_tie_split_in_whole_dollars_hands_out_no_coins():
    tied = sheets(("Ann", 15, 9, 0), ("Bea", 15, 9, 0), ("Cy", 9, 15, 0))
    awards = allocate(tied, pot=6000, traveler=None, rng=random.Random(0),
                      rules=PrizeRules(whole_dollars=True, split_ties=True))
    assert [(a.name, a.amount) for a in awards if a.prize == "most_wins"] == [("Ann", 800), ("Bea", 700)]


def test_every_prize_nobody_qualified_for_is_listed_with_the_money_it_gave_the_draw():
    nobody_rolled_a_bunco = sheets(("Ann", 15, 9, 0), ("Bea", 13, 11, 0), ("Cy", 8, 16, 0))
    allocation = allocate_detailed(nobody_rolled_a_bunco, pot=6000, traveler=None, rng=random.Random(0),
                                   rules=PrizeRules(whole_dollars=True))
    assert [(a.prize, a.amount) for a in allocation.unclaimed] == [
        ("most_buncos", 2000), ("traveling", 1000), ("fifty_fifty", 800)]
    draw = allocation.awards[-1]
    assert (draw.prize, draw.amount) == ("draw", 200 + 2000 + 1000 + 800)


def test_the_odd_dollars_go_only_to_the_draw_or_most_buncos():
    with pytest.raises(PrizeError, match="the draw or to Most Buncos"):
        PrizeRules(whole_dollars=True, remainder_to="most_wins")


# --- properties ---


@st.composite
def nights(draw: st.DrawFn) -> tuple[list[Sheet], int, str | None, PrizeRules]:
    count = draw(st.integers(min_value=1, max_value=20))
    rows = [
        Sheet(f"P{i}", draw(st.integers(0, 24)), draw(st.integers(0, 24)), draw(st.integers(0, 5)))
        for i in range(count)
    ]
    traveler = draw(st.none() | st.sampled_from([s.name for s in rows]))
    pot = draw(st.integers(min_value=0, max_value=10**7))
    rules = PrizeRules(one_prize_each=draw(st.booleans()), split_ties=draw(st.booleans()),
                       whole_dollars=draw(st.booleans()), remainder_to=draw(st.sampled_from(["draw", "most_buncos"])))
    return rows, pot, traveler, rules


@given(nights(), st.integers(min_value=0, max_value=2**32))
def test_prizes_pay_out_exactly_the_pot_and_each_given_prize_has_one_winner(night, seed):
    rows, pot, traveler, rules = night
    awards = allocate(rows, pot=pot, traveler=traveler, rng=random.Random(seed), rules=rules)
    assert sum(a.amount for a in awards) == pot
    assert all(a.amount >= 0 for a in awards)
    assert {a.name for a in awards} <= {s.name for s in rows}
    prizes = [a.prize for a in awards]
    assert prizes == sorted(prizes, key=PRIZES.index) and prizes[-1] == "draw"
    counts = Counter(prizes)
    if not rules.split_ties:
        assert all(n == 1 for n in counts.values())
    assert counts["draw"] == 1
    winners = {a.name for a in awards[:-1]}
    if len(winners) < len(rows):
        assert awards[-1].name not in winners
    if rules.one_prize_each:
        assert len(winners) == len(awards) - 1


@given(nights(), st.integers(min_value=0, max_value=2**32))
def test_with_whole_dollars_a_whole_dollar_pot_pays_whole_dollars_only(night, seed):
    rows, pot, traveler, rules = night
    rules = PrizeRules(one_prize_each=rules.one_prize_each, split_ties=rules.split_ties, whole_dollars=True,
                       remainder_to=rules.remainder_to)
    awards = allocate(rows, pot=pot // 100 * 100, traveler=traveler, rng=random.Random(seed), rules=rules)
    assert all(a.amount % 100 == 0 for a in awards)
    assert sum(a.amount for a in awards) == pot // 100 * 100


@given(nights(), st.integers(min_value=0, max_value=2**32))
def test_every_prize_goes_to_a_player_who_qualifies_for_it(night, seed):
    rows, pot, traveler, _ = night
    by_name = {s.name: s for s in rows}
    for award in allocate(rows, pot=pot, traveler=traveler, rng=random.Random(seed)):
        sheet = by_name[award.name]
        if award.prize == "most_buncos":
            assert sheet.buncos == max(s.buncos for s in rows) > 0
        elif award.prize == "most_wins":
            assert sheet.wins == max(s.wins for s in rows) > 0
        elif award.prize == "most_losses":
            assert sheet.losses == max(s.losses for s in rows) > 0
        elif award.prize == "traveling":
            assert award.name == traveler
        elif award.prize == "fifty_fifty":
            assert sheet.wins == sheet.losses


# --- bad input ---


@pytest.mark.parametrize(
    ("rows", "pot", "traveler", "message"),
    [
        ([], 6000, None, "at least one"),
        (sheets(("Ann", 1, 1, 0), ("Ann", 2, 0, 0)), 6000, None, "two sheets"),
        (sheets(("Ann", -1, 1, 0)), 6000, None, "wins"),
        # (cast: a value that is not a whole number, on purpose)
        (sheets(("Ann", 1, cast(Any, 1.5), 0)), 6000, None, "losses"),
        (sheets(("Ann", 1, 1, cast(Any, None))), 6000, None, "buncos"),
        (sheets(("", 1, 1, 0)), 6000, None, "name"),
        (sheets(("Ann", 1, 1, 0)), -1, None, "pot"),
        (sheets(("Ann", 1, 1, 0)), 60.0, None, "pot"),
        (sheets(("Ann", 1, 1, 0)), True, None, "pot"),
        (sheets(("Ann", 1, 1, 0)), 6000, "Ghost 1", "traveler"),
    ],
)
def test_bad_sheets_pots_or_travelers_are_refused(rows, pot, traveler, message):
    with pytest.raises(PrizeError, match=message) as raised:
        allocate(rows, pot=pot, traveler=traveler, rng=random.Random(0))
    assert isinstance(raised.value, ValueError)


def test_a_roll_off_needs_distinct_players():
    with pytest.raises(PrizeError):
        roll_off([], random.Random(0))
    with pytest.raises(PrizeError):
        roll_off(["Ann", "Ann"], random.Random(0))


def test_sheets_and_awards_are_frozen():
    with pytest.raises(AttributeError):
        EXAMPLE[0].wins = 0  # type: ignore[misc]
    with pytest.raises(AttributeError):
        Award("draw", "Ann", 1).amount = 2  # type: ignore[misc]
