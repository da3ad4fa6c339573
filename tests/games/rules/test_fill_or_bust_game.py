"""A whole game of Fill or Bust (docs/RULES.md §1.2, §1.4, §1.5): the turn, the cards, the deck, the end.

Most turns are written as `play_turn` steps, the contract's replay format, so each test reads
like the worked example it checks; `Game` is used directly where a test needs what happens
between steps or after the turn (legal buttons, the deck, the goal, the clock, the show down).

No Django here: run with `python -m pytest -p no:django tests/games/rules/test_fill_or_bust*.py`.
"""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from games.rules.fill_or_bust import (
    DECK_COMPOSITION,
    FULL_DECK,
    Action,
    ActionKind,
    BotStyle,
    Card,
    Deck,
    EndReason,
    Game,
    IllegalMove,
    Options,
    Phase,
    TurnOutcome,
    bot_decide,
    choose_first_player,
    new_game,
    play_bot_game,
    play_bot_turn,
    play_turn,
)

A = ActionKind


def turn(*steps, scores=None, options=None):
    """Ann's turn; returns the scoresheet after it."""
    return play_turn(scores or {"Ann": 0, "Ben": 0}, "Ann", steps, options=options or Options())


def game_with(card, *, scores=None, options=None, goal=None, first="Ann"):
    """A game without a deck (cards named by the caller) where `first` has just turned over `card`."""
    game = Game.start(
        list(scores or {"Ann": 0, "Ben": 0}),
        scores=scores,
        options=options or Options(),
        goal=goal,
        first=first,
    )
    return game.draw(card=card)


def fill_with(game, *tosses):
    """Toss and keep every die of each toss (each must score as a whole)."""
    for toss in tosses:
        game = game.toss(toss).keep(toss)
    return game


class ScriptedRng(random.Random):
    """Dice that come out in a given order (for rolls where the test needs to know them)."""

    def __init__(self, faces):
        super().__init__(0)
        self.faces = list(faces)

    def randint(self, a, b):
        return self.faces.pop(0)


# --- the worked examples of docs/RULES.md §1.6 (turns) -----------------------------------------------


def test_a_keep_of_all_scoring_dice_of_1_1_1_5_2_3_leaves_two_dice_to_toss():
    game = game_with(Card.BONUS_300).toss([1, 1, 1, 5, 2, 3]).keep([1, 1, 1, 5])
    assert game.card_points == 1050
    assert game.dice_to_toss == 2


def test_a_keep_of_only_the_three_1s_leaves_three_dice_to_toss():
    game = game_with(Card.BONUS_300).toss([1, 1, 1, 5, 2, 3]).keep([1, 1, 1])
    assert game.card_points == 1000
    assert game.dice_to_toss == 3


def test_a_straight_on_the_first_toss_of_a_card_is_a_fill():
    game = game_with(Card.BONUS_300).toss([1, 2, 3, 4, 5, 6]).keep([1, 2, 3, 4, 5, 6])
    assert game.phase is Phase.BANK_OR_CONTINUE
    assert game.card_points == 1500 + 300


def test_tossing_2_4_6_after_keeping_three_1s_busts_and_the_turn_banks_nothing():
    after = turn(
        ("card", "BONUS_500"), ("toss", [1, 1, 1, 2, 4, 6]), ("keep", [1, 1, 1]), ("toss", [2, 4, 6])
    )
    assert after == {"Ann": 0, "Ben": 0}


def test_six_2s_are_a_fill_worth_400():
    game = game_with(Card.BONUS_300).toss([2] * 6).keep([2] * 6)
    assert game.phase is Phase.BANK_OR_CONTINUE
    assert game.card_points == 400 + 300


def test_three_pairs_bust_the_turn():
    assert turn(("card", "BONUS_300"), ("toss", [2, 2, 4, 4, 6, 6])) == {"Ann": 0, "Ben": 0}


def test_stopping_under_bonus_300_before_a_fill_banks_1100_and_no_bonus():
    after = turn(
        ("card", "BONUS_300"),
        ("toss", [1, 1, 1, 5, 2, 3]),
        ("keep", [1, 1, 1, 5]),
        ("toss", [5, 2]),
        ("keep", [5]),
        ("stop",),
    )
    assert after["Ann"] == 1100


def test_a_bonus_fill_banks_the_bonus():
    after = turn(
        ("card", "BONUS_500"),
        ("toss", [5, 5, 5, 2, 3, 4]),
        ("keep", [5, 5, 5]),
        ("toss", [1, 5, 1]),
        ("keep", [1, 5, 1]),
        ("stop",),
    )
    assert after["Ann"] == 500 + 250 + 500


def test_continuing_after_a_bonus_fill_into_no_dice_loses_the_pending_1000():
    after = turn(
        ("card", "BONUS_400"),
        ("toss", [4, 4, 4, 1, 5, 5]),
        ("keep", [4, 4, 4, 1, 5, 5]),
        ("continue",),
        ("card", "NO_DICE"),
        scores={"Ann": 2000, "Ben": 0},
    )
    assert after["Ann"] == 2000


def test_a_fill_1000_fill_worth_700_banks_1700():
    after = turn(("card", "FILL_1000"), ("toss", [5, 5, 5, 1, 5, 5]), ("keep", [5, 5, 5, 1, 5, 5]), ("stop",))
    assert after["Ann"] == 1700


def test_must_bust_banks_everything_tossed_under_it_when_it_finally_busts():
    after = turn(
        ("card", "MUST_BUST"),
        ("toss", [1, 5, 5, 2, 3, 6]),
        ("keep", [1, 5, 5]),
        ("toss", [1, 1, 1]),
        ("keep", [1, 1, 1]),
        ("toss", [2, 3, 4, 6, 6, 2]),
    )
    assert after["Ann"] == 1200


def test_must_bust_tosses_all_six_again_after_a_fill_without_a_new_card():
    game = fill_with(game_with(Card.MUST_BUST).toss([1, 5, 5, 2, 3, 6]).keep([1, 5, 5]), [1, 1, 1])
    assert game.card is Card.MUST_BUST
    assert game.phase is Phase.TOSS
    assert game.dice_to_toss == 6


def test_double_trouble_banks_twice_two_fills_in_a_row_and_may_end_or_continue():
    game = game_with(Card.DOUBLE_TROUBLE)
    game = fill_with(game, [5, 5, 5, 1, 5, 5])  # 700
    assert game.phase is Phase.TOSS and game.dice_to_toss == 6  # no new card
    game = fill_with(game, [3, 3, 3, 1, 1, 5])  # 550
    assert game.scores["Ann"] == 2 * (700 + 550) == 2500
    assert game.legal_actions() == (A.END, A.CONTINUE)
    assert game.at_risk == 0


def test_vengeance_hits_both_tied_leaders_and_spares_the_others():
    scores = {"A": 6000, "B": 8000, "C": 8000, "D": 3000}
    after = play_turn(
        scores,
        "A",
        [("card", "VENGEANCE_2500"), ("play",), ("toss", [4, 4, 4, 5, 5, 5]), ("keep", [4, 4, 4, 5, 5, 5])],
    )
    assert after == {"A": 6900, "B": 5500, "C": 5500, "D": 3000}


def test_a_vengeance_drawn_by_the_sole_leader_is_discarded_and_another_card_drawn():
    scores = {"Ann": 9000, "Ben": 4000}
    game = Game.start(list(scores), scores=scores, deck=Deck((Card.VENGEANCE_2500, Card.BONUS_300)))
    game = game.draw(random.Random(0))
    assert game.phase is Phase.DRAW
    assert game.card is None
    assert game.deck is not None
    assert game.deck.discards == (Card.VENGEANCE_2500,)
    assert game.draw(random.Random(0)).card is Card.BONUS_300
    after = play_turn(
        scores,
        "Ann",
        [
            ("card", "VENGEANCE_2500"),
            ("card", "BONUS_300"),
            ("toss", [1, 2, 3, 4, 6, 6]),
            ("keep", [1]),
            ("stop",),
        ],
    )
    assert after == {"Ann": 9100, "Ben": 4000}


def test_with_combo_5_a_last_2_and_3_fill_and_without_it_they_bust():
    steps = [("card", "BONUS_300"), ("toss", [1, 1, 5, 5, 2, 3]), ("keep", [1, 1, 5, 5]), ("toss", [2, 3])]
    with_combo = play_turn(
        {"Ann": 0}, "Ann", [*steps, ("keep", [2, 3]), ("stop",)], options=Options(combo5=True)
    )
    assert with_combo["Ann"] == 300 + 50 + 300
    assert play_turn({"Ann": 0}, "Ann", steps) == {"Ann": 0}


# --- each card's banking rules (docs/RULES.md §1.4) ------------------------------------------------------


def test_no_dice_ends_the_turn_at_once_and_banks_nothing():
    game = game_with(Card.NO_DICE)
    assert game.player == "Ben"
    assert game.turns[-1].outcome is TurnOutcome.NO_DICE
    assert turn(("card", "NO_DICE"), scores={"Ann": 700, "Ben": 0}) == {"Ann": 700, "Ben": 0}


@pytest.mark.parametrize("card", ["BONUS_300", "FILL_1000", "DOUBLE_TROUBLE", "VENGEANCE_2500"])
def test_a_bust_under_any_card_but_must_bust_loses_every_unbanked_point(card):
    choice = [("play",)] if card == "VENGEANCE_2500" else []
    after = turn(
        ("card", "BONUS_300"),
        ("toss", [1, 1, 1, 5, 5, 5]),
        ("keep", [1, 1, 1, 5, 5, 5]),
        ("continue",),
        ("card", card),
        *choice,
        ("toss", [1, 2, 3, 4, 6, 6]),
        ("keep", [1]),
        ("toss", [2, 2, 3, 4, 6]),
        scores={"Ann": 100, "Ben": 500},
    )
    assert after == {"Ann": 100, "Ben": 500}


def test_stopping_under_a_bonus_card_banks_pending_and_card_points_but_no_bonus():
    game = game_with(Card.BONUS_300)
    game = fill_with(game, [1, 1, 1, 5, 5, 5]).continue_turn()  # 1800 pending
    game = game.draw(card=Card.BONUS_500).toss([5, 2, 3, 4, 6, 6]).keep([5]).stop()
    assert game.scores["Ann"] == 1800 + 50


def test_continuing_after_a_fill_makes_the_card_points_pending_and_asks_for_a_card():
    game = fill_with(game_with(Card.FILL_1000), [5, 5, 5, 1, 5, 5]).continue_turn()
    assert game.pending == 1700
    assert game.card is None
    assert game.legal_actions() == (A.DRAW,)


def test_a_must_bust_bust_banks_the_pending_points_too():
    game = fill_with(game_with(Card.BONUS_300), [1, 1, 1, 5, 5, 5]).continue_turn()  # 1800 pending
    game = game.draw(card=Card.MUST_BUST).toss([1, 2, 2, 3, 4, 6]).keep([1]).toss([2, 2, 3, 4, 6])
    assert game.scores["Ann"] == 1800 + 100
    assert game.turns[-1].outcome is TurnOutcome.MUST_BUST


def test_under_must_bust_every_toss_must_set_aside_the_maximal_selection():
    game = game_with(Card.MUST_BUST).toss([1, 5, 5, 2, 3, 6])
    assert game.legal_keeps() == (((1, 5, 5), 200),)
    with pytest.raises(IllegalMove, match=r"maximal selection: \[1, 5, 5\]"):
        game.keep([1])


def test_double_trouble_banks_pending_points_doubled_too():
    game = fill_with(game_with(Card.BONUS_300), [1, 1, 1, 5, 5, 5]).continue_turn()  # 1800 pending
    game = fill_with(game.draw(card=Card.DOUBLE_TROUBLE), [2] * 6, [3] * 6)  # 400, then 600
    assert game.scores["Ann"] == 2 * (1800 + 400 + 600)


def test_after_a_double_trouble_bank_nothing_is_at_risk_when_continuing():
    game = fill_with(game_with(Card.DOUBLE_TROUBLE), [2] * 6, [3] * 6).continue_turn()
    assert game.pending == 0
    game = game.draw(card=Card.FILL_1000).toss([1, 2, 2, 3, 4, 6]).keep([1]).toss([2, 2, 3, 4, 6])
    assert game.scores["Ann"] == 2000
    assert game.turns[-1].outcome is TurnOutcome.BUST


def test_after_a_vengeance_bank_the_steps_may_simply_end():
    after = play_turn(
        {"Ann": 0, "Ben": 3000},
        "Ann",
        [("card", "VENGEANCE_2500"), ("play",), ("toss", [2] * 6), ("keep", [2] * 6)],
    )
    assert after == {"Ann": 400, "Ben": 500}


def test_stop_after_a_vengeance_bank_is_end_and_changes_nothing():
    steps = [("card", "VENGEANCE_2500"), ("play",), ("toss", [2] * 6), ("keep", [2] * 6)]
    assert play_turn({"Ann": 0, "Ben": 3000}, "Ann", [*steps, ("stop",)]) == {"Ann": 400, "Ben": 500}


def test_a_declined_vengeance_is_discarded_and_the_turn_goes_on_with_another_card():
    game = game_with(Card.VENGEANCE_2500, scores={"Ann": 0, "Ben": 3000}).decline_vengeance()
    assert game.phase is Phase.DRAW
    after = turn(
        ("card", "VENGEANCE_2500"),
        ("decline",),
        ("card", "BONUS_300"),
        ("toss", [1, 2, 2, 3, 4, 6]),
        ("keep", [1]),
        ("stop",),
        scores={"Ann": 0, "Ben": 3000},
    )
    assert after == {"Ann": 100, "Ben": 3000}


# --- Vengeance targets ------------------------------------------------------------------------------


def test_vengeance_never_takes_a_score_below_zero():
    after = play_turn(
        {"Ann": 0, "Ben": 1000},
        "Ann",
        [("card", "VENGEANCE_2500"), ("play",), ("toss", [2] * 6), ("keep", [2] * 6)],
    )
    assert after == {"Ann": 400, "Ben": 0}


def test_a_drawer_tied_for_the_lead_hits_the_others_tied_with_them():
    scores = {"Ann": 5000, "Ben": 5000, "Cat": 5000, "Dan": 100}
    game = game_with(Card.VENGEANCE_2500, scores=scores)
    assert game.targets == ("Ben", "Cat")
    game = fill_with(game.play_vengeance(), [2] * 6)
    assert game.scores == {"Ann": 5400, "Ben": 2500, "Cat": 2500, "Dan": 100}


def test_vengeance_targets_are_the_leaders_when_the_card_is_drawn():
    # Ann banks a Double Trouble and takes the lead, then draws the Vengeance: Ben (now second) is
    # not a leader any more; Ann is the sole leader and must discard it.
    game = fill_with(game_with(Card.DOUBLE_TROUBLE, scores={"Ann": 0, "Ben": 500}), [2] * 6, [2] * 6)
    game = game.continue_turn().draw(card=Card.VENGEANCE_2500)
    assert game.phase is Phase.DRAW
    assert game.legal_actions() == (A.DRAW,)


def test_in_team_play_the_leaders_are_teams_and_the_house_rule_doubles_the_penalty():
    teams = {"Reds": 6000, "Blues": 9000, "Greens": 9000}
    after = play_turn(
        teams,
        "Reds",
        [("card", "VENGEANCE_2500"), ("play",), ("toss", [2] * 6), ("keep", [2] * 6)],
        options=Options(vengeance=5000),
    )
    assert after == {"Reds": 6400, "Blues": 4000, "Greens": 4000}


def test_a_vengeance_must_be_filled():
    game = game_with(Card.VENGEANCE_2500, scores={"Ann": 0, "Ben": 100}).play_vengeance()
    game = game.toss([1, 2, 2, 3, 4, 6]).keep([1])
    assert game.legal_actions() == (A.TOSS,)


# --- house rules (docs/RULES.md §1.5) -------------------------------------------------------------------


def test_the_must_bust_penalty_subtracts_the_points_tossed_under_the_card_and_loses_pending():
    steps = [
        ("card", "BONUS_300"),
        ("toss", [1, 1, 1, 5, 5, 5]),
        ("keep", [1, 1, 1, 5, 5, 5]),
        ("continue",),
        ("card", "MUST_BUST"),
        ("toss", [1, 5, 5, 2, 3, 6]),
        ("keep", [1, 5, 5]),
        ("toss", [2, 3, 4]),
    ]
    after = play_turn({"Ann": 1000, "Ben": 0}, "Ann", steps, options=Options(must_bust_penalty=True))
    assert after == {"Ann": 800, "Ben": 0}


def test_the_must_bust_penalty_never_takes_a_score_below_zero():
    steps = [("card", "MUST_BUST"), ("toss", [1, 1, 1, 2, 3, 4]), ("keep", [1, 1, 1]), ("toss", [2, 3, 4])]
    after = play_turn({"Ann": 300, "Ben": 0}, "Ann", steps, options=Options(must_bust_penalty=True))
    assert after == {"Ann": 0, "Ben": 0}


def test_combo_5_turns_a_would_be_bust_into_a_fill_under_must_bust():
    game = game_with(Card.MUST_BUST, options=Options(combo5=True))
    game = game.toss([1, 1, 1, 5, 1, 4]).keep([1, 1, 1, 1, 4, 5])
    assert game.card_points == 1000 + 50 + 50
    assert game.dice_to_toss == 6


# --- the point goal, the clock and the show down (docs/RULES.md §1.2, §1.5) -------------------------------


def test_the_first_to_reach_the_goal_at_a_bank_wins():
    game = game_with(Card.BONUS_300, scores={"Ann": 4900, "Ben": 4000}, goal=5000)
    game = game.toss([1, 2, 2, 3, 4, 6]).keep([1]).stop()
    assert game.is_over
    assert game.winners == ("Ann",)
    assert game.end_reason is EndReason.GOAL
    assert game.legal_actions() == ()


def test_reaching_the_goal_at_a_double_trouble_bank_ends_the_turn_without_end_or_continue():
    game = game_with(Card.DOUBLE_TROUBLE, scores={"Ann": 4000, "Ben": 0}, goal=5000)
    game = fill_with(game, [2] * 6, [2] * 6)
    assert game.is_over
    assert game.turns[-1].outcome is TurnOutcome.REACHED_GOAL


def test_points_at_risk_above_the_goal_do_not_win_until_banked():
    game = (
        game_with(Card.FILL_1000, scores={"Ann": 4900, "Ben": 0}, goal=5000)
        .toss([1, 2, 2, 3, 4, 6])
        .keep([1])
    )
    assert not game.is_over
    game = game.toss([2, 2, 3, 4, 6])
    assert game.player == "Ben"
    assert not game.is_over


def test_time_up_between_turns_ends_the_game_and_lists_tied_leaders():
    game = Game.start(["Ann", "Ben", "Cat"], scores={"Ann": 900, "Ben": 900, "Cat": 100}).time_up()
    assert game.is_over
    assert game.end_reason is EndReason.TIME
    assert game.winners == ("Ann", "Ben")


def test_a_turn_under_way_at_the_buzzer_is_played_out_then_the_game_ends():
    game = game_with(Card.BONUS_300).toss([1, 2, 2, 3, 4, 6]).time_up()
    assert not game.is_over
    assert game.buzzer
    game = game.keep([1]).toss([5, 2, 3, 4, 6]).keep([5]).stop()
    assert game.is_over
    assert game.winners == ("Ann",)
    assert game.scores == {"Ann": 150, "Ben": 0}


def test_the_buzzer_twice_changes_nothing():
    game = game_with(Card.BONUS_300).time_up()
    assert game.time_up() == game


def test_a_timed_game_without_a_goal_goes_on_however_high_the_scores():
    game = fill_with(game_with(Card.DOUBLE_TROUBLE, scores={"Ann": 90_000, "Ben": 0}), [6] * 6, [6] * 6)
    assert not game.is_over


def test_in_a_show_down_everyone_else_gets_one_last_turn_and_the_highest_wins():
    scores = {"Ann": 4900, "Ben": 4000, "Cat": 3000}
    game = game_with(Card.BONUS_300, scores=scores, goal=5000, options=Options(show_down=True))
    game = game.toss([1, 2, 2, 3, 4, 6]).keep([1]).stop()
    assert not game.is_over
    assert game.in_show_down
    assert game.player == "Ben"
    # Ben passes the goal and the top score; his last turn goes on (reaching the goal doesn't end it).
    game = game.draw(card=Card.BONUS_300).toss([1, 1, 1, 2, 3, 4]).keep([1, 1, 1])
    assert game.legal_actions() == (A.TOSS, A.STOP)
    game = game.toss([5, 2, 3]).keep([5]).stop()
    assert game.scores == {"Ann": 5000, "Ben": 5050, "Cat": 3000}
    assert game.player == "Cat"
    game = game.draw(card=Card.NO_DICE)
    assert game.is_over
    assert game.end_reason is EndReason.SHOW_DOWN
    assert game.winners == ("Ben",)


def test_a_vengeance_in_the_show_down_that_drops_everyone_below_the_goal_resumes_normal_play():
    scores = {"Ann": 4900, "Ben": 2000, "Cat": 1000}
    game = game_with(Card.BONUS_300, scores=scores, goal=5000, options=Options(show_down=True))
    game = game.toss([1, 2, 2, 3, 4, 6]).keep([1]).stop()  # Ann 5000: show down
    game = fill_with(game.draw(card=Card.VENGEANCE_2500).play_vengeance(), [2] * 6)  # Ann 2500, Ben 2400
    assert not game.in_show_down
    game = game.end_turn().draw(card=Card.NO_DICE)  # Cat
    assert not game.is_over
    assert game.player == "Ann"  # Ann plays again: normal play


def test_the_next_to_reach_the_goal_after_a_cancelled_show_down_starts_a_new_one():
    scores = {"Ann": 4900, "Ben": 4500, "Cat": 1000}
    game = game_with(Card.BONUS_300, scores=scores, goal=5000, options=Options(show_down=True))
    game = game.toss([1, 2, 2, 3, 4, 6]).keep([1]).stop()  # Ann 5000: show down
    game = fill_with(game.draw(card=Card.VENGEANCE_2500).play_vengeance(), [2] * 6)  # Ben 4900, Ann 2500
    assert not game.in_show_down
    game = game.continue_turn().draw(card=Card.BONUS_300).toss([1, 2, 2, 3, 4, 6]).keep([1]).stop()
    assert game.scores["Ben"] == 5000
    assert game.in_show_down
    assert game.show_down_from == "Ben"
    assert game.player == "Cat"


# --- legal actions and refusals ------------------------------------------------------------------


def test_legal_actions_follow_the_turn():
    game = Game.start(["Ann", "Ben"])
    assert game.legal_actions() == (A.DRAW,)
    game = game.draw(card=Card.BONUS_300)
    assert game.legal_actions() == (A.TOSS,)
    game = game.toss([1, 2, 2, 3, 4, 6])
    assert game.legal_actions() == (A.KEEP,)
    game = game.keep([1])
    assert game.legal_actions() == (A.TOSS, A.STOP)
    game = game.toss([1, 1, 1, 5, 5])
    game = game.keep([1, 1, 1, 5, 5])
    assert game.legal_actions() == (A.STOP, A.CONTINUE)


def test_the_game_says_how_many_dice_to_toss():
    game = game_with(Card.BONUS_300)
    assert game.dice_to_toss == 6
    game = game.toss([1, 5, 2, 3, 4, 6])
    assert game.dice_to_toss == 0  # a keep comes first
    assert game.keep([5]).dice_to_toss == 5


@pytest.mark.parametrize("card", ["FILL_1000", "DOUBLE_TROUBLE"])
def test_stopping_under_a_card_that_must_be_filled_is_refused(card):
    with pytest.raises(IllegalMove, match="must be filled"):
        turn(("card", card), ("toss", [1, 2, 2, 3, 4, 6]), ("keep", [1]), ("stop",))


def test_stopping_under_vengeance_or_must_bust_is_refused():
    with pytest.raises(IllegalMove, match="must be filled"):
        play_turn(
            {"Ann": 0, "Ben": 1},
            "Ann",
            [("card", "VENGEANCE_2500"), ("play",), ("toss", [1, 2, 2, 3, 4, 6]), ("keep", [1]), ("stop",)],
        )
    with pytest.raises(IllegalMove, match="until you bust"):
        turn(("card", "MUST_BUST"), ("toss", [1, 2, 2, 3, 4, 6]), ("keep", [1]), ("stop",))


def test_stopping_under_a_bonus_card_before_any_toss_is_refused():
    with pytest.raises(IllegalMove, match="Toss at least once"):
        turn(("card", "BONUS_300"), ("stop",))


def test_an_illegal_keep_is_refused_with_the_reason():
    with pytest.raises(IllegalMove, match=r"You kept a 3, which scores nothing in \[1, 3, 5, 2, 2, 6\]"):
        turn(("card", "BONUS_300"), ("toss", [1, 3, 5, 2, 2, 6]), ("keep", [1, 3]))


@pytest.mark.parametrize("keep", [[], [5, 5], [7], "15"])
def test_keeps_that_are_not_part_of_the_toss_are_refused(keep):
    game = game_with(Card.BONUS_300).toss([1, 5, 2, 3, 4, 6])
    with pytest.raises(IllegalMove):
        game.keep(keep)


@pytest.mark.parametrize("thrown", [[1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 6, 1], [1, 2, 3, 4, 5, 9], []])
def test_tossing_the_wrong_dice_is_refused(thrown):
    with pytest.raises(IllegalMove):
        game_with(Card.BONUS_300).toss(thrown)


def test_tossing_more_dice_than_are_left_is_refused_with_the_count():
    game = game_with(Card.BONUS_300).toss([1, 1, 1, 2, 3, 4]).keep([1, 1, 1])
    with pytest.raises(IllegalMove, match="Toss 3 dice"):
        game.toss([1, 2, 3, 4])


def test_steps_after_the_turn_ended_are_refused():
    with pytest.raises(IllegalMove, match="after the turn ended"):
        turn(("card", "BONUS_300"), ("toss", [2, 3, 4, 6, 6, 2]), ("toss", [1, 1, 1, 1, 1, 1]))
    with pytest.raises(IllegalMove, match="after the turn ended"):
        turn(("card", "NO_DICE"), ("card", "BONUS_300"))
    with pytest.raises(IllegalMove, match="after the turn ended"):
        turn(("card", "BONUS_300"), ("toss", [1, 2, 2, 3, 4, 6]), ("keep", [1]), ("stop",), ("stop",))


@pytest.mark.parametrize(
    "steps",
    [
        [],
        [("card", "BONUS_300")],
        [("card", "BONUS_300"), ("toss", [1, 2, 2, 3, 4, 6])],
        [("card", "BONUS_300"), ("toss", [1, 2, 2, 3, 4, 6]), ("keep", [1])],
        [("card", "FILL_1000"), ("toss", [2] * 6), ("keep", [2] * 6)],
        [("card", "FILL_1000"), ("toss", [2] * 6), ("keep", [2] * 6), ("continue",)],
        [("card", "VENGEANCE_2500")],
    ],
    ids=["nothing", "a card", "a toss", "a keep", "a fill", "a continue", "a vengeance"],
)
def test_steps_that_end_before_the_turn_is_over_are_refused(steps):
    with pytest.raises(IllegalMove, match="before the turn is over"):
        play_turn({"Ann": 0, "Ben": 10}, "Ann", steps)


@pytest.mark.parametrize(
    "steps",
    [
        [("play",)],
        [("card", "BONUS_300"), ("play",)],
        [("card", "BONUS_300"), ("decline",)],
        [("card", "BONUS_300"), ("continue",)],
        [("card", "BONUS_300"), ("keep", [1])],
        [("card", "BONUS_300"), ("card", "BONUS_400")],
        [("card", "JOKER")],
        [("toss",)],
        [("roll", [1, 2, 3, 4, 5, 6])],
        ["stop"],
        [()],
    ],
)
def test_steps_the_rules_do_not_allow_are_refused(steps):
    with pytest.raises(IllegalMove):
        turn(*steps)


def test_the_sole_leader_may_not_play_a_vengeance():
    with pytest.raises(IllegalMove):
        play_turn({"Ann": 100, "Ben": 0}, "Ann", [("card", "VENGEANCE_2500"), ("play",)])


def test_a_player_not_on_the_scoresheet_cannot_take_a_turn():
    with pytest.raises(IllegalMove, match="not on the scoresheet"):
        play_turn({"Ann": 0}, "Zed", [("card", "NO_DICE")])


def test_an_illegal_call_changes_nothing():
    game = game_with(Card.FILL_1000).toss([1, 2, 2, 3, 4, 6])
    before = game.to_dict()
    for attempt in (
        game.stop,
        game.continue_turn,
        game.end_turn,
        game.play_vengeance,
        lambda: game.keep([2]),
    ):
        with pytest.raises(IllegalMove):
            attempt()
    assert game.to_dict() == before


def test_every_action_is_refused_once_the_game_is_over():
    game = Game.start(["Ann", "Ben"]).time_up()
    for kind in ActionKind:
        with pytest.raises(IllegalMove, match="game is over"):
            game.apply(Action(kind, (1,)))


def test_the_errors_are_value_errors():
    assert issubclass(IllegalMove, ValueError)


# --- the deck (docs/RULES.md §1.1, §1.2) ---------------------------------------------------------------


def test_the_deck_holds_the_54_cards_of_the_rule_sheet():
    assert len(FULL_DECK) == 54
    assert Counter(Deck.shuffled(random.Random(1)).draw_pile) == Counter(DECK_COMPOSITION)
    assert DECK_COMPOSITION[Card.BONUS_300] == 12 and DECK_COMPOSITION[Card.DOUBLE_TROUBLE] == 2


def test_the_same_seed_shuffles_the_same_deck():
    assert Deck.shuffled(random.Random(7)) == Deck.shuffled(random.Random(7))


def test_when_the_draw_pile_runs_out_the_discards_are_reshuffled_into_a_new_pile():
    deck = Deck((), (Card.BONUS_300, Card.NO_DICE, Card.FILL_1000))
    card, deck = deck.draw(random.Random(3))
    assert deck.discards == ()
    assert Counter((card, *deck.draw_pile)) == Counter([Card.BONUS_300, Card.NO_DICE, Card.FILL_1000])


def test_a_game_with_a_deck_discards_every_card_it_is_done_with():
    game = new_game(["Ann", "Ben"], random.Random(5), first="Ann")
    rng = random.Random(6)
    for _ in range(30):
        game = play_bot_turn(game, rng)
        in_play = 0 if game.card is None else 1
        assert game.deck is not None
        assert len(game.deck) + in_play == 54


def test_a_game_with_a_deck_refuses_a_named_card_and_a_game_without_one_needs_it():
    with pytest.raises(IllegalMove, match="own deck"):
        new_game(["Ann", "Ben"], random.Random(1)).draw(random.Random(1), card=Card.BONUS_300)
    with pytest.raises(IllegalMove, match="no deck"):
        Game.start(["Ann", "Ben"]).draw(random.Random(1))


# --- setting up -----------------------------------------------------------------------------------


def test_the_highest_single_die_starts_and_ties_roll_again():
    # Ann 5, Ben 5, Cat 2; then Ann 3, Ben 6.
    assert choose_first_player(["Ann", "Ben", "Cat"], ScriptedRng([5, 5, 2, 3, 6])) == "Ben"


def test_a_new_game_needs_two_or_more_players():
    with pytest.raises(IllegalMove, match="two or more"):
        new_game(["Ann"], random.Random(1))


def test_a_new_game_starts_with_the_roll_winner_at_zero():
    game = new_game(["Ann", "Ben"], ScriptedRng([2, 6]), goal=5000)
    assert game.player == "Ben"
    assert game.scores == {"Ann": 0, "Ben": 0}
    assert game.phase is Phase.DRAW


@pytest.mark.parametrize(
    "kwargs",
    [
        {"seats": []},
        {"seats": ["Ann", "Ann"]},
        {"seats": ["Ann"], "goal": 0},
        {"seats": ["Ann"], "first": "Bob"},
    ],
)
def test_a_game_with_impossible_settings_is_refused(kwargs):
    with pytest.raises(IllegalMove):
        Game.start(**kwargs)


def test_options_refuse_a_negative_vengeance():
    with pytest.raises(ValueError):
        Options(vengeance=-1)


# --- saving and turns ----------------------------------------------------------------------------


def test_a_game_survives_a_round_trip_through_json():
    game = new_game(["Ann", "Ben", "Cat"], random.Random(2), goal=3000, options=Options(show_down=True))
    rng = random.Random(4)
    for _ in range(12):
        game = play_bot_turn(game, rng)
    game = game.draw(rng)
    data = json.loads(json.dumps(game.to_dict()))
    assert Game.from_dict(data) == game


def test_each_finished_turn_is_recorded_in_a_form_play_turn_replays():
    game = new_game(["Ann", "Ben"], random.Random(8), goal=4000)
    game = play_bot_game(game, random.Random(9))
    for record in game.turns:
        assert play_turn(record.scores_before, record.player, record.steps) == record.scores_after


# --- the bot -------------------------------------------------------------------------------------


def test_bots_play_a_whole_game_to_the_goal():
    game = play_bot_game(
        new_game(["Ann", "Ben", "Cat", "Dan"], random.Random(11), goal=10_000), random.Random(12)
    )
    assert game.is_over
    assert game.end_reason is EndReason.GOAL
    assert game.scores[game.winners[0]] >= 10_000


def test_bots_play_a_timed_game_to_the_buzzer():
    game = play_bot_game(new_game(["Ann", "Ben"], random.Random(1)), random.Random(2), max_turns=10)
    assert game.end_reason is EndReason.TIME
    assert len(game.turns) == 10


def test_a_bot_sets_aside_every_scoring_die_when_the_card_must_be_filled():
    game = game_with(Card.FILL_1000).toss([1, 5, 2, 3, 4, 4])
    assert bot_decide(game, random.Random(0)) == Action(A.KEEP, (1, 5))


def test_a_bot_stops_when_banking_wins_the_game():
    game = (
        game_with(Card.BONUS_300, scores={"Ann": 9950, "Ben": 0}, goal=10_000)
        .toss([1, 2, 2, 3, 4, 6])
        .keep([1])
    )
    assert bot_decide(game, random.Random(0)) == Action(A.STOP)


def test_a_bot_always_continues_when_nothing_is_at_risk():
    game = fill_with(game_with(Card.DOUBLE_TROUBLE), [2] * 6, [2] * 6)
    assert bot_decide(game, random.Random(0)) == Action(A.CONTINUE)


def test_a_bot_plays_a_vengeance_with_little_pending_and_declines_it_with_a_lot():
    game = game_with(Card.VENGEANCE_2500, scores={"Ann": 0, "Ben": 5000})
    assert bot_decide(game, random.Random(0)) == Action(A.PLAY)
    assert bot_decide(game, random.Random(0), style=BotStyle(vengeance_risk=-1)) == Action(A.DECLINE)


def test_a_bot_in_a_show_down_keeps_going_until_it_beats_the_top_score():
    scores = {"Ann": 4950, "Ben": 4000}
    game = game_with(Card.BONUS_300, scores=scores, goal=5000, options=Options(show_down=True))
    game = game.toss([1, 2, 2, 3, 4, 6]).keep([1]).stop()  # Ann 5050: Ben's last turn
    game = game.draw(card=Card.BONUS_300).toss([1, 1, 1, 2, 3, 4]).keep([1, 1, 1])
    assert game.at_risk + game.scores["Ben"] == 5000  # past the goal, not past Ann
    assert bot_decide(game, random.Random(0)) == Action(A.TOSS)
    game = game.toss([1, 2, 3]).keep([1])
    assert bot_decide(game, random.Random(0)) == Action(A.STOP)
