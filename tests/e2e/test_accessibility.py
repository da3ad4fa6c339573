"""Accessibility of the night's pages (docs/DESIGN.md §1: a dim room, one hand, a phone): axe-core finds
no serious or critical violation on the start page, the join page, the phone page in each of its
states, the host page and the projector; and the phone pages fit a 360 px wide screen."""

from __future__ import annotations

import random
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from games.links import join_path
from games.night.models import Night
from tests.builders import make_night, seating_of
from tests.conftest import ServerProcess
from tests.e2e.pages import axe_violations
from tests.e2e.test_bunco_night import NAMES, Bots

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

BLOCKING = ("serious", "critical")


def describe(violations: list[dict[str, Any]]) -> str:
    lines = []
    for violation in violations:
        lines.append(f"[{violation['impact']}] {violation['id']}: {violation['help']} ({violation['helpUrl']})")
        for node in violation["nodes"][:5]:
            lines.append(f"    {node['target']}: {node.get('failureSummary', '').splitlines()[-1:]}")
    return "\n".join(lines)


def check(page: Page, what: str, found: dict[str, list[dict[str, Any]]]) -> None:
    """Run axe on the page as it is now; keep every violation, fail on the blocking ones."""
    violations = axe_violations(page)
    found[what] = violations
    blocking = [v for v in violations if v["impact"] in BLOCKING]
    assert not blocking, f"{what} ({page.url}):\n{describe(blocking)}"


def report(found: dict[str, list[dict[str, Any]]]) -> None:
    for what, violations in found.items():
        print(f"\naxe, {what}: {len(violations)} violation(s)" + (f"\n{describe(violations)}" if violations else ""))


def test_every_page_of_a_night_passes_axe_without_serious_violations(
    live_site: ServerProcess, browser: Browser, new_phone
) -> None:
    found: dict[str, list[dict[str, Any]]] = {}
    url = live_site.url
    host = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()

    host.goto(url + "/nights/new/")
    check(host, "start a night", found)
    host.fill("#id_names", "\n".join(NAMES))
    expect(host.locator("#shape")).to_have_text("12 players · 3 tables · no ghosts")
    host.get_by_role("button", name="Draw the seats and start").click()
    expect(host.locator("#host-state .round-label")).to_contain_text("Round 1 of 24")
    expect(host.locator("[data-live-badge]")).to_have_text("Live")
    check(host, "host page, seated", found)

    night = Night.objects.get()
    projector = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    live_screen = host.get_by_role("link", name="Projector screen").get_attribute("href")
    assert live_screen is not None
    projector.goto(live_screen)
    expect(projector.locator("[data-live-badge]")).to_have_text("Live")
    check(projector, "projector, seated", found)

    head = seating_of(night, 1)[0]
    phone = new_phone()
    phone.goto(url + join_path(night.code, 1))
    check(phone, "join page", found)
    phone.get_by_role("button", name=head[0], exact=True).click()
    expect(phone.locator("[data-live-badge]")).to_have_text("Live")
    check(phone, "phone, waiting to start", found)

    phone.get_by_role("button", name="Start round 1").click()
    expect(phone.locator("#tally-form")).to_be_visible()
    phone.locator("[data-points='5']").click()
    expect(phone.locator("#tap-status")).to_have_text("✓ +5 for us")
    check(phone, "phone, in a round", found)
    phone.get_by_role("button", name="BUNCO!").click()
    expect(phone.locator("#bunco-chooser")).to_be_visible()
    check(phone, "phone, who rolled the Bunco?", found)
    phone.get_by_role("button", name="Cancel").click()

    # The head table's team to 21: the bell, through the phone.
    for points in ("5", "5", "5", "1"):
        phone.locator(f"[data-points='{points}']").click()
    expect(phone.locator(".bell-banner")).to_be_visible()
    expect(host.locator(".bell-banner")).to_be_visible()
    expect(projector.locator(".bell-banner")).to_be_visible()
    check(phone, "phone, the bell", found)
    check(host, "host page, the bell", found)
    check(projector, "projector, the bell", found)
    host.get_by_text("Correct a tally").click()
    host.locator("#c-table").fill("2")
    host.locator("#c-points").fill("3")
    host.get_by_role("button", name="Check the correction").click()
    expect(host.locator("#correction-check")).to_contain_text("Round 1, table 2")
    check(host, "host page, a correction checked", found)

    checking = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    checking.goto(url + "/check/")
    expect(checking.locator("#room-link")).to_be_visible()
    check(checking, "connection check room", found)

    # The rest of the night by bots, then the prizes and the score sheet.
    Bots(night, random.Random(7)).play_to_the_end()
    host.goto(f"{url}/n/{night.code}/host/")
    host.get_by_role("button", name="Prizes").click()
    expect(host.locator(".award").first).to_be_visible()
    check(host, "prizes page", found)
    phone.goto(f"{url}/n/{night.code}/sheet/")
    check(phone, "score sheet", found)
    report(found)


def test_the_phone_pages_fit_a_360_px_wide_screen(live_site: ServerProcess, new_phone) -> None:
    night = make_night(names=[*NAMES[:11], "Maximiliana Wolfeschlegel"], seed=3)
    head = seating_of(night, 1)[0]
    phone = new_phone(viewport={"width": 360, "height": 740})

    def fits(what: str) -> None:
        widths = phone.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        assert widths[0] <= widths[1], f"{what}: the page is {widths[0]} px wide on a {widths[1]} px screen"

    phone.goto(live_site.url + join_path(night.code, 1))
    fits("join page")
    phone.get_by_role("button", name=head[0], exact=True).click()
    expect(phone.locator(".go-to")).to_be_visible()
    fits("phone, waiting to start")
    # A tap before the page's script has taken its buttons does nothing: wait until it is live.
    expect(phone.locator("[data-live-badge]")).to_have_text("Live")
    phone.get_by_role("button", name="Start round 1").click()
    expect(phone.locator("#tally-form")).to_be_visible()
    fits("phone, in a round")
    phone.get_by_role("button", name="BUNCO!").click()
    fits("phone, who rolled the Bunco?")
    phone.get_by_role("button", name="Cancel").click()
    for points in ("5", "5", "5", "5", "1"):
        phone.locator(f"[data-points='{points}']").click()
    expect(phone.locator(".bell-banner")).to_be_visible()
    fits("phone, the bell")
