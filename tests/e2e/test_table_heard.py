"""A game table heard, felt and followed (issue 32): the phone the turn comes to vibrates (and rings,
its sound unlocked by a tap) once, the other phone does not; a screen reader hears each move in the
one sentence the page says (#said), through the page's one live region."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from games.rules.fill_or_bust import Card, FillOrBustTable
from tests.builders import make_table
from tests.conftest import ServerProcess
from tests.e2e.pages import join_table, moves_at, table_move, wait_until
from tests.e2e.test_bell_heard import OBSERVE_THE_BELL, heard, said
from tests.e2e.test_game_table import NAMES, phone_choice

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def announced(page: Page, sentence: str) -> Callable[[], bool]:
    """Whether the page's live region has said `sentence` (alone or with what came with it)."""
    return lambda: any(sentence in text for text in said(page))


def felt(page: Page, times: int) -> Callable[[], bool]:
    return lambda: heard(page)[0] >= times


def test_the_turn_rings_on_the_phone_it_comes_to_and_every_move_is_said_in_one_sentence(
    table_site: ServerProcess, new_phone
) -> None:
    table = make_table(2, seed=3)
    phones = []
    for name in NAMES[:2]:
        phone = new_phone()
        phone.add_init_script(OBSERVE_THE_BELL)
        phones.append(join_table(phone, table_site.url, table.code, name))
    for phone in phones:
        expect(phone.get_by_role("switch", name="Sound")).to_be_checked()
        phone.locator("#turn-line").click()  # a tap: the phone's sound is unlocked
    before = [heard(phone) for phone in phones]

    first = table.loaded()
    assert isinstance(first, FillOrBustTable)
    starter = first.to_move()[0]
    while True:  # the starter plays until the turn passes to the other phone
        table.refresh_from_db()
        game = table.loaded()
        assert isinstance(game, FillOrBustTable)
        seat = game.to_move()[0]
        if seat != starter:
            break
        moves_at(phones[seat], table.moves_made)
        table_move(phones[seat], phone_choice(game, seat), must_bust=game.state.card is Card.MUST_BUST)
        moves_at(phones[seat], table.moves_made + 1)
        sentence = phones[seat].locator("#said").inner_text().strip()
        assert sentence
        for phone in phones:  # each move is said, in the page's own words, on both phones
            wait_until(phone, announced(phone, sentence), f"{sentence!r} was not announced")

    other = phones[1 - starter]
    moves_at(other, table.moves_made)
    expect(other.locator("#turn-line")).to_have_text("Your turn")
    wait_until(other, announced(other, "Your turn"), "the turn was not announced")
    vibrations, bells = before[1 - starter]
    expect(other.locator("#turn-line")).to_have_text("Your turn")
    wait_until(other, felt(other, vibrations + 1), "the turn came and the phone never vibrated")
    assert heard(other) == (vibrations + 1, bells + 1)  # felt and heard once
    assert heard(phones[starter]) == before[starter]  # the phone whose turn ended: nothing
    assert all(text.count(".") <= 3 for phone in phones for text in said(phone))
