"""Every engine is a `TableGame` (games/rules/table.py): random whole games of each, played only
through `legal_moves` and `apply`, round-trip through `to_dict`/`from_dict` (and JSON) at every step,
and no seat's view ever depends on what is hidden from it (another seat's hand, the deck's order).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules import fill_or_bust, kismet, ninety_nine
from games.rules.registry import GAMES
from games.rules.table import IllegalMove, MalformedMove, NotYourTurn, TableGame

NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve", "Fay")

Hide = Callable[[Any, int, random.Random], Any]


def new_fill_or_bust(players: int, rng: random.Random) -> TableGame:
    return fill_or_bust.FillOrBustTable.new(NAMES[:players], rng, goal=2000)


def new_kismet_server_dice(players: int, rng: random.Random) -> TableGame:
    return kismet.KismetTable.new(NAMES[:players])


def new_kismet_real_dice(players: int, rng: random.Random) -> TableGame:
    return kismet.KismetTable.new(NAMES[:players], server_dice=False)


def new_ninety_nine(players: int, rng: random.Random) -> TableGame:
    return ninety_nine.NinetyNineTable.new(NAMES[:players], rng, rules=ninety_nine.Rules(markers=1))


def another_deck_order(game: Any, seat: int, rng: random.Random) -> Any:
    """The same Fill or Bust game with the draw pile in another order: nobody may tell."""
    state = game.state
    pile = list(state.deck.draw_pile)
    rng.shuffle(pile)
    return replace(game, state=replace(state, deck=replace(state.deck, draw_pile=tuple(pile))))


def nothing_hidden(game: Any, seat: int, rng: random.Random) -> Any:
    return game


def other_hands_dealt_again(game: Any, seat: int, rng: random.Random) -> Any:
    """The same Ninety-Nine or Bust game as `seat` knows it: its own hand, the played pile and
    every count stay; the other hands and the draw pile are dealt again from the same cards."""
    state = game.state
    hidden = [card for other, hand in enumerate(state.hands) if other != seat for card in hand]
    hidden += state.draw_pile
    rng.shuffle(hidden)
    hands = []
    for other, hand in enumerate(state.hands):
        if other == seat:
            hands.append(hand)
        else:
            hands.append(tuple(hidden[: len(hand)]))
            hidden = hidden[len(hand) :]
    return replace(game, state=replace(state, hands=tuple(hands), draw_pile=tuple(hidden)))


ENGINES: dict[str, tuple[Callable[[int, random.Random], TableGame], Hide, int]] = {
    "fill_or_bust": (new_fill_or_bust, another_deck_order, 6),
    "kismet_server_dice": (new_kismet_server_dice, nothing_hidden, 4),
    "kismet_real_dice": (new_kismet_real_dice, nothing_hidden, 3),
    "ninety_nine": (new_ninety_nine, other_hands_dealt_again, 6),
}


def choose(game: TableGame, moves: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A random legal move; with real Kismet dice a player types the dice in once, then scores."""
    scoring = [move for move in moves if move["kind"] == "score"]
    if scoring and rng.random() < 0.9:
        return rng.choice(scoring)
    return rng.choice(moves)


def play(engine: str, players: int, seed: int, check: Callable[[TableGame, random.Random], None]) -> TableGame:
    new, _hide, _most = ENGINES[engine]
    rng = random.Random(seed)
    game = new(players, rng)
    for _ in range(20_000):
        check(game, rng)
        if game.is_over:
            return game
        (seat,) = game.to_move()
        game = game.apply(seat, choose(game, game.legal_moves(seat), rng), rng)
    raise AssertionError("the game did not end")


def players_for(engine: str) -> st.SearchStrategy[int]:
    return st.integers(1 if engine.startswith("kismet") else 2, ENGINES[engine][2])


@pytest.mark.parametrize("engine", ENGINES)
def test_every_engine_is_a_table_game(engine: str) -> None:
    new, _hide, _most = ENGINES[engine]
    game = new(2, random.Random(1))
    assert isinstance(game, TableGame)
    assert game.seats == NAMES[:2]
    assert game.result() is None


@pytest.mark.parametrize("engine", ENGINES)
@given(data=st.data())
@settings(max_examples=15)
def test_a_game_round_trips_through_its_dict_at_every_step(engine: str, data: st.DataObject) -> None:
    players = data.draw(players_for(engine))
    seed = data.draw(st.integers(0, 2**32))

    def round_trips(game: TableGame, rng: random.Random) -> None:
        saved = json.loads(json.dumps(game.to_dict()))
        again = type(game).from_dict(saved)
        assert again == game
        assert again.to_dict() == saved

    finished = play(engine, players, seed, round_trips)
    result = finished.result()
    assert result is not None and result.winners
    assert set(result.winners) <= set(range(players))


@pytest.mark.parametrize("engine", ENGINES)
@given(data=st.data())
@settings(max_examples=15)
def test_no_seat_can_see_what_is_hidden_from_it(engine: str, data: st.DataObject) -> None:
    """What a seat sees is the same whatever the hidden cards are (another seat's hand, the deck's
    order), and the public part is the same for every seat and for the table screen."""
    players = data.draw(players_for(engine))
    seed = data.draw(st.integers(0, 2**32))
    hide = ENGINES[engine][1]

    def private_stays_private(game: TableGame, rng: random.Random) -> None:
        screen = game.view(None)
        assert screen.private == {}
        json.dumps(screen.public)
        for seat in range(players):
            seen = game.view(seat)
            assert seen.public == screen.public
            assert hide(game, seat, rng).view(seat) == seen

    play(engine, players, seed, private_stays_private)


@pytest.mark.parametrize("engine", ENGINES)
@given(data=st.data())
@settings(max_examples=10)
def test_every_listed_move_is_accepted_and_a_seat_out_of_turn_is_refused(
    engine: str, data: st.DataObject
) -> None:
    players = data.draw(st.integers(2, ENGINES[engine][2]))
    seed = data.draw(st.integers(0, 2**32))

    def moves_are_honest(game: TableGame, rng: random.Random) -> None:
        if game.is_over:
            assert game.to_move() == ()
            return
        (seat,) = game.to_move()
        listed = game.legal_moves(seat)
        # Real Kismet dice list every roll that could be typed in (252): a sample of them is enough.
        for move in listed if len(listed) <= 40 else rng.sample(listed, 40):
            game.apply(seat, move, random.Random(0))  # raises if a listed move is refused
        for other in range(players):
            if other != seat:
                assert game.legal_moves(other) == []
                with pytest.raises(NotYourTurn):
                    game.apply(other, game.legal_moves(seat)[0], rng)

    play(engine, players, seed, moves_are_honest)


def test_each_engines_errors_are_illegal_moves() -> None:
    assert issubclass(fill_or_bust.IllegalMove, IllegalMove)
    assert issubclass(fill_or_bust.IllegalSelection, IllegalMove)
    assert issubclass(kismet.KismetError, IllegalMove)
    assert issubclass(ninety_nine.IllegalPlay, IllegalMove)
    assert issubclass(IllegalMove, ValueError)  # docs/CONTRACT.md: every rule error is a ValueError


def test_a_fill_or_bust_toss_is_the_servers_alone() -> None:
    game = fill_or_bust.FillOrBustTable.new(NAMES[:2], random.Random(3))
    (seat,) = game.to_move()
    game = game.apply(seat, {"kind": "draw"}, random.Random(4))
    while game.view(None).public["phase"] != "toss":  # a NO DICE or a sole leader's Vengeance
        (seat,) = game.to_move()
        game = game.apply(seat, game.legal_moves(seat)[0], random.Random(5))
    (seat,) = game.to_move()
    with pytest.raises(IllegalMove, match="Only the table tosses"):
        game.apply(seat, {"kind": "toss", "dice": [1, 1, 1, 1, 1, 1]}, random.Random(6))


@pytest.mark.parametrize(
    ("move", "message"),
    [
        ("keep", "A move is a mapping"),
        ({"kind": "shout"}, "Unknown move 'shout'"),
        ({"kind": "score", "box": "chance"}, "There is no box called 'chance'"),
        ({"kind": "score", "box": 7}, "Say which box"),
    ],
)
def test_a_malformed_kismet_move_is_refused_with_a_message(move: object, message: str) -> None:
    game = kismet.KismetTable.new(NAMES[:2]).apply(0, {"kind": "roll"}, random.Random(1))
    with pytest.raises(IllegalMove, match=message):
        game.apply(0, move, random.Random(2))  # type: ignore[arg-type]


def test_a_second_kismet_lists_only_the_boxes_its_dice_qualify_for() -> None:
    sheet = kismet.Sheet.from_scores({"kismet": 55})
    state = kismet.Game(("Ann", "Bob"), (sheet, kismet.Sheet()), 0, kismet.Turn((3, 3, 3, 3, 3)))
    game = kismet.KismetTable(state)
    boxes = {move["box"] for move in game.legal_moves(0) if move["kind"] == "score"}
    assert boxes == set(kismet.options([3, 3, 3, 3, 3])) - {"kismet", "ones", "twos", "fours", "fives", "sixes"}
    with pytest.raises(IllegalMove, match="second Kismet"):
        game.apply(0, {"kind": "score", "box": "straight"}, random.Random(0))


def test_a_ninety_nine_view_shows_the_count_each_card_would_make() -> None:
    state = ninety_nine.Game(
        rules=ninety_nine.Rules(),
        players=("Ann", "Bob"),
        markers=(4, 4),
        dealer=1,
        hands=((10, "minus_10", 5), (1, 2, 3)),
        draw_pile=(4, 6, 7),
        played=(8,),
        count=92,
        direction=ninety_nine.CLOCKWISE,
        turn=0,
        phase=ninety_nine.PLAYING,
    )
    seen = ninety_nine.NinetyNineTable(state).view(0)
    assert seen.private["makes"] == [None, 82, 97]
    assert seen.private["legal"] == ["minus_10", 5]
    assert seen.public["cards"] == [3, 3]
    assert "hand" not in seen.public and 1 not in ninety_nine.NinetyNineTable(state).view(0).private["hand"]


def test_the_tables_vengeance_choices_are_the_engines_penalties() -> None:
    """The table form's Vengeance option names the engine's two penalties (the rules' and the team
    house rule's), never numbers of its own (issue 43: a literal 2500 stood beside the constant),
    and a game dealt with either takes that much off the leaders."""
    from games.rules.fill_or_bust_table import OPTIONS

    vengeance = next(field for field in OPTIONS if field.name == "vengeance")
    assert vengeance.default == fill_or_bust.VENGEANCE_PENALTY
    assert [value for value, _label in vengeance.choices] == [
        fill_or_bust.VENGEANCE_PENALTY, fill_or_bust.TEAM_VENGEANCE_PENALTY]
    assert fill_or_bust.Options(vengeance=fill_or_bust.TEAM_VENGEANCE_PENALTY).vengeance == 5000


# --- Each game reads its own move from the fields its page posts (GameRules.read_move) ---------------


def read_number(raw: object, *, low: int, high: int, what: str) -> int:
    """A stand-in for the site's one way of reading a number (live.http.parse_int)."""
    if not (isinstance(raw, str) and raw.isascii() and raw.isdigit() and low <= int(raw) <= high):
        raise ValueError(f"not {what}")
    return int(raw)


@pytest.mark.parametrize(("game", "fields", "move"), [
    ("fill_or_bust", {"kind": ["keep"], "dice": ["1", "5"]}, {"dice": [1, 5]}),
    ("fill_or_bust", {"kind": ["keep"]}, {"dice": []}),
    ("fill_or_bust", {"kind": ["toss"]}, {}),
    ("kismet", {"kind": ["roll"], "keep": ["6", "6"]}, {"keep": [6, 6]}),
    ("kismet", {"kind": ["score"], "box": ["full_house"]}, {"box": "full_house"}),
    ("kismet", {"kind": ["enter"], "dice": ["1", "2", "3", "4", "5"]}, {"dice": [1, 2, 3, 4, 5]}),
    ("ninety_nine", {"kind": ["play"], "card": ["hold"]}, {"card": "hold"}),
    ("ninety_nine", {"kind": ["play"], "card": ["99"]}, {"card": "99"}),
    ("ninety_nine", {"kind": ["play"], "card": ["7"]}, {"card": 7}),
])
def test_each_game_reads_its_own_moves_arguments(game: str, fields: dict[str, list[str]], move: dict[str, Any]) -> None:
    assert GAMES[game].read_move(fields, read_number) == move


@pytest.mark.parametrize(("game", "fields", "message"), [
    ("fill_or_bust", {"kind": ["toss"], "card": ["7"]}, "That move was malformed: tap one of the buttons."),
    ("fill_or_bust", {"kind": ["keep"], "dice": ["1"] * 7}, "Set aside at most 6 dice."),
    ("kismet", {"kind": ["play"], "card": ["7"]}, "That move was malformed: tap one of the buttons."),
    ("kismet", {"kind": ["score"], "box": ["Ones!"]}, "That box was malformed: tap one of the boxes."),
    ("kismet", {"kind": ["roll"], "keep": ["1"] * 7}, "Hold at most 6 dice."),
    ("ninety_nine", {"kind": ["keep"], "dice": ["1"]}, "That move was malformed: tap one of the buttons."),
])
def test_a_field_that_is_no_move_of_the_game_is_malformed(game: str, fields: dict[str, list[str]], message: str) -> None:
    with pytest.raises(MalformedMove) as refused:
        GAMES[game].read_move(fields, read_number)
    assert str(refused.value) == message
