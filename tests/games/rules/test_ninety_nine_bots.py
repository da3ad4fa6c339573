"""Bots for Ninety-Nine or Bust: any legal card (easy), a bot that keeps its 99s and minus 10s for
when they are needed (threshold), one that also leaves the next player 99 (strong)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.rules import ninety_nine, ninety_nine_bots
from games.rules.ninety_nine import CARDS, Card, Game, NinetyNineTable, legal_cards
from games.rules.table import IllegalMove


def test_the_steady_bot_keeps_its_99_and_minus_10_while_a_number_card_will_do() -> None:
    hand: list[Card] = ["99", "minus_10", 4]
    assert ninety_nine_bots.choose_card(hand, legal_cards(hand, 50), 50, "threshold", random.Random(1)) == 4


def test_the_steady_bot_plays_its_99_or_minus_10_when_nothing_else_can_be_played() -> None:
    hand: list[Card] = ["99", 8, 10]
    assert ninety_nine_bots.choose_card(hand, legal_cards(hand, 95), 95, "threshold", random.Random(1)) == "99"
    hand = ["minus_10", 8, 10]
    assert ninety_nine_bots.choose_card(hand, legal_cards(hand, 95), 95, "threshold", random.Random(1)) == "minus_10"


def test_the_sharp_bot_takes_the_count_to_exactly_99_when_it_can() -> None:
    hand: list[Card] = [10, 3, 1]
    assert ninety_nine_bots.choose_card(hand, legal_cards(hand, 96), 96, "strong", random.Random(1)) == 3
    assert ninety_nine_bots.choose_card(hand, legal_cards(hand, 96), 96, "threshold", random.Random(1)) == 3


def test_the_easy_bot_plays_any_legal_card_sometimes_a_special_one_early() -> None:
    hand: list[Card] = ["99", "minus_10", 4]
    played = {ninety_nine_bots.choose_card(hand, legal_cards(hand, 10), 10, "easy", random.Random(n)) for n in range(40)}
    assert played == {"99", "minus_10", 4}


@given(st.lists(st.sampled_from(CARDS), min_size=1, max_size=3), st.integers(0, 99),
       st.sampled_from(ninety_nine_bots.LEVELS), st.integers(0, 1000))
def test_every_bot_plays_a_legal_card_of_its_hand(hand: list, count: int, level: str, seed: int) -> None:
    legal = legal_cards(hand, count)
    if legal:
        card = ninety_nine_bots.choose_card(hand, legal, count, level, random.Random(seed))
        assert card in legal


@pytest.mark.parametrize("level", ninety_nine_bots.LEVELS)
def test_a_table_of_bots_at_each_level_plays_a_whole_game_to_one_winner(level: str) -> None:
    table = NinetyNineTable.new(["Ada", "Bea", "Cal"], random.Random(3))
    rng = random.Random(4)
    for _ in range(5000):
        if table.is_over:
            break
        seat = table.to_move()[0]
        move = ninety_nine_bots.choose_move(table, seat, level, rng)
        assert move in table.legal_moves(seat)
        table = table.apply(seat, move, rng)
    assert table.is_over and table.result() is not None


def test_a_bot_moves_only_on_its_turn_and_at_a_known_level() -> None:
    table = NinetyNineTable(Game.start(["Ada", "Bea"], random.Random(1)))
    with pytest.raises(IllegalMove):
        ninety_nine_bots.choose_move(table, 0, "threshold", random.Random(1))
    with pytest.raises(ninety_nine_bots.UnknownLevel):
        ninety_nine_bots.choose_move(table, 1, "genius", random.Random(1))
    assert ninety_nine.MAX_COUNT == 99
