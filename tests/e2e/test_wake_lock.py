"""Screens that stay on (issue 32): a page where a phone waits for others asks for the Screen Wake Lock,
and again each time it comes back to the front. On plain HTTP at an address that is not this machine
(not a secure context: no wake lock, no service worker) the page still works, registers no worker,
and keeps the screen on with a muted video started by the first tap; where not even that can play, a
one-line hint says to keep the screen on."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from games.night.models import Night
from tests.builders import seating_of, started_night
from tests.conftest import PHONE, ServerProcess
from tests.e2e.pages import desk, join_night, start_night_from_form

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

EIGHT = ["Alice", "Bea", "Carmen", "Dana", "Eve", "Fran", "Gwen", "Hana"]

# Counts the page's wake lock requests, and lets the test hide and show the page: headless Chromium's
# pages are always visible, so visibilityState is the test's to say (and the event is sent as a
# browser sends it).
OBSERVE_WAKE_LOCK = """
window.wakeLockRequests = [];
(() => {
  let visibility = "visible";
  Object.defineProperty(Document.prototype, "visibilityState", { configurable: true, get: () => visibility });
  Object.defineProperty(Document.prototype, "hidden", { configurable: true, get: () => visibility === "hidden" });
  window.showPage = (shown) => {
    visibility = shown ? "visible" : "hidden";
    document.dispatchEvent(new Event("visibilitychange"));
  };
  if (navigator.wakeLock) {
    const request = navigator.wakeLock.request.bind(navigator.wakeLock);
    navigator.wakeLock.request = (type) => {
      window.wakeLockRequests.push(type);
      return request(type);
    };
  }
})();
"""
AWAKE_VIDEO = "video[data-keep-awake-video]"
VIDEO_PLAYING = """() => {
  const video = document.querySelector("video[data-keep-awake-video]");
  return !!video && !video.paused && video.currentTime > 0;
}"""


def requests_made(page: Page) -> list[str]:
    return page.evaluate("() => window.wakeLockRequests")


def phone_at_table_2(page: Page, url: str) -> tuple[Page, Night]:
    night = started_night(names=EIGHT, seed=3)
    return join_night(page, url, night.code, seating_of(night, 1)[1][0], table=2), night


def assert_asks_again_when_shown(page: Page) -> None:
    page.wait_for_function("() => window.wakeLockRequests.length === 1")
    assert requests_made(page) == ["screen"]

    page.evaluate("() => window.showPage(false)")
    assert requests_made(page) == ["screen"]  # a hidden page asks for nothing
    page.evaluate("() => window.showPage(true)")
    page.wait_for_function("() => window.wakeLockRequests.length === 2")
    assert requests_made(page) == ["screen", "screen"]


def test_a_phone_page_asks_for_the_wake_lock_and_again_when_it_comes_back(night_site: ServerProcess, new_phone) -> None:
    phone = new_phone()
    phone.context.add_init_script(OBSERVE_WAKE_LOCK)
    phone_at_table_2(phone, night_site.url)

    assert_asks_again_when_shown(phone)
    expect(phone.locator("[data-keep-awake-hint]")).to_have_count(0)


def test_the_host_page_asks_for_the_wake_lock_too(night_site: ServerProcess, browser: Browser) -> None:
    host = desk(browser)
    host.context.add_init_script(OBSERVE_WAKE_LOCK)
    start_night_from_form(host, night_site.url, EIGHT)

    assert_asks_again_when_shown(host)


def test_a_page_where_nobody_waits_asks_for_nothing(night_site: ServerProcess, new_phone) -> None:
    phone = new_phone()
    phone.context.add_init_script(OBSERVE_WAKE_LOCK)
    phone.goto(night_site.url + "/accounts/login/")
    expect(phone.locator("#id_username")).to_be_visible()
    phone.evaluate("() => window.showPage(true)")

    assert requests_made(phone) == []
    expect(phone.locator(AWAKE_VIDEO)).to_have_count(0)


# --- Plain HTTP at a name that is not localhost ---------------------------------------------------




def party_phone(party_browser: Browser) -> tuple[Page, list[str]]:
    """A phone of the party browser, and the addresses of what it requests."""
    options: dict[str, Any] = dict(PHONE)
    page = party_browser.new_context(**options).new_page()
    page.add_init_script(OBSERVE_WAKE_LOCK)
    requested: list[str] = []
    page.on("request", lambda sent: requested.append(sent.url))
    return page, requested


def test_on_plain_http_the_page_works_without_a_worker_and_a_muted_video_keeps_it_on(
    party_site: str, party_browser: Browser
) -> None:
    phone, requested = party_phone(party_browser)
    phone_at_table_2(phone, party_site)  # joined and live: the page works

    assert phone.evaluate("() => window.isSecureContext") is False
    assert phone.evaluate("() => 'serviceWorker' in navigator || 'wakeLock' in navigator") is False
    expect(phone.locator(AWAKE_VIDEO)).to_be_attached()
    assert phone.evaluate(VIDEO_PLAYING) is False  # nothing plays before the first tap

    phone.locator("[data-live-badge]").tap()  # a tap that changes nothing else
    phone.wait_for_function(VIDEO_PLAYING)
    assert phone.evaluate(f"() => document.querySelector('{AWAKE_VIDEO}').muted") is True
    expect(phone.locator("[data-keep-awake-hint]")).to_have_count(0)
    assert not [url for url in requested if url.endswith("/sw.js")]


def test_on_plain_http_a_phone_that_can_play_no_video_is_asked_to_keep_its_screen_on(
    party_site: str, party_browser: Browser
) -> None:
    phone, _ = party_phone(party_browser)
    phone.add_init_script("HTMLMediaElement.prototype.canPlayType = () => '';")
    phone_at_table_2(phone, party_site)

    expect(phone.locator("[data-keep-awake-hint]")).to_have_text(
        "Keep this screen on: this browser cannot, so set your phone not to lock while you play.")
    expect(phone.locator(AWAKE_VIDEO)).to_have_count(0)
