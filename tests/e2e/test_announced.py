"""What a screen reader hears at the table (issue 42, P6): one announcement per tap, its answer and
the phone's own running total together, never "Sending…" first; and every change of the score the
phone shows is said, an opponent's +1 as much as its own, the moment the stream brings it.

What is heard is read from the page's one live region (#announcer, static/js/announce.js): an
init script keeps each text it is given. The poll is off (STREAM_ONLY): what is said comes from
the tap's answer and the stream, not from a refresh ten seconds later.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from games.night import actions
from games.night.models import Night
from games.rules import bunco
from tests.builders import make_night, seating_of
from tests.conftest import ServerProcess
from tests.e2e.pages import join_night, wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

STREAM_ONLY = True

HEARD = """
window.__said = [];
new MutationObserver(function (changes) {
  const announcer = document.getElementById("announcer");
  if (announcer && changes.some(function (change) { return announcer.contains(change.target); })) {
    window.__said.push(announcer.textContent);
  }
}).observe(document, {subtree: true, childList: true, characterData: true});
"""


def said(page: Page) -> list[str]:
    """Every text the live region was given, in order."""
    return [str(text) for text in page.evaluate("window.__said")]


def heard_since(page: Page, start: int) -> Callable[[], list[str]]:
    return lambda: said(page)[start:]


def phone_at(night: Night, url: str, new_phone, name: str) -> Page:
    phone = new_phone()
    phone.add_init_script(HEARD)
    join_night(phone, url, night.code, name, table=2)
    expect(phone.locator("#tally-form")).to_be_visible()
    return phone


def tap(page: Page, points: int, *, for_them: bool = False) -> None:
    if for_them:
        page.locator("#tally-form .switch-them").click()
    page.locator(f"#tally-form [data-points='{points}']").click()


def test_a_tap_is_said_once_with_the_running_total_and_the_other_teams_points_are_said_too(
    night_site: ServerProcess, new_phone
) -> None:
    night = make_night(8, seed=7)
    actions.start_round(night)
    target = bunco.target_for_round(1)
    second = seating_of(night, 1)[1]
    mine = phone_at(night, night_site.url, new_phone, second[0])  # team A
    theirs = phone_at(night, night_site.url, new_phone, second[1])  # team B

    start = len(said(mine))
    tap(mine, 5)
    expect(mine.locator("#tap-status")).to_have_text("✓ +5 for us")
    # One announcement for the tap: its answer and the total it made, never "Sending…" before it.
    wait_until(mine, lambda: len(heard_since(mine, start)()) >= 1, "the tap was not announced")
    expect(theirs.locator("#announcer")).to_have_text(f"Round 1, {target}s up: you 0, them 5.")

    tap(theirs, 1)  # an opponent's +1
    expect(mine.locator("#announcer")).to_have_text(f"Round 1, {target}s up: you 5, them 1.")
    assert heard_since(mine, start)() == [
        f"Round 1, {target}s up: you 5, them 0. ✓ +5 for us",
        f"Round 1, {target}s up: you 5, them 1.",
    ]

    start = len(said(mine))
    tap(mine, 2)  # the phone's own running total, once more
    expect(mine.locator("#announcer")).to_have_text(f"Round 1, {target}s up: you 7, them 1. ✓ +2 for us")
    tap(theirs, 2, for_them=True)  # their phone scores for us
    expect(mine.locator("#announcer")).to_have_text(f"Round 1, {target}s up: you 9, them 1.")
    assert heard_since(mine, start)() == [
        f"Round 1, {target}s up: you 7, them 1. ✓ +2 for us",
        f"Round 1, {target}s up: you 9, them 1.",
    ]
    assert not [text for phone in (mine, theirs) for text in said(phone) if "Sending" in text]
