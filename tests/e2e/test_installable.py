"""The site as an installed app (issue 32): Chromium finds it installable, its service worker keeps
the offline page and the static files, and a phone that reloads its page with no network sees the
offline page, then its own page again by itself once the network is back."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import BrowserContext, BrowserType, Page, Route, expect

from games.night.models import Night, Tally
from tests.builders import seating_of, started_night
from tests.conftest import PHONE, SERVERS, ServerProcess, start_server
from tests.e2e.pages import join_night, wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

EIGHT = ["Alice", "Bea", "Carmen", "Dana", "Eve", "Fran", "Gwen", "Hana"]


def phone_at_table_2(page: Page, site: ServerProcess) -> tuple[Page, Night]:
    """`page` joins table 2 of an eight-player night whose round 1 has started."""
    night = started_night(names=EIGHT, seed=3)
    return join_night(page, site.url, night.code, seating_of(night, 1)[1][0], table=2), night


def worker_version(site: ServerProcess) -> str:
    script = httpx.get(site.url + "/sw.js").text
    found = re.search(r"const CONFIG = (\{.*?\n\});", script, re.S)
    assert found
    return str(json.loads(found.group(1))["version"])


# Resolves once the registration's newest worker is activated (its activate handler, which drops the
# caches of other versions, has finished by then), with the cache names left.
UNTIL_ACTIVATED = """async (update) => {
  const registration = await navigator.serviceWorker.ready;
  if (update) await registration.update();
  const worker = registration.installing || registration.waiting || registration.active;
  if (worker.state !== "activated") {
    await new Promise((done) => worker.addEventListener("statechange", () => worker.state === "activated" && done()));
  }
  return caches.keys();
}"""


def until_installed(page: Page) -> list[str]:
    """Until the site's service worker has installed and activated; the names of its caches."""
    return page.evaluate(UNTIL_ACTIVATED, False)


def installability_errors(context: BrowserContext, page: Page) -> list[dict[str, Any]]:
    session = context.new_cdp_session(page)
    try:
        return session.send("Page.getInstallabilityErrors")["installabilityErrors"]
    finally:
        session.detach()


@pytest.fixture
def installed_browser(browser_type: BrowserType, browser_type_launch_args: dict[str, Any], tmp_path: Path):
    """A phone's browser with a profile of its own on disk: Chromium never offers to install from an
    incognito window, and every context of a plain launch is one."""
    options: dict[str, Any] = {**browser_type_launch_args, **PHONE}
    context = browser_type.launch_persistent_context(tmp_path / "profile", **options)
    yield context
    context.close()


def test_the_manifest_parses_and_its_icons_load(night_site: ServerProcess, new_phone) -> None:
    page = new_phone()
    page.goto(night_site.url + "/")
    href = page.locator("link[rel=manifest]").get_attribute("href")
    answer = page.request.get(night_site.url + str(href))

    assert answer.headers["content-type"] == "application/manifest+json"
    manifest = answer.json()
    assert manifest["display"] == "standalone"
    for icon in manifest["icons"]:
        width, height = (int(side) for side in icon["sizes"].split("x"))
        page.goto(night_site.url + icon["src"])
        size = page.evaluate("() => ({width: document.images[0].naturalWidth, height: document.images[0].naturalHeight})")
        assert size == {"width": width, "height": height}, icon["src"]


def test_chromium_finds_the_home_page_and_a_phone_page_installable(night_site: ServerProcess, installed_browser) -> None:
    page = installed_browser.pages[0] if installed_browser.pages else installed_browser.new_page()
    page.goto(night_site.url + "/")
    assert installability_errors(installed_browser, page) == []

    phone_at_table_2(page, night_site)
    assert installability_errors(installed_browser, page) == []


def test_a_phone_page_reloaded_offline_shows_the_offline_page_then_its_page_again(night_site: ServerProcess, new_phone) -> None:
    phone, night = phone_at_table_2(new_phone(), night_site)
    until_installed(phone)
    player_page = phone.url

    phone.context.set_offline(True)
    phone.reload()
    expect(phone.get_by_role("heading", name="No connection")).to_be_visible()
    expect(phone).to_have_url(player_page)  # the phone's own address, for the reload once back

    phone.context.set_offline(False)
    expect(phone.locator("[data-live-badge]")).to_have_text("Live")
    expect(phone).to_have_url(player_page)
    expect(phone.get_by_role("heading", name="No connection")).to_have_count(0)


def test_a_tap_made_offline_comes_through_the_offline_page_and_counts_once(night_site: ServerProcess, new_phone) -> None:
    """The Wi-Fi drops just as a player taps +2: the first copy reaches the server but its answer is
    lost, the phone reloads with no network (the offline page), and once the network is back its
    page sends the tap again with its key: the table has the +2 once."""
    phone, night = phone_at_table_2(new_phone(), night_site)
    until_installed(phone)
    player_page = phone.url
    copies: list[str] = []

    def the_answer_is_lost(route: Route) -> None:
        if not copies:
            route.fetch()  # the server takes the tap...
            phone.context.set_offline(True)  # ...and the Wi-Fi drops before its answer
            copies.append(route.request.url)  # (counted once the phone is offline: the test goes on then)
            route.abort("internetdisconnected")
        else:
            copies.append(route.request.url)
            route.continue_()

    phone.route(re.compile(r".*/tally/$"), the_answer_is_lost)
    phone.locator("#tally-form [data-points='2']").click()
    wait_until(phone, lambda: len(copies) >= 1, "the tap was never sent")
    assert json.loads(phone.evaluate("() => localStorage.getItem('bunco-pending-taps')"))[0]["label"] == "+2 for us"
    phone.reload()
    expect(phone.get_by_role("heading", name="No connection")).to_be_visible()

    phone.context.set_offline(False)
    expect(phone.locator("[data-live-badge]")).to_have_text("Live")
    expect(phone).to_have_url(player_page)
    expect(phone.locator("#tap-status")).to_contain_text("+2 for us")
    wait_until(phone, lambda: phone.evaluate("() => localStorage.getItem('bunco-pending-taps')") == "[]",
               "the tap was never answered")
    assert len(copies) >= 2  # sent again once the page was back
    tallies = Tally.objects.filter(night=night, points=2)
    assert tallies.count() == 1, list(tallies.values("key", "points"))


def test_the_worker_keeps_the_static_files_in_a_cache_named_after_their_version(night_site: ServerProcess, new_phone) -> None:
    phone, _ = phone_at_table_2(new_phone(), night_site)

    version = worker_version(night_site)
    assert until_installed(phone) == [f"bunco-static-{version}"]
    kept = phone.evaluate(f"""() => caches.open("bunco-static-{version}").then((cache) => cache.keys())
        .then((requests) => requests.map((request) => new URL(request.url).pathname))""")
    assert "/offline/" in kept
    assert "/static/css/site.css" in kept
    assert not [path for path in kept if "/events" in path or "/n/" in path]


@pytest.fixture
def released_site(transactional_db: None, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[ServerProcess]:
    """A site of its own (not the pool's: a test restarts it), serving the static files of
    release-1."""
    server = start_server(tmp_path, extra_env={"REDIS_URL": "", "STATIC_VERSION": "release-1"})
    request.node.stash.setdefault(SERVERS, []).append(server)
    yield server
    server.stop()


def test_a_new_static_version_replaces_the_cache(released_site: ServerProcess, new_phone) -> None:
    phone, _ = phone_at_table_2(new_phone(), released_site)
    assert until_installed(phone) == ["bunco-static-release-1"]

    # A new release: the site restarts, at the same address, with new static files.
    released_site.env["STATIC_VERSION"] = "release-2"
    released_site.restart()

    assert phone.evaluate(UNTIL_ACTIVATED, True) == ["bunco-static-release-2"]
    phone.reload()
    expect(phone.locator("[data-live-badge]")).to_have_text("Live")
