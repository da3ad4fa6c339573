"""The bell heard and felt (issue 32): when the head table rings the bell, every phone at the party
vibrates and flashes the banner once, and plays the bell once if a tap of its own has unlocked
its sound (the iOS rule: a server's message alone may not start sound) and its sound switch is on.

What a phone did is read from the page: an init script counts the calls of `navigator.vibrate` and
the bells started on the page's AudioContext (each bell starts its tones at one moment: distinct
start times are distinct bells), and the banners flashed. The night has two tables: the head table's four phones play in the
browser, table 2 through the actions, so the round stays at its bell until table 2 has finished.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import Page, expect

from games.night import actions
from games.night.models import Night, Player, Round
from tests.builders import make_night, seating_of
from tests.conftest import ServerProcess
from tests.e2e.pages import join_night, wait_until

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
    return lambda: sentence in said(page)


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
    starter, tapper, quiet, untouched = phones

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
    expect(untouched.locator("#announcer")).to_have_text("Round 1, 1s up: you 2, them 0.")
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
    assert heard(untouched) == (1, 0)  # never tapped: the browser keeps its sound locked
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
    assert [heard(phone)[1] for phone in phones] == [1, 1, 0, 0]
    assert [said(phone).count(bell_said) for phone in phones] == [1, 1, 1, 1]
    # Every announcement is one sentence or two (a change and the bell that came with it), never a
    # whole panel read again.
    assert all(text.count(".") <= 3 for phone in phones for text in said(phone)), [said(p) for p in phones]
    assert Night.objects.get(pk=night.pk).current_round == 2
