"""The game tables in light and dark (issue 32): a phone at a Fill or Bust, a Kismet and a
Ninety-Nine or Bust table, and each table's screen, pass axe-core with no violation in either
palette: the dice are a named group of named pictures (no aria-label on an element without a
role), and a refusal or a loss is --bad on --bad-surface, which holds AA in both palettes."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from tests.builders import NAMES, make_table
from tests.conftest import ServerProcess
from tests.e2e.pages import join_table
from tests.e2e.test_themes import SCHEMES, Scheme, violations

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

TABLES: dict[str, dict[str, Any]] = {
    "fill_or_bust": {},
    "kismet": {"game": "kismet", "options": {"real_seats": []}},
    "ninety_nine": {"game": "ninety_nine", "options": {"markers": 1}},
}


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("game", list(TABLES))
def test_a_game_tables_phone_page_and_screen_pass_axe_in_light_and_dark(
    table_site: ServerProcess, browser: Browser, new_phone, game: str, scheme: Scheme
) -> None:
    table = make_table(2, seed=3, **TABLES[game])
    phone = join_table(new_phone(color_scheme=scheme), table_site.url, table.code, NAMES[0])
    expect(phone.locator("#play")).to_be_visible()
    violations(phone, f"a phone at a {game} table", scheme)
    screen = browser.new_context(viewport={"width": 1920, "height": 1080}, color_scheme=scheme).new_page()
    screen.goto(f"{table_site.url}/g/{table.code}/screen/{table.screen_token}/")
    expect(screen.locator("[data-live-badge]")).to_have_text("Live")
    violations(screen, f"a {game} table's screen", scheme)
