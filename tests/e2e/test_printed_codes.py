"""The printable table cards (issue 9, fault 7): printed to PDF by Chromium on A4 and on Letter,
every card fits its page whole and every code on it decodes to its table's join link (decoded with
zxing-cpp from the PDF's pages rendered by pdfium), and each card says which table it is and which
seats are partners."""

from __future__ import annotations

from collections.abc import Iterator

import pypdfium2
import pytest
import zxingcpp
from django.urls import reverse
from playwright.sync_api import Browser, Page, expect

from games.links import read_join_token
from games.night.models import Night
from games.rules import bunco
from tests.conftest import ServerProcess
from tests.e2e.pages import start_night_from_form

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PLAYERS = 22  # 6 tables: two pages of four cards with the "everyone" card
RENDER_DPI = 150


@pytest.fixture
def host_page(live_site: ServerProcess, browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    start_night_from_form(page, live_site.url, [f"Player {number}" for number in range(1, PLAYERS + 1)])
    yield page
    context.close()


def decoded_pages(pdf: bytes) -> list[list[str]]:
    """The text of every QR code found on each page of the PDF, page by page."""
    document = pypdfium2.PdfDocument(pdf)
    try:
        pages = []
        for index in range(len(document)):
            image = document[index].render(scale=RENDER_DPI / 72).to_pil().convert("L")
            pages.append(sorted(result.text for result in zxingcpp.read_barcodes(image)))
        return pages
    finally:
        document.close()


@pytest.mark.parametrize("paper", ["A4", "Letter"])
def test_every_printed_table_card_fits_its_page_and_its_code_scans(host_page: Page, paper: str) -> None:
    night = Night.objects.get()
    tables = night.round_obj(1).tables.count()
    host_page.goto(host_page.url.rsplit("/n/", 1)[0] + reverse("games:night_codes", args=[night.code]))
    expect(host_page.locator(".qr-card")).to_have_count(tables + 1)

    pdf = host_page.pdf(format=paper, print_background=True)
    pages = decoded_pages(pdf)

    codes = [text for page in pages for text in page]
    assert len(codes) == tables + 1, f"{paper}: decoded {len(codes)} of {tables + 1} codes: {pages}"
    tickets = [read_join_token(code.rstrip("/").rsplit("/", 1)[-1]) for code in codes]
    assert {ticket.code for ticket in tickets} == {night.code}
    assert sorted(ticket.table or 0 for ticket in tickets) == [0, *range(1, tables + 1)]
    assert len(pages) == -(-(tables + 1) // 4), f"{paper}: four cards a page, got {[len(p) for p in pages]}"
    assert all(len(page) <= 4 for page in pages)


def test_each_table_card_names_its_table_and_the_partners_seats(host_page: Page) -> None:
    night = Night.objects.get()
    host_page.goto(host_page.url.rsplit("/n/", 1)[0] + reverse("games:night_codes", args=[night.code]))
    partners_a = " & ".join(str(seat + 1) for seat in range(bunco.SEATS) if bunco.team_of_seat(seat) == "A")

    head = host_page.locator('.qr-card[data-table="1"]')
    expect(head).to_contain_text("Table 1")
    expect(head).to_contain_text("head table")
    expect(head).to_contain_text(f"seats {partners_a} are one team")
    expect(host_page.locator('.qr-card[data-table="2"]')).not_to_contain_text("head table")
