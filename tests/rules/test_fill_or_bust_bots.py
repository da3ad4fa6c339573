"""The Fill or Bust bots (games/rules/fill_or_bust_bots.py): every move they choose is legal, every
level finishes its games, the strong bot's odds table agrees with the engine's own scoring, and the
strong bot beats the threshold bot (a fixed sample of seeded games, so the figure never moves).
"""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.rules import table as table_game
from games.rules.fill_or_bust import (
    ActionKind,
    Card,
    FillOrBustTable,
    Game,
    Options,
    Phase,
    is_bust,
    max_selection,
    new_game,
)
from games.rules.fill_or_bust_bots import (
    LEVEL_LABELS,
    LEVELS,
    UnknownLevel,
    choose_action,
    choose_move,
    odds,
)

NAMES = ["Ann", "Bob", "Cy", "Di"]

options = st.builds(Options, combo5=st.booleans(), must_bust_penalty=st.booleans(), show_down=st.booleans())


def play_out(table: FillOrBustTable, levels: list[str], rng: random.Random, moves: int = 20_000) -> FillOrBustTable:
    """Bots move until the game ends, each move checked against `legal_moves` as it is made."""
    for _ in range(moves):
        if table.is_over:
            return table
        (seat,) = table.to_move()
        move = choose_move(table, seat, levels[seat], rng)
        assert move in table.legal_moves(seat)
        table = table.apply(seat, move, rng)
    raise AssertionError(f"The game did not end within {moves} moves.")


@given(
    levels=st.lists(st.sampled_from(LEVELS), min_size=2, max_size=4),
    opts=options,
    goal=st.sampled_from([1000, 3000, 5000]),
    seed=st.integers(0, 2**32),
)
def test_it_chooses_a_legal_move_at_every_step_of_any_game(levels, opts, goal, seed):
    rng = random.Random(seed)
    table = FillOrBustTable.new(NAMES[: len(levels)], rng, options=opts, goal=goal)
    finished = play_out(table, levels, rng)
    assert finished.result() is not None


@pytest.mark.parametrize("level", LEVELS)
def test_it_finishes_games_at_every_level(level):
    rng = random.Random(f"finish {level}")
    for _ in range(5):
        table = FillOrBustTable.new(NAMES[:2], rng, goal=5000)
        result = play_out(table, [level, level], rng).result()
        assert result is not None and result.winners
        assert max(result.scores) >= 5000


def test_it_names_every_level_for_people():
    assert set(LEVEL_LABELS) == set(LEVELS)
    assert LEVEL_LABELS["easy"].startswith("Easy")


def test_it_refuses_a_level_it_does_not_know():
    table = FillOrBustTable.new(NAMES[:2], random.Random(1))
    with pytest.raises(UnknownLevel, match="no bot level 'genius'.*easy, threshold, strong"):
        choose_move(table, table.to_move()[0], "genius", random.Random(1))


def test_it_refuses_to_move_for_a_seat_that_is_not_on_the_move():
    table = FillOrBustTable.new(NAMES[:2], random.Random(1))
    waiting = 1 - table.to_move()[0]
    with pytest.raises(table_game.NotYourTurn, match="move, not"):
        choose_move(table, waiting, "strong", random.Random(1))


def test_it_refuses_to_move_in_a_game_that_is_over():
    rng = random.Random(4)
    table = play_out(FillOrBustTable.new(NAMES[:2], rng, goal=1000), ["strong", "strong"], rng)
    with pytest.raises(table_game.NotYourTurn, match="over"):
        choose_move(table, 0, "strong", rng)


# --- the odds table ----------------------------------------------------------------------------


@pytest.mark.parametrize("combo5", [False, True])
@pytest.mark.parametrize("d", range(1, 7))
def test_its_bust_odds_are_the_engines_counted_over_every_toss(d, combo5):
    busts = sum(is_bust(toss, combo5=combo5) for toss in product(range(1, 7), repeat=d))
    assert odds(combo5).bust[d] == Fraction(busts, 6**d)


def test_its_bust_odds_are_the_known_figures():
    bust = odds().bust
    # One die: no 1 or 5. Six dice: no 1, 5 or triple among 2, 3, 4, 6 (and not a straight),
    # i.e. three pairs or two pairs and two singles: 4 × 90 + 6 × 180 = 1,440 of 46,656.
    assert bust[1] == Fraction(2, 3)
    assert bust[2] == Fraction(16, 36)
    assert bust[6] == Fraction(1440, 6**6)


def test_its_must_bust_figure_is_the_average_of_the_forced_keeps():
    # One toss of six dice under MUST BUST, then the rest: the figure is at least the first toss's
    # average (the maximal keep of every toss) and no more than it could be with no bust ever.
    first = sum(max_selection(toss)[0] for toss in product(range(1, 7), repeat=6)) / 6**6
    table = odds()
    assert first < table.must_bust < 4 * first


def test_its_table_is_built_once_and_is_the_same_every_time():
    assert odds() is odds()
    assert odds.__wrapped__(False, False) == odds()


def test_it_values_a_fresh_card_at_a_few_hundred_points():
    assert 300 < odds().fresh_card < 500


def test_it_stops_under_a_bonus_card_when_a_lot_is_at_risk_on_few_dice():
    table = odds()
    assert table.after_keep(Card.BONUS_300, 0, 1, 1000) == 1000  # one die at 1,000: stop
    assert table.after_keep(Card.BONUS_300, 0, 5, 300) > 300  # five dice at 300: toss


# --- decisions -------------------------------------------------------------------------------------


def keep_phase(toss: tuple[int, ...], card: str, *, scores: dict[str, int] | None = None, goal: int | None = None) -> Game:
    game = Game.start(["Ann", "Bob"], scores=scores, goal=goal).draw(card=card)
    return game.toss(toss)


def test_it_keeps_a_single_1_to_toss_five_dice_rather_than_1_and_5_to_toss_four():
    game = keep_phase((1, 5, 2, 3, 4, 4), "BONUS_300")
    assert choose_action(game, "strong", random.Random(1)).dice == (1,)


def test_it_banks_as_soon_as_a_bank_wins_the_game():
    game = keep_phase((1, 2, 3, 4, 6, 6), "BONUS_300", scores={"Ann": 4900, "Bob": 0}, goal=5000)
    game = game.keep((1,))
    assert game.phase is Phase.TOSS
    assert choose_action(game, "strong", random.Random(1)).kind is ActionKind.STOP


def test_it_plays_on_in_a_last_turn_until_it_beats_the_top_score():
    game = Game.start(["Ann", "Bob"], scores={"Ann": 0, "Bob": 0}, goal=5000, options=Options(show_down=True))
    game = game.draw(card="BONUS_300").toss((1, 5, 5, 2, 3, 4)).keep((1, 5, 5))
    game = replace(game, sheet=(3000, 5100), show_down_from="Bob")  # Bob reached the goal
    # 200 at risk with three dice would be a stop for points, but 3,200 loses to 5,100.
    assert choose_action(game, "strong", random.Random(1)).kind is ActionKind.TOSS


def test_it_plays_a_vengeance_against_a_leader_when_little_is_pending():
    game = Game.start(["Ann", "Bob"], scores={"Ann": 1000, "Bob": 4000}, goal=5000).draw(card="VENGEANCE_2500")
    assert game.phase is Phase.VENGEANCE
    assert choose_action(game, "strong", random.Random(1)).kind is ActionKind.PLAY


# --- strength -------------------------------------------------------------------------------------

DUEL_GAMES = 600


def duel(strong_first: bool, seed: int) -> float:
    """One game to 5,000 of the strong bot against the threshold bot: 1 a win, 1/2 shared, 0 a loss."""
    rng = random.Random(seed)
    levels = {"Sharp": "strong", "Steady": "threshold"}
    game = new_game(["Sharp", "Steady"], rng, goal=5000, first="Sharp" if strong_first else "Steady")
    while not game.is_over:
        game = game.apply(choose_action(game, levels[game.player], rng), rng)
    return ("Sharp" in game.winners) / len(game.winners)


def test_the_strong_bot_beats_the_threshold_bot_in_more_than_55_percent_of_games():
    wins = sum(duel(seed % 2 == 0, seed) for seed in range(DUEL_GAMES))
    assert wins / DUEL_GAMES > 0.55
