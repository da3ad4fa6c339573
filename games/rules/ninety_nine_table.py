"""Ninety-Nine or Bust at a game table: everything the table needs of the game beyond `TableGame`
(games.rules.table.GameRules), registered in games/rules/registry.py.

Options a Ninety-Nine or Bust table stores: {"markers": M} (1 to 10; 4 by default) and,
optionally, {"deck": {card: copies}} for another composition than docs/RULES.md §2's 52 cards. Its
templates are templates/games/table/ninety_nine/.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from games.rules import dice, ninety_nine, ninety_nine_bots
from games.rules.table import (
    GameRules,
    IllegalMove,
    OptionField,
    Played,
    PostedFields,
    ReadNumber,
    SimulatedOption,
    TableGame,
    only_fields,
    posted,
)
from games.rules.words import Said, gettext_noop

MARKERS = range(1, 11)


def _game(game: TableGame) -> ninety_nine.NinetyNineTable:
    assert isinstance(game, ninety_nine.NinetyNineTable)
    return game


def rules_of(options: Mapping[str, Any]) -> ninety_nine.Rules:
    """The rules a table's stored options stand for."""
    markers = options.get("markers", ninety_nine.STARTING_MARKERS)
    if type(markers) is not int or markers not in MARKERS:
        raise IllegalMove(Said(gettext_noop("Each player starts with 1 to %(most)s markers, not %(markers)s."),
                               most=MARKERS[-1], markers=repr(markers)))
    unknown = set(options) - {"markers", "deck"}
    if unknown:
        raise IllegalMove(Said(gettext_noop("Unknown Ninety-Nine or Bust option: %(options)s."),
                               options=", ".join(sorted(unknown))))
    deck = options.get("deck")
    if deck is None:
        return ninety_nine.Rules(markers=markers)
    if not isinstance(deck, Mapping):
        raise IllegalMove(Said(gettext_noop("The deck is a number of copies per card.")))
    # JSON keys are text: the number cards come back as "1".."10".
    copies = {int(card) if str(card).isdigit() and card != "99" else card: number for card, number in deck.items()}
    return ninety_nine.Rules.with_deck(copies, markers=markers)


def new(names: Sequence[str], options: Mapping[str, Any], rng: dice.Chance) -> TableGame:
    return ninety_nine.NinetyNineTable.new(names, rng, rules=rules_of(options))


def chance(before: TableGame, after: TableGame) -> list[list[Any]]:
    return ninety_nine.chance_between(_game(before).state, _game(after).state)


def scores(game: TableGame) -> list[int]:
    return list(_game(game).state.markers)


def bot_move(game: TableGame, seat: int, level: str, rng: random.Random) -> dict[str, Any]:
    return ninety_nine_bots.choose_move(_game(game), seat, level, rng)


def replay_extras(dealt: TableGame, final: Mapping[str, Any]) -> dict[str, Any]:
    """The first deal's hands, shown once the game is over."""
    return {"dealt": ninety_nine.hands_words(_game(dealt).state)}


def step_extras(game: TableGame) -> dict[str, Any]:
    """Every hand after the step (the replay opens once the game is over)."""
    return {"hands": ninety_nine.hands_words(_game(game).state)}


def read_move(fields: PostedFields, number: ReadNumber) -> dict[str, Any]:
    """A move's arguments as its page posts them: the card played (`card`), a number card 1..10
    or a special card by its word ("99" is one)."""
    only_fields(fields, ("card",))
    card = posted(fields, "card")
    if card is None:
        return {}
    return {"card": card if card in ninety_nine.SPECIAL_CARDS else number(card, low=1, high=10, what=gettext_noop("a card"))}


def summary(played: Played) -> dict[str, Any]:
    """What simulate_table prints of a finished game (docs/CONTRACT.md): each deal (who dealt, every card
    played with the count it made, who lost the deal) and the markers left."""
    names = list(played.final.seats)
    deals: list[dict[str, Any]] = []
    current: dict[str, Any] = {"dealer": names[_game(played.dealt).state.dealer], "plays": [], "loser": None}
    for move, game in played.steps:
        state = _game(game).state
        if move.get("kind") == "deal":
            deals.append(current)
            current = {"dealer": names[state.dealer], "plays": [], "loser": None}
            continue
        for event in state.events:
            if event.seat is None:  # an event of the whole table, not of a player
                continue
            if event.kind == "played":
                current["plays"].append({"player": names[event.seat], "card": event.card, "count": event.count})
            elif event.kind == "lost_round":
                current["loser"] = names[event.seat]
    deals.append(current)
    return {"deals": deals, "markers": dict(zip(names, _game(played.final).state.markers, strict=True))}


RULES = GameRules(
    name=ninety_nine.NinetyNineTable.game,
    label="Ninety-Nine or Bust",
    min_seats=2,
    max_seats=8,
    new=new,
    load=ninety_nine.NinetyNineTable.from_dict,
    chance=chance,
    scores=scores,
    said=ninety_nine.said,
    bot_move=bot_move,
    private_hands=True,
    fairness=(gettext_noop("Fair deal"), gettext_noop("every shuffle and every card dealt")),
    options=(
        OptionField("markers", gettext_noop("Markers each"), "choice", default=ninety_nine.STARTING_MARKERS,
                    choices=tuple((n, str(n)) for n in MARKERS)),
    ),
    seats_note=gettext_noop("Two to eight players: seat 1 deals first and the seat after it plays first."),
    score_heading=gettext_noop("Markers and cards in hand"),
    replay_extras=replay_extras,
    step_extras=step_extras,
    read_move=read_move,
    simulated=(SimulatedOption("markers", ninety_nine.STARTING_MARKERS, "Ninety-Nine or Bust's markers"),),
    summary=summary,
    bot_hints=tuple(ninety_nine_bots.LEVEL_HINTS.items()),
)
