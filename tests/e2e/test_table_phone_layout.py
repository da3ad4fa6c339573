"""Issue 42 (G7): a game table's play page on a phone of 390 × 844, measured in the browser, for
each game: no blank band above or around the dice (the empty slots' reserved heights left 150 to
300 px of nothing between the turn line and the dice or the buttons), and "Sound on" on one line
beside a long name."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from games.table import actions
from tests.builders import make_table
from tests.conftest import ServerProcess
from tests.e2e.pages import take_seat
from tests.e2e.test_table_seats import first_move

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

NAMES = ["Bartholomew-Alexander", "Bea"]
# The tallest blank a page may show: a gap between two slots, or a said line's room for a second line.
MOST_BLANK_PX = 60

# The tallest band of #play, from its top to the top of its scores (or Kismet's sheet), where nothing
# shows: no text, no die, no button, no card, nothing with a background or a border.
TALLEST_BLANK = """() => {
  const play = document.getElementById("play");
  const top = play.getBoundingClientRect().top;
  const ends = [...document.querySelectorAll("#play #scores, #play #sheet")].map((e) => e.getBoundingClientRect().top);
  const bottom = Math.min(play.getBoundingClientRect().bottom, ...ends);
  const shown = [];
  const walker = document.createTreeWalker(play, NodeFilter.SHOW_TEXT | NodeFilter.SHOW_ELEMENT);
  for (let node = walker.currentNode; node; node = walker.nextNode()) {
    if (node.nodeType === Node.TEXT_NODE) {
      if (!node.textContent.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const r of range.getClientRects()) if (r.height > 0 && r.width > 0) shown.push([r.top, r.bottom]);
      continue;
    }
    const style = getComputedStyle(node);
    const painted = node.matches("button, .die, svg, img, input, select") ||
      style.backgroundColor !== "rgba(0, 0, 0, 0)" || parseFloat(style.borderTopWidth) > 0 || parseFloat(style.borderLeftWidth) > 0;
    const r = node.getBoundingClientRect();
    if (painted && r.height > 0 && r.width > 0 && style.visibility !== "hidden") shown.push([r.top, r.bottom]);
  }
  shown.sort((a, b) => a[0] - b[0]);
  let reached = top, tallest = 0;
  for (const [from, to] of shown) {
    if (from >= bottom) break;
    tallest = Math.max(tallest, from - reached);
    reached = Math.max(reached, to);
  }
  return Math.round(tallest);
}"""


# How many lines an element's text takes: its text's boxes grouped by where they stand (an icon
# beside the words stands on their line).
LINES_OF_TEXT = """(element) => {
  const range = document.createRange();
  range.selectNodeContents(element);
  const middles = [...range.getClientRects()].filter((box) => box.width > 0)
    .map((box) => (box.top + box.bottom) / 2).sort((a, b) => a - b);
  return middles.filter((middle, index) => index === 0 || middle - middles[index - 1] > 10).length;
}"""


def blank_and_switch(phone: Page) -> dict[str, Any]:
    expect(phone.locator("[data-live-badge]")).to_have_text("Live")
    return {"blank": phone.evaluate(TALLEST_BLANK),
            "switch lines": phone.locator(".phone-topline .sound-switch").evaluate(LINES_OF_TEXT)}


@pytest.mark.parametrize("game", ["fill_or_bust", "kismet", "ninety_nine"])
def test_the_play_page_at_390_by_844_shows_no_blank_band_by_the_dice_and_sound_on_on_one_line(
    table_site: ServerProcess, new_phone: Any, game: str
) -> None:
    table = make_table(2, game=game, names=NAMES, started=False, options={"goal": 2000} if game == "fill_or_bust" else {})
    phones = []
    for name in NAMES:
        phone = new_phone()
        assert phone.viewport_size == {"width": 390, "height": 844}
        phone.goto(table_site.url + reverse("tables:table", args=[table.code]))
        phones.append(take_seat(phone, name))
    table = actions.start_table(table=table)
    on_turn = table.loaded().to_move()[0]
    for phone in phones:
        expect(phone.locator("#play")).to_have_attribute("data-seat", str(phones.index(phone)))
        expect(phone.locator("#turn-line")).not_to_have_text("…")
    measured = {f"{who} at the start": blank_and_switch(phones[number]) for number, who in
                ((on_turn, "on turn"), (1 - on_turn, "waiting"))}
    first_move(phones[on_turn], game)
    for phone in phones:
        expect(phone.locator("#said")).not_to_be_empty()
    measured.update({f"{who} after a move": blank_and_switch(phones[number]) for number, who in
                     ((on_turn, "on turn"), (1 - on_turn, "waiting"))})
    assert all(page["blank"] <= MOST_BLANK_PX for page in measured.values()), measured
    assert all(page["switch lines"] == 1 for page in measured.values()), measured
