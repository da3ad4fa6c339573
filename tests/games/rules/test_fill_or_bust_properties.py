"""Properties of whole Fill or Bust games that no list of examples can cover (hypothesis).

Games are driven by a random player: at every point it picks one of `legal_actions()` at random
(a random legal keep, random dice), with random options, seats and starting scores. After every
action the invariants of docs/RULES.md §1.4 are checked: banked points are lost only where the rules
say, nobody goes below 0, the deck always holds its 54 cards, the buttons `legal_actions()` shows
are exactly the calls that work, and every recorded turn replays through `play_turn` to the same
scoresheet.

No Django here: run with `python -m pytest -p no:django tests/games/rules/test_fill_or_bust*.py`.
"""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules import dice
from games.rules.fill_or_bust import (
    DECK_COMPOSITION,
    Action,
    ActionKind,
    Card,
    Deck,
    EndReason,
    Game,
    IllegalMove,
    Options,
    TurnOutcome,
    new_game,
    play_bot_game,
    play_turn,
    score_selection,
)

A = ActionKind
LOSE_EVERYTHING_ON_A_BUST = {Card.BONUS_300, Card.BONUS_400, Card.BONUS_500, Card.FILL_1000}
LOSE_EVERYTHING_ON_A_BUST |= {Card.DOUBLE_TROUBLE, Card.VENGEANCE_2500}

options = st.builds(
    Options,
    combo5=st.booleans(),
    must_bust_penalty=st.booleans(),
    vengeance=st.sampled_from([2500, 5000]),
    show_down=st.booleans(),
)


@st.composite
def games(draw) -> Game:
    """A game with a shuffled deck, 2-5 seats, any starting scores, a goal or none."""
    seats = [f"P{i}" for i in range(draw(st.integers(2, 5)))]
    scores = {name: 50 * draw(st.integers(0, 200)) for name in seats}
    goal = draw(st.sampled_from([None, 12_000, 20_000]))
    deck = Deck.shuffled(random.Random(draw(st.integers(0, 2**32))))
    return Game.start(seats, scores=scores, options=draw(options), goal=goal, deck=deck)


def random_action(game: Game, rng: random.Random) -> Action:
    kind = rng.choice(game.legal_actions())
    if kind is A.KEEP:
        return Action(kind, rng.choice(game.legal_keeps())[0])
    if kind is A.TOSS:
        return Action(kind, tuple(dice.roll(rng, game.dice_to_toss)))
    return Action(kind)


def an_attempt_at(kind: ActionKind, game: Game, rng: random.Random) -> Action:
    """The best-formed attempt at `kind`: a legal keep if there is one, the right number of dice."""
    if kind is A.KEEP:
        keeps = game.legal_keeps()
        return Action(kind, keeps[0][0] if keeps else (1,))
    if kind is A.TOSS:
        return Action(kind, tuple(dice.roll(rng, game.dice_to_toss or 6)))
    return Action(kind)


def assert_deck_is_whole(game: Game) -> None:
    assert game.deck is not None
    cards = Counter(game.deck.draw_pile) + Counter(game.deck.discards)
    if game.card is not None:
        cards[game.card] += 1
    assert cards == Counter(DECK_COMPOSITION)
    assert len(game.deck) + (game.card is not None) == 54


def assert_scores_moved_only_as_the_rules_say(before: Game, action: Action, after: Game) -> None:
    """Compare the scoresheet across one action with what docs/RULES.md §1.4 allows for it."""
    old, new = before.scores, after.scores
    player = before.player
    assert all(score >= 0 for score in new.values())
    turn_ended = len(after.turns) > len(before.turns)
    outcome = after.turns[-1].outcome if turn_ended else None

    if action.kind in (A.DRAW, A.PLAY, A.DECLINE, A.CONTINUE, A.END):
        assert new == old  # NO DICE included: it banks nothing
        if outcome is not None:
            assert outcome is TurnOutcome.NO_DICE or action.kind is A.END
        return
    if action.kind is A.TOSS:
        if outcome is None:  # not a bust: nothing is banked yet
            assert new == old
        elif before.card in LOSE_EVERYTHING_ON_A_BUST:
            assert outcome is TurnOutcome.BUST
            assert new == old
        elif before.options.must_bust_penalty:
            assert before.card is Card.MUST_BUST
            assert new == {**old, player: max(0, old[player] - before.card_points)}
        else:
            assert new == {**old, player: old[player] + before.at_risk}
        return
    if action.kind is A.STOP:
        assert new == {**old, player: old[player] + before.at_risk}
        return
    # A keep: points are banked only by the Fill that banks a DOUBLE TROUBLE (its second Fill
    # in a row) or a VENGEANCE; nobody else's score moves except a Vengeance's targets.
    assert action.kind is A.KEEP
    if new == old:
        return
    assert before.last_toss is not None
    points = score_selection(before.last_toss, action.dice, combo5=before.options.combo5)
    assert len(before.set_aside) + len(action.dice) == 6
    if before.card is Card.DOUBLE_TROUBLE:
        assert before.fills == 1
        assert new == {**old, player: old[player] + 2 * (before.at_risk + points)}
        return
    assert before.card is Card.VENGEANCE_2500
    assert new[player] == old[player] + before.at_risk + points
    for name in new:
        if name != player:
            hit = name in before.targets
            assert new[name] == (max(0, old[name] - before.options.vengeance) if hit else old[name])


@settings(max_examples=60, deadline=None)
@given(game=games(), rng=st.randoms(use_true_random=False))
def test_random_play_keeps_every_rule_of_the_scoresheet_and_the_deck(game, rng):
    deck_rng = random.Random(rng.random())
    for _ in range(300):
        if game.is_over:
            break
        action = random_action(game, rng)
        after = game.apply(action, deck_rng)
        assert_scores_moved_only_as_the_rules_say(game, action, after)
        assert_deck_is_whole(after)
        if len(after.turns) > len(game.turns):
            record = after.turns[-1]
            assert play_turn(record.scores_before, record.player, record.steps, options=game.options) == dict(
                record.scores_after
            )
        game = after


@settings(max_examples=40, deadline=None)
@given(game=games(), rng=st.randoms(use_true_random=False))
def test_the_legal_actions_are_exactly_the_calls_that_work(game, rng):
    deck_rng = random.Random(rng.random())
    for _ in range(150):
        if game.is_over:
            assert game.legal_actions() == ()
            break
        legal = game.legal_actions()
        for kind in ActionKind:
            try:
                game.apply(an_attempt_at(kind, game, rng), deck_rng)
            except IllegalMove:
                assert kind not in legal, (kind, game.phase, game.card)
            else:
                assert kind in legal, (kind, game.phase, game.card)
        game = game.apply(random_action(game, rng), deck_rng)


@settings(max_examples=25, deadline=None)
@given(game=games(), rng=st.randoms(use_true_random=False), buzzer_at=st.integers(0, 200))
def test_after_the_buzzer_the_turn_under_way_is_the_last(game, rng, buzzer_at):
    deck_rng = random.Random(rng.random())
    for _ in range(buzzer_at):
        if game.is_over:
            return
        game = game.apply(random_action(game, rng), deck_rng)
    if game.is_over:
        return
    player, turns, under_way = game.player, len(game.turns), game.turn_under_way
    game = game.time_up()
    if not under_way:
        assert game.is_over
        assert len(game.turns) == turns
    while not game.is_over:
        game = game.apply(random_action(game, rng), deck_rng)
    if under_way:
        assert len(game.turns) == turns + 1
        assert game.turns[-1].player == player
    if game.end_reason is EndReason.GOAL:
        assert game.winners == (player,)
    else:
        assert game.end_reason is EndReason.TIME
        top = max(game.scores.values())
        assert game.winners == tuple(name for name, score in game.scores.items() if score == top)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), seats=st.integers(2, 6), options=options)
def test_bot_games_end_with_the_winners_the_rules_name(seed, seats, options):
    names = [f"P{i}" for i in range(seats)]
    game = play_bot_game(
        new_game(names, random.Random(seed), goal=5000, options=options), random.Random(seed + 1)
    )
    assert game.is_over
    top = max(game.scores.values())
    if game.end_reason is EndReason.GOAL:
        assert not options.show_down
        assert game.winners == (game.turns[-1].player,)
        assert game.scores[game.winners[0]] >= 5000
    else:
        assert game.end_reason is EndReason.SHOW_DOWN
        assert game.winners == tuple(name for name, score in game.scores.items() if score == top)
    assert all(score >= 0 for score in game.scores.values())


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32), moves=st.lists(st.booleans(), max_size=400))
def test_the_deck_always_holds_54_cards_across_draws_and_reshuffles(seed, moves):
    rng = random.Random(seed)
    deck = Deck.shuffled(rng)
    in_play: list[Card] = []
    for draw in moves:
        if (draw and len(in_play) < 3) or not in_play:
            card, deck = deck.draw(rng)
            in_play.append(card)
        else:
            deck = deck.discard(in_play.pop(0))
        assert Counter(deck.draw_pile) + Counter(deck.discards) + Counter(in_play) == Counter(
            DECK_COMPOSITION
        )
