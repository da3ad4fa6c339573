"""Every phone page at 320 px and at 200 % text (issue 42, P2 and P3).

An older player's phone, its text at 200 %, cut the bell banner's first and last lines (a box of
fixed height), pushed "Them" off the screen and made the page 469 px wide on a 390 px screen; at
320 px the score sheet was 353 px wide and the host's page 321 px. Each page here is opened at
320 × 568 and 390 × 844 with the browser's text at 200 % (its default font size doubled through the
Chrome DevTools Protocol, as a phone's text setting does), and at 320 × 568 with normal text, in the
states where its boxes fill up; the page itself measures what a person would see cut or off-screen.

And the Sound switch, which one stray tap of a thumb on the top line turned off (a player then
missed the bell), and the host page's link buttons (40 px): both are targets of at least 48 px,
the switch at the end of the top line, away from where a thumb lands."""

from __future__ import annotations

import os
import random
import re
from collections.abc import Callable, Iterator
from typing import NamedTuple

import pytest
from django.urls import reverse
from playwright.sync_api import Browser, BrowserContext, CDPSession, FloatRect, Page, expect

from games.links import join_path
from games.night import actions
from games.night.models import Night
from games.table.models import Table
from scripts.screenshots_clubs import MEMBER
from scripts.screenshots_clubs import seed as seed_the_screenshots_club
from tests.builders import (
    NAMES,
    add,
    groups_of,
    make_table,
    make_tournament,
    make_user,
    play_rounds,
    seating_of,
    started_night,
)
from tests.conftest import PATIENT_MS, PHONE, ServerProcess
from tests.e2e.pages import evaluate_between_loads, join_night, join_table, log_in
from tournaments import actions as tournament_actions
from tournaments.links import group_path

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

EIGHT = ["Alice", "Mary-Beth", "Carmen", "Dana", "Eve", "Fran", "Gwen", "Hana"]
TAP = 48  # the site's --tap (static/css/site.css)


class Size(NamedTuple):
    name: str
    width: int
    height: int
    text: int  # the browser's default font size, px: 16 is its own, 32 is 200 %


SIZES = [Size("320×568, text 200 %", 320, 568, 32), Size("390×844, text 200 %", 390, 844, 32),
         Size("320×568", 320, 568, 16)]

# What the page measures of itself, as a list of what is wrong (empty: nothing cut, nothing off-screen):
# - the document is no wider than the viewport (not by a pixel: the host's page was 321 px at 320);
# - no visible element's box reaches past the viewport's left or right edge;
# - no element that clips its content (overflow hidden or clip) holds more than its box, and no
#   element of a fixed height is smaller than its content (its content spills over what follows):
#   such an element grows when its height is let go (height: auto), 1 px of tolerance.
# Never measured, on purpose:
# - what is visually hidden for a screen reader: .visually-hidden and any element clipped to nothing
#   the same way (clip: rect(0 0 0 0), a table's header row where its rows stack), and what is inside;
# - the skip link until it is focused (parked at left: -999px);
# - a text field's own text (input, textarea, select): a field scrolls what is typed in it, it never
#   wraps it, so a long answer in a narrow field is not cut (the field itself is measured).
MEASURE = """() => {
  const width = document.documentElement.clientWidth;
  const problems = [];
  const offScreen = new Set();
  const clippedToNothing = (el) => {
    for (let node = el; node; node = node.parentElement) {
      if (node.classList.contains("visually-hidden") || getComputedStyle(node).clip === "rect(0px, 0px, 0px, 0px)") return true;
    }
    return false;
  };
  const hiddenOnPurpose = (el) => clippedToNothing(el) || (el.closest(".skip-link") && !el.matches(":focus"));
  const scrollsItsText = (el) => el.matches("input, textarea, select");
  const name = (el) => {
    const parts = [];
    for (let node = el; node && node !== document.body && parts.length < 4; node = node.parentElement) {
      let part = node.tagName.toLowerCase();
      if (node.id) { parts.unshift(part + "#" + node.id); break; }
      part += [...node.classList].slice(0, 3).map((c) => "." + c).join("");
      parts.unshift(part);
    }
    const text = (el.innerText || el.value || "").trim().replace(/\\s+/g, " ").slice(0, 40);
    return parts.join(" > ") + (text ? ` ("${text}")` : "");
  };
  if (document.documentElement.scrollWidth > width) {
    problems.push(`the document is ${document.documentElement.scrollWidth} px wide on a ${width} px screen`);
  }
  for (const el of document.body.querySelectorAll("*")) {
    if (hiddenOnPurpose(el) || !el.checkVisibility({visibilityProperty: true})) continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    // Named once: the outermost element off-screen, not each of its rows and cells.
    if ((box.left < -1 || box.right > width + 0.5) && !offScreen.add(el).has(el.parentElement)) {
      problems.push(`${name(el)} is off-screen: ${Math.round(box.left)} to ${Math.round(box.right)} px of ${width}`);
    }
    const style = getComputedStyle(el);
    const clips = (o) => o === "hidden" || o === "clip";
    if (scrollsItsText(el)) continue;
    if ((clips(style.overflowX) && el.scrollWidth > el.clientWidth + 1)
        || (clips(style.overflowY) && el.scrollHeight > el.clientHeight + 1)) {
      problems.push(`${name(el)} cuts its content: ${el.scrollWidth}×${el.scrollHeight} in ${el.clientWidth}×${el.clientHeight}`);
    } else if (el.scrollHeight > el.clientHeight + 1 && style.display !== "inline") {
      const before = el.offsetHeight, was = el.style.height;
      el.style.height = "auto";
      const after = el.offsetHeight;
      el.style.height = was;
      if (after > before + 1) {
        problems.push(`${name(el)} is ${before} px high for ${after} px of content: it spills over what follows`);
      }
    }
  }
  return problems;
}"""

# A folder to keep a picture of each page at each size in, for a person to look at (not for the docs).
SHOTS = os.environ.get("TEXT_SIZE_SCREENSHOTS")

# The root's font size as the page sets it: 112.5 % of the browser's (18 px at its default 16).
ROOT_SHARE = 1.125


def phone(browser: Browser) -> Page:
    """A phone with motion reduced: a ringing banner, turned a little, is measured as it rests."""
    context: BrowserContext = browser.new_context(**PHONE, reduced_motion="reduce")  # type: ignore[arg-type]
    context.set_default_timeout(PATIENT_MS)
    return context.new_page()


def at_every_size(page: Page, what: str, show: Callable[[Page], None],
                  buttons: dict[str, dict[str, float]] | None = None) -> list[str]:
    """`show(page)` (which loads the page and brings it to its state) at each size, and what the
    page measures wrong there. At 200 % text the page's text must be twice as big as at 100 %: a
    root font size in px ignores the phone's setting. Given `buttons`, where the score buttons are
    on the page at each size goes in it under `what`."""
    cdp = page.context.new_cdp_session(page)
    problems = []
    for size in SIZES:
        page.set_viewport_size({"width": size.width, "height": size.height})
        text_size(cdp, size)
        show(page)
        root = float(evaluate_between_loads(page, "parseFloat(getComputedStyle(document.documentElement).fontSize)"))
        if root != pytest.approx(size.text * ROOT_SHARE, abs=0.5):
            problems.append(f"{what} at {size.name}: the root's text is {root} px, not {size.text * ROOT_SHARE}")
        problems += [f"{what} at {size.name}: {problem}" for problem in evaluate_between_loads(page, MEASURE)]
        if buttons is not None:
            buttons.setdefault(size.name, {})[what] = float(page.evaluate(
                "document.querySelector('#tally-form .tap-grid').getBoundingClientRect().top + window.scrollY"))
        if SHOTS:
            picture(page, cdp, size, what)
    return problems


def text_size(cdp: CDPSession, size: Size) -> None:
    cdp.send("Page.setFontSizes", {"fontSizes": {"standard": size.text, "fixed": round(size.text * 13 / 16)}})


def picture(page: Page, cdp: CDPSession, size: Size, what: str) -> None:
    """The whole page at `size` in one picture: the viewport made as tall as the page (Playwright's
    full-page screenshot sets the page's metrics again, and with them the text size)."""
    height = int(page.evaluate("document.documentElement.scrollHeight"))
    page.set_viewport_size({"width": size.width, "height": height})
    text_size(cdp, size)
    name = re.sub(r"[^a-z0-9]+", "-", f"{what} {size.width} {size.text}".lower()).strip("-")
    page.screenshot(path=os.path.join(SHOTS or "", f"{name}.png"))
    page.set_viewport_size({"width": size.width, "height": size.height})
    text_size(cdp, size)


def reloaded(then: Callable[[Page], None] | None = None) -> Callable[[Page], None]:
    """The page loaded again (at the size just set), then brought to its state by `then`."""
    def show(page: Page) -> None:
        page.reload()
        page.wait_for_load_state()
        if then is not None:
            then(page)
    return show


def scoring_for_them(page: Page) -> None:
    expect(page.locator("[data-live-badge]")).to_have_text("Live")
    page.locator(".switch-them").click()
    expect(page.locator("#tally-form input[data-them]")).to_be_checked()
    expect(page.locator("#tally-form .team-switch legend .when-them")).to_be_visible()


def live(page: Page) -> None:
    expect(page.locator("[data-live-badge]")).to_have_text("Live")


def nothing_wrong(problems: list[str]) -> None:
    assert not problems, f"{len(problems)} things cut or off-screen:\n" + "\n".join(problems)


@pytest.fixture
def phones(browser: Browser) -> Iterator[Callable[[], Page]]:
    yield lambda: phone(browser)


def test_the_nights_phone_pages_hold_their_text_at_200_percent_and_fit_320_px(
        night_site: ServerProcess, phones: Callable[[], Page]) -> None:
    url = night_site.url
    host_user = make_user()
    night = started_night(names=EIGHT, seed=3, host_user=host_user, title="Maple Street night of the long names")
    head, second = seating_of(night, 1)
    problems: list[str] = []

    # The join page of table 2, before anyone taps a name.
    joining = phones()
    joining.goto(url + join_path(night.code, 2))
    problems += at_every_size(joining, "the join page", reloaded())

    # In play at table 2: its hint, scoring for Us, then for Them; the score sheet.
    player = join_night(phones(), url, night.code, second[0], table=2)
    add(night, 2, "A", 7)
    add(night, 2, "B", 12)
    # Where the score buttons are, at each size, in each state: the boxes above them keep their
    # heights through the bell and the roll-off, at any text size (a finger never lands on +2 for +1).
    buttons: dict[str, dict[str, float]] = {}
    problems += at_every_size(player, "the phone in play", reloaded(live), buttons)
    problems += at_every_size(player, "the phone scoring for Them", reloaded(scoring_for_them), buttons)

    # The bell: the head table at 21; table 2 is told to finish its turn.
    add(night, 2, "A", 5)  # 12-12 at table 2: a tie, then a roll-off
    add(night, 1, "A", 21)
    player.reload()
    expect(player.locator(".bell-banner")).to_be_visible()
    problems += at_every_size(player, "the phone at the bell", reloaded(live), buttons)
    head_phone = join_night(phones(), url, night.code, head[0], table=1)
    problems += at_every_size(head_phone, "the head table's phone at the bell", reloaded(live))

    # The roll-off at table 2.
    actions.finish_turn(night=night, table_number=2)
    player.reload()
    expect(player.locator(".roll-off")).to_be_visible()
    problems += at_every_size(player, "the phone in a roll-off", reloaded(live), buttons)
    for size, tops in buttons.items():
        if max(tops.values()) - min(tops.values()) > 1:
            problems.append(f"the score buttons move at {size}: their top is at {tops}")

    # The host's page on a phone, at the bell.
    host = log_in(phones(), url, then=reverse("games:night_host", args=[night.code]))
    problems += at_every_size(host, "the host's page", reloaded(live))

    # The score sheet after a whole night, and the prizes.
    add(night, 2, "B", 1)
    actions.finish_roll_off(night=night, table_number=2)
    play_rounds(night, random.Random(3), 23)
    sheet = player
    sheet.goto(url + reverse("games:sheet", args=[night.code]))
    problems += at_every_size(sheet, "the score sheet", reloaded())
    assert Night.objects.get(pk=night.pk).status == Night.Status.FINISHED
    actions.award_prizes(Night.objects.get(pk=night.pk), random.Random(3))
    sheet.goto(url + reverse("games:prizes", args=[night.code]))
    problems += at_every_size(sheet, "the prizes", reloaded())
    nothing_wrong(problems)


def test_a_game_tables_phone_of_each_game_holds_its_text_at_200_percent_and_fits_320_px(
        table_site: ServerProcess, phones: Callable[[], Page]) -> None:
    problems: list[str] = []
    tables: list[tuple[str, Table]] = [
        ("Fill or Bust", make_table(3, seed=5)),
        ("Kismet", make_table(3, game="kismet", options={}, seed=6)),
        ("Ninety-Nine or Bust", make_table(3, game="ninety_nine", options={"markers": 1}, seed=7)),
    ]
    for game, table in tables:
        page = join_table(phones(), table_site.url, table.code, NAMES[0])
        problems += at_every_size(page, f"a {game} table's phone", reloaded(live))
    nothing_wrong(problems)


def test_a_tournament_groups_phone_and_a_members_page_hold_their_text_at_200_percent_and_fit_320_px(
        night_site: ServerProcess, phones: Callable[[], Page]) -> None:
    problems: list[str] = []
    tournament = make_tournament(make_user("director"), 4)
    tournament_actions.start_round(tournament)
    group = groups_of(tournament)[0]
    page = phones()
    page.goto(night_site.url + group_path(group.code))
    problems += at_every_size(page, "a tournament group's phone", reloaded(live))

    seeded = seed_the_screenshots_club()
    member = phones()
    member.goto(night_site.url + seeded.member_path)
    expect(member.get_by_role("heading", name=f"Hi {MEMBER}")).to_be_visible()
    problems += at_every_size(member, "a member's RSVP page", reloaded())
    nothing_wrong(problems)


def test_a_groups_phone_asking_for_a_confirmation_holds_long_names_and_scores_at_200_percent_and_fits_320_px(
        night_site: ServerProcess, phones: Callable[[], Page]) -> None:
    """Issue 46: the round over, the table's phone lists its scores to check and a confirm and a
    dispute button for each player; a long name ("Fernández-Llorente") wraps rather than push the
    scores off a phone at 200 % text."""
    tournament = tournament_actions.create_tournament(director=make_user("director"), name="Autumn Open",
                                                      confirm_results=True)
    for number in range(1, 5):
        tournament_actions.register(tournament, f"Kit {number} Fernández-Llorente", checked_in=True)
    round_ = tournament_actions.start_round(tournament)
    group = groups_of(tournament)[0]
    for points, player in zip((10000, 9850, 8500, 500), group.players(), strict=True):
        tournament_actions.record_turn(group=group, entrant=player, points=points)
    tournament_actions.end_round_now(tournament, number=round_.number)
    page = phones()
    page.goto(night_site.url + group_path(group.code))
    expect(page.locator("#result-answer")).to_be_visible()
    nothing_wrong(at_every_size(page, "a group's phone asking for a confirmation", reloaded(live)))


# --- P3: the Sound switch and the host's links are real targets, the switch out of a thumb's way ---


def box(page: Page, selector: str) -> FloatRect:
    found = page.locator(selector).bounding_box()
    assert found is not None, selector
    return found


def test_the_sound_switch_is_a_48_px_target_at_the_end_of_the_top_line_and_says_its_state(
        night_site: ServerProcess, phones: Callable[[], Page]) -> None:
    night = started_night(names=EIGHT, seed=3)
    player = join_night(phones(), night_site.url, night.code, seating_of(night, 1)[1][0], table=2)
    switch = player.get_by_role("switch", name="Sound")
    expect(switch).to_have_text("Sound on")
    sound, line = box(player, "[data-sound-switch]"), box(player, ".phone-topline")
    assert sound["height"] >= TAP and sound["width"] >= TAP, sound
    # The switch ends the top line: its right edge the line's, and everything else on the line
    # before it (to its left, or on a line above it).
    assert sound["x"] + sound["width"] == pytest.approx(line["x"] + line["width"], abs=1), (sound, line)
    after = player.evaluate("""() => {
      const line = document.querySelector(".phone-topline"), sound = line.querySelector("[data-sound-switch]").getBoundingClientRect();
      return [...line.children].filter((el) => !el.matches("[data-sound-switch]")).map((el) => [el.textContent.trim(), el.getBoundingClientRect()])
        .filter(([, box]) => box.left >= sound.right - 1 || box.top >= sound.bottom - 1).map(([text]) => text);
    }""")
    assert after == [], f"after the Sound switch on the top line: {after}"
    # Off, it looks off (not only a word): its edge and its text change.
    on_style = switch.evaluate("b => getComputedStyle(b).borderStyle + ' ' + getComputedStyle(b).backgroundColor")
    switch.click()
    expect(switch).to_have_text("Sound off")
    off_style = switch.evaluate("b => getComputedStyle(b).borderStyle + ' ' + getComputedStyle(b).backgroundColor")
    assert on_style != off_style


def test_the_host_pages_link_buttons_are_48_px_targets_on_a_phone(
        night_site: ServerProcess, phones: Callable[[], Page]) -> None:
    night = started_night(names=EIGHT, seed=3, host_user=make_user())
    host = log_in(phones(), night_site.url, then=reverse("games:night_host", args=[night.code]))
    links = host.locator(".host-links a")
    expect(links).to_have_count(3)
    small = [f"{link.inner_text()}: {link.bounding_box()}" for link in links.all()
             if (link.bounding_box() or {"height": 0})["height"] < TAP]
    assert small == []
