"""Who starts Fill or Bust (docs/RULES.md §1.2): each player rolls one die, highest starts, ties roll
again; the roll is recorded so that the tables can show it, and is made exactly as before the
record existed (the same dice from the same generator), so that every game already played
replays and verifies the same.
"""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from games.rules.fill_or_bust import (
    FillOrBustTable,
    Game,
    StartRoll,
    choose_first_player,
    new_game,
    play_bot_turn,
    roll_for_first_player,
)

SIX = ["Ann", "Ben", "Cy", "Dee", "Eve", "Fay"]

# Computed with the code before the start roll was recorded (commit dbdf5fc): for a seed and a
# number of players, who starts, the first 16 hex digits of SHA-256 of the deck's order, and the
# next number the generator gives after the deal (the same dice consumed, no more, no fewer).
BEFORE_THE_RECORD = [
    (0, 6, "Cy", "c7888ec1035a3aef", 469730),  # two tie rounds: 6 6, then 2 2, then 2 5
    (4, 2, "Ann", "29c6b5fc82d816e7", 451981),  # one tie round: 4 4, then 5 3
    (7, 3, "Cy", "be345c831bd2dabc", 713451),
    (11, 6, "Ann", "1aac905d1b7219b3", 31197),
    (1, 6, "Eve", "dd7c2c621d21f637", 199071),
]


@pytest.mark.parametrize(("seed", "players", "starter", "deck", "next_number"), BEFORE_THE_RECORD)
def test_the_same_seed_deals_the_same_deck_and_the_same_first_player_as_before_the_record(
    seed: int, players: int, starter: str, deck: str, next_number: int
) -> None:
    rng = random.Random(seed)
    game = new_game(SIX[:players], rng, goal=5000)
    assert game.deck is not None
    order = ",".join(card.value for card in game.deck.draw_pile)
    assert (game.player, hashlib.sha256(order.encode()).hexdigest()[:16], rng.randrange(10**6)) == (
        starter, deck, next_number)


class Dice:
    """Dice that come out in a given order: `dice.roll` asks the generator for `randint(1, 6)`."""

    def __init__(self, *faces: int) -> None:
        self.faces = list(faces)

    def randint(self, low: int, high: int) -> int:
        assert (low, high) == (1, 6)
        return self.faces.pop(0)


def test_the_record_lists_each_rounds_dice_and_the_winner_of_the_last_round_starts() -> None:
    dice = Dice(5, 5, 2, 3, 6)
    roll = roll_for_first_player(["Ann", "Ben", "Cy"], dice)  # type: ignore[arg-type]
    assert roll.rounds == ((("Ann", 5), ("Ben", 5), ("Cy", 2)), (("Ann", 3), ("Ben", 6)))
    assert roll.starter == "Ben"
    assert roll.words() == "Who starts: Ann 5 · Ben 5 · Cy 2 → Ann 3 · Ben 6: Ben starts."
    assert dice.faces == []


def test_a_seed_that_ties_records_every_tie_round_and_the_same_starter_as_choose_first_player() -> None:
    seed = next(s for s in range(100) if len(roll_for_first_player(SIX, random.Random(s)).rounds) >= 3)
    roll = roll_for_first_player(SIX, random.Random(seed))
    assert [name for name, _ in roll.rounds[0]] == SIX
    for before, after in zip(roll.rounds, roll.rounds[1:], strict=False):
        best = max(die for _, die in before)
        assert [name for name, _ in after] == [name for name, die in before if die == best]
        assert len(after) > 1
    last = roll.rounds[-1]
    assert [name for name, die in last if die == max(d for _, d in last)] == [roll.starter]
    assert choose_first_player(SIX, random.Random(seed)) == roll.starter


def test_a_new_game_keeps_its_start_roll_through_saving_and_shows_it_until_the_first_turn_ends() -> None:
    game = new_game(SIX, random.Random(0), goal=5000)
    assert game.start_roll == StartRoll(
        ((("Ann", 6), ("Ben", 3), ("Cy", 6), ("Dee", 1), ("Eve", 2), ("Fay", 5)),
         (("Ann", 2), ("Cy", 2)), (("Ann", 2), ("Cy", 5))), "Cy")
    assert Game.from_dict(json.loads(json.dumps(game.to_dict()))) == game
    table = FillOrBustTable(game)
    shown = table.view(None).public["start_roll"]
    assert shown["starter"] == "Cy" and shown["rounds"][2] == [["Ann", 2], ["Cy", 5]]
    assert shown["words"] == ("Who starts: Ann 6 · Ben 3 · Cy 6 · Dee 1 · Eve 2 · Fay 5 → Ann 2 · Cy 2 → "
                              "Ann 2 · Cy 5: Cy starts.")
    after_a_turn = FillOrBustTable(play_bot_turn(game, random.Random(1)))
    assert after_a_turn.view(None).public["start_roll"] is None
    assert after_a_turn.state.start_roll == game.start_roll


def test_a_state_stored_before_the_record_loads_and_shows_no_roll() -> None:
    stored = new_game(["Ann", "Ben"], random.Random(4), goal=5000).to_dict()
    del stored["start_roll"]
    game = Game.from_dict(stored)
    assert game.start_roll is None and game.player == "Ann"
    assert game.to_dict() == stored
    assert FillOrBustTable(game).view(None).public["start_roll"] is None


def test_a_game_whose_first_player_is_named_rolls_nothing() -> None:
    assert new_game(["Ann", "Ben"], random.Random(4), first="Ben").start_roll is None
