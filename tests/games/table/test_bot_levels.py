"""Issue 42 (G8): the bot levels read as friends name how someone plays (easy, steady, sharp), each
with a line on how it plays this game; the names kept with a seat and posted stay as they were
("threshold" is what simulate_table's --level and stored tables say), from one list."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from games.phones import PHONE_TOKEN_KEY
from games.rules import bot_levels as level_list
from games.rules import fill_or_bust_bots, kismet_bots, ninety_nine_bots
from games.rules.registry import BOT_LEVEL_WORDS, BOT_LEVELS, GAMES, bot_level_word, bot_levels
from games.table import actions
from tests.builders import make_table
from tests.builders import table_url as url

pytestmark = pytest.mark.django_db


def read(page: str) -> str:
    """What a person reads of a page: its text, without the tags, the values posted or the data its
    scripts are given."""
    return re.sub(r"<[^>]+>", " ", re.sub(r"<script.*?</script>", " ", page, flags=re.S))


def test_every_game_names_each_level_by_its_word_with_a_hint_of_its_own() -> None:
    for game in GAMES:
        levels = bot_levels(game)
        assert [level.name for level in levels] == list(BOT_LEVELS) == ["easy", "threshold", "strong"]
        assert [level.word for level in levels] == ["easy", "steady", "sharp"]
        assert all(level.hint and len(level.label) <= 60 for level in levels), levels


def test_the_levels_and_their_words_are_said_once_and_every_games_bots_play_them_with_hints_of_their_own() -> None:
    """Issue 43: one list of levels and one of their words (games/rules/bot_levels.py), which the
    registry offers; each game's bots take the list and say only how they play at each level."""
    assert BOT_LEVELS is level_list.LEVELS and BOT_LEVEL_WORDS is level_list.WORDS
    assert [bot_level_word(level) for level in BOT_LEVELS] == ["easy", "steady", "sharp"]
    for bots in (fill_or_bust_bots, kismet_bots, ninety_nine_bots):
        assert bots.LEVELS is level_list.LEVELS, bots.__name__
        assert list(bots.LEVEL_HINTS) == list(level_list.LEVELS), bots.__name__
        assert not hasattr(bots, "LEVEL_LABELS"), bots.__name__  # no second set of words


@pytest.mark.parametrize("game", list(GAMES))
def test_the_opener_is_offered_steady_with_its_hint_beside_every_seat_and_never_threshold(game: str) -> None:
    table = make_table(2, game=game, options={"goal": 2000} if game == "fill_or_bust" else {})
    opener = Client()
    opener.get(url("table", table))
    table.opener_token = opener.session[PHONE_TOKEN_KEY]
    table.save(update_fields=["opener_token"])
    page = opener.get(url("table", table)).content.decode()
    steady = next(level for level in bot_levels(game) if level.name == "threshold")
    assert page.count(f'<option value="threshold" selected>steady: {escape(steady.hint)}</option>') == 2
    assert "threshold" not in read(page)

    actions.hand_seat_to_bot(table=table, number=1, level="threshold")
    page = opener.get(url("table", table)).content.decode()
    assert "a bot (steady)" in page and "threshold" not in read(page)


def test_play_a_game_offers_the_bots_by_their_words_with_each_games_hints() -> None:
    form = Client().get(reverse("tables:new")).content.decode()
    assert '<option value="threshold">a bot (steady)</option>' in form
    assert "threshold" not in read(form)
    for game in GAMES:
        hints = escape("; ".join(level.label for level in bot_levels(game)))
        assert f'<p class="muted" data-for-game="{game}">Bots: {hints}.</p>' in form
