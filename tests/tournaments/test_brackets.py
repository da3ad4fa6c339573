"""Tournament brackets (docs/RULES.md §1.7): groups, single- and double-elimination rounds, play-offs."""

from __future__ import annotations

import math
import random
from datetime import timedelta

import pytest
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

from tournaments.brackets import (
    FACE_OFF,
    Cut,
    Strikes,
    advance_count,
    cut,
    double_elimination,
    face_off_winner,
    group_sizes,
    random_groups,
    rank,
    reinstate_best,
    resolve_cut,
    resolve_strikes,
    round_lengths,
    seeded_groups,
    single_elimination_sizes,
)

names = st.text("abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=6)
scores_st = st.dictionaries(names, st.integers(0, 6), min_size=2, max_size=30)


def players(n: int) -> list[str]:
    return [f"p{i:04}" for i in range(n)]


def draw_playoff(data: st.DataObject, tied: list[str], attempt: int) -> dict[str, int]:
    """Play-off scores that may tie again for a few attempts, then settle it (distinct scores)."""
    if attempt < 3:
        return {name: data.draw(st.integers(0, 3)) for name in tied}
    return dict(zip(tied, data.draw(st.permutations(range(len(tied)))), strict=True))


# --- groups ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "sizes"),
    [
        (2, [2]),
        (6, [6]),
        (7, [4, 3]),
        (12, [6, 6]),
        (13, [5, 4, 4]),
        (17, [6, 6, 5]),
        (1000, [6] * 165 + [5] * 2),
    ],
)
def test_players_split_into_the_fewest_groups_of_two_to_six(n, sizes):
    assert group_sizes(n) == sizes


def test_a_smaller_largest_group_makes_more_groups():
    assert group_sizes(12, max_size=4) == [4, 4, 4]
    assert group_sizes(9, max_size=4) == [3, 3, 3]


@pytest.mark.parametrize("n", [0, 1, -3])
def test_fewer_than_two_players_cannot_play_a_round(n):
    with pytest.raises(ValueError, match="at least 2 players"):
        group_sizes(n)


def test_no_split_leaves_a_player_alone():
    with pytest.raises(ValueError, match="a group of 1"):
        group_sizes(5, max_size=2)
    with pytest.raises(ValueError, match="at least 2"):
        group_sizes(5, max_size=1)
    with pytest.raises(ValueError, match="whole number"):
        group_sizes(5.0)  # type: ignore[arg-type]


@given(n=st.integers(2, 2000))
def test_group_sizes_stay_within_two_and_six_differ_by_at_most_one_and_use_the_fewest_groups(n):
    sizes = group_sizes(n)
    assert sum(sizes) == n
    assert all(2 <= size <= 6 for size in sizes)
    assert max(sizes) - min(sizes) <= 1
    assert len(sizes) == math.ceil(n / 6)
    assert sizes == sorted(sizes, reverse=True)


def test_random_groups_use_every_player_once_in_the_planned_sizes():
    field = players(13)
    groups = random_groups(field, random.Random(4))
    assert [len(group) for group in groups] == [5, 4, 4]
    assert sorted(name for group in groups for name in group) == field


def test_random_groups_depend_only_on_the_seed():
    assert random_groups(players(20), random.Random(9)) == random_groups(players(20), random.Random(9))
    assert random_groups(players(20), random.Random(9)) != random_groups(players(20), random.Random(10))


def test_seeded_groups_deal_the_ranking_in_snake_order():
    ranking = ["s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11", "s12"]
    assert seeded_groups(ranking, max_size=4) == [
        ["s1", "s6", "s7", "s12"],
        ["s2", "s5", "s8", "s11"],
        ["s3", "s4", "s9", "s10"],
    ]


def test_seeded_groups_skip_a_group_that_is_full():
    assert seeded_groups(["a", "b", "c", "d", "e", "f", "g"]) == [["a", "d", "e", "g"], ["b", "c", "f"]]


@given(n=st.integers(2, 300))
def test_seeded_groups_have_the_planned_sizes(n):
    groups = seeded_groups(players(n))
    assert [len(group) for group in groups] == group_sizes(n)
    assert sorted(name for group in groups for name in group) == players(n)


def test_a_player_listed_twice_is_refused():
    with pytest.raises(ValueError, match="listed twice"):
        random_groups(["ann", "bob", "ann"], random.Random(0))
    with pytest.raises(ValueError, match="listed twice"):
        seeded_groups(["ann", "ann"])


# --- round times ----------------------------------------------------------------------------------


def test_every_group_gets_the_directors_round_length():
    assert round_lengths([6, 6, 5], minutes=25) == [timedelta(minutes=25)] * 3


def test_groups_of_different_sizes_may_get_minutes_per_player():
    assert round_lengths([6, 5], per_player=5) == [timedelta(minutes=30), timedelta(minutes=25)]


def test_the_face_off_lasts_fifteen_minutes():
    assert timedelta(minutes=15) == FACE_OFF


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"minutes": 19}, "20 to 30 minutes"),
        ({"minutes": 31}, "20 to 30 minutes"),
        ({"per_player": 4}, "5 to 10"),
        ({"per_player": 11}, "5 to 10"),
        ({}, "either"),
        ({"minutes": 20, "per_player": 5}, "either"),
    ],
)
def test_a_round_length_outside_the_rules_is_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        round_lengths([6, 5], **kwargs)


def test_minutes_per_player_are_only_for_groups_of_different_sizes():
    with pytest.raises(ValueError, match="all the same size"):
        round_lengths([4, 4], per_player=6)
    with pytest.raises(ValueError, match="no groups"):
        round_lengths([], minutes=20)


# --- single elimination ---------------------------------------------------------------------------


def test_twelve_players_go_through_six_three_and_two_to_the_face_off():
    assert [advance_count(n) for n in (12, 6, 3)] == [6, 3, 2]
    assert single_elimination_sizes(12) == [12, 6, 3, 2]


@pytest.mark.parametrize(("n", "through"), [(3, 2), (4, 2), (5, 3), (7, 4), (1000, 500), (1001, 501)])
def test_half_the_players_rounded_up_go_through(n, through):
    assert advance_count(n) == through


@pytest.mark.parametrize("n", [2, 1, 0])
def test_two_players_play_the_face_off_rather_than_a_round(n):
    with pytest.raises(ValueError, match="face-off"):
        advance_count(n)


def test_two_players_go_straight_to_the_face_off():
    assert single_elimination_sizes(2) == [2]
    with pytest.raises(ValueError, match="at least 2"):
        single_elimination_sizes(1)


@given(n=st.integers(2, 5000))
def test_every_single_elimination_ends_with_two(n):
    sizes = single_elimination_sizes(n)
    assert sizes[0] == n
    assert sizes[-1] == 2
    assert all(later < earlier for earlier, later in zip(sizes, sizes[1:], strict=False))


def test_a_cut_lets_the_top_scores_through_across_groups():
    scores = {"ann": 3000, "bob": 5200, "cy": 800, "dee": 4100, "eve": 2500, "fay": 6000}
    assert cut(scores, 3) == Cut(["fay", "bob", "dee"], ["ann", "eve", "cy"], [])


def test_players_tied_across_the_cut_line_need_a_play_off():
    scores = {"ann": 900, "bob": 500, "cy": 500, "dee": 500, "eve": 100}
    result = cut(scores, 2)
    assert result == Cut(["ann"], ["eve"], ["bob", "cy", "dee"])
    advancing, eliminated, tied = result
    assert tied == ["bob", "cy", "dee"]


def test_a_tie_that_does_not_cross_the_line_is_no_tie():
    result = cut({"ann": 500, "bob": 500, "cy": 100, "dee": 100}, 2)
    assert result == Cut(["ann", "bob"], ["cy", "dee"], [])


def test_equal_scores_keep_their_input_order():
    assert rank({"x": 1, "y": 5, "z": 1, "w": 5}) == ["y", "w", "x", "z"]


@pytest.mark.parametrize("advance", [0, 4, -1])
def test_a_cut_must_let_some_but_not_all_through(advance):
    with pytest.raises(ValueError, match="can advance"):
        cut({"a": 1, "b": 2, "c": 3, "d": 4}, advance)


def test_a_cut_needs_whole_number_scores():
    with pytest.raises(ValueError, match="whole number"):
        cut({"a": 1.5, "b": 2}, 1)  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="no scores"):
        cut({}, 1)


def test_a_play_off_settles_the_tied_places():
    result = cut({"ann": 900, "bob": 500, "cy": 500, "dee": 500, "eve": 100}, 2)
    settled = resolve_cut(result, {"bob": 350, "cy": 600, "dee": 0}, 2)
    assert settled == Cut(["ann", "cy"], ["bob", "dee", "eve"], [])


def test_a_play_off_is_repeated_while_players_stay_tied():
    result = cut({"ann": 900, "bob": 500, "cy": 500, "dee": 500, "eve": 100}, 2)
    again = resolve_cut(result, {"bob": 300, "cy": 300, "dee": 0}, 2)
    assert again == Cut(["ann"], ["dee", "eve"], ["bob", "cy"])
    settled = resolve_cut(again, {"bob": 50, "cy": 0}, 2)
    assert settled == Cut(["ann", "bob"], ["cy", "dee", "eve"], [])


def test_a_play_off_must_score_exactly_the_tied_players():
    result = cut({"ann": 900, "bob": 500, "cy": 500, "dee": 100}, 2)
    with pytest.raises(ValueError, match="no play-off score for cy"):
        resolve_cut(result, {"bob": 300}, 2)
    with pytest.raises(ValueError, match="ann did not play off"):
        resolve_cut(result, {"bob": 300, "cy": 0, "ann": 10}, 2)
    with pytest.raises(ValueError, match="don't match"):
        resolve_cut(result, {"bob": 300, "cy": 0}, 3)
    with pytest.raises(ValueError, match="Nobody is tied"):
        resolve_cut(cut({"ann": 2, "bob": 1}, 1), {}, 1)


def test_the_face_off_goes_to_the_higher_score_and_a_tie_plays_on():
    assert face_off_winner({"ann": 4000, "bob": 4500}) == "bob"
    assert face_off_winner({"ann": 4000, "bob": 4000}) is None
    with pytest.raises(ValueError, match="between 2"):
        face_off_winner({"ann": 1, "bob": 2, "cy": 3})


@given(scores=scores_st, data=st.data())
def test_a_cut_places_everyone_exactly_once(scores, data):
    advance = data.draw(st.integers(1, len(scores) - 1))
    result = cut(scores, advance)
    everyone = result.advancing + result.eliminated + result.tied
    assert sorted(everyone) == sorted(scores)
    assert len(result.advancing) <= advance <= len(result.advancing) + len(result.tied)
    if result.tied:
        assert len({scores[name] for name in result.tied}) == 1
        assert len(result.advancing) < advance < len(result.advancing) + len(result.tied)
    else:
        assert len(result.advancing) == advance
    low_in = min(scores[name] for name in result.advancing + result.tied)
    high_out = max((scores[name] for name in result.eliminated + result.tied), default=-1)
    assert all(scores[name] > high_out for name in result.advancing) or not result.advancing
    assert all(scores[name] < low_in for name in result.eliminated) or not result.eliminated


@given(scores=scores_st, data=st.data())
def test_play_offs_end_with_exactly_the_places_of_the_cut(scores, data):
    advance = data.draw(st.integers(1, len(scores) - 1))
    result = cut(scores, advance)
    attempt = 0
    while result.tied:
        result = resolve_cut(result, draw_playoff(data, result.tied, attempt), advance)
        attempt += 1
        assert sorted(result.advancing + result.eliminated + result.tied) == sorted(scores)
    assert len(result.advancing) == advance


# --- double elimination ---------------------------------------------------------------------------


def test_the_lower_half_takes_a_strike():
    scores = {"ann": 900, "bob": 500, "cy": 300, "dee": 100, "eve": 50}
    assert double_elimination(scores, {}) == Strikes(
        {"ann": 0, "bob": 0, "cy": 0, "dee": 1, "eve": 1}, [], []
    )


def test_a_second_strike_eliminates():
    scores = {"ann": 900, "bob": 500, "cy": 300, "dee": 100}
    result = double_elimination(scores, {"cy": 1, "ann": 1})
    assert result.strikes == {"ann": 1, "bob": 0, "cy": 2, "dee": 1}
    assert result.eliminated == ["cy"]


def test_strikes_of_players_no_longer_in_the_tournament_are_ignored():
    result = double_elimination({"ann": 2, "bob": 1, "cy": 0}, {"zed": 2, "ann": 0})
    assert set(result.strikes) == {"ann", "bob", "cy"}


def test_players_tied_across_the_half_line_take_no_strike_yet():
    scores = {"ann": 900, "bob": 300, "cy": 300, "dee": 100}
    result = double_elimination(scores, {"dee": 1})
    assert result == Strikes({"ann": 0, "bob": 0, "cy": 0, "dee": 2}, ["dee"], ["bob", "cy"])


def test_a_play_off_settles_who_takes_the_strike():
    scores = {"ann": 900, "bob": 300, "cy": 300, "dee": 100}
    before = {"cy": 1}
    result = double_elimination(scores, before)
    settled = resolve_strikes(result, {"bob": 500, "cy": 200}, before)
    assert settled == Strikes({"ann": 0, "bob": 0, "cy": 2, "dee": 1}, ["cy"], [])


def test_a_strike_play_off_is_repeated_while_tied():
    scores = {"ann": 300, "bob": 300, "cy": 300, "dee": 300, "eve": 300}
    result = double_elimination(scores, {})
    assert result.tied == ["ann", "bob", "cy", "dee", "eve"]
    again = resolve_strikes(result, {"ann": 100, "bob": 100, "cy": 100, "dee": 0, "eve": 500}, {})
    assert again.tied == ["ann", "bob", "cy"]
    assert again.strikes["dee"] == 1
    settled = resolve_strikes(again, {"ann": 100, "bob": 0, "cy": 100}, {})
    assert settled.strikes == {"ann": 0, "bob": 1, "cy": 0, "dee": 1, "eve": 0}
    assert settled.tied == []


def test_a_strike_play_off_needs_the_strikes_the_round_started_from():
    scores = {"ann": 900, "bob": 300, "cy": 300, "dee": 100}
    result = double_elimination(scores, {"dee": 1})
    with pytest.raises(ValueError, match="started from"):
        resolve_strikes(result, {"bob": 1, "cy": 0}, {"dee": 1, "ann": 1})
    with pytest.raises(ValueError, match="started from"):
        resolve_strikes(result, {"bob": 1, "cy": 0}, {"dee": 1, "bob": 1})
    with pytest.raises(ValueError, match="started from"):
        resolve_strikes(result, {"bob": 1, "cy": 0}, {})


def test_when_a_round_would_leave_one_player_the_best_eliminated_stays_in():
    result = double_elimination({"ann": 900, "bob": 100}, {"ann": 1, "bob": 1})
    assert result == Strikes({"ann": 1, "bob": 1}, [], [])


def test_the_best_of_those_eliminated_stay_in_so_two_remain():
    assert reinstate_best(["cy", "dee", "eve"], remaining=0) == ["cy", "dee"]
    assert reinstate_best(["cy", "dee"], remaining=1) == ["cy"]
    assert reinstate_best(["cy", "dee"], remaining=2) == []


def test_a_face_off_tie_resolved_by_play_off_still_leaves_two():
    result = double_elimination({"ann": 400, "bob": 400}, {"ann": 1, "bob": 1})
    assert result.tied == ["ann", "bob"]
    settled = resolve_strikes(result, {"ann": 0, "bob": 50}, {"ann": 1, "bob": 1})
    assert settled == Strikes({"ann": 1, "bob": 1}, [], [])


def test_double_elimination_refuses_a_player_already_out_or_a_lone_player():
    with pytest.raises(ValueError, match="0 or 1"):
        double_elimination({"ann": 1, "bob": 2}, {"ann": 2})
    with pytest.raises(ValueError, match="at least 2"):
        double_elimination({"ann": 1}, {})


@given(scores=scores_st, data=st.data())
def test_double_elimination_strikes_only_grow_at_most_half_and_two_always_remain(scores, data):
    before = {name: data.draw(st.integers(0, 1)) for name in scores}
    result = double_elimination(scores, before)
    assert set(result.strikes) == set(scores)
    new_strikes = sum(result.strikes[name] - before[name] for name in scores)
    assert all(result.strikes[name] >= before[name] for name in scores)
    assert new_strikes <= len(scores) // 2
    assert set(result.eliminated) == {name for name in scores if result.strikes[name] >= 2}
    assert len(scores) - len(result.eliminated) >= 2
    assert not set(result.tied) & {name for name in scores if result.strikes[name] != before[name]}


@given(scores=scores_st, data=st.data())
def test_double_elimination_play_offs_hand_out_exactly_half_the_strikes(scores, data):
    before = {name: data.draw(st.integers(0, 1)) for name in scores}
    assume(sum(before.values()) < len(scores))
    result = double_elimination(scores, before)
    attempt = 0
    while result.tied:
        result = resolve_strikes(result, draw_playoff(data, result.tied, attempt), before)
        attempt += 1
        assert all(result.strikes[name] >= before[name] for name in scores)
        assert len(scores) - len(result.eliminated) >= 2
    struck = [name for name in scores if result.strikes[name] > before[name]]
    # The one exception: of two players the loser would be out, so they stay in, unstruck.
    reinstated = len(scores) == 2 and not struck and not result.eliminated
    assert len(struck) == len(scores) // 2 or reinstated


@settings(max_examples=30)
@given(n=st.integers(2, 60), seed=st.integers(0, 2**32))
def test_a_double_elimination_tournament_always_reaches_a_face_off_of_two(n, seed):
    rng = random.Random(seed)
    strikes: dict[str, int] = {}
    alive = players(n)
    for _ in range(4 * n):
        if len(alive) == 2:
            break
        scores = {name: rng.randrange(0, 5) * 50 for name in alive}
        result = double_elimination(scores, strikes)
        while result.tied:
            result = resolve_strikes(result, {name: rng.randrange(0, 3) for name in result.tied}, strikes)
        strikes.update(result.strikes)
        alive = [name for name in alive if name not in result.eliminated]
        assert len(alive) >= 2
    assert len(alive) == 2


# --- a group's scoresheet -------------------------------------------------------------------------


def test_a_vengeance_never_takes_a_score_below_zero():
    from tournaments.brackets import apply_turn

    assert apply_turn({"A": 0, "B": 1000}, "A", 900, vengeance=True) == {"A": 900, "B": 0}


def test_a_drawer_tied_for_the_lead_hits_the_others_tied_with_them():
    from tournaments.brackets import vengeance_targets

    assert vengeance_targets({"A": 8000, "B": 8000, "C": 8000, "D": 10}, "B") == ["A", "C"]


def test_replaying_the_rules_worked_example_gives_its_scores():
    from tournaments.brackets import TurnEntry, replay_turns

    turns = [TurnEntry("A", 6000), TurnEntry("B", 8000), TurnEntry("C", 8000), TurnEntry("D", 3000),
             TurnEntry("A", 900, vengeance=True)]
    assert replay_turns("ABCD", turns) == {"A": 6900, "B": 5500, "C": 5500, "D": 3000}


def test_a_bust_plays_no_vengeance_and_one_stored_before_the_refusal_hits_nobody():
    """docs/RULES.md §1.4: a Vengeance bites only when the turn fills."""
    from tournaments.brackets import TurnEntry, apply_turn, replay_turns

    with pytest.raises(ValueError, match="only when the turn fills"):
        apply_turn({"A": 3000, "B": 0}, "B", 0, vengeance=True)
    assert replay_turns("AB", [TurnEntry("A", 3000), TurnEntry("B", 0, vengeance=True)]) == {"A": 3000, "B": 0}


# --- Issue 29, T9: players tied when eliminated share a place --------------------------------------


def test_players_tied_when_eliminated_share_a_place():
    from tournaments.brackets import final_places, tied_tiers

    out = ["Gus", "Hal", "Ida", "Jo"]  # eliminated in one round, best first
    keys = {"Gus": [1500], "Hal": [1350], "Ida": [1350], "Jo": [900]}
    tiers = [["Ann"], ["Bea"], *tied_tiers(out, keys)]
    assert tiers == [["Ann"], ["Bea"], ["Gus"], ["Hal", "Ida"], ["Jo"]]
    assert final_places(tiers) == {"Ann": 1, "Bea": 2, "Gus": 3, "Hal": 4, "Ida": 4, "Jo": 6}
    # A play-off that separated them separates their places too.
    assert tied_tiers(["Hal", "Ida"], {"Hal": [1350, 300], "Ida": [1350, 100]}) == [["Hal"], ["Ida"]]
    with pytest.raises(ValueError, match="placed twice"):
        final_places([["Ann"], ["Ann"]])


# --- Issue 30: one source per rule: the typed-turn scoring asks the engine -------------------------

# A bust of any size without Combo 5: no 1, no 5, no triple, no straight.
_BUST = (2, 3, 4, 6, 2, 3)
_ONE_CARD = ["BONUS_300", "BONUS_400", "BONUS_500", "FILL_1000", "MUST_BUST", "DOUBLE_TROUBLE"]
# Scores near a penalty and tied ones are where the floor and the leaders' rules bite.
_sheet_score = st.one_of(st.sampled_from([0, 500, 2500, 5000]), st.integers(0, 120).map(lambda n: n * 50))


def _engine_turn(data: st.DataObject, game, card: str):
    """Play one card of `player`'s turn through the engine with drawn dice and choices; returns the
    game after the turn and the points a director would type for it (the player's own change, or,
    for a Must Bust penalty, the points tossed under the card, before the 0 floor)."""
    from games.rules.fill_or_bust import Phase

    before, played = game.sheet[game.seat], len(game.turns)
    typed = None
    game = game.draw(card=card)
    if game.phase is Phase.VENGEANCE:
        game = game.play_vengeance()
    tosses = 0
    while len(game.turns) == played:
        if game.phase is Phase.TOSS:
            n = game.dice_to_toss
            if "STOP" in map(str, game.legal_actions()) and data.draw(st.booleans()):
                game = game.stop()
                continue
            tosses += 1
            thrown = _BUST[:n] if tosses > 6 else data.draw(st.lists(st.integers(1, 6), min_size=n, max_size=n))
            if game.options.must_bust_penalty and game.card is not None and game.card.value == "MUST_BUST":
                typed = -game.card_points  # what comes off if this toss busts
            game = game.toss(thrown)
        elif game.phase is Phase.KEEP:
            keep, _ = data.draw(st.sampled_from(game.legal_keeps()))
            game = game.keep(keep)
        elif game.phase is Phase.BANK_OR_CONTINUE:
            game = game.stop()
        else:
            assert game.phase is Phase.END_OR_CONTINUE
            game = game.end_turn()
    turn = game.turns[-1]
    if not (turn.outcome.value == "must_bust" and game.options.must_bust_penalty):
        typed = turn.scores_after[turn.player] - before
    return game, typed


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_typed_turns_and_the_engine_agree_on_any_scoresheet_with_and_without_a_vengeance(data):
    """The tournament's typed-turn scoring (apply_turn, replay_turns) gives the engine's scoresheet:
    the Vengeance penalty off the leaders as they stood, the 0 floor, the sole leader's discard,
    the Must Bust penalty, for random scoresheets and turns (docs/RULES.md §1.4, §1.5)."""
    from games.rules.fill_or_bust import Game, Options, Phase
    from tournaments.brackets import TurnEntry, apply_turn, replay_turns

    seats = [f"P{i}" for i in range(data.draw(st.integers(2, 6), label="players"))]
    start = {name: data.draw(_sheet_score) for name in seats}
    penalty = data.draw(st.sampled_from([0, 50, 2500, 5000, 10000]), label="penalty")
    options = Options(vengeance=penalty, must_bust_penalty=data.draw(st.booleans()))
    game = Game.start(seats, scores=start, options=options, first=data.draw(st.sampled_from(seats)))
    typed_scores = dict(start)
    entries: list[TurnEntry] = []
    for _ in range(data.draw(st.integers(1, 4), label="turns")):
        player, before = game.player, game.scores
        assert typed_scores == before
        vengeance = data.draw(st.integers(0, 2), label="vengeance") > 0  # two in three turns
        if vengeance and game.draw(card="VENGEANCE_2500").phase is Phase.DRAW:
            # The engine discards a sole leader's Vengeance; the typed sheet refuses one.
            with pytest.raises(ValueError, match="leads alone"):
                apply_turn(before, player, 1000, vengeance=True, penalty=penalty)
            event("a sole leader's Vengeance")
            vengeance = False
        game, typed = _engine_turn(data, game, "VENGEANCE_2500" if vengeance else data.draw(st.sampled_from(_ONE_CARD)))
        if vengeance and typed <= 0:  # a Vengeance that busts bites nobody: typed as a plain bust
            with pytest.raises(ValueError, match="only when the turn fills"):
                apply_turn(before, player, typed, vengeance=True, penalty=penalty)
            vengeance = False
        typed_scores = apply_turn(typed_scores, player, typed, vengeance=vengeance, penalty=penalty)
        assert typed_scores == game.turns[-1].scores_after
        if vengeance:
            event("a Vengeance bit")
        if any(typed_scores[name] == 0 < before[name] for name in seats):
            event("a score floored at 0")
        entries.append(TurnEntry(player, typed, vengeance))
    if not any(start.values()):
        assert replay_turns(seats, entries, penalty=penalty) == game.scores
