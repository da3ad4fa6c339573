"""A game table in Spanish, in the browser (issue 44): a phone whose browser speaks Spanish takes its
seat, reads whose turn it is and its buttons in Spanish from the game's script, and its move comes
back told in Spanish."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from tests.builders import make_table
from tests.conftest import ServerProcess

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
