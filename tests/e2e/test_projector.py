"""The projector (issue 9): read across a room at 1920×1080, scores at least 48 px however many
tables the night has, the round and the number up, the night's join code for late arrivals, and a
link to it at the top of the host's page (not inside "Join codes and links")."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import Browser, Page, ViewportSize, expect

from games.night import actions
from games.night.models import Night
from games.rules import bunco
from tests.builders import add, make_night
from tests.conftest import ServerProcess
from tests.e2e.pages import desk, start_night_from_form

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PROJECTOR: ViewportSize = {"width": 1920, "height": 1080}


def start_night(browser: Browser, url: str, players: int) -> Page:
    names = [f"Player {number}" for number in range(1, players + 1)]
    return start_night_from_form(desk(browser), url, names)


def open_projector(browser: Browser, host: Page) -> Page:
    link = host.locator(".host-links").get_by_role("link", name="Projector screen")
    href = link.get_attribute("href")
    assert href is not None
    projector = browser.new_context(viewport=PROJECTOR).new_page()
    projector.goto(href)
    expect(projector.locator("[data-live-badge]")).to_have_text("Live")
    return projector


def smallest_score_px(page: Page) -> float:
    sizes: list[float] = page.locator(".table-card .points").evaluate_all(
        "nodes => nodes.map(node => parseFloat(getComputedStyle(node).fontSize))")
    assert sizes, "no scores on the screen"
    return min(sizes)


def test_the_host_opens_the_projector_from_the_top_of_the_host_page(live_site: ServerProcess, browser: Browser):
    host = start_night(browser, live_site.url, 12)

    expect(host.locator(".host-links").get_by_role("link", name="Projector screen")).to_be_visible()
    expect(host.locator("details").get_by_role("link", name="Projector screen")).to_have_count(0)
    top_of_link = host.locator(".host-links").bounding_box()
    top_of_tables = host.locator("#host-state").bounding_box()
    assert top_of_link is not None and top_of_tables is not None
    assert top_of_link["y"] < top_of_tables["y"]


def test_a_small_nights_projector_shows_big_scores_the_round_the_number_up_and_the_join_code(
    live_site: ServerProcess, browser: Browser
):
    projector = open_projector(browser, start_night(browser, live_site.url, 12))

    assert smallest_score_px(projector) >= 48
    expect(projector.locator(".projector-round")).to_contain_text(f"Round 1 of {bunco.ROUNDS}")
    expect(projector.locator(".projector-target")).to_contain_text(f"{bunco.target_for_round(1)}s up")
    expect(projector.locator(".projector-join svg")).to_be_visible()
    expect(projector.locator(".projector-join")).to_contain_text("Scan to join")
    assert projector.evaluate("document.documentElement.scrollWidth") <= PROJECTOR["width"]


def test_a_charity_nights_projector_keeps_every_score_at_48_px_or_more(live_site: ServerProcess, browser: Browser):
    projector = open_projector(browser, start_night(browser, live_site.url, 100))

    expect(projector.locator(".table-card")).to_have_count(25)
    assert smallest_score_px(projector) >= 48
    assert projector.evaluate("document.documentElement.scrollWidth") <= PROJECTOR["width"]


# --- Issue 16: "of 24" survives a refresh (N1); the whole night fits 1920×1080 (N8) -------------


def projector_of(browser: Browser, site: ServerProcess, night: Night) -> Page:
    projector = browser.new_context(viewport=PROJECTOR).new_page()
    projector.goto(site.url + reverse("games:screen", args=[night.code, night.screen_token]))
    expect(projector.locator("[data-live-badge]")).to_have_text("Live")
    return projector


def refreshed(projector: Page) -> None:
    """The projector's own live refresh (a "changed" event from its stream), answered."""
    with projector.expect_response(lambda answer: "/screen/" in answer.url and answer.request.method == "GET"
                                   and answer.request.headers.get("hx-request") == "true"):
        projector.evaluate("htmx.trigger(document.getElementById('night-stream'), 'changed')")


def test_the_projector_keeps_the_round_count_after_a_live_refresh(night_site: ServerProcess, browser: Browser):
    night = make_night(12, seed=3)
    projector = projector_of(browser, night_site, night)
    expect(projector.locator(".projector-round")).to_have_text(f"Round 1 of {bunco.ROUNDS}")

    refreshed(projector)

    expect(projector.locator(".projector-round")).to_have_text(f"Round 1 of {bunco.ROUNDS}")


def page_height(projector: Page) -> int:
    return projector.evaluate("Math.max(document.documentElement.scrollHeight, document.body.scrollHeight)")


@pytest.mark.parametrize("players", [12, 100])
def test_the_whole_night_fits_the_projector_without_scrolling(night_site: ServerProcess, browser: Browser, players: int):
    night = make_night(names=[f"Player {number}" for number in range(1, players + 1)], seed=3)
    tables = players // 4
    projector = projector_of(browser, night_site, night)
    expect(projector.locator(".table-card")).to_have_count(tables)
    assert page_height(projector) <= PROJECTOR["height"], "seated"

    actions.start_round(night)
    add(night, 1, "A", 21)  # the bell: its banner on the screen too
    refreshed(projector)
    expect(projector.locator(".bell-banner")).to_be_visible()
    assert page_height(projector) <= PROJECTOR["height"], "at the bell"
    assert smallest_score_px(projector) >= 48
    assert projector.evaluate("document.documentElement.scrollWidth") <= PROJECTOR["width"]


# --- Issue 29, N8: icons that need no emoji font, standings read from the back of the room -------

# Characters a browser draws from a colour emoji font, which Debian's Chromium lacks (an empty box).
EMOJI = r"/\p{Emoji_Presentation}|\p{Extended_Pictographic}\uFE0F/u"


def emoji_in(page: Page) -> list[str]:
    return page.evaluate(f"[...document.body.textContent.matchAll(new RegExp({EMOJI}, 'gu'))].map(m => m[0])")


def test_the_projector_draws_its_icons_without_an_emoji_font_and_its_standings_at_20_px_or_more(
    night_site: ServerProcess, browser: Browser
):
    night = make_night(12, seed=3)
    actions.start_round(night)
    add(night, 1, "A", 21)  # the bell, with its icon
    projector = projector_of(browser, night_site, night)
    expect(projector.locator(".bell-banner")).to_be_visible()

    assert emoji_in(projector) == []
    bell = projector.locator(".bell-banner .bell-icon svg")
    expect(bell).to_be_visible()
    assert bell.get_attribute("aria-hidden") == "true"
    expect(projector.locator(".bell-banner")).to_contain_text("Bell! Round 1 is over.")  # the words beside it
    sizes: list[float] = projector.locator(".standings td, .standings th, .projector-traveler").evaluate_all(
        "nodes => nodes.map(node => parseFloat(getComputedStyle(node).fontSize))")
    assert sizes and min(sizes) >= 20, sizes
    expect(projector.locator(".standings tbody tr")).to_have_count(12)
    assert page_height(projector) <= PROJECTOR["height"]


# --- Issue 42: a small night fills the screen, and each table's status reads in lines, not words --

STATUS_LINES = """
() => [...document.querySelectorAll(".table-card .table-status")].map(status => {
  const words = [];
  const range = document.createRange();
  const walker = document.createTreeWalker(status, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const word of node.data.matchAll(/\\S+/g)) {
      range.setStart(node, word.index);
      range.setEnd(node, word.index + word[0].length);
      const box = range.getClientRects()[0];
      if (box) words.push({word: word[0], top: box.top});  // a word not drawn has no box
    }
  }
  const lines = [];
  for (const word of words) {
    const line = lines.find(line => Math.abs(line.top - word.top) < 4);
    if (line) line.words.push(word.word); else lines.push({top: word.top, words: [word.word]});
  }
  return lines.map(line => line.words.join(" "));
})
"""


def fills_the_screen_readably(projector: Page, when: str) -> None:
    """The tables reach past half the screen's height, nothing scrolls, and no line of a table's
    status is a single word of a longer status."""
    tables_bottom = projector.evaluate(
        "Math.max(...[...document.querySelectorAll('.table-card')].map(card => card.getBoundingClientRect().bottom))")
    assert tables_bottom > PROJECTOR["height"] / 2, f"{when}: the tables end at {tables_bottom} px"
    assert page_height(projector) <= PROJECTOR["height"], when
    assert projector.evaluate("document.documentElement.scrollWidth") <= PROJECTOR["width"], when
    lines: list[list[str]] = projector.evaluate(STATUS_LINES)
    broken = [status for status in lines if len(status) > 1 and any(" " not in line for line in status)]
    assert broken == [], f"{when}: a status broken between single words: {lines}"
    assert smallest_score_px(projector) >= 48, when


@pytest.mark.parametrize("players", [12, 24])
def test_a_small_nights_projector_fills_the_screen_and_each_tables_status_reads_whole(
    night_site: ServerProcess, browser: Browser, players: int
):
    night = make_night(names=[f"Player {number}" for number in range(1, players + 1)], seed=3)
    projector = projector_of(browser, night_site, night)
    expect(projector.locator(".table-card")).to_have_count(players // 4)
    fills_the_screen_readably(projector, "seated")

    actions.start_round(night)
    add(night, 2, "A", 4)
    add(night, 2, "B", 2)
    add(night, 1, "A", 21)  # the bell
    actions.finish_turn(night=night, table_number=2)  # "Won by …" at tables 1 and 2; the others finishing
    refreshed(projector)
    expect(projector.locator(".table-card .table-status").nth(1)).to_contain_text("Won by")
    fills_the_screen_readably(projector, "at the bell")
