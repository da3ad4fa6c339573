#!/usr/bin/env python
"""Takes the tournament screenshots in docs/screenshots/ (not a test): a Fill or Bust tournament
on its own server.

    .venv/bin/python scripts/screenshots_tournaments.py [--out docs/screenshots] [--keep]

A fresh SQLite database in a temporary directory, migrated; one uvicorn process on a free port
(as `make run` serves the site); Debian's chromium through Playwright. The tournament is seeded
through its actions (tournaments/actions.py), as the director's and the phones' pages call them:
64 players registered and checked in for a double elimination; rounds 1 and 2 played (turns
entered, Vengeances among them) and closed by the clock (close_round_if_due), on a simulated
clock two days ahead so the live server's own clock never closes them first; round 3 started
ten minutes ago, with a turn or two each entered:

    director.png  the director's dashboard: the clock's buttons, every group's totals and clock (1280×900)
    group.png     a group's phone from its table's QR link: the scoresheet, the countdown (390×844, scale 2)
    bracket.png   the projector: the players' board (strikes, who went through, who is out) and the
                  bracket, a column a round, all 64 players on one screen (1920×1080)
    desk.png      the director's desk: every table of round 3, the quiet ones flagged (1920×1080)
    checkin.png   another tournament's projector while its players check in: the rotating code and
                  the count so far (1920×1080)

Also checks that the group page is not wider than a 360 px screen, and prints each file's size.
"""

from __future__ import annotations

import os
import random
import sys
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:

    from tournaments.models import Group, Tournament

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scripts.shooting import launch_chromium, picture, shoot, warn_if_too_wide  # noqa: E402

# The server (tests.conftest.start_server) hashes passwords the fast way: the director made here too.
os.environ.setdefault("TESTS_FAST_PASSWORD_HASHING", "1")

NAMES = [
    "Alice", "Bo", "Carmen", "Dana", "Eli", "Fran", "Gwen", "Hana", "Iris", "Jo", "Kim", "Lou", "Mary-Beth", "Nico",
    "Omar", "Pat", "Quinn", "Rosa", "Sam", "Tess", "Uma", "Vic", "Wren", "Xavi", "Yara", "Zed", "Abe", "Bea", "Cal",
    "Dot", "Ed", "Flo", "Gil", "Hal", "Ida", "Jack", "Kay", "Len", "Mo", "Nell", "Otto", "Peg", "Ray", "Sue", "Ted",
    "Val", "Walt", "Zoe", "Ann-Marie", "Barb", "Cleo", "Del", "Effie", "Fritz", "Gus", "Hattie", "Ivan", "June",
    "Kurt", "Lola", "Marge", "Ned", "Opal", "Phil",
]
SEED = 11
PASSWORD = "fill-or-bust"


@dataclass(frozen=True)
class Seeded:
    """What the pages are opened on."""

    code: str
    screen_token: str
    group_code: str
    check_in_code: str
    check_in_screen_token: str


def main() -> int:
    return shoot(__doc__.splitlines()[0], name="tournaments", take=lambda url, out, review: take(url, seed(), out, review))


def play(group: Group, rng: random.Random, *, turns: int, start: datetime, vengeance_at: int | None = None) -> None:
    """`turns` turns round the group's table, a minute apart: banked points (multiples of 50) or a bust."""
    from tournaments import actions

    players = group.players()
    for number in range(turns):
        player = players[number % len(players)]
        points = 0 if rng.random() < 0.2 else rng.choice([300, 500, 750, 1000, 1500, 2000, 2500, 3000])
        vengeance = number == vengeance_at
        if vengeance and points == 0:
            points = 500  # a Vengeance bites only when the turn fills: never with a bust
        try:
            actions.record_turn(group=group, entrant=player, points=points, vengeance=vengeance,
                                now=start + timedelta(minutes=number + 1))
        except actions.BadEntry:  # e.g. the sole leader may not play a Vengeance: a plain turn then
            actions.record_turn(group=group, entrant=player, points=points, now=start + timedelta(minutes=number + 1))


def seed() -> Seeded:
    """The tournament, through the same actions the director's and the phones' pages call."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from tournaments import actions, deciding
    from tournaments.models import TournamentRound

    rng = random.Random(SEED)
    director = get_user_model().objects.create_user("director", password=PASSWORD)
    tournament: Tournament = actions.create_tournament(
        director=director, name="Autumn Open", seed=SEED, format="double", round_minutes=20,
        date=timezone.localdate(), practice_minutes=5)
    for rank, name in enumerate(NAMES, start=1):
        actions.register(tournament, name, seed_rank=rank, checked_in=True)

    # Rounds 1 and 2, each closed by the clock once its time and grace were over: on a simulated
    # clock two days ahead, which the live server's clock never reaches while they are played.
    now = timezone.now()
    for number in range(2):
        start = now + timedelta(days=2, hours=number)
        decided = actions.start_round(tournament, now=start)
        for index, group in enumerate(decided.groups.order_by("number")):
            play(group, rng, turns=12, start=start, vengeance_at=9 if index % 3 == 0 else None)
        deciding.close_round_if_due(now=start + timedelta(minutes=25))
        decided.refresh_from_db()
        if decided.status != TournamentRound.Status.DECIDED:
            raise SystemExit(f"{decided} is {decided.status}, not decided: change SEED for a round with no tie")

    # Another tournament, its players checking in: round 1 in twenty minutes, 24 of 40 here.
    spring: Tournament = actions.create_tournament(director=director, name="Spring Open", seed=SEED,
                                                   confirm_results=True)
    for index, name in enumerate(NAMES[:40]):
        actions.register(spring, name, checked_in=index % 5 < 3)
    actions.set_check_in_window(spring, starts_at=now + timedelta(minutes=20), minutes=60)

    # Round 3, under way: a few turns at each table (the last two tables quiet since it began).
    third_start = now - timedelta(minutes=10)
    round_three = actions.start_round(tournament, now=third_start)
    groups = list(round_three.groups.order_by("number"))
    for index, group in enumerate(groups[:-2]):
        play(group, rng, turns=5 + index % 4, start=third_start, vengeance_at=5 if index == 0 else None)
    actions.set_alert_minutes(tournament, minutes=8)  # the two quiet tables, silent for ten minutes
    tournament.refresh_from_db()
    return Seeded(code=tournament.code, screen_token=tournament.screen_token, group_code=groups[0].code,
                  check_in_code=spring.code, check_in_screen_token=spring.screen_token)


def take(url: str, seeded: Seeded, out: Path, review: Path | None = None) -> None:
    from playwright.sync_api import expect, sync_playwright

    from tournaments.links import group_path




    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)

        # The director logs in through the login page.
        dashboard = f"/t/{seeded.code}/director/"
        desk = browser.new_context(viewport={"width": 1280, "height": 900}, reduced_motion="reduce").new_page()
        desk.goto(f"{url}/accounts/login/?next={dashboard}")
        desk.fill("#id_username", "director")
        desk.fill("#id_password", PASSWORD)
        desk.get_by_role("button", name="Log in").click()
        expect(desk).to_have_url(url + dashboard)
        expect(desk.locator("#dashboard-state")).to_contain_text("Round 3")

        # A group's phone from its table's QR link.
        phone = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                                    has_touch=True, reduced_motion="reduce").new_page()
        phone.goto(url + group_path(seeded.group_code))
        expect(phone.locator("#group-state")).to_contain_text("Table")
        expect(phone.locator("[data-live-badge]")).to_have_text("Live")
        expect(phone.locator("[data-countdown]")).to_be_visible()
        warn_if_too_wide(phone, "the group page at 390 px")

        projector = browser.new_context(viewport={"width": 1920, "height": 1080}, reduced_motion="reduce").new_page()
        projector.goto(f"{url}/t/{seeded.code}/screen/{seeded.screen_token}/")
        expect(projector.locator("[data-live-badge]")).to_have_text("Live")
        expect(projector.locator("#screen-state")).to_contain_text("Round 3")
        expect(projector.locator(".board-row")).to_have_count(len(NAMES))
        height = projector.evaluate("() => document.documentElement.scrollHeight")
        if height > 1080:
            print(f"warning: the projector scrolls ({height} px tall at 1080)", file=sys.stderr)

        board = browser.new_context(viewport={"width": 1920, "height": 1080}, reduced_motion="reduce").new_page()
        board.goto(f"{url}/accounts/login/?next=/t/{seeded.code}/director/desk/")
        board.fill("#id_username", "director")
        board.fill("#id_password", PASSWORD)
        board.get_by_role("button", name="Log in").click()
        expect(board.locator(".desk-group.is-flagged")).to_have_count(2)
        checking_in = browser.new_context(viewport={"width": 1920, "height": 1080}, reduced_motion="reduce").new_page()
        checking_in.goto(f"{url}/t/{seeded.check_in_code}/screen/{seeded.check_in_screen_token}/")
        expect(checking_in.locator("#check-in-count")).to_have_text("24 of 40 checked in")

        picture(desk, out, "director.png")
        picture(phone, out, "group.png")
        picture(projector, out, "bracket.png")
        picture(board, out, "desk.png")
        picture(checking_in, out, "checkin.png")
        narrow = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True).new_page()
        narrow.goto(url + group_path(seeded.group_code))
        expect(narrow.locator("#group-state")).to_contain_text("Table")
        warn_if_too_wide(narrow, "the group page at 360 px")
        if review is not None:  # for a person to look at, not for the docs
            desk.screenshot(path=str(review / "director-full.png"), full_page=True)
            phone.screenshot(path=str(review / "group-full.png"), full_page=True)
            projector.screenshot(path=str(review / "bracket-full.png"), full_page=True)
        browser.close()


if __name__ == "__main__":
    raise SystemExit(main())
