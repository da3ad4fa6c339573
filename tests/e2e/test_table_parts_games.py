"""Dice nobody has to trust, in the browser, for the dice games (issue 31): three phones claim their
seats at a Fill or Bust table, and at a Kismet table, in the lobby, each with a part of its own from
crypto.getRandomValues, and see that part's first characters beside their names, ticked as this
phone's; the phones play the whole game through their pages' buttons, every move bringing a fresh
part; once the game is over a fresh phone's check page re-derives every die from the record on the
phone itself (nothing more is asked of the server after the record), and the same check, handed the
record with one die changed, names the step that differs.

tests/e2e/test_table_parts.py is the Ninety-Nine or Bust version; the phones here choose as
tests/e2e/test_game_table.py's phones do (and Kismet's roll, then score the first box offered, as in
tests/e2e/test_kismet_table.py). With the phones' parts random, no game here is known in advance:
each move is chosen from the game as stored, and every game ends by its rules."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import Page, Request, expect

from games.rules.fill_or_bust import Card, FillOrBustTable
from games.rules.fill_or_bust_table import SHORT_GOAL
from games.rules.kismet import KismetTable
from games.table import actions
from games.table.models import Table, TableSeat
from games.table.record import record_json
from tests.builders import NAMES, make_table
from tests.conftest import ServerProcess
from tests.e2e.pages import join_table, table_move, turn_comes_to, wait_until
from tests.e2e.test_game_table import phone_choice

# A long proof (`make proof`, and CI): the same parts, pages and check as Ninety-Nine or Bust's in
# tests/e2e/test_table_parts.py, which `make test` runs, for the other two games.
pytestmark = [pytest.mark.e2e, pytest.mark.proof, pytest.mark.django_db(transaction=True)]

HEX32 = re.compile(r"[0-9a-f]{32}")
PEOPLE = NAMES[:3]
MOST_MOVES = 3000  # far beyond any game here: a loop that never ends is a failure, not a hang


def recorded_past(phone: Page, table: Table, made: int) -> None:
    """Until the table has recorded more than `made` moves (the move `phone` sent is on its way)."""
    wait_until(phone, lambda: Table.objects.filter(pk=table.pk, moves_made__gt=made).exists(),
               f"the move after {made} was never recorded")


def seated_with_parts(new_phone: Callable[[], Page], url: str, table: Table) -> list[Page]:
    """Each person's phone opens the link and claims its seat in the lobby; its part is stored, and
    after a reload its lobby shows that part's first characters beside its name, ticked."""
    phones = [join_table(new_phone(), url, table.code, name) for name in PEOPLE]
    parts = [TableSeat.objects.get(table=table, number=number).contribution for number in range(len(PEOPLE))]
    assert all(HEX32.fullmatch(part) for part in parts), parts
    assert len(set(parts)) == len(parts)
    for phone, part in zip(phones, parts, strict=True):
        phone.reload()
        expect(phone.locator(f'[data-part="{part[:8]}"]')).to_contain_text(f"part {part[:8]} ✓ from this phone")
    for other in parts[1:]:  # the others' parts show too, not ticked: this phone did not send them
        expect(phones[0].locator(f'[data-part="{other[:8]}"]')).to_have_text(f"part {other[:8]}")
    return phones


def started_with_parts(new_phone: Callable[[], Page], url: str, table: Table) -> tuple[Table, list[Page]]:
    """`seated_with_parts`, then the opener starts the game (dealt now, with the parts) and every
    phone is live."""
    phones = seated_with_parts(new_phone, url, table)
    table = actions.start_table(table=table)
    for phone in phones:
        expect(phone.locator("[data-live-badge]")).to_have_text("Live")
    return table, phones


def play_to_the_end(table: Table, phones: list[Page], move: Callable[[Page, Any, int], None]) -> None:
    """Whoever is to move taps their move on their own page (`move(page, game, seat)`), once the
    pages show the game as stored, until the game is over."""
    for _ in range(MOST_MOVES):
        table.refresh_from_db()
        if table.is_over:
            return
        number = table.moves_made
        game = table.loaded()
        seat = game.to_move()[0]
        phone, _waiting = turn_comes_to(phones, seat, number)
        move(phone, game, seat)
        recorded_past(phone, table, number)
    raise AssertionError(f"the game did not end within {MOST_MOVES} moves")


def every_move_brought_a_fresh_part(table: Table) -> None:
    table = Table.objects.get(pk=table.pk)
    assert table.is_over
    clients = list(table.moves.filter(by_bot=False).values_list("client", flat=True))
    assert len(clients) == table.moves_made
    assert clients and all(HEX32.fullmatch(client) for client in clients), clients
    assert len(set(clients)) == len(clients)


def one_die_changed(record: dict[str, Any]) -> tuple[int, str, dict[str, Any]]:
    """The record with the first die of the first move's toss changed (a step after the deal);
    that step's number and the start of what the check must say about it."""
    edited = copy.deepcopy(record)
    number, item = next((n, i) for n, step in enumerate(edited["steps"]) if n > 0
                        for i, entry in enumerate(step["chance"]) if entry.get("dice"))
    dice = edited["steps"][number]["chance"][item]["dice"]
    dice[0] = dice[0] % 6 + 1
    said = f"step {number} differs: its chance item {item + 1}: the dice are {' '.join(map(str, dice))}"
    return number, said, edited


def checked_on_a_fresh_phone(new_phone: Callable[[], Page], url: str, table: Table) -> None:
    """A fresh phone opens the check page: it fetches the record once and verifies it on the phone,
    asking the server for nothing more; the same check, handed the record with one die changed (from
    here, not fetched), names the step."""
    phone = new_phone()
    sent: list[str] = []

    def note(request: Request) -> None:
        sent.append(request.url)

    phone.on("request", note)
    phone.goto(f"{url}/g/{table.code}/replay/check/")
    expect(phone.get_by_role("status")).to_contain_text("Verified on this phone")
    expect(phone.locator("[data-phone-steps] li")).to_have_count(table.moves_made + 1)
    phone.wait_for_load_state("networkidle")

    record_url = f"{url}/g/{table.code}/record.json"
    favicon = phone.locator('link[rel="icon"]').evaluate("link => link.href")

    def asked_after_the_record() -> list[str]:
        """What the page asked of the server after the record, but for the icon of its tab (which
        the browser itself fetches once the page has loaded, whenever it gets to it)."""
        to_server = [sent_url for sent_url in sent if sent_url.startswith(url)]
        assert to_server.count(record_url) == 1, to_server
        return [later for later in to_server[to_server.index(record_url) + 1:] if later != favicon]

    assert asked_after_the_record() == []

    record = json.loads(record_json(table))
    assert phone.evaluate("async (record) => await RecordCheck.verify(record)", record) is None
    number, said, edited = one_die_changed(record)
    problem = phone.evaluate("async (record) => await RecordCheck.verify(record)", edited)
    assert isinstance(problem, str) and problem.startswith(f"step {number} differs"), problem
    assert problem.startswith(said), problem
    phone.wait_for_load_state("networkidle")
    assert asked_after_the_record() == []
    expect(phone.get_by_role("status")).to_contain_text("Verified on this phone")


def test_three_phones_bring_their_parts_to_a_game_of_fill_or_bust_and_a_fresh_phone_checks_it(
        table_site: ServerProcess, new_phone) -> None:
    table = make_table(3, options={"goal": SHORT_GOAL}, seed=31, started=False)
    url = table_site.url
    table, phones = started_with_parts(new_phone, url, table)

    def fill_or_bust_move(phone: Page, game: Any, seat: int) -> None:
        assert isinstance(game, FillOrBustTable)
        choice = phone_choice(game, seat)
        if choice["kind"] == "keep":  # the page shows the toss before its dice are tapped
            expect(phone.locator("#dice .die")).to_have_count(len(game.state.last_toss or ()))
        must_bust = choice["kind"] == "keep" and game.state.card is Card.MUST_BUST
        if must_bust:
            expect(phone.locator("#keep-line")).to_contain_text("MUST BUST")
        table_move(phone, choice, must_bust=must_bust)

    play_to_the_end(table, phones, fill_or_bust_move)
    every_move_brought_a_fresh_part(table)
    checked_on_a_fresh_phone(new_phone, url, table)


def test_three_phones_bring_their_parts_to_a_game_of_kismet_and_a_fresh_phone_checks_it(
        table_site: ServerProcess, new_phone) -> None:
    table = make_table(3, game="kismet", options={}, seed=32, started=False)
    url = table_site.url
    table, phones = started_with_parts(new_phone, url, table)

    def kismet_move(phone: Page, game: Any, seat: int) -> None:
        """Roll the dice once, then score the first box offered (the best score first)."""
        assert isinstance(game, KismetTable)
        if game.state.turn is None:
            phone.get_by_role("button", name="Roll the dice").click()
        else:
            expect(phone.locator("#options button").first).to_be_visible()
            phone.locator("#options button").first.click()

    play_to_the_end(table, phones, kismet_move)
    every_move_brought_a_fresh_part(table)
    checked_on_a_fresh_phone(new_phone, url, table)
