#!/usr/bin/env python
"""Takes the club screenshots in docs/screenshots/ (not a test): a club on its own server.

    .venv/bin/python scripts/screenshots_clubs.py [--out docs/screenshots] [--keep]

A fresh SQLite database in a temporary directory, migrated; one uvicorn process on a free port
(as `make run` serves the site); Debian's chromium through Playwright. The club is seeded through
the club's actions (bunco_club/actions/): 14 members and 3 alternates, two of them co-hosts, a
date away, a season of twelve monthly parties from next month with hosts by the fair rotation,
last month's night with its prize winners, and the answers to the next party's RSVPs:

    club.png    the club's page as its host sees it: the next party, its headcount, the dates
                to come, the seasons, last month's winners (1280 wide, the whole page)
    season.png  the season's year at a glance: every date, its host, who is away (1280×900)
    rsvp.png    a member's "my club" page from their personal link (390×844, device scale 2)

Also checks that the member's page is not wider than a 360 px screen, and prints each file's size.
"""

from __future__ import annotations

import datetime
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    pass

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# The site is served as the test suite serves it (tests.conftest.start_server), whose password hashing
# is the fast one: the host's password is made with the same here, or the login page refuses it.
os.environ.setdefault("TESTS_FAST_PASSWORD_HASHING", "1")

from scripts.shooting import launch_chromium, picture, shoot, warn_if_too_wide  # noqa: E402

REGULARS = ["Ada", "Bea", "Cal", "Dot", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kit", "Lou", "Mo", "Ned"]
ALTERNATES = ["Sam", "Tia", "Uma"]
# The next party's answers; the other regulars haven't answered yet.
ANSWERS = {"Ada": "yes", "Bea": "yes", "Cal": "yes", "Dot": "yes", "Eve": "yes", "Fay": "yes", "Gus": "yes",
           "Hal": "yes", "Ivy": "maybe", "Jo": "no"}
NOTES = {"Bea": "Bringing dessert", "Eve": "Can give Fay a ride"}  # for the host, with their answers
MEMBER = "Bea"  # whose "my club" page is shown
PASSWORD = "bunco-night"


@dataclass(frozen=True)
class Seeded:
    """What the pages are opened on."""

    slug: str
    season_pk: int
    member_path: str


def main() -> int:
    return shoot(__doc__.splitlines()[0], name="clubs", take=lambda url, out, review: take(url, seed(), out, review))


def seed() -> Seeded:
    """The club, through the same actions the club's pages call."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from bunco_club import actions
    from bunco_club.links import my_club_path
    from bunco_club.rotation import monthly_dates

    user = get_user_model().objects.create_user("host", password=PASSWORD)
    club = actions.create_club(user=user, name="Maple Street Bunco", place="12 Maple Street",
                               usual_time=datetime.time(19, 0), buy_in_cents=500, time_zone="America/Chicago")
    members = {name: actions.add_member(club, name=name, email=f"{name.lower()}@example.com")
               for name in REGULARS}
    for name in ALTERNATES:
        members[name] = actions.add_member(club, name=name, email=f"{name.lower()}@example.com", alternate=True)
    actions.pair_cohosts(members["Kit"], members["Lou"])

    today = timezone.localdate()
    first_month = (today.replace(day=1) + datetime.timedelta(days=32)).replace(day=1)
    days = monthly_dates(first_month, 12, nth=3, weekday=4)  # the third Friday of every month
    actions.set_blackouts(members["Ada"], [days[0]])
    actions.set_blackouts(members["Cal"], [days[3], days[4]])

    # Last month's night, with its results: the club page lists it and its prize winners (by their
    # titles, as a night reports them).
    last_month = (today.replace(day=1) - datetime.timedelta(days=1)).replace(day=1)
    last_day = monthly_dates(last_month, 1, nth=3, weekday=4)[0]
    last = actions.add_party(club, starts_at=club.at(last_day, club.usual_time))
    actions.edit_party(last, starts_at=last.starts_at, location=last.location, host=members["Ned"])
    actions.record_night_results(last, [
        {"name": "Gus", "wins": 14, "losses": 10, "buncos": 3, "prize_cents": 2000, "prizes": ["Most Buncos"]},
        {"name": "Dot", "wins": 17, "losses": 7, "buncos": 1, "prize_cents": 1500, "prizes": ["Most Wins"]},
        {"name": "Mo", "wins": 6, "losses": 18, "buncos": 0, "prize_cents": 500, "prizes": ["Most Losses"]},
        *({"name": name, "wins": 12, "losses": 12, "buncos": 1} for name in ("Ada", "Bea", "Cal", "Eve", "Fay")),
    ])

    season_name = f"{first_month.year}" if first_month.month == 1 else f"{first_month.year}–{first_month.year + 1}"
    season = actions.season_by_rule(club, name=season_name, first_month=first_month, months=12, nth=3, weekday=4)
    actions.assign_hosts(season)
    party = season.parties.order_by("starts_at").first()
    assert party is not None
    for name, answer in ANSWERS.items():
        actions.answer_rsvp(party, members[name], answer, note=NOTES.get(name))
    return Seeded(slug=club.slug, season_pk=season.pk, member_path=my_club_path(members[MEMBER].code))


def take(url: str, seeded: Seeded, out: Path, review: Path | None = None) -> None:
    from playwright.sync_api import expect, sync_playwright





    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)

        # The host logs in through the login page, then opens the club and the season.
        club_path = f"/clubs/{seeded.slug}/"
        host = browser.new_context(viewport={"width": 1280, "height": 900}, reduced_motion="reduce").new_page()
        host.goto(f"{url}/accounts/login/?next={club_path}")
        host.fill("#id_username", "host")
        host.fill("#id_password", PASSWORD)
        host.get_by_role("button", name="Log in").click()
        expect(host).to_have_url(url + club_path)
        expect(host.get_by_role("heading", name="Maple Street Bunco", exact=True)).to_be_visible()
        picture(host, out, "club.png", full_page=True)

        host.goto(f"{url}{club_path}seasons/{seeded.season_pk}/")
        expect(host.locator("main")).to_contain_text("Ada")
        picture(host, out, "season.png")
        if review is not None:
            host.screenshot(path=str(review / "season-full.png"), full_page=True)

        # A member's own page from their personal link: no password.
        phone = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                                    has_touch=True, reduced_motion="reduce").new_page()
        phone.goto(url + seeded.member_path)
        expect(phone.locator("main")).to_contain_text(MEMBER)
        warn_if_too_wide(phone, "the member's page at 390 px")
        picture(phone, out, "rsvp.png")
        if review is not None:
            phone.screenshot(path=str(review / "rsvp-full.png"), full_page=True)
        narrow = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True).new_page()
        narrow.goto(url + seeded.member_path)
        warn_if_too_wide(narrow, "the member's page at 360 px")
        browser.close()


if __name__ == "__main__":
    raise SystemExit(main())
