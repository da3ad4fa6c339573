"""Fair dice, provably (issue 18, acceptance 2): bot games through the actions verify from their
revealed seeds; an altered record does not; and nothing a screen is sent gives away the seed, the
deck's order or a toss before it is made."""

from __future__ import annotations

import json
from typing import Any

import pytest

from games.table.models import Move, Table
from games.table.replay import verify
from live.models import Event
from tests.builders import FAIRNESS_PART, every_game_verifies, fairness_parts, make_table, play_out

pytestmark = pytest.mark.django_db

LEVELS = ["easy", "threshold", "strong"]


def bot_game(number: int) -> Table:
    players = 2 + number % 3
    bots = [LEVELS[(number + seat) % 3] for seat in range(players)]
    return play_out(make_table(players=players, bots=bots, seed=10_000 + number))


@pytest.mark.parametrize("first", fairness_parts())
def test_two_hundred_bot_games_through_the_actions_each_verify_from_their_revealed_seed(first: int) -> None:
    """200 games in parts of FAIRNESS_PART, so that parallel workers share them and each part is short
    (the first 50 games alone on PostgreSQL: tests/builders.fairness_parts says why)."""
    every_game_verifies(bot_game, range(first, first + FAIRNESS_PART))


def test_a_changed_toss_card_or_seed_fails_verification_and_says_where() -> None:
    table = bot_game(1)
    tosses = [m for m in table.moves.order_by("number") if m.chance and m.chance[0][0] == "toss"]
    cards = [m for m in table.moves.order_by("number") if m.chance and m.chance[0][0] == "card"]

    toss = tosses[len(tosses) // 2]
    original = toss.chance
    toss.chance = [["toss", [7 - face for face in original[0][1]]]]
    toss.save()
    verdict = verify(table)
    assert not verdict.verified and f"move {toss.number}" in verdict.message
    toss.chance = original
    toss.save()

    card = cards[-1]
    card.chance = [["card", "NO_DICE" if card.chance[0][1] != "NO_DICE" else "BONUS_300"]]
    card.save()
    assert f"move {card.number}" in verify(table).message

    fresh = bot_game(2)
    assert verify(fresh).verified
    assert "commitment" in verify(fresh, seed=fresh.seed[::-1]).message


def _chance_named(value: Any) -> list[list[Any]]:
    """Every ["card", NAME] and ["toss", [dice]] step anywhere in an event's data."""
    found: list[list[Any]] = []
    if isinstance(value, list):
        if len(value) == 2 and ((value[0] == "card" and isinstance(value[1], str) and value[1].isupper())
                                or (value[0] == "toss" and isinstance(value[1], list))):
            found.append(value)
        else:
            for item in value:
                found += _chance_named(item)
    elif isinstance(value, dict):
        for item in value.values():
            found += _chance_named(item)
    return found


def test_no_event_carries_the_seed_the_deck_or_a_toss_before_it_is_made() -> None:
    table = bot_game(3)
    events = list(Event.objects.filter(channel__startswith=table.channel).order_by("id"))
    assert events
    moves = list(Move.objects.filter(table=table).order_by("number"))
    deck = json.dumps(table.state["state"]["deck"])
    over = next(e for e in events if e.data.get("what") == "over")
    made: list[list[Any]] = []  # what chance has produced so far, in order
    moves_seen = 0
    for event in events:
        text = json.dumps(event.data)
        assert "draw_pile" not in text and deck not in text and '"state"' not in text
        if event.id < over.id:
            assert table.seed not in text, f"the seed went out before the end in {event}"
        if event.kind == "moved":
            number = event.data["move"]["number"]
            while moves_seen < number:
                made += moves[moves_seen].chance
                moves_seen += 1
        for step in _chance_named(event.data):
            # Each card or toss an event names is one chance had already produced when it was sent.
            assert step in made, f"{event} names {step}, which had not happened yet"
    assert over.data["seed"] == table.seed
