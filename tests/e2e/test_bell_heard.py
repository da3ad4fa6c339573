"""The bell heard and felt (issue 32): when the head table rings the bell, every phone at the party
flashes the banner once, vibrates once and plays the bell once if a touch of its own has unlocked
them (the browsers' rule: a server's message alone may neither start sound nor vibrate; issue 42,
P5) and its sound switch is on. The host's page and the projector flash and ring too (issue 42, P4).

What a phone did is read from the page: an init script counts the calls of `navigator.vibrate` and
the bells started on the page's AudioContext (each bell starts its tones at one moment: distinct
start times are distinct bells), and the banners flashed. The night has two tables: the head table's four phones play in the
browser, table 2 through the actions, so the round stays at its bell until table 2 has finished.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.urls import reverse
from playwright.sync_api import Browser, Page, expect

from games.night import actions
from games.night.models import Night, Player, Round
from tests.builders import add, make_night, seating_of
from tests.conftest import ServerProcess
from tests.e2e.pages import desk, join_night, start_night_from_form, wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

OBSERVE_THE_BELL = """
window.__heard = {vibrations: 0, bells: [], flashes: 0, said: []};
new MutationObserver(function (changes) {
  const announcer = document.getElementById("announcer");
  if (announcer && changes.some(function (change) { return announcer.contains(change.target); })) {
    window.__heard.said.push(announcer.textContent);
  }
}).observe(document, {subtree: true, childList: true, characterData: true});
new MutationObserver(function (changes) {
  changes.forEach(function (change) {
    const was = (change.oldValue || "").split(" ").includes("chime-flash");
    if (!was && change.target.classList.contains("chime-flash")) window.__heard.flashes += 1;
  });
}).observe(document, {subtree: true, attributes: true, attributeFilter: ["class"], attributeOldValue: true});
navigator.vibrate = function () { window.__heard.vibrations += 1; return true; };
const startTone = OscillatorNode.prototype.start;
OscillatorNode.prototype.start = function (when) {
  if (!window.__heard.bells.includes(when)) window.__heard.bells.push(when);
  return startTone.apply(this, arguments);
};
"""


def heard(page: Page) -> tuple[int, int]:
    """How many times the phone vibrated, and how many bells it played."""
    counts = page.evaluate("[window.__heard.vibrations, window.__heard.bells.length]")
    return int(counts[0]), int(counts[1])


def vibrated(page: Page) -> Callable[[], bool]:
    return lambda: heard(page)[0] >= 1


def said(page: Page) -> list[str]:
    """Everything the page's one live region announced, in order."""
    return [str(text) for text in page.evaluate("window.__heard.said")]


def announced(page: Page, sentence: str) -> Callable[[], bool]:
    """Whether `sentence` was said, alone or with the change that came with it (the score)."""
    return lambda: any(sentence in text for text in said(page))


def tap(page: Page, points: int) -> None:
    page.locator(f"#tally-form [data-points='{points}']").click()


def test_every_phone_feels_the_bell_once_hears_it_once_if_a_tap_unlocked_its_sound_and_a_screen_reader_hears_each_change(
    night_site: ServerProcess, new_phone
) -> None:
    night = make_night(8, seed=7)
    head = seating_of(night, 1)[0]
    phones: list[Page] = []
    for name in head:
        phone = new_phone(device_scale_factor=1)
        phone.add_init_script(OBSERVE_THE_BELL)
        phones.append(join_night(phone, night_site.url, night.code, name, table=1))
    starter, tapper, quiet, named_only = phones

    # One player turns their phone's sound off; the switch says so and the phone remembers it.
    sound = quiet.get_by_role("switch", name="Sound")
    expect(sound).to_be_checked()
    sound.click()
    expect(sound).not_to_be_checked()
    expect(sound).to_have_text("Sound off")
    quiet.reload()
    expect(quiet.get_by_role("switch", name="Sound")).not_to_be_checked()
    quiet.locator("#phone-state").click()  # a tap: its sound is unlocked, and off

    starter.get_by_role("button", name="Start round 1").click()
    for phone in phones:
        expect(phone.locator("#tally-form")).to_be_visible()
    at_table_2 = Player.objects.get(night=night, name=seating_of(night, 1)[1][0])
    actions.record_tally(night=night, table_number=2, team="A", points=1, entered_by=at_table_2)  # no tie there
    tap(tapper, 2)
    # A screen reader hears the tally in one sentence, as each side of the table sees it.
    expect(starter.locator("#announcer")).to_have_text("Round 1, 1s up: you 0, them 2.")
    expect(named_only.locator("#announcer")).to_have_text("Round 1, 1s up: you 2, them 0.")
    for total in (5, 10, 15, 20):
        tap(starter, 5)
        expect(starter.locator(".team-score.team-mine .team-points")).to_have_text(str(total))
        expect(quiet.locator("#announcer")).to_have_text(f"Round 1, 1s up: you {total}, them 2.")
        expect(starter.locator("#tally-form [data-points='5']")).to_be_focused()  # the update kept it
    assert [heard(phone) for phone in phones] == [(0, 0)] * 4  # nothing rings before the bell

    tap(starter, 1)  # 21: the bell
    for phone in phones:
        expect(phone.locator(".bell-banner .bell-title")).to_have_text("Bell! Round 1 is over.")
        wait_until(phone, vibrated(phone), "the phone never vibrated at the bell")
        assert phone.evaluate("window.__heard.flashes") == 1  # the banner flashed as it rang
    assert heard(starter) == (1, 1)
    assert heard(tapper) == (1, 1)
    assert heard(quiet) == (1, 0)  # its switch is off: felt and seen, not heard
    # Its one touch was its name on the join page: the browser counts it on the page it opened, so
    # its sound plays without another touch (issue 42, P5; it used to wait for a touch on this page).
    assert heard(named_only) == (1, 1)
    bell_said = "Bell! Round 1 is over. Head table: stop now."
    for phone in phones:
        wait_until(phone, announced(phone, bell_said), "the bell was not announced")

    # Table 2 finishes; the round closes and every phone shows round 2: the bell rang once only.
    actions.finish_turn(night=night, table_number=2)
    assert Round.objects.get(night=night, number=1).status == Round.Status.CLOSED
    for phone in phones:
        expect(phone.locator(".round-label")).to_contain_text("Round 2")
        expect(phone.locator(".bell-banner")).to_have_count(0)
    assert [heard(phone)[0] for phone in phones] == [1, 1, 1, 1]
    assert [heard(phone)[1] for phone in phones] == [1, 1, 0, 1]
    assert [sum(bell_said in text for text in said(phone)) for phone in phones] == [1, 1, 1, 1]
    # Every announcement is one sentence or two (a change and the bell that came with it), never a
    # whole panel read again.
    assert all(text.count(".") <= 3 for phone in phones for text in said(phone)), [said(p) for p in phones]
    assert Night.objects.get(pk=night.pk).current_round == 2


# --- Issue 42, P4: the host's page and the projector flash and ring too -------------------------


def test_the_host_page_and_the_projector_flash_and_ring_the_bell(night_site: ServerProcess, browser: Browser) -> None:
    host = desk(browser)
    host.add_init_script(OBSERVE_THE_BELL)
    start_night_from_form(host, night_site.url, [f"Player {number}" for number in range(1, 9)])
    night = Night.objects.get()
    projector = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    projector.add_init_script(OBSERVE_THE_BELL)
    projector.goto(night_site.url + reverse("games:screen", args=[night.code, night.screen_token]))
    expect(projector.locator("[data-live-badge]")).to_have_text("Live")
    projector.locator(".projector-title").click()  # the host's one click on the projector's window

    host.get_by_role("button", name="Start round 1").click()
    expect(host.locator("#host-state .round-label")).to_contain_text("Playing")
    add(night, 2, "A", 1)  # table 2 still plays: the round stays at its bell
    add(night, 1, "A", 21)  # the bell

    for page in (host, projector):
        expect(page.locator(".bell-banner .bell-title")).to_have_text("Bell! Round 1 is over.")
        wait_until(page, flashed(page), "the bell's banner never flashed")
        wait_until(page, rang(page), "the bell was never heard")
    assert [heard(page)[1] for page in (host, projector)] == [1, 1]


def flashed(page: Page) -> Callable[[], bool]:
    return lambda: page.evaluate("window.__heard.flashes") == 1


def rang(page: Page) -> Callable[[], bool]:
    return lambda: heard(page)[1] == 1


# --- Issue 42, P5: a phone's first touch lets it ring and vibrate; before it, nothing is blocked --

# What the phone did, said on its console: the page is never asked anything (any question
# Playwright asks a page, a locator's or an evaluate, counts there as a person's gesture and would
# unlock what the test is about). navigator.vibrate is the browser's own, watched, not replaced.
HEARD_ON_THE_CONSOLE = """
(function () {
  const vibrate = navigator.vibrate.bind(navigator);
  navigator.vibrate = function (pattern) {
    const taken = vibrate(pattern);
    console.log("heard: vibrate " + taken);
    return taken;
  };
  const startTone = OscillatorNode.prototype.start;
  let lastBell = null;
  OscillatorNode.prototype.start = function (when) {
    if (when !== lastBell) { lastBell = when; console.log("heard: bell"); }
    return startTone.apply(this, arguments);
  };
  new MutationObserver(function (changes) {
    changes.forEach(function (change) {
      const was = (change.oldValue || "").split(" ").includes("chime-flash");
      if (!was && change.target.classList.contains("chime-flash")) console.log("heard: flash");
    });
  }).observe(document, {subtree: true, attributes: true, attributeFilter: ["class"], attributeOldValue: true});
})();
"""


class Console:
    """What a page wrote on its console, from its first line."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.lines: list[str] = []
        page.on("console", lambda message: self.lines.append(message.text))

    def wait_for(self, line: str) -> None:
        if line not in self.lines:
            self.page.wait_for_event("console", predicate=lambda message: message.text == line)


def heard_lines(console: Console) -> list[str]:
    return [line for line in console.lines if line.startswith("heard: ")]


def play_page_of(phone: Page, url: str, night: Night) -> tuple[Page, Console]:
    """The phone's play page opened afresh in a tab of its own (its seat is in the session), as a
    phone opens it from its home screen: nothing on the page has been touched yet."""
    page = phone.context.new_page()
    page.add_init_script(HEARD_ON_THE_CONSOLE)
    console = Console(page)
    phone.close()
    page.goto(url + reverse("games:play", args=[night.code]))
    return page, console


def touch(page: Page, x: float, y: float) -> None:
    """One finger on the screen and off again, sent as the phone's touch screen sends it, and
    nothing else: Playwright's own tap asks the page first where its target is."""
    screen = page.context.new_cdp_session(page)
    screen.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    screen.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    screen.detach()


def test_a_phones_first_touch_lets_it_ring_and_vibrate_and_before_it_no_vibration_is_tried(
    night_site: ServerProcess, new_phone
) -> None:
    night = make_night(8, seed=7)
    actions.start_round(night)
    head = seating_of(night, 1)[0]
    touched, touched_console = play_page_of(
        join_night(new_phone(), night_site.url, night.code, head[0], table=1), night_site.url, night)
    untouched, untouched_console = play_page_of(
        join_night(new_phone(), night_site.url, night.code, head[1], table=1), night_site.url, night)
    touch(touched, 2, 420)  # the page's margin, beside the score buttons: a touch that does nothing else

    add(night, 2, "A", 1)  # table 2 still plays: the round stays at its bell
    add(night, 1, "A", 21)  # the bell

    # The chime rings, vibrates and then flashes, in one go: once the flash is seen, the rest is said.
    touched_console.wait_for("heard: flash")
    untouched_console.wait_for("heard: flash")
    assert heard_lines(touched_console) == ["heard: bell", "heard: vibrate true", "heard: flash"], touched_console.lines
    # Nobody touched it: seen, neither heard nor felt, and no vibration tried for Chromium to block.
    assert heard_lines(untouched_console) == ["heard: flash"], untouched_console.lines
    assert not [line for line in untouched_console.lines if "navigator.vibrate" in line]
    assert not [line for line in touched_console.lines if "AudioContext" in line]  # its sound was never refused
