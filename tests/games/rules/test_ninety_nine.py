"""Ninety-Nine or Bust (docs/RULES.md §2): the count, the deck and a refereed game.

Every worked example of §2 is a test; every (count, card) pair is checked against a reference
written here; whole games played with random legal cards keep the deck, the count and the hands
within the rules at every step.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules import dice
from games.rules.ninety_nine import (
    CARDS,
    CLOCKWISE,
    COUNTER_CLOCKWISE,
    DEFAULT_DECK,
    GAME_OVER,
    PLAYING,
    ROUND_OVER,
    Game,
    IllegalPlay,
    Rules,
    bot_card,
    deck_counts,
    legal_cards,
    make_deck,
    play_card,
)

SPECIALS = ("minus_10", "hold", "reverse", "99")


def make_game(**fields) -> Game:
    """A game in the middle of a round, built by hand (it need not hold a whole deck)."""
    players = fields.setdefault("players", ("ann", "bob", "cy", "dee"))
    fields.setdefault("rules", Rules())
    fields.setdefault("markers", (4,) * len(players))
    fields.setdefault("dealer", len(players) - 1)
    fields.setdefault("hands", tuple((1, 2, 3) for _ in players))
    fields.setdefault("draw_pile", (4, 5, 6, 7, 8, 10))
    fields.setdefault("played", ("hold",))
    fields.setdefault("count", 0)
    fields.setdefault("direction", CLOCKWISE)
    fields.setdefault("turn", 0)
    fields.setdefault("phase", PLAYING)
    return Game(**fields)


def play_whole_game(
    game: Game, rng: random.Random, choose, check=lambda game: None, limit: int = 20_000
) -> Game:
    for _ in range(limit):
        check(game)
        if game.phase == GAME_OVER:
            return game
        if game.phase == ROUND_OVER:
            game = game.next_deal(rng)
        else:
            assert game.turn is not None
            game = game.play(game.turn, choose(game, rng), rng)
    raise AssertionError(f"no winner after {limit} actions")


def by_bot(game: Game, rng: random.Random):
    assert game.turn is not None
    return bot_card(game.hand(game.turn), game.count)


def at_random(game: Game, rng: random.Random):
    assert game.turn is not None
    return dice.choice(rng, legal_cards(game.hand(game.turn), game.count))


def reference_count(count: int, card) -> int | None:
    """docs/RULES.md §2 read literally; None when the card may not be played."""
    if card in (1, 2, 3, 4, 5, 6, 7, 8, 10):
        return count + card if count + card <= 99 else None
    return {"minus_10": max(count - 10, 0), "hold": count, "reverse": count, "99": 99}[card]


# --- the worked examples of docs/RULES.md §2 -----------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "card", "new_count"),
    [(0, 7, 7), (90, 8, 98), (89, 10, 99), (98, 1, 99), (97, "minus_10", 87), (42, "99", 99)],
)
def test_playing_a_card_sets_the_count_as_the_examples_say(count, card, new_count):
    assert play_card(count, card) == new_count


def test_a_ten_on_ninety_is_not_allowed():
    with pytest.raises(IllegalPlay, match="100"):
        play_card(90, 10)


def test_holding_five_seven_and_eight_at_ninety_five_loses_the_round_and_a_marker():
    assert legal_cards([5, 7, 8], 95) == []
    game = make_game(count=90, hands=((5, 2, 3), (5, 7, 8), (1, 2, 3), (1, 2, 3)), draw_pile=(4, 4))
    game = game.play(0, 5, random.Random(0))
    assert game.count == 95
    assert game.phase == ROUND_OVER
    assert game.loser == 1
    assert game.markers == (4, 3, 4, 4)
    assert [event.kind for event in game.events] == ["played", "lost_round"]
    assert game.events[-1].cards == (5, 7, 8)


def test_a_reverse_by_seat_one_of_four_hands_the_turn_back_to_seat_zero():
    game = make_game(count=33, turn=1, hands=((1, 2, 3), ("reverse", 2, 3), (1, 2, 3), (1, 2, 3)))
    game = game.play(1, "reverse", random.Random(0))
    assert game.count == 33
    assert game.turn == 0
    assert game.direction == COUNTER_CLOCKWISE
    game = game.play(0, 1, random.Random(0))
    assert game.turn == 3


def test_a_player_with_one_marker_who_loses_a_round_is_out_and_the_last_one_in_wins():
    game = make_game(
        players=("ann", "bob"),
        markers=(2, 1),
        count=92,
        hands=((7, 2, 3), (8, 10, 10)),
        draw_pile=(4,),
    )
    game = game.play(0, 7, random.Random(0))
    assert game.markers == (2, 0)
    assert game.phase == GAME_OVER
    assert game.winner == 0
    assert [event.kind for event in game.events] == ["played", "lost_round", "out", "won"]
    with pytest.raises(IllegalPlay, match="over"):
        game.next_deal(random.Random(0))


def test_a_player_who_goes_out_leaves_the_others_playing():
    game = make_game(markers=(4, 1, 4, 4), count=95, hands=((4, 2, 3), (5, 7, 8), (1, 2, 3), (1, 2, 3)))
    game = game.play(0, 4, random.Random(0))
    assert game.markers == (4, 0, 4, 4)
    assert game.phase == ROUND_OVER
    assert game.active == (0, 2, 3)
    game = game.next_deal(random.Random(1))
    assert game.hand(1) == ()
    assert (game.dealer, game.turn) == (0, 2)  # seat 1, out, neither deals nor starts
    assert game.turn is not None
    game = game.play(game.turn, game.hand(game.turn)[0], random.Random(1))
    assert game.turn == 3


# --- every (count, card) --------------------------------------------------------------------------


def test_every_count_and_card_plays_as_the_reference_says():
    wrong = []
    for count in range(100):
        for card in CARDS:
            expected = reference_count(count, card)
            try:
                actual = play_card(count, card)
            except IllegalPlay:
                actual = None
            if actual != expected:
                wrong.append((count, card, actual, expected))
    assert wrong == []


def test_minus_ten_never_takes_the_count_below_zero():
    assert [play_card(count, "minus_10") for count in range(12)] == [0] * 11 + [1]


def test_hold_reverse_minus_ten_and_ninety_nine_are_always_legal():
    for count in range(100):
        assert legal_cards(list(SPECIALS), count) == list(SPECIALS)


@pytest.mark.parametrize("card", [9, 0, 11, -1, 99, "9", "7", "skip", None, True, 7.0])
def test_a_card_that_is_not_in_the_deck_is_refused(card):
    with pytest.raises(IllegalPlay, match="no card"):
        play_card(0, card)


@pytest.mark.parametrize("count", [-1, 100, 50.0, "50", True, None])
def test_a_count_outside_zero_to_ninety_nine_is_refused(count):
    with pytest.raises(IllegalPlay, match="count"):
        play_card(count, 1)


def test_an_illegal_play_is_a_value_error():
    assert issubclass(IllegalPlay, ValueError)


@given(count=st.integers(0, 99), card=st.sampled_from(CARDS))
def test_the_count_always_stays_within_zero_and_ninety_nine(count, card):
    try:
        assert 0 <= play_card(count, card) <= 99
    except IllegalPlay:
        assert card in (1, 2, 3, 4, 5, 6, 7, 8, 10) and count + card > 99


def test_legal_cards_keep_the_hand_order_and_duplicates():
    assert legal_cards([10, "hold", 8, 10, 2], 90) == ["hold", 8, 2]


# --- the deck -------------------------------------------------------------------------------------


def test_the_default_deck_is_fifty_two_cards_four_of_each_and_no_nines():
    assert len(DEFAULT_DECK) == 52
    assert Counter(DEFAULT_DECK) == {card: 4 for card in (1, 2, 3, 4, 5, 6, 7, 8, 10, *SPECIALS)}
    assert 9 not in DEFAULT_DECK


def test_a_club_can_change_the_deck():
    rules = Rules.with_deck({1: 8, 2: 8, "hold": 2, "99": 1}, markers=3)
    assert Counter(rules.deck) == {1: 8, 2: 8, "hold": 2, "99": 1}
    assert rules.markers == 3


def test_a_deck_of_unknown_cards_or_negative_copies_is_refused():
    with pytest.raises(IllegalPlay, match="no card 9"):
        make_deck({9: 4})
    with pytest.raises(IllegalPlay, match="0 or more"):
        make_deck({1: -1})
    with pytest.raises(IllegalPlay, match="no card"):
        Rules(deck=(1, 2, "joker"))
    with pytest.raises(IllegalPlay, match="marker"):
        Rules(markers=0)


# --- dealing and turns ----------------------------------------------------------------------------


def test_a_new_game_deals_three_each_and_the_dealers_left_starts_at_zero_clockwise():
    game = Game.start(["ann", "bob", "cy"], random.Random(7), dealer=1)
    assert [len(hand) for hand in game.hands] == [3, 3, 3]
    assert len(game.draw_pile) == 52 - 9
    assert game.played == ()
    assert (game.count, game.direction, game.dealer, game.turn) == (0, CLOCKWISE, 1, 2)
    assert game.markers == (4, 4, 4)
    assert deck_counts(game) == Counter(DEFAULT_DECK)


def test_the_same_seed_deals_the_same_hands():
    assert Game.start(["a", "b"], random.Random(3)) == Game.start(["a", "b"], random.Random(3))
    assert Game.start(["a", "b"], random.Random(3)) != Game.start(["a", "b"], random.Random(4))


def test_a_game_needs_two_players_with_different_names_and_enough_cards():
    with pytest.raises(IllegalPlay, match="at least 2"):
        Game.start(["ann"], random.Random(0))
    with pytest.raises(IllegalPlay, match="different name"):
        Game.start(["ann", "ann"], random.Random(0))
    with pytest.raises(IllegalPlay, match="cannot deal"):
        Game.start(["a", "b"], random.Random(0), rules=Rules.with_deck({1: 6}))
    with pytest.raises(IllegalPlay, match="dealer"):
        Game.start(["a", "b"], random.Random(0), dealer=2)


def test_playing_a_card_puts_it_on_top_and_draws_back_to_three():
    game = make_game(hands=((1, 2, 3), (1, 2, 3), (1, 2, 3), (1, 2, 3)), draw_pile=(8, 10))
    game = game.play(0, 2, random.Random(0))
    assert game.count == 2
    assert game.played[-1] == 2
    assert sorted(game.hand(0)) == [1, 3, 8]
    assert game.draw_pile == (10,)
    assert game.turn == 1


def test_only_the_player_whose_turn_it_is_may_play():
    with pytest.raises(IllegalPlay, match="ann's turn"):
        make_game().play(2, 1, random.Random(0))


def test_a_player_can_only_play_a_card_they_hold():
    with pytest.raises(IllegalPlay, match="holds 1, 2, 3"):
        make_game().play(0, 10, random.Random(0))


def test_a_player_holding_a_legal_card_must_play_one():
    game = make_game(count=95, hands=((10, 8, 2), (1, 2, 3), (1, 2, 3), (1, 2, 3)))
    with pytest.raises(IllegalPlay, match="may not pass 99"):
        game.play(0, 10, random.Random(0))
    assert game.play(0, 2, random.Random(0)).count == 97


def test_with_two_players_a_reverse_acts_like_a_hold():
    game = make_game(players=("ann", "bob"), count=50, hands=(("reverse", 1, 1), (1, 2, 3)))
    game = game.play(0, "reverse", random.Random(0))
    assert (game.count, game.turn, game.direction) == (50, 1, CLOCKWISE)


def test_a_reverse_acts_like_a_hold_when_only_two_players_are_left_in():
    game = make_game(
        players=("ann", "bob", "cy"), markers=(2, 0, 3), hands=(("reverse", 1, 1), (), (1, 2, 3)), turn=0
    )
    game = game.play(0, "reverse", random.Random(0))
    assert (game.turn, game.direction) == (2, CLOCKWISE)


def test_when_the_draw_pile_runs_out_the_played_pile_but_its_top_card_is_reshuffled():
    game = make_game(count=60, draw_pile=(), played=(5, "hold", 7, 10))
    game = game.play(0, 3, random.Random(0))
    assert game.count == 63
    assert game.played == (3,)
    assert len(game.hand(0)) == 3
    assert Counter(game.draw_pile) + Counter(game.hand(0)) == Counter([5, "hold", 7, 10, 1, 2])
    assert [event.kind for event in game.events] == ["played", "reshuffled"]
    assert game.events[1].size == 4


def test_a_player_draws_nothing_when_every_other_card_is_in_a_hand():
    game = make_game(draw_pile=(), played=())
    game = game.play(0, 3, random.Random(0))
    assert sorted(game.hand(0)) == [1, 2]
    assert game.played == (3,)


def test_after_a_lost_round_the_deal_passes_left_and_everything_is_reshuffled():
    start = Game.start(["ann", "bob", "cy"], random.Random(5), dealer=2)
    game = play_whole_game_until(start, ROUND_OVER)
    dealt = game.next_deal(random.Random(6))
    assert dealt.dealer == 0
    assert dealt.turn == 1
    assert (dealt.count, dealt.direction, dealt.played, dealt.round) == (0, CLOCKWISE, (), 2)
    assert all(len(hand) == 3 for hand in dealt.hands)
    assert deck_counts(dealt) == Counter(DEFAULT_DECK)


def test_the_deal_passes_over_a_player_who_is_out():
    game = make_game(markers=(4, 0, 4, 4), dealer=0, phase=ROUND_OVER, hands=((), (), (), ()))
    dealt = game.next_deal(random.Random(0))
    assert dealt.dealer == 2
    assert dealt.turn == 3
    assert dealt.hand(1) == ()


def test_a_round_in_play_cannot_be_dealt_again_and_a_finished_round_cannot_be_played():
    with pytest.raises(IllegalPlay, match="still being played"):
        make_game().next_deal(random.Random(0))
    with pytest.raises(IllegalPlay, match="deal again"):
        make_game(phase=ROUND_OVER).play(0, 1, random.Random(0))


def test_there_is_no_seat_beyond_the_table():
    with pytest.raises(IllegalPlay, match="no seat 4"):
        make_game().view(4)


def play_whole_game_until(game: Game, phase: str) -> Game:
    rng = random.Random(0)
    while game.phase != phase:
        assert game.turn is not None
        game = game.play(game.turn, by_bot(game, rng), rng)
    return game


# --- each phone is a hidden hand ------------------------------------------------------------------


def test_a_seat_sees_its_own_hand_and_only_how_many_cards_the_others_hold():
    game = make_game(hands=((1, 2, 3), (4, 5, 6), (7, 8, 10), ("hold", "99")))
    view = game.view(1)
    assert view.hand == (4, 5, 6)
    assert [player.cards for player in view.players] == [3, 3, 3, 2]
    assert not hasattr(view.players[0], "hand")
    assert view.draw_pile == 6
    assert view.top_card == "hold"
    assert not view.your_turn
    assert view.legal == ()


def test_the_seat_whose_turn_it_is_sees_its_legal_cards():
    game = make_game(count=92, hands=((10, "hold", 7), (1, 2, 3), (1, 2, 3), (1, 2, 3)))
    view = game.view(0)
    assert view.your_turn
    assert view.legal == ("hold", 7)


def test_no_view_shows_another_hand_or_the_draw_pile_order():
    game = Game.start(["ann", "bob", "cy"], random.Random(11))
    secret = {seat: game.hand(seat) for seat in range(3)}
    for seat in range(3):
        view = game.view(seat)
        shown = repr([value for name, value in vars(view).items() if name != "hand"])
        for other, hand in secret.items():
            if other != seat:
                assert repr(hand) not in shown
        assert repr(game.draw_pile[:3]) not in shown


# --- the bot --------------------------------------------------------------------------------------


def test_the_bot_plays_its_highest_legal_number_card_and_keeps_its_specials():
    assert bot_card([3, "99", 8], 10) == 8
    assert bot_card([10, "hold", 2], 90) == 2


def test_the_bot_falls_back_on_hold_then_reverse_then_minus_ten_then_ninety_nine():
    assert bot_card(["99", "minus_10", "reverse", "hold"], 99) == "hold"
    assert bot_card(["99", "minus_10", "reverse"], 99) == "reverse"
    assert bot_card(["99", "minus_10", 5], 99) == "minus_10"
    assert bot_card(["99", 5], 99) == "99"


def test_the_bot_has_nothing_to_play_with_no_legal_card():
    with pytest.raises(IllegalPlay, match="No card"):
        bot_card([5, 7, 8], 95)


def test_bots_play_a_game_to_a_single_winner():
    game = Game.start(["ann", "bob", "cy", "dee"], random.Random(1))
    game = play_whole_game(game, random.Random(2), by_bot)
    assert game.phase == GAME_OVER
    assert game.active == (game.winner,)
    assert sum(1 for markers in game.markers if markers > 0) == 1


# --- invariants over whole games ------------------------------------------------------------------


def check_invariants(game: Game) -> None:
    assert deck_counts(game) == Counter(game.rules.deck)
    assert 0 <= game.count <= 99
    assert all(len(hand) <= 3 for hand in game.hands)
    assert all(0 <= markers <= game.rules.markers for markers in game.markers)
    if game.phase == PLAYING:
        assert game.turn is not None
        assert game.markers[game.turn] > 0
        assert legal_cards(game.hand(game.turn), game.count)  # else the round would be over


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 6))
def test_whole_games_keep_the_deck_the_count_and_the_hands_within_the_rules(seed, players):
    rng = random.Random(seed)
    game = Game.start([f"p{i}" for i in range(players)], rng, dealer=seed % players)
    game = play_whole_game(game, rng, at_random, check_invariants)
    assert len(game.active) == 1


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(2, 7))
def test_a_small_deck_is_reshuffled_often_and_still_never_loses_a_card(seed, players):
    # Two cards left after the deal: every round's third play already reshuffles (no round ends
    # that soon, since every card is legal below 90).
    deck = tuple(CARDS[i % len(CARDS)] for i in range(3 * players + 2))
    rng = random.Random(seed)
    game = Game.start([f"p{i}" for i in range(players)], rng, rules=Rules(deck=deck, markers=2))
    reshuffles = 0

    def check(game: Game) -> None:
        nonlocal reshuffles
        check_invariants(game)
        reshuffles += any(event.kind == "reshuffled" for event in game.events)

    play_whole_game(game, rng, at_random, check)
    assert reshuffles >= game.rules.markers
