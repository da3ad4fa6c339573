#!/usr/bin/env python
"""Takes the screenshots of a club's money, food and Bunco box in docs/screenshots/ (not a test).

    .venv/bin/python scripts/screenshots_club_money.py [--out docs/screenshots] [--keep]

A fresh SQLite database in a temporary directory, migrated; one uvicorn process on a free port
(as `make run` serves the site); Debian's chromium through Playwright. The club is seeded through
the club's and the night's actions: last season's float, 12 regulars counted as coming by default and two on the sub
list, a season of three parties with hosts by the fair rotation, the box's checklist; the first
party's buy-ins (Dot's waived, Eve's owed), its night played and its prizes paid out through the
ledger, score pads bought with a receipt photo; the box handed to the second party's host a die
short, and that party's dishes signed up for:

    treasury.png          the treasury as its host sees it: the float, the buy-ins owed, the
                          float party by party and the ledger (1280 wide, the whole page)
    statement.png         Eve's money from her personal link: paid in, won, owed (390×844, scale 2)
    party-dishes-box.png  the second party's page as its host sees it: who has the box and what
                          its count found missing, the dishes and who brings them (1280 wide)
"""

from __future__ import annotations

import datetime
import io
import os
import random
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# The site is served as the test suite serves it (tests.conftest.start_server), whose password hashing
# is the fast one: the host's password is made with the same here, or the login page refuses it.
os.environ.setdefault("TESTS_FAST_PASSWORD_HASHING", "1")

from scripts.shooting import launch_chromium, picture, shoot, warn_if_too_wide  # noqa: E402

REGULARS = ["Ada", "Bea", "Cal", "Dot", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kit", "Lou"]
ALTERNATES = ["Sam", "Tia"]
KIT = [("Bell", "1"), ("Dice", "12"), ("Score pads", "4"), ("Pencils", "12")]
MEMBER = "Eve"  # whose statement is shown
PASSWORD = "bunco-night"


@dataclass(frozen=True)
class Seeded:
    """What the pages are opened on."""

    slug: str
    party_pk: int
    money_path: str


def main() -> int:
    return shoot(__doc__.splitlines()[0], name="club-money", take=lambda url, out, review: take(url, seed(), out, review))


def receipt_photo() -> bytes:
    """A phone's photo of a receipt, with where it was taken in its EXIF (the site removes it)."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (240, 320), "white")
    draw = ImageDraw.Draw(image)
    for line, text in enumerate(["PARTY SUPPLY CO", "Score pads x4", "Pencils x12", "TOTAL  $6.50"]):
        draw.text((20, 30 + 40 * line), text, fill="black")
    exif = Image.Exif()
    exif[0x8825] = {1: "N", 2: (41.0, 52.0, 30.0), 3: "W", 4: (87.0, 37.0, 45.0)}
    out = io.BytesIO()
    image.save(out, "JPEG", exif=exif)
    return out.getvalue()


def seed() -> Seeded:
    """The club, through the same actions the club's and the night's pages call."""
    from django.contrib.auth import get_user_model
    from django.urls import reverse
    from django.utils import timezone

    from bunco_club import actions
    from bunco_club.links import member_token
    from games.night import actions as night_actions
    from games.rules import bunco
    from tests.builders import fresh, play_rounds

    user = get_user_model().objects.create_user("host", password=PASSWORD)
    club = actions.create_club(user=user, name="Maple Street Bunco", place="12 Maple Street",
                               usual_time=datetime.time(19, 0), buy_in_cents=500, time_zone="America/Chicago",
                               attending_by_default=True, answer_cutoff_hours=48)
    members = {name: actions.add_member(club, name=name, email=f"{name.lower()}@example.com") for name in REGULARS}
    for name in ALTERNATES:
        members[name] = actions.add_member(club, name=name, email=f"{name.lower()}@example.com", alternate=True)
    actions.set_box_kit(club, KIT)
    items = list(club.box_items.all())

    next_month = (timezone.localdate().replace(day=1) + datetime.timedelta(days=32)).replace(day=1)
    season_name = f"{next_month:%B}–{(next_month + datetime.timedelta(days=62)):%B %Y}"
    season = actions.season_by_rule(club, name=season_name, first_month=next_month, months=3, nth=3, weekday=4)
    actions.assign_hosts(season)
    first, second, _third = season.parties.order_by("starts_at")
    assert first.host is not None and second.host is not None

    actions.record_entry(club, "adjustment", 4000, what="The envelope's float from last season", money_in=True)

    # The first party: Jo can't come and Sam takes her seat; the box with its host, counted whole.
    actions.answer_rsvp(first, members["Jo"], "no")
    actions.answer_sub_invitation(first.sub_invitations.get(member=members["Sam"]), accept=True)
    actions.receive_box(first, [(str(item.pk), str(item.count)) for item in items], key="seed-box-1",
                        member=first.host)
    hows = {"Dot": "waived", "Eve": "owes", "Gus": "other"}
    for member in first.coming_members():
        actions.record_buy_in(first, member, hows.get(member.name, "cash"))
    night = night_actions.start_night(names=first.coming_names(), club=club, party=first, host_user=user,
                                      rng=random.Random(7), title="Maple Street night")
    play_rounds(night, random.Random(7), bunco.ROUNDS)
    night_actions.award_prizes(fresh(night), rng=random.Random(7))
    actions.record_entry(club, "supply", 650, what="Score pads and pencils", money_in=False, party=first,
                         receipt=receipt_photo())

    # The second party: the box handed over a die short; dishes asked for and signed up.
    dice = next(item for item in items if item.name == "Dice")
    actions.receive_box(second, [(str(item.pk), str(item.count - (item.pk == dice.pk))) for item in items],
                        key="seed-box-2", member=second.host)
    dessert = actions.add_dish_slot(second, "Dessert", 2)
    actions.add_dish_slot(second, "Drinks", 1)
    actions.add_dish_slot(second, "Appetizer", 1)
    actions.sign_up_for_dish(dessert, members["Bea"], key="seed-dish-1")
    actions.sign_up_for_dish(dessert, members["Fay"], key="seed-dish-2")
    actions.answer_rsvp(second, members["Hal"], "no")
    return Seeded(slug=club.slug, party_pk=second.pk,
                  money_path=reverse("clubs:my_money", args=[member_token(members[MEMBER].code)]))


def take(url: str, seeded: Seeded, out: Path, review: Path | None = None) -> None:
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)

        # The host logs in through the login page and opens the treasury, then the next party.
        treasury_path = f"/clubs/{seeded.slug}/treasury/"
        host = browser.new_context(viewport={"width": 1280, "height": 900}, reduced_motion="reduce").new_page()
        host.goto(f"{url}/accounts/login/?next={treasury_path}")
        host.fill("#id_username", "host")
        host.fill("#id_password", PASSWORD)
        host.get_by_role("button", name="Log in").click()
        expect(host).to_have_url(url + treasury_path)
        expect(host.locator(".money-balance")).to_contain_text("The float")
        picture(host, out, "treasury.png", full_page=True)

        host.goto(f"{url}/clubs/{seeded.slug}/parties/{seeded.party_pk}/")
        expect(host.locator("#box")).to_contain_text("Missing at its last count")
        host.locator("#box").scroll_into_view_if_needed()
        picture(host, out, "party-dishes-box.png", full_page=True)

        # A member's own money from their personal link: no password.
        phone = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                                    has_touch=True, reduced_motion="reduce").new_page()
        phone.goto(url + seeded.money_path)
        expect(phone.locator("#my-statement")).to_be_visible()
        warn_if_too_wide(phone, "the member's money at 390 px")
        picture(phone, out, "statement.png")
        if review is not None:
            phone.screenshot(path=str(review / "statement-full.png"), full_page=True)
        browser.close()


if __name__ == "__main__":
    raise SystemExit(main())
