"""Opening a game table from "Play a game", in the browser: the form shows only the chosen game's
options and seat notes (a player picking Ninety-Nine or Bust meets no Fill or Bust options), and a
Kismet table opened there seats a player of real dice beside a bot."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from games.table.models import Table
from tests.conftest import ServerProcess
from tests.e2e.pages import serious_violations

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

OPTION_OF = {  # an option that only that game's part of the form holds
    "fill_or_bust": "Combo 5: a 2+3 or 1+4 pair that fills scores 50",
    "ninety_nine": "Markers each",
    "kismet": "Printed variant: a second Kismet may not go in Straight",
}


def shows_only(page: Page, game: str) -> None:
    for other, label in OPTION_OF.items():
        option = page.get_by_label(label)
        if other == game:
            expect(option).to_be_visible()
        else:
            expect(option).to_be_hidden()
    real_dice = page.get_by_label("Seat 1: real dice")
    expect(real_dice).to_be_visible() if game == "kismet" else expect(real_dice).to_be_hidden()


def test_the_form_shows_the_chosen_games_options_and_opens_a_kismet_table_of_real_and_server_dice(
    table_site: ServerProcess, new_phone
) -> None:
    page = new_phone()
    page.goto(table_site.url + "/")
    page.get_by_role("link", name="Play a game").first.click()
    shows_only(page, "fill_or_bust")
    for game in ("ninety_nine", "kismet", "fill_or_bust", "kismet"):
        page.get_by_label("Game").select_option(game)
        shows_only(page, game)
    assert serious_violations(page) == []

    page.get_by_label("Seat 1", exact=True).fill("Ann")
    page.get_by_label("Seat 1: real dice").check()
    page.get_by_label("Seat 2", exact=True).fill("Robo")
    page.get_by_label("Who plays seat 2").select_option("threshold")
    page.get_by_role("button", name="Open the table").click()

    expect(page.get_by_text("Fair dice: the seed's SHA-256")).to_be_visible()
    table = Table.objects.get()
    assert table.game == "kismet" and table.options["real_seats"] == [0]
    assert [(seat.name, seat.bot_level) for seat in table.seats.all()] == [("Ann", ""), ("Robo", "threshold")]
