"""A game table in Spanish, in the browser (issue 44): a phone whose browser speaks Spanish takes its
seat, reads whose turn it is and its buttons in Spanish from the game's script, and its move comes
back told in Spanish. Kismet and Ninety-Nine or Bust beside an English phone: each reads the same
move in its own language."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from games.table.models import Table
from tests.builders import make_table
from tests.conftest import ServerProcess
from tests.e2e.pages import join_table

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_a_spanish_phone_plays_fill_or_bust_in_spanish(table_site: ServerProcess, new_phone) -> None:
    table = make_table(2, bots=["", "threshold"], seed=4)
    phone = new_phone(locale="es-ES")
    phone.goto(table_site.url + reverse("tables:table", args=[table.code]))
    phone.get_by_role("button", name="Soy Ada", exact=True).click()
    expect(phone.locator(".phone-topline")).to_contain_text("Juegas como Ada")
    expect(phone.locator("[data-live-badge]")).to_have_text("En vivo")
    expect(phone.locator("#turn-line")).to_have_text("Tu turno")
    phone.get_by_role("button", name="Dar vuelta una carta").click()
    expect(phone.locator("#said")).to_contain_text("Ada dio vuelta")
    expect(phone.locator("#scores caption")).to_contain_text("Puntajes (hasta 2\xa0000)")
    expect(phone.locator("#actions")).not_to_contain_text("Toss")


def seated(url: str, table: Table, new_phone) -> tuple[Page, Page]:
    """Ada's phone speaks Spanish, Bea's English; each takes its seat, in its own words."""
    ada = new_phone(locale="es-ES")
    ada.goto(url + reverse("tables:table", args=[table.code]))
    ada.get_by_role("button", name="Soy Ada", exact=True).click()
    expect(ada.locator(".phone-topline")).to_contain_text("Juegas como Ada")
    expect(ada.locator("[data-live-badge]")).to_have_text("En vivo")
    bea = join_table(new_phone(locale="en-US"), url, table.code, "Bea")
    return ada, bea


def test_a_spanish_phone_plays_kismet_in_spanish_beside_an_english_one(table_site: ServerProcess, new_phone) -> None:
    table = make_table(2, game="kismet", options={}, seed=5)
    ada, bea = seated(table_site.url, table, new_phone)
    assert table.loaded().to_move() == (0,)
    expect(ada.locator("#turn-line")).to_have_text("Tu turno")
    expect(bea.locator("#turn-line")).to_have_text("Ada's turn")
    ada.get_by_role("button", name="Tirar los dados").click()
    expect(ada.locator("#roll-line")).to_contain_text("Tirada 1 de 3")
    expect(ada.locator("#said")).to_contain_text("Ada tiró")
    expect(bea.locator("#said")).to_contain_text("Ada rolled")
    expect(ada.locator("#options .options-title").first).to_have_text("Anotar los dados en")
    ada.locator("#options button").first.click()
    expect(ada.locator("#said")).to_contain_text(re.compile(r"^Ada anotó \d+ en "))
    expect(bea.locator("#said")).to_contain_text(re.compile(r"^Ada scored \d+ in "))
    expect(ada.locator("#turn-line")).to_have_text("Turno de Bea")
    expect(bea.locator("#turn-line")).to_have_text("Your turn")
    expect(ada.locator("#sheet")).to_contain_text("Total Básico")
    expect(ada.locator("#sheet")).to_contain_text("Bonificación")


def test_a_spanish_phone_plays_ninety_nine_in_spanish_beside_an_english_one(table_site: ServerProcess, new_phone) -> None:
    table = make_table(2, game="ninety_nine", options={"markers": 1}, seed=99)
    ada, bea = seated(table_site.url, table, new_phone)
    assert table.loaded().to_move() == (1,)  # the dealer's left plays first: Bea
    expect(ada.locator("#turn-line")).to_have_text("Turno de Bea")
    expect(ada.locator("#play")).to_contain_text("Cuenta")
    expect(ada.locator("#play")).to_contain_text("Fichas y cartas en la mano")
    expect(bea.locator("#turn-line")).to_have_text("Your turn: play a card")
    bea.locator("#hand button.is-playable").first.click()
    expect(ada.locator("#said")).to_contain_text(re.compile(r"^Bea juega .+: la cuenta es \d+\.$"))
    expect(bea.locator("#said")).to_contain_text(re.compile(r"^Bea plays .+: the count is \d+\.$"))
    expect(ada.locator("#turn-line")).to_have_text("Tu turno: juega una carta")
    ada.locator("#hand button.is-playable").first.click()
    expect(ada.locator("#said")).to_contain_text(re.compile(r"^Ada juega "))
