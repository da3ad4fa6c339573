"""Kismet at a game table, through the actions: seats of server dice and of real dice typed in, the
server's rolls recorded as chance and checked by verify_table, the second Kismet's zeroes, a refusal
for every bad move with nothing changed, and the engine's totals against the site's over many games."""

from __future__ import annotations

import os
import random
from typing import Any

import pytest

from games.rules import dice, kismet
from games.rules.kismet import KismetTable
from games.table import actions, bots
from games.table.models import Move, Table
from games.table.replay import verify
from tests.builders import NAMES, make_table, play_out, to_move

pytestmark = pytest.mark.django_db

# The property test's games: a few in the default suite; KISMET_GAMES=1000 for the full run.
GAMES = int(os.environ.get("KISMET_GAMES", "12"))


def kismet_table(players: int = 3, *, real: list[int] | None = None, seed: int = 1, **fields: Any) -> Table:
    options = {"real_seats": real or [], **fields.pop("options", {})}
    return make_table(players, game="kismet", options=options, seed=seed, **fields)


def game_of(table: Table) -> KismetTable:
    table.refresh_from_db()
    game = table.loaded()
    assert isinstance(game, KismetTable)
    return game


def move(table: Table, seat: int, **made: Any) -> Move:
    return actions.make_move(table=table, seat=seat, move=made)


def enter_and_score(table: Table, seat: int, dice: list[int], box: str) -> Move:
    move(table, seat, kind="enter", dice=dice)
    return move(table, seat, kind="score", box=box)


def roll_and_score(table: Table, seat: int, box: str | None = None) -> Move:
    """A server-dice seat rolls once and scores in `box` (or the first box it may)."""
    move(table, seat, kind="roll")
    legal = game_of(table).state.legal_boxes()
    return move(table, seat, kind="score", box=box if box in legal else legal[0])


def test_a_kismet_table_seats_real_and_server_dice_and_its_view_says_which() -> None:
    table = kismet_table(3, real=[0])
    view = game_of(table).view(None).public
    assert view["game"] == "kismet" and view["real_dice"] == [True, False, False]
    assert table.engine.label == "Kismet"
    solo = kismet_table(1)
    assert game_of(solo).seats == ("Ada",)


def test_a_server_dice_turn_rolls_holds_and_scores_and_its_dice_are_recorded_as_chance() -> None:
    table = kismet_table(2)
    first = move(table, 0, kind="roll")
    dice = game_of(table).state.turn.dice  # type: ignore[union-attr]
    assert first.chance == [["roll", list(dice)]]
    held = move(table, 0, kind="roll", keep=[dice[0], dice[1]])
    turn = game_of(table).state.turn
    assert turn is not None and turn.rolls == 2 and sorted(turn.dice[:2]) == sorted(dice[:2])
    assert held.chance == [["roll", list(turn.dice)]]
    view = game_of(table).view(None).public
    assert [box for box, _ in view["options"]] + view["zeros"] == list(view["choices"])
    assert [points for _, points in view["options"]] == sorted((p for _, p in view["options"]), reverse=True)
    scored = move(table, 0, kind="score", box="yarborough")
    assert scored.chance == [] and scored.scores == [sum(turn.dice), 0]
    assert to_move(table) == 1


def test_real_dice_typed_in_are_part_of_the_move_not_chance_and_a_typo_can_be_entered_again() -> None:
    table = kismet_table(2, real=[0])
    typed = move(table, 0, kind="enter", dice=[1, 2, 3, 4, 6])
    assert typed.chance == []
    move(table, 0, kind="enter", dice=[1, 2, 3, 4, 5])  # the typo corrected
    assert game_of(table).view(None).public["options"][0] == ["straight", 30]
    assert move(table, 0, kind="score", box="straight").scores == [30, 0]


def test_a_second_kismet_scores_where_the_dice_qualify_and_zeroes_every_other_sheet_which_loses_its_turn() -> None:
    table = kismet_table(3, real=[0, 1])
    enter_and_score(table, 0, [6, 6, 6, 6, 6], "kismet")
    enter_and_score(table, 1, [1, 2, 3, 4, 5], "straight")
    roll_and_score(table, 2, "yarborough")
    with pytest.raises(actions.BadMove, match="second Kismet"):
        enter_and_score(table, 0, [5, 5, 5, 5, 5], "straight")
    scored = move(table, 0, kind="score", box="fives")
    game = game_of(table)
    assert game.state.last is not None and game.state.last.second_kismet
    assert game.state.last.zeroed == (("Bea", "ones"), ("Cal", "ones"))
    assert game.state.sheets[1]["ones"] == 0 and game.state.sheets[2]["ones"] == 0
    assert game.to_move() == (0,)  # the others lost their turn: the roller plays again
    assert scored.scores == [80 + 25, 30, game.state.sheets[2].total]


def test_the_printed_variant_keeps_a_second_kismet_out_of_straight() -> None:
    table = kismet_table(1, real=[0], options={"no_straight": True})
    enter_and_score(table, 0, [2, 2, 2, 2, 2], "kismet")
    for box in kismet.BOXES:
        if box not in ("kismet", "straight", "ones"):
            enter_and_score(table, 0, [1, 2, 3, 4, 6], box)
    move(table, 0, kind="enter", dice=[3, 3, 3, 3, 3])  # qualifies for neither Ones nor Straight
    assert game_of(table).state.legal_boxes() == ("ones",)
    with pytest.raises(actions.BadMove):
        move(table, 0, kind="score", box="straight")


def filled_yarborough(table: Table) -> Table:
    roll_and_score(table, 0, "yarborough")
    move(table, 1, kind="roll")
    return table


BAD_MOVES = [
    pytest.param(0, {"kind": "score", "box": "ones"}, actions.NotNow, id="out of turn"),
    pytest.param(1, {"kind": "score", "box": "sevens"}, actions.BadMove, id="a box that is not on the sheet"),
    pytest.param(1, {"kind": "enter", "dice": [1, 2, 3, 4, 5]}, actions.BadMove, id="typing dice on a server seat"),
    pytest.param(1, {"kind": "roll", "keep": [7]}, actions.BadMove, id="holding a 7"),
    pytest.param(1, {"kind": "roll", "keep": [1, 2, 3, 4, 5, 6]}, actions.BadMove, id="holding six dice"),
    pytest.param(1, {"kind": "toss"}, actions.BadMove, id="a move of another game"),
]


@pytest.mark.parametrize(("seat", "bad", "refusal"), BAD_MOVES)
def test_a_bad_move_is_refused_and_changes_nothing(seat: int, bad: dict[str, Any], refusal: type) -> None:
    table = filled_yarborough(kismet_table(2))
    before = Table.objects.get(pk=table.pk)
    with pytest.raises(refusal):
        actions.make_move(table=table, seat=seat, move=bad)
    after = Table.objects.get(pk=table.pk)
    assert after.state == before.state and after.moves_made == before.moves_made


def test_a_box_already_filled_is_refused_and_changes_nothing() -> None:
    table = kismet_table(1)
    roll_and_score(table, 0, "yarborough")
    move(table, 0, kind="roll")
    before = Table.objects.get(pk=table.pk)
    with pytest.raises(actions.BadMove, match="already filled"):
        move(table, 0, kind="score", box="yarborough")
    assert Table.objects.get(pk=table.pk).state == before.state


@pytest.mark.parametrize("dice", [[1, 2, 3, 4, 5, 6], [7, 1, 1, 1, 1], [1, 2, 3, 4], []], ids=str)
def test_real_dice_that_are_not_five_faces_are_refused_and_change_nothing(dice: list[int]) -> None:
    table = kismet_table(2, real=[0])
    with pytest.raises(actions.BadMove):
        move(table, 0, kind="enter", dice=dice)
    with pytest.raises(actions.BadMove, match="real dice"):
        move(table, 0, kind="roll")
    assert Table.objects.get(pk=table.pk).moves_made == 0


def test_a_fourth_roll_and_a_score_before_rolling_are_refused() -> None:
    table = kismet_table(1)
    with pytest.raises(actions.BadMove, match="not rolled"):
        move(table, 0, kind="score", box="ones")
    for _ in range(3):
        move(table, 0, kind="roll")
    with pytest.raises(actions.BadMove, match="No rolls left"):
        move(table, 0, kind="roll")


def test_a_typed_in_turn_can_be_undone_but_not_a_server_roll() -> None:
    table = kismet_table(2, real=[0])
    move(table, 0, kind="enter", dice=[1, 1, 2, 2, 3])
    move(table, 0, kind="undo")
    assert game_of(table).state.turn is None
    enter_and_score(table, 0, [1, 1, 2, 2, 3], "yarborough")
    move(table, 1, kind="roll")
    with pytest.raises(actions.NotNow):
        move(table, 1, kind="undo")


def offline_totals(table: Table) -> list[int]:
    """The same game played by the pure engine alone: every recorded move applied with its own
    generator from the seed, the totals added up from the boxes by RULES §3."""
    names = list(table.seats.values_list("name", flat=True))
    game = KismetTable.new(names, real_seats=table.options.get("real_seats", []))
    setup = dice.ChanceStream(table.seed, table.code, 0, table.deal_inputs()[1])
    assert game.to_dict() == table.engine.new(names, table.options, setup).to_dict()
    for recorded in table.moves.order_by("number"):
        game = game.apply(recorded.seat, recorded.move,
                          dice.ChanceStream(table.seed, table.code, recorded.number, recorded.client))
    return [sheet.basic_total + kismet.basic_bonus(sheet.basic_total) + sheet.kismet_total
            for sheet in game.state.sheets]


def test_over_many_bot_games_the_engines_totals_and_the_sites_agree_and_every_game_verifies() -> None:
    chooser = random.Random(19)
    for number in range(GAMES):
        players = chooser.randint(1, 4)
        levels = [chooser.choice(("easy", "threshold")) for _ in range(players)]
        table = play_out(kismet_table(players, seed=1000 + number, bots=levels))
        final = table.last_move()
        view = table.loaded().view(None).public
        assert final is not None and table.is_over
        assert offline_totals(table) == final.scores == view["scores"]
        result = table.loaded().result()
        assert result is not None
        best = max(final.scores)
        assert [NAMES[seat] for seat in result.winners] == [
            NAMES[seat] for seat, score in enumerate(final.scores) if score == best]
        assert verify(table).verified


def test_a_kismet_bot_takes_a_seat_and_a_strong_one_holds_dice() -> None:
    table = kismet_table(1, bots=["strong"])
    table = play_out(table)
    moves = list(table.moves.order_by("number"))
    assert any(m.move.get("keep") for m in moves if m.move["kind"] == "roll")
    assert sum(1 for m in moves if m.move["kind"] == "score") == 15
    assert bots.choose_move(KismetTable.new(["A"]), 0, "easy", random.Random(1)) == {"kind": "roll"}


def test_verify_table_finds_an_altered_kismet_roll() -> None:
    table = play_out(kismet_table(2, bots=["threshold", "easy"], seed=4))
    assert verify(table).verified
    rolled = next(m for m in table.moves.order_by("number") if m.chance)
    rolled.chance = [["roll", [7 - face for face in rolled.chance[0][1]]]]
    rolled.save()
    assert not verify(table).verified


def test_a_table_with_real_dice_seats_verifies_too() -> None:
    table = kismet_table(1, real=[0])
    for box in kismet.BOXES:
        enter_and_score(table, 0, [4, 4, 4, 5, 5], box)
    table.refresh_from_db()
    assert table.is_over and verify(table).verified
