"""Kismet's bots: every level plays a whole legal game, easy takes the best immediate box, the
stronger levels hold dice and score more, and the hint is one of the boxes the dice may go in."""

from __future__ import annotations

import random

import pytest

from games.rules import kismet_bots
from games.rules.kismet import KismetTable
from games.rules.table import NotYourTurn


def play(level: str, seed: int, players: int = 1) -> KismetTable:
    game = KismetTable.new([f"P{n}" for n in range(players)])
    rng = random.Random(seed)
    while not game.is_over:
        seat = game.to_move()[0]
        move = kismet_bots.choose_move(game, seat, level, rng)
        game = game.apply(seat, move, rng)
    return game


@pytest.mark.parametrize("level", kismet_bots.LEVELS)
def test_every_level_plays_a_whole_legal_game(level: str) -> None:
    game = play(level, 1, players=2)
    assert all(sheet.is_full for sheet in game.state.sheets)


def test_easy_scores_the_best_immediate_box_after_its_first_roll() -> None:
    game = KismetTable.new(["A"]).apply(0, {"kind": "roll"}, random.Random(3))
    move = kismet_bots.choose_move(game, 0, "easy", random.Random(0))
    choices = game.state.box_choices()
    assert move["kind"] == "score" and choices[move["box"]] == max(choices.values())


def test_the_stronger_levels_hold_dice_and_score_more_on_average() -> None:
    means = {level: sum(play(level, seed).state.sheets[0].total for seed in range(12)) / 12
             for level in kismet_bots.LEVELS}
    assert means["easy"] < means["threshold"] <= means["strong"] + 40
    assert means["easy"] < means["strong"]


def test_the_hint_is_a_box_the_dice_may_go_in() -> None:
    game = KismetTable.new(["A"]).apply(0, {"kind": "roll"}, random.Random(5))
    assert kismet_bots.best_box(game) in game.state.legal_boxes()


def test_a_bot_refuses_an_unknown_level_and_a_seat_not_on_turn() -> None:
    game = KismetTable.new(["A", "B"])
    with pytest.raises(kismet_bots.UnknownLevel):
        kismet_bots.choose_move(game, 0, "genius", random.Random(0))
    with pytest.raises(NotYourTurn):
        kismet_bots.choose_move(game, 1, "easy", random.Random(0))


def test_a_bot_on_a_seat_of_real_dice_types_them_in() -> None:
    game = KismetTable.new(["A"], real_seats=[0])
    move = kismet_bots.choose_move(game, 0, "threshold", random.Random(0))
    assert move["kind"] == "enter" and len(move["dice"]) == 5
