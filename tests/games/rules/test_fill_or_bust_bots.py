"""The Fill or Bust bots (games/rules/fill_or_bust_bots.py): every move they choose is legal, every
level finishes its games, the strong bot's odds table agrees with the engine's own scoring, and the
strong bot beats the threshold bot (a fixed sample of seeded games, so the figure never moves).
"""

from __future__ import annotations

import importlib.util
import random
from collections import Counter
from dataclasses import replace
from fractions import Fraction
from itertools import product
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.rules import table as table_game
from games.rules.fill_or_bust import (
    DECK_COMPOSITION,
    FULL_DECK,
    ActionKind,
    Card,
    Deck,
    FillOrBustTable,
    Game,
    Options,
    Phase,
    is_bust,
    max_selection,
    new_game,
)
from games.rules.fill_or_bust_bots import (
    LEVEL_HINTS,
    LEVELS,
    UnknownLevel,
    _wins,
    choose_action,
    choose_move,
    odds,
    remaining_cards,
)
from games.rules.fill_or_bust_gains import CAP, GAINS, TURNS

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


def test_it_says_how_it_plays_at_every_level():
    assert set(LEVEL_HINTS) == set(LEVELS)
    assert LEVEL_HINTS["easy"] == "any move it may make, at random"


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


# --- counting cards ---------------------------------------------------------------------------------


def after_a_fill_of_800(pile: list[Card]) -> Game:
    """Ann turns over a BONUS 300 and fills with 500 (800 at risk, bank or draw again); the draw
    pile then holds `pile` (top first) and every other card has been turned over since the shuffle."""
    others = list(FULL_DECK)
    for card in [Card.BONUS_300, *pile]:
        others.remove(card)
    deck = Deck((Card.BONUS_300, *pile), tuple(others))
    game = Game.start(["Ann", "Bob"], goal=10_000, deck=deck).draw(random.Random(0))
    game = game.toss((2, 2, 2, 3, 3, 3)).keep((2, 2, 2, 3, 3, 3))
    assert game.phase is Phase.BANK_OR_CONTINUE and game.at_risk == 800
    return game


def test_it_draws_again_after_a_fill_of_800_with_the_full_decks_odds():
    game = after_a_fill_of_800([Card.BONUS_500, Card.NO_DICE, Card.FILL_1000, Card.BONUS_400, Card.BONUS_300])
    assert choose_action(game, "strong", random.Random(1)).kind is ActionKind.CONTINUE


def test_it_banks_the_same_fill_when_the_cards_left_are_mostly_no_dice():
    game = after_a_fill_of_800([Card.NO_DICE, Card.BONUS_500, Card.NO_DICE, Card.NO_DICE, Card.FILL_1000])
    assert choose_action(game, "strong", random.Random(1)).kind is ActionKind.STOP


def test_it_draws_again_when_the_cards_left_are_all_bonus_cards_and_the_full_deck_says_bank():
    game = after_a_fill_of_800([Card.BONUS_500, Card.BONUS_400, Card.BONUS_500, Card.BONUS_300])
    game = replace(game, card_points=1300)  # 1,300 at risk: with the full deck's odds, bank
    assert odds().drawing(1300) < 1300
    assert choose_action(game, "strong", random.Random(1)).kind is ActionKind.CONTINUE


def test_it_never_reads_the_order_of_the_draw_pile():
    pile = [Card.NO_DICE, Card.BONUS_500, Card.NO_DICE, Card.FILL_1000, Card.NO_DICE, Card.BONUS_300]
    game = after_a_fill_of_800(pile)
    assert game.deck is not None
    for seed in range(20):
        shuffled = replace(game, deck=Deck(tuple(random.Random(seed).sample(pile, len(pile))), game.deck.discards))
        assert remaining_cards(shuffled) == remaining_cards(game)
        assert choose_action(shuffled, "strong", random.Random(1)) == choose_action(game, "strong", random.Random(1))


def test_the_cards_it_counts_are_the_draw_piles_whatever_the_game():
    rng = random.Random(3)
    game = new_game(["Ann", "Bob"], rng, goal=5000)
    for _ in range(3000):
        if game.is_over:
            break
        if game.phase is Phase.DRAW or game.phase is Phase.BANK_OR_CONTINUE:
            assert game.deck is not None
            counted = remaining_cards(game)
            expected = DECK_COMPOSITION if not game.deck.draw_pile else Counter(game.deck.draw_pile)
            assert {card: n for card, n in (counted or {}).items() if n} == dict(expected)
        game = game.apply(choose_action(game, "strong", rng), rng)


def test_it_counts_the_full_deck_when_the_cards_are_named_by_the_players():
    game = Game.start(["Ann", "Bob"]).draw(card="BONUS_300")
    assert remaining_cards(game) is None


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


# --- the chance to win (two players, a goal) --------------------------------------------------------


def test_the_turns_behind_the_win_table_are_consistent():
    assert sum(n for *_, n in GAINS) == TURNS
    for led, hit, reach, gain, n in GAINS:
        assert led in (0, 1) and hit in (0, 1) and n > 0
        assert 0 <= gain <= reach <= CAP
        assert not (led and hit)  # a sole leader discards a Vengeance: it never hits


def test_the_turns_behind_the_win_table_are_the_scripts():
    """The script's first turns are a part of what the data file counts (it plays the same games
    from the same seeds), and what the script writes is the module's form."""
    path = Path(__file__).resolve().parents[3] / "scripts" / "fill_or_bust_gains.py"
    spec = importlib.util.spec_from_file_location("fill_or_bust_gains_script", path)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    fresh = script.record(400)
    counted = {(led, hit, reach, gain): n for led, hit, reach, gain, n in GAINS}
    assert all(counted.get(key, 0) >= n for key, n in fresh.items())
    written: dict[str, object] = {}
    exec(script.render(fresh), written)  # noqa: S102 - the script's own output
    assert written["TURNS"] == 400
    assert written["GAINS"] == tuple((*key, n) for key, n in sorted(fresh.items()))


def test_the_win_table_is_a_table_of_chances_that_more_points_never_lower():
    wins = _wins(100, 50)  # to 5,000, a Vengeance takes 2,500
    assert all(0.0 <= w <= 1.0 for row in wins for w in row)
    assert all(wins[m + 1][o] >= wins[m][o] - 1e-9 for m in range(99) for o in range(100))
    assert all(wins[m][o + 1] <= wins[m][o] + 1e-9 for m in range(100) for o in range(99))
    assert 0.5 < wins[0][0] < 0.6  # the player about to play is a little ahead
    assert wins[99][0] > 0.99


def bonus_card_with(points: int, dice_left: int, scores: dict[str, int], card: str = "BONUS_300") -> Game:
    """Ann under `card` in a game to 5,000, `points` at risk and `dice_left` dice to toss."""
    toss, keep = {3: ((1, 1, 5, 2, 3, 4), (1, 1, 5)), 1: ((1, 1, 1, 5, 5, 2), (1, 1, 1, 5, 5))}[dice_left]
    game = Game.start(["Ann", "Bob"], scores=scores, goal=5000).draw(card=card).toss(toss).keep(keep)
    game = replace(game, card_points=points)
    assert game.phase is Phase.TOSS and game.dice_to_toss == dice_left
    return game


def test_it_takes_a_small_safe_bank_when_far_ahead_near_the_goal():
    # 250 on three dice: tossing is worth more points, but 4,800 against 1,950 nearly wins.
    assert choose_action(bonus_card_with(250, 3, {"Ann": 0, "Bob": 0}), "strong", random.Random(1)).kind is ActionKind.TOSS
    ahead = bonus_card_with(250, 3, {"Ann": 4550, "Bob": 1950})
    assert choose_action(ahead, "strong", random.Random(1)).kind is ActionKind.STOP


def test_it_takes_a_risk_when_well_behind_late_in_the_game():
    # BONUS 400, 450 on one die: a stop for points, but 2,500 against 3,700 seldom wins; a Fill
    # (a third of the time: 900 or more and another card) makes it a race again.
    even = bonus_card_with(450, 1, {"Ann": 0, "Bob": 0}, "BONUS_400")
    assert choose_action(even, "strong", random.Random(1)).kind is ActionKind.STOP
    behind = bonus_card_with(450, 1, {"Ann": 2050, "Bob": 3700}, "BONUS_400")
    assert choose_action(behind, "strong", random.Random(1)).kind is ActionKind.TOSS
