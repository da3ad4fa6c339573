"""Kismet (docs/RULES.md §3): the box table, sheets, turns and the second-Kismet rule.

Every worked example of §3 is a test; every one of the 7,776 rolls is checked against a reference
written here from the table alone, box by box, deliberately in a different style from the engine.
"""

from __future__ import annotations

import random
from itertools import combinations, product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules import dice as dice_module
from games.rules.kismet import (
    BASIC_BOXES,
    BOXES,
    Game,
    KismetError,
    Sheet,
    Turn,
    basic_bonus,
    color,
    options,
)

ALL_ROLLS = list(product(range(1, 7), repeat=5))


def make_sheet(**scores: int) -> Sheet:
    return Sheet.from_scores(scores)


def make_game(*names: str, sheets: dict[str, Sheet] | None = None, current: int = 0) -> Game:
    names = names or ("ann", "bob", "cy")
    sheets = sheets or {}
    return Game(names, tuple(sheets.get(name, Sheet()) for name in names), current)


# --- the reference: the table of docs/RULES.md §3, read literally ---------------------------------------

PIP_COLOUR = {1: "black", 6: "black", 2: "red", 5: "red", 3: "green", 4: "green"}


def reference_options(roll: tuple[int, ...]) -> dict[str, int]:
    d = sorted(roll)
    total = sum(d)
    out = {
        "ones": sum(x for x in d if x == 1),
        "twos": sum(x for x in d if x == 2),
        "threes": sum(x for x in d if x == 3),
        "fours": sum(x for x in d if x == 4),
        "fives": sum(x for x in d if x == 5),
        "sixes": sum(x for x in d if x == 6),
    }

    def two_pairs_one_colour(four: tuple[int, ...]) -> bool:
        a, b, c, e = sorted(four)
        return a == b and c == e and PIP_COLOUR[a] == PIP_COLOUR[c]

    if any(two_pairs_one_colour(four) for four in combinations(d, 4)):
        out["two_pair_same_color"] = total
    if any(a == b == c for a, b, c in combinations(d, 3)):
        out["three_of_a_kind"] = total
    if d in ([1, 2, 3, 4, 5], [2, 3, 4, 5, 6]):
        out["straight"] = 30
    flush = len({PIP_COLOUR[x] for x in d}) == 1
    if flush:
        out["flush"] = 35
    full_house = (d[0] == d[1] == d[2] and d[3] == d[4] and d[2] != d[3]) or (
        d[0] == d[1] and d[2] == d[3] == d[4] and d[1] != d[2]
    )
    if full_house:
        out["full_house"] = total + 15
    if full_house and flush:
        out["full_house_same_color"] = total + 20
    if any(a == b == c == e for a, b, c, e in combinations(d, 4)):
        out["four_of_a_kind"] = total + 25
    out["yarborough"] = total
    if d[0] == d[4]:
        out["kismet"] = total + 50
    return out


# --- colours --------------------------------------------------------------------------------------


def test_pips_are_black_red_and_green_in_opposite_pairs():
    assert [color(face) for face in range(1, 7)] == ["black", "red", "green", "green", "red", "black"]


def test_two_faces_share_a_colour_exactly_when_they_add_up_to_seven():
    for a, b in product(range(1, 7), repeat=2):
        assert (color(a) == color(b)) == (a == b or a + b == 7), (a, b)


@pytest.mark.parametrize("face", [0, 7, -1, 2.0, "3", True, None])
def test_a_face_that_is_not_one_to_six_has_no_colour(face):
    with pytest.raises(KismetError, match="1 to 6"):
        color(face)


# --- the worked examples of docs/RULES.md §3 -----------------------------------------------------------


def test_four_fives_and_a_four_score_as_the_table_says():
    assert options([4, 5, 5, 5, 5]) == {
        "fives": 20,
        "two_pair_same_color": 24,
        "three_of_a_kind": 24,
        "four_of_a_kind": 49,
        "yarborough": 24,
        "fours": 4,
        "ones": 0,
        "twos": 0,
        "threes": 0,
        "sixes": 0,
    }


def test_three_sixes_and_two_ones_are_a_black_full_house():
    assert options([6, 6, 6, 1, 1]) == {
        "full_house_same_color": 40,
        "full_house": 35,
        "flush": 35,
        "two_pair_same_color": 20,
        "three_of_a_kind": 20,
        "sixes": 18,
        "ones": 2,
        "yarborough": 20,
        "twos": 0,
        "threes": 0,
        "fours": 0,
        "fives": 0,
    }


def test_four_fives_and_a_two_are_a_red_flush():
    assert options([5, 5, 5, 5, 2]) == {
        "flush": 35,
        "four_of_a_kind": 47,
        "two_pair_same_color": 22,
        "three_of_a_kind": 22,
        "fives": 20,
        "twos": 2,
        "yarborough": 22,
        "ones": 0,
        "threes": 0,
        "fours": 0,
        "sixes": 0,
    }


def test_one_to_five_is_a_straight():
    found = options([1, 2, 3, 4, 5])
    assert found["straight"] == 30
    assert found["yarborough"] == 15
    assert set(found) == set(BASIC_BOXES) | {"straight", "yarborough"}


def test_one_to_four_and_a_six_is_no_straight():
    found = options([1, 2, 3, 4, 6])
    assert "straight" not in found
    assert found["yarborough"] == 16


def test_five_fives_are_a_kismet_and_never_a_full_house():
    found = options([5, 5, 5, 5, 5])
    assert found["kismet"] == 75
    for box in ("fives", "two_pair_same_color", "three_of_a_kind", "four_of_a_kind", "flush", "yarborough"):
        assert box in found
    assert found["fives"] == 25
    assert "full_house" not in found
    assert "full_house_same_color" not in found


def test_keeping_dice_across_rolls_ends_with_four_fours():
    turn = Turn.first_roll([3, 3, 4, 4, 5])
    turn = turn.roll_again(keep=[4, 4], dice=[4, 5, 5])
    turn = turn.roll_again(keep=[4, 4, 4], dice=[4, 6])
    assert sorted(turn.dice) == [4, 4, 4, 4, 6]
    assert turn.options()["fours"] == 16


@pytest.mark.parametrize(("basic_total", "bonus"), [(62, 0), (63, 35), (71, 55), (78, 75)])
def test_the_basic_bonus_follows_the_table(basic_total, bonus):
    assert basic_bonus(basic_total) == bonus


@pytest.mark.parametrize(("basic_total", "bonus"), [(0, 0), (70, 35), (77, 55), (105, 75)])
def test_the_basic_bonus_steps_end_where_the_next_begins(basic_total, bonus):
    assert basic_bonus(basic_total) == bonus


@pytest.mark.parametrize("basic_total", [-1, 106, 63.0, "63", True])
def test_an_impossible_basic_total_is_refused(basic_total):
    with pytest.raises(KismetError, match="Basic total"):
        basic_bonus(basic_total)


# --- every roll -----------------------------------------------------------------------------------


def test_every_one_of_the_7776_rolls_scores_as_the_reference_table_says():
    wrong = [
        (roll, options(roll), reference_options(roll))
        for roll in ALL_ROLLS
        if options(roll) != reference_options(roll)
    ]
    assert wrong == []


def test_options_list_boxes_in_sheet_order_and_always_offer_basic_boxes_and_yarborough():
    for roll in ALL_ROLLS:
        found = list(options(roll))
        assert found == [box for box in BOXES if box in found]
        assert set(BASIC_BOXES) | {"yarborough"} <= set(found)


def test_dice_order_never_changes_the_options():
    for roll in ALL_ROLLS[::37]:
        assert options(roll) == options(tuple(reversed(roll))) == options(tuple(sorted(roll)))


@pytest.mark.parametrize(
    "dice",
    [
        [1, 2, 3, 4],
        [1, 2, 3, 4, 5, 6],
        [],
        [0, 1, 2, 3, 4],
        [1, 2, 3, 4, 7],
        [1, 2, 3, 4, "5"],
        "12345",
        [1.0] * 5,
    ],
)
def test_anything_but_five_dice_of_one_to_six_is_refused(dice):
    with pytest.raises(ValueError):
        options(dice)


def test_a_kismet_error_is_a_value_error():
    assert issubclass(KismetError, ValueError)


# --- a sheet ---------------------------------------------------------------------------------------


def test_a_new_sheet_has_fifteen_open_boxes_and_scores_nothing():
    sheet = Sheet()
    assert sheet.open_boxes == BOXES
    assert (sheet.basic_total, sheet.bonus, sheet.kismet_total, sheet.total) == (0, 0, 0, 0)
    assert not sheet.is_full


def test_scoring_writes_the_option_value_in_the_box():
    sheet = Sheet().score("full_house", [6, 6, 6, 1, 1])
    assert sheet["full_house"] == 35
    assert not sheet.is_open("full_house")
    assert "full_house" not in sheet.open_boxes


def test_scoring_dice_that_do_not_qualify_writes_zero():
    assert Sheet().score("straight", [1, 2, 3, 4, 6])["straight"] == 0
    assert Sheet().score("sixes", [1, 2, 3, 4, 5])["sixes"] == 0


def test_scoring_leaves_the_old_sheet_untouched():
    before = Sheet()
    before.score("ones", [1, 1, 2, 3, 4])
    assert before.is_open("ones")


def test_a_filled_box_cannot_be_scored_again():
    sheet = Sheet().score("ones", [1, 1, 2, 3, 4])
    with pytest.raises(KismetError, match="already filled"):
        sheet.score("ones", [1, 1, 1, 1, 1])


def test_a_box_that_does_not_exist_cannot_be_scored():
    with pytest.raises(KismetError, match="no box called 'nines'"):
        Sheet().score("nines", [1, 1, 2, 3, 4])


def test_the_totals_add_the_basic_section_its_bonus_and_the_kismet_section():
    sheet = make_sheet(ones=3, twos=6, threes=12, fours=16, fives=15, sixes=18, straight=30, kismet=80)
    assert sheet.basic_total == 70
    assert sheet.bonus == 35
    assert sheet.kismet_total == 110
    assert sheet.total == 215


def test_a_sheet_rebuilt_from_its_scores_matches():
    sheet = Sheet().score("yarborough", [6, 6, 5, 5, 4]).score("twos", [2, 2, 1, 1, 1])
    assert Sheet.from_scores({k: v for k, v in sheet.as_dict().items() if v is not None}) == sheet


def test_a_sheet_refuses_a_made_up_box_or_a_negative_score():
    with pytest.raises(KismetError, match="no box"):
        Sheet.from_scores({"bonus": 35})
    with pytest.raises(KismetError, match="0 or more"):
        Sheet.from_scores({"ones": -1})
    with pytest.raises(KismetError, match="15 boxes"):
        Sheet((None,) * 14)


def test_the_top_most_open_box_is_in_the_basic_section_first():
    sheet = make_sheet(ones=2, twos=4, kismet=55)
    box, zeroed = sheet.zero_top_most()
    assert box == "threes"
    assert zeroed["threes"] == 0


def test_the_top_most_open_box_moves_into_the_kismet_section_once_basic_is_full():
    sheet = make_sheet(ones=2, twos=4, threes=6, fours=8, fives=10, sixes=12, two_pair_same_color=20)
    assert sheet.zero_top_most()[0] == "three_of_a_kind"


def test_a_full_sheet_has_no_top_most_open_box():
    full = Sheet.from_scores(dict.fromkeys(BOXES, 0))
    assert full.is_full
    with pytest.raises(KismetError, match="full"):
        full.zero_top_most()


# --- a turn ---------------------------------------------------------------------------------------


def test_a_turn_has_three_rolls_at_most():
    turn = Turn.first_roll([1, 2, 3, 4, 6]).roll_again([1, 2, 3, 4], [5]).roll_again([2, 3, 4, 5], [6])
    assert turn.rolls == 3
    assert turn.rolls_left == 0
    with pytest.raises(KismetError, match="No rolls left"):
        turn.roll_again([2, 3, 4, 5], [1])


def test_dice_kept_earlier_may_be_picked_up_again():
    turn = Turn.first_roll([6, 6, 1, 2, 3]).roll_again(keep=[6, 6], dice=[6, 2, 2])
    turn = turn.roll_again(keep=[2, 2], dice=[2, 5, 5])  # the sixes kept before are rerolled
    assert sorted(turn.dice) == [2, 2, 2, 5, 5]


def test_a_player_can_keep_only_dice_on_the_table():
    with pytest.raises(KismetError, match="Cannot keep"):
        Turn.first_roll([1, 2, 3, 4, 5]).roll_again(keep=[6], dice=[1, 1, 1, 1])
    with pytest.raises(KismetError, match="Cannot keep"):
        Turn.first_roll([1, 2, 3, 4, 5]).roll_again(keep=[1, 1], dice=[1, 1, 1])


def test_the_reroll_must_give_one_result_per_picked_up_die():
    with pytest.raises(KismetError, match="3 dice were picked up"):
        Turn.first_roll([1, 2, 3, 4, 5]).roll_again(keep=[1, 2], dice=[6, 6])


def test_rolling_again_means_picking_up_at_least_one_die():
    with pytest.raises(KismetError, match="at least one"):
        Turn.first_roll([1, 2, 3, 4, 5]).roll_again(keep=[1, 2, 3, 4, 5], dice=[])


def test_the_first_roll_is_all_five_dice():
    with pytest.raises(KismetError, match="5 dice"):
        Turn.first_roll([1, 2, 3])


# --- a game ---------------------------------------------------------------------------------------


def test_players_take_turns_in_order():
    game = Game.start(["ann", "bob"])
    assert game.player == "ann"
    game = game.roll([1, 1, 1, 2, 3]).score("ones")
    assert game.player == "bob"
    assert game.sheet("ann")["ones"] == 3
    game = game.score("twos", dice=[2, 2, 3, 4, 5])
    assert game.player == "ann"


def test_a_player_may_score_after_any_roll():
    game = Game.start(["ann"]).roll([2, 3, 4, 5, 6]).score("straight")
    assert game.sheet("ann")["straight"] == 30


def test_the_box_choices_show_what_each_open_box_would_score():
    game = make_game(sheets={"ann": make_sheet(fives=15)}).roll([5, 5, 5, 5, 2])
    choices = game.box_choices()
    assert "fives" not in choices
    assert choices["four_of_a_kind"] == 47
    assert choices["straight"] == 0
    assert len(choices) == 14


def test_a_player_cannot_roll_twice_or_score_before_rolling():
    game = Game.start(["ann", "bob"])
    with pytest.raises(KismetError, match="not rolled"):
        game.score("ones")
    with pytest.raises(KismetError, match="not rolled"):
        game.roll_again([], [1, 2, 3, 4, 5])
    rolled = game.roll([1, 2, 3, 4, 5])
    with pytest.raises(KismetError, match="already rolled"):
        rolled.roll([1, 2, 3, 4, 5])
    with pytest.raises(KismetError, match="rolled in the app"):
        rolled.score("ones", dice=[1, 1, 1, 1, 1])


def test_a_game_needs_players_with_different_names():
    with pytest.raises(KismetError, match="at least one"):
        Game.start([])
    with pytest.raises(KismetError, match="different name"):
        Game.start(["ann", "ann"])
    with pytest.raises(KismetError, match="Nobody called"):
        Game.start(["ann"]).sheet("bob")


def test_a_first_kismet_is_an_ordinary_score():
    game = make_game().score("kismet", dice=[3, 3, 3, 3, 3])
    assert game.sheet("ann")["kismet"] == 65
    assert game.last is not None
    assert not game.last.second_kismet
    assert game.player == "bob"
    assert game.sheet("bob").open_boxes == BOXES


def test_a_second_kismet_zeroes_every_other_sheet():
    game = make_game(
        sheets={"ann": make_sheet(kismet=55), "bob": make_sheet(ones=3), "cy": make_sheet(ones=1, twos=4)}
    )
    game = game.roll([2, 3, 3, 6, 6]).roll_again([6, 6], [6, 6, 6])
    game = game.score("sixes")
    assert game.sheet("ann")["sixes"] == 30
    assert game.sheet("bob")["twos"] == 0
    assert game.sheet("cy")["threes"] == 0
    assert game.last is not None
    assert game.last.second_kismet
    assert game.last.zeroed == (("bob", "twos"), ("cy", "threes"))


def test_after_a_second_kismet_the_roller_plays_next():
    game = make_game(sheets={"bob": make_sheet(kismet=80)}, current=1)
    game = game.score("four_of_a_kind", dice=[6, 6, 6, 6, 6])
    assert game.sheet("bob")["four_of_a_kind"] == 55
    assert game.player == "bob"
    game = game.score("ones", dice=[1, 2, 3, 4, 5])
    assert game.player == "cy"


def test_a_second_kismet_scores_only_in_a_box_the_dice_qualify_for():
    game = make_game(sheets={"ann": make_sheet(kismet=55)})
    with pytest.raises(KismetError, match="second Kismet"):
        game.score("full_house", dice=[4, 4, 4, 4, 4])
    with pytest.raises(KismetError, match="second Kismet"):
        game.score("straight", dice=[4, 4, 4, 4, 4])


def test_five_fives_as_a_second_kismet_go_in_fives_never_in_ones():
    game = make_game(sheets={"ann": make_sheet(kismet=75)})
    with pytest.raises(KismetError, match="second Kismet.*Fives"):
        game.score("ones", dice=[5, 5, 5, 5, 5])
    assert game.score("fives", dice=[5, 5, 5, 5, 5]).sheet("ann")["fives"] == 25


def test_a_second_kismet_with_only_unqualified_boxes_open_writes_zero_and_still_zeroes_the_others():
    filled = {box: 1 for box in BOXES if box not in ("straight", "full_house")}
    game = make_game(sheets={"ann": make_sheet(**filled)})
    game = game.score("straight", dice=[2, 2, 2, 2, 2])
    assert game.sheet("ann")["straight"] == 0
    assert game.sheet("bob")["ones"] == 0
    assert game.player == "ann"


def test_five_alike_after_a_zero_in_the_kismet_box_is_no_second_kismet():
    game = make_game(sheets={"ann": make_sheet(kismet=0)}).score("fives", dice=[5, 5, 5, 5, 5])
    assert game.last is not None
    assert not game.last.second_kismet
    assert game.sheet("bob").open_boxes == BOXES
    assert game.player == "bob"


def test_a_second_kismet_skips_a_sheet_that_is_already_full():
    full = Sheet.from_scores(dict.fromkeys(BOXES, 0))
    game = make_game(sheets={"ann": full, "bob": make_sheet(kismet=60)}, current=1)
    game = game.score("yarborough", dice=[2, 2, 2, 2, 2])
    assert game.last is not None
    assert game.last.zeroed == (("cy", "ones"),)
    assert game.sheet("ann") == full


def test_the_same_happens_for_every_further_kismet():
    game = make_game(sheets={"ann": make_sheet(kismet=55)})
    game = game.score("ones", dice=[1, 1, 1, 1, 1]).score("twos", dice=[2, 2, 2, 2, 2])
    assert game.sheet("bob")["ones"] == game.sheet("bob")["twos"] == 0
    assert game.player == "ann"


def test_the_game_is_over_when_every_box_of_every_sheet_is_filled():
    nearly = Sheet.from_scores({box: 0 for box in BOXES if box != "kismet"})
    game = make_game("ann", "bob", sheets={"ann": nearly, "bob": nearly})
    game = game.score("kismet", dice=[1, 2, 3, 4, 5])
    assert not game.is_over
    game = game.score("kismet", dice=[6, 6, 6, 6, 6])
    assert game.is_over
    assert game.player is None
    assert game.winners() == ["bob"]
    with pytest.raises(KismetError, match="over"):
        game.roll([1, 2, 3, 4, 5])


def test_players_with_the_same_total_share_the_win():
    nearly = Sheet.from_scores({box: 0 for box in BOXES if box != "yarborough"})
    game = make_game(sheets={"ann": nearly, "bob": nearly, "cy": nearly})
    for dice in ([6, 6, 6, 5, 5], [6, 6, 5, 5, 6], [1, 1, 1, 1, 1]):
        game = game.score("yarborough", dice=dice)
    assert game.totals() == {"ann": 28, "bob": 28, "cy": 5}
    assert game.winners() == ["ann", "bob"]


def test_the_winners_are_unknown_while_boxes_are_open():
    with pytest.raises(KismetError, match="not over"):
        Game.start(["ann"]).winners()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), players=st.integers(1, 4))
def test_a_game_played_with_rolled_dice_fills_every_box_and_adds_up(seed, players):
    rng = random.Random(seed)
    names = [f"p{i}" for i in range(players)]
    game = Game.start(names)
    while not game.is_over:
        game = game.roll(dice_module.roll(rng, 5))
        for _ in range(dice_module.choice(rng, [0, 1, 2])):
            assert game.turn is not None
            kept = [face for face in game.turn.dice if rng.random() < 0.5][:4]
            game = game.roll_again(kept, dice_module.roll(rng, 5 - len(kept)))
        assert game.player is not None
        game = game.score(dice_module.choice(rng, game.sheet(game.player).open_boxes))
    for name in names:
        sheet = game.sheet(name)
        assert sheet.is_full
        boxes = [box for box in sheet.boxes if box is not None]  # every box: the sheet is full
        assert sheet.total == sum(boxes) + basic_bonus(sum(boxes[:6]))
    assert game.winners()
