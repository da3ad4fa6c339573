"""What a person does in a browser, once for every browser test: log in through the login page,
join a night from its code and tap a name, start a night from the host's form, enter a tournament
turn. Each step waits until the page has taken it (Playwright's expect), never a sleep."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from axe_playwright_python.sync_playwright import Axe
from django.urls import reverse
from playwright.sync_api import Browser, Page, ViewportSize, expect
from playwright.sync_api import Error as PlaywrightError

from games.links import join_path
from tests.builders import PASSWORD
from tests.conftest import PATIENT_MS

DESKTOP: ViewportSize = {"width": 1280, "height": 900}
# A folder (docs/screenshots when making the README's pictures): the game tables' tests shoot there.
TABLE_SCREENSHOTS = os.environ.get("TABLE_SCREENSHOTS")
VENGEANCE = "Played a Vengeance"


def log_in(page: Page, url: str, *, username: str = "host", password: str = PASSWORD, then: str = "/") -> Page:
    """`page` logs in through the login page and lands on `then` (a path)."""
    page.goto(f"{url}/accounts/login/?next={then}")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(url + then)
    return page


def desk(browser: Browser) -> Page:
    """A new page in a desktop-sized browser of its own (a host's or a director's laptop)."""
    context = browser.new_context(viewport=DESKTOP)
    context.set_default_timeout(PATIENT_MS)
    return context.new_page()


def join_night(phone: Page, url: str, code: str, name: str, *, table: int | None = None) -> Page:
    """`phone` scans the night's code (a table's, given `table`), taps `name`, and is live."""
    phone.goto(url + join_path(code, table))
    phone.get_by_role("button", name=name, exact=True).click()
    expect(phone.locator("[data-live-badge]")).to_have_text("Live")
    return phone


def start_night_from_form(host: Page, url: str, names: list[str]) -> Page:
    """`host` fills the new-night form with `names` and draws the seats: the host page of round 1."""
    host.goto(url + "/nights/new/")
    host.fill("#id_names", "\n".join(names))
    host.get_by_role("button", name="Draw the seats and start").click()
    expect(host.locator("#host-state .round-label")).to_contain_text("Round 1 of")
    return host


def enter_turn(phone: Page, name: str, points: int | None, *, vengeance: bool = False) -> None:
    """A tournament group's phone: pick the player, type the points (or tap Bust for None), tick the
    Vengeance box if asked. Each step waits until the form takes it (it is locked while the previous
    turn is sent)."""
    phone.get_by_label(name, exact=True).check()
    if vengeance:
        phone.get_by_label(VENGEANCE, exact=False).check()
    if points is None:
        phone.get_by_role("button", name="Bust (0)").click()
    else:
        phone.fill("#t-points", str(points))
        phone.get_by_role("button", name="Bank").click()


def axe_violations(page: Page) -> list[dict[str, Any]]:
    """What axe-core finds on the page, read as a person reads it: once no score button is in the
    moment a tap dims it (its bounce lock, static/js/tally.js), whose colours are not the page's."""
    expect(page.locator(".tap.is-locked, .tap.is-tapped, .undo-button.is-locked")).to_have_count(0)
    return list(Axe().run(page).response["violations"])


def serious_violations(page: Page) -> list[str]:
    """What axe-core finds serious or critical on the page as it is now, one line each."""
    violations = axe_violations(page)
    return [f"{v['id']}: {v['help']} {[n['target'] for n in v['nodes'][:3]]}" for v in violations
            if v["impact"] in ("serious", "critical")]


def join_table(phone: Page, url: str, code: str, name: str) -> Page:
    """`phone` opens a game table's link, taps `name`'s seat, and is live."""
    phone.goto(url + reverse("tables:table", args=[code]))
    return take_seat(phone, name)


def take_seat(phone: Page, name: str) -> Page:
    """On a game table's page (`phone` is there): tap `name`'s seat; the page says so and is live."""
    phone.get_by_role("button", name=f"I'm {name}", exact=True).click()
    expect(phone.locator(".phone-topline")).to_contain_text(f"You play {name}")
    expect(phone.locator("[data-live-badge]")).to_have_text("Live")
    return phone


def keep_dice(phone: Page, dice: list[int]) -> None:
    """On a game table's play page: tap each die of `dice` (by its face) among the toss, then
    confirm the selection (its button names the dice and their points)."""
    for face in dice:
        phone.locator(f'#dice button.face-{face}[aria-pressed="false"]').first.click()
    phone.get_by_role("button", name=re.compile("^Set aside")).click()


TABLE_BUTTONS = {"draw": "Turn a card", "play": "Play the Vengeance", "decline": "Decline the Vengeance",
                 "toss": "Toss ", "stop": "Stop and bank", "end": "End the turn", "continue": "Continue: turn a card"}


def table_move(phone: Page, move: dict[str, Any], *, must_bust: bool = False) -> None:
    """On a game table's play page, the seat on turn taps the button of `move` (one of the engine's
    legal moves): a keep taps its dice and then Set aside, except under MUST BUST, where the page
    has chosen the dice already."""
    if move["kind"] == "keep":
        keep_dice(phone, [] if must_bust else move["dice"])
    else:
        phone.get_by_role("button", name=re.compile("^" + re.escape(TABLE_BUTTONS[move["kind"]]))).click()


def register_player(desk: Page, name: str, *, here: bool = True) -> None:
    """On a tournament's director dashboard: register `name`, checked in or not (the form's box)."""
    desk.fill("#r-name", name)
    desk.get_by_label("Here now (checked in)").set_checked(here)
    desk.get_by_role("button", name="Register", exact=True).click()
    expect(desk.locator("table.entrants tr", has_text=name)).to_contain_text("checked in" if here else "registered")


def wait_until(page: Page, condition: Callable[[], bool], failure: str, *, patience_ms: int = PATIENT_MS) -> None:
    """Until `condition` holds, letting the page (and Playwright's route handlers) run meanwhile;
    as patient as the page-level waits (tests/e2e/conftest.py, or the module's own patience)."""
    waited = 0
    while not condition():
        assert waited < patience_ms, failure
        page.wait_for_timeout(50)
        waited += 50


# --- A game table ------------------------------------------------------------------------------


def evaluate_between_loads(page: Page, script: str, *, attempts: int = 5) -> Any:
    """`page.evaluate(script)`, on the page as it is once it has loaded: a live page may reload by
    itself (a round that closed, a play-off that began), and a script evaluated while it navigates
    finds its context gone. It is then evaluated again on the new page, a few times at most."""
    for attempt in range(attempts):
        try:
            page.wait_for_load_state()
            return page.evaluate(script)
        except PlaywrightError as error:
            if "context was destroyed" not in str(error) or attempt == attempts - 1:
                raise
    raise AssertionError("unreachable")


def open_table_screen(browser: Browser, url: str, table: Any) -> Page:
    """The table's screen (its secret link) on a desktop-sized page, live."""
    screen = desk(browser)
    screen.goto(f"{url}/g/{table.code}/screen/{table.screen_token}/")
    expect(screen.locator("[data-live-badge]")).to_have_text("Live")
    return screen


def moves_at(page: Page, number: int) -> None:
    """The page shows the game after exactly `number` moves."""
    expect(page.locator("#play")).to_have_attribute("data-moves", str(number))


def moved_past(page: Page, number: int) -> None:
    """The page shows a move after `number` (a bot may have moved on already)."""
    page.wait_for_function("n => { const play = document.getElementById('play'); return play !== null && +play.dataset.moves > n; }", arg=number)


def shoot(page: Page, name: str, *, full_page: bool = False) -> None:
    """A screenshot for the README, when TABLE_SCREENSHOTS names a folder."""
    if TABLE_SCREENSHOTS:
        Path(TABLE_SCREENSHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(TABLE_SCREENSHOTS) / name), full_page=full_page)


def turn_comes_to(phones: list[Page], seat: int, number: int) -> tuple[Page, Page]:
    """Once move `number` is on their pages: the phone of `seat`, which says it is its turn, and
    the next seat's phone, waiting."""
    phone = phones[seat]
    moves_at(phone, number)
    expect(phone.locator("#turn-line")).to_have_text("Your turn")
    waiting = phones[(seat + 1) % len(phones)]
    moves_at(waiting, number)
    return phone, waiting
