#!/usr/bin/env python
"""Takes the screenshots in docs/screenshots/ (not a test): a 12-player night on its own server.

    .venv/bin/python scripts/screenshots.py [--out docs/screenshots] [--keep]

A fresh SQLite database in a temporary directory, migrated; one uvicorn process on a free port
(as `make run` serves the site); Debian's chromium through Playwright. The night is seeded and the
bots (tests/e2e/test_bunco_night.py) play the first eight rounds, so the same pictures come out
every time:

    phone.png       a head-table phone in the middle of round 9 (390×844, device scale 2)
    phone-bell.png  a table-2 phone just after the head table's deciding tap: the bell banner
    host.png        the host's page at the bell: every table, the "Turn over" buttons
    projector.png   the projector view in the middle of round 9: tables, standings, traveler (1920×1080)

Also checks that no phone page is wider than a 360 px screen, and prints each file's size.
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Literal, TypedDict, Unpack

if TYPE_CHECKING:
    from playwright.sync_api import ViewportSize

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# The site is served as the test suite serves it (tests.conftest.start_server), whose password hashing
# is the fast one: the host's password is made with the same here, or the login page refuses it.
os.environ.setdefault("TESTS_FAST_PASSWORD_HASHING", "1")

from scripts.shooting import launch_chromium, picture, shoot, warn_if_too_wide  # noqa: E402

NAMES = ["Alice", "Mary-Beth", "Carmen", "Dana", "Eve", "Fran", "Gwen", "Hana", "Iris", "Jo", "Kim", "Lou"]
SEED = 11
PASSWORD = "bunco-night"


class PhoneContext(TypedDict, total=False):
    """The options of a phone's browser context (Playwright's Browser.new_context)."""

    viewport: ViewportSize
    device_scale_factor: float
    is_mobile: bool
    has_touch: bool
    reduced_motion: Literal["no-preference", "null", "reduce"]


PHONE: PhoneContext = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True,
                       "has_touch": True, "reduced_motion": "reduce"}


def main() -> int:
    return shoot(__doc__.splitlines()[0], name="night", take=take)


def take(url: str, out: Path, review: Path | None = None) -> None:
    from django.contrib.auth import get_user_model
    from playwright.sync_api import Page, expect, sync_playwright

    from games.links import join_path
    from games.night import actions
    from games.night.models import Night
    from games.rules import bunco
    from tests.e2e.test_bunco_night import Bots, seating_of

    user = get_user_model().objects.create_user("host", password=PASSWORD)
    night = actions.start_night(names=NAMES, rng=random.Random(SEED), host_user=user, title="Maple Street night")
    bots = Bots(night, random.Random(SEED))
    for _ in range(8):
        bots.play_round()
    night.refresh_from_db()
    actions.start_round(night)  # round 9: 3's up
    number = night.current_round
    head, second, third = seating_of(night, number)
    for table, team, points in ((2, "A", 5), (2, "B", 2), (2, "A", 1), (3, "B", 5), (3, "B", 5), (3, "A", 2)):
        actions.record_tally(night=night, table_number=table, team=team, points=points)



    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)

        def phone_of(name: str, table: int, **overrides: Unpack[PhoneContext]) -> Page:
            options: PhoneContext = {**PHONE, **overrides}
            page = browser.new_context(**options).new_page()
            page.goto(url + join_path(night.code, table))
            page.get_by_role("button", name=name, exact=True).click()
            expect(page.locator("[data-live-badge]")).to_have_text("Live")
            return page

        host = browser.new_context(viewport={"width": 1280, "height": 900}, reduced_motion="reduce").new_page()
        host.goto(f"{url}/accounts/login/?next=/n/{night.code}/host/")
        host.fill("#id_username", "host")
        host.fill("#id_password", PASSWORD)
        host.get_by_role("button", name="Log in").click()
        expect(host.locator("[data-live-badge]")).to_have_text("Live")
        projector = browser.new_context(viewport={"width": 1920, "height": 1080}, reduced_motion="reduce").new_page()
        projector.goto(f"{url}/n/{night.code}/screen/{night.screen_token}/")
        expect(projector.locator("[data-live-badge]")).to_have_text("Live")

        # The head table, mid-round: the phone taps its own points.
        roller = phone_of(head[0], 1)
        partner = phone_of(head[2], 1)
        for tap in ("5", "2", "1", "2"):
            roller.locator(f"[data-points='{tap}']").click()
            expect(roller.locator("#tap-status")).to_contain_text("for us")
        expect(roller.locator(".team-mine .team-points")).to_have_text("10")
        actions.record_tally(night=night, table_number=1, team="B", points=5)
        actions.record_tally(night=night, table_number=1, team="B", points=1)
        expect(roller.locator(".team-score:not(.team-mine) .team-points")).to_have_text("6", timeout=8000)
        expect(projector.locator(f"#r{number}-t1-b")).to_have_text("6")
        picture(roller, out, "phone.png")
        picture(projector, out, "projector.png")

        # A phone 360 px wide must not scroll sideways.
        narrow = phone_of(second[1], 2, viewport={"width": 360, "height": 740})
        warn_if_too_wide(narrow, "the phone page, mid-round, at 360 px")
        narrow.get_by_role("button", name="BUNCO!").click()
        warn_if_too_wide(narrow, "the Bunco chooser at 360 px")
        narrow.get_by_role("button", name="Cancel").click()

        # The deciding tap at the head table: the bell everywhere.
        table_two = phone_of(second[0], 2)
        for tap in ("5", "5", "1"):
            partner.locator(f"[data-points='{tap}']").click()
        expect(table_two.locator(".bell-banner")).to_be_visible()
        expect(table_two.get_by_role("button", name="Our turn is over")).to_be_visible()
        expect(host.locator(".bell-banner")).to_be_visible()
        expect(host.locator(".table-card").nth(1)).to_contain_text("Finishing the turn")
        warn_if_too_wide(narrow, "the phone page with the bell at 360 px")
        picture(table_two, out, "phone-bell.png")
        picture(host, out, "host.png", full_page=True)
        if review is not None:  # for a person to look at, not for the docs
            narrow.screenshot(path=str(review / "phone-360-bell.png"), full_page=True)
            roller.screenshot(path=str(review / "phone-full.png"), full_page=True)
        browser.close()
    assert Night.objects.get(pk=night.pk).round_obj().status == "bell"
    assert bunco.target_for_round(number) == 3


if __name__ == "__main__":
    raise SystemExit(main())
