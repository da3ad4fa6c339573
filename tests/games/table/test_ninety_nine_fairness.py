"""A fair deal at a Ninety-Nine or Bust table (issue 20, acceptance 3): 200 bot games through the
actions verify from their revealed seeds; an altered deal or drawn card does not."""

from __future__ import annotations

import pytest

from games.table.models import Table
from games.table.replay import verify
from tests.builders import FAIRNESS_PART, every_game_verifies, fairness_parts, play_out
from tests.games.table.ninety_nine_tables import ninety_nine_table

pytestmark = pytest.mark.django_db

LEVELS = ["easy", "threshold", "strong"]


def bot_game(number: int, markers: int = 1) -> Table:
    players = 2 + number % 4
    bots = [LEVELS[(number + seat) % 3] for seat in range(players)]
    return play_out(ninety_nine_table(players, markers=markers, bots=bots, seed=20_000 + number))


@pytest.mark.parametrize("first", fairness_parts())
def test_two_hundred_bot_games_through_the_actions_each_verify_from_their_revealed_seed(first: int) -> None:
    """200 games in parts of FAIRNESS_PART, so that parallel workers share them and each part is short
    (the first 50 games alone on PostgreSQL: tests/builders.fairness_parts says why)."""
    every_game_verifies(bot_game, range(first, first + FAIRNESS_PART))


def test_an_altered_deal_or_drawn_card_or_seed_fails_verification_and_says_where() -> None:
    table = bot_game(3, markers=2)
    deals = [m for m in table.moves.order_by("number") if m.move["kind"] == "deal"]
    assert deals and deals[0].chance[0][0] == "deal"
    deal = deals[0]
    original = deal.chance
    hands = [list(hand) for hand in original[0][2]]
    seat = next(s for s, hand in enumerate(hands) if hand)
    hands[seat][0] = "99" if hands[seat][0] != "99" else 1
    deal.chance = [["deal", original[0][1], hands]]
    deal.save()
    verdict = verify(table)
    assert not verdict.verified and f"move {deal.number}" in verdict.message
    deal.chance = original
    deal.save()
    assert verify(table).verified

    draw = next(m for m in table.moves.order_by("number") if m.chance and m.chance[0][0] == "draw")
    draw.chance = [["draw", "hold" if draw.chance[0][1] != "hold" else 5]]
    draw.save()
    assert f"move {draw.number}" in verify(table).message

    fresh = bot_game(4)
    assert verify(fresh).verified
    assert "commitment" in verify(fresh, seed=fresh.seed[::-1]).message


def test_altering_the_first_deal_as_stored_fails_verification() -> None:
    table = bot_game(5)
    state = table.state
    state["state"]["markers"] = [m + 1 for m in state["state"]["markers"]]
    Table.objects.filter(pk=table.pk).update(state=state)
    table.refresh_from_db()
    assert not verify(table).verified
