#!/usr/bin/env python
"""Takes the language screenshots in docs/screenshots/ (not a test): English and Spanish on one server.

    .venv/bin/python scripts/screenshots_languages.py [--out docs/screenshots] [--keep]

A fresh SQLite database in a temporary directory, migrated; one uvicorn process on a free port
(as `make run` serves the site); Debian's chromium through Playwright. An 8-player night where two
phones speak Spanish and two English (their browsers' Accept-Language), played from the phones to
the bell; and a club whose member Bea reads Spanish, sent her RSVP reminder:

    phone-es.png             a Spanish phone at the head table, mid-round 1 (390×844)
    projector-bilingual.png  the projector, opened in English, at the bell: every word in both (1280×720)
    mail-es.png              the reminder mail Bea gets, in Spanish, as the mail backend received it

Prints each file's size.
"""

from __future__ import annotations

import datetime
import html
import os
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("TESTS_FAST_PASSWORD_HASHING", "1")

from scripts.shooting import launch_chromium, picture, shoot  # noqa: E402

NAMES = ["Alice", "Bea", "Carmen", "Dana", "Eve", "Fran", "Gwen", "Hana"]
SEED = 44
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 1, "is_mobile": True,
         "has_touch": True, "reduced_motion": "reduce"}
MAIL_PAGE = """<!doctype html><html lang="es"><meta charset="utf-8"><style>
body {{ margin: 0; padding: 24px; background: #eef0f3; font: 15px/1.45 system-ui, sans-serif; }}
article {{ max-width: 560px; background: #fff; border-radius: 8px; padding: 20px 24px; box-shadow: 0 1px 3px #0003; }}
dl {{ display: grid; grid-template-columns: auto 1fr; gap: 2px 12px; margin: 0 0 14px; color: #444; }}
dt {{ font-weight: 600; }} dd {{ margin: 0; }}
pre {{ white-space: pre-wrap; overflow-wrap: anywhere; font: inherit; margin: 0; border-top: 1px solid #ddd; padding-top: 14px; }}
</style><article><dl><dt>De</dt><dd>{sender}</dd><dt>Para</dt><dd>{to}</dd><dt>Asunto</dt><dd>{subject}</dd></dl>
<pre>{body}</pre></article></html>"""


def main() -> int:
    return shoot(__doc__.splitlines()[0], name="languages", take=take)


def take(url: str, out: Path, review: Path | None = None) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        night_pictures(browser, url, out)
        mail_picture(browser, out)
        browser.close()


def night_pictures(browser, url: str, out: Path) -> None:
    """Four phones join, two in Spanish; the Spanish head-table phone mid-round; the bell on the
    projector, which says everything in English and in Spanish beside it."""
    from playwright.sync_api import expect

    from games.links import join_path
    from games.night import actions
    from tests.builders import seating_of

    night = actions.start_night(names=NAMES, rng=random.Random(SEED), title="Maple Street night")
    head, second = seating_of(night, 1)
    phones = {}
    for name, table, locale, live in ((head[0], 1, "es-ES", "En vivo"), (head[1], 1, "en-US", "Live"),
                                      (second[0], 2, "es-ES", "En vivo"), (second[1], 2, "en-US", "Live")):
        page = browser.new_context(**PHONE, locale=locale).new_page()
        page.goto(url + join_path(night.code, table))
        page.get_by_role("button", name=name, exact=True).click()
        expect(page.locator("[data-live-badge]")).to_have_text(live)
        phones[name] = page
    projector = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-US",
                                    reduced_motion="reduce").new_page()
    projector.goto(f"{url}/n/{night.code}/screen/{night.screen_token}/")
    expect(projector.locator(".standings h2 .also-said")).to_have_text("Clasificación")

    spanish = phones[head[0]]
    spanish.get_by_role("button", name="Empezar la ronda 1").click()
    for name, points in ((second[0], "2"), (second[1], "1"), (head[1], "2"), (head[0], "5"), (head[0], "5")):
        phones[name].locator(f"#tally-form [data-points='{points}']").click()
        expect(phones[name].locator("#tap-status")).not_to_be_empty()
    expect(spanish.locator(".team-mine .team-points")).to_have_text("10")
    expect(spanish.locator(".team-score:not(.team-mine) .team-points")).to_have_text("2")
    picture(spanish, out, "phone-es.png")

    for points in ("5", "5", "1"):
        spanish.locator(f"#tally-form [data-points='{points}']").click()
        expect(spanish.locator("#tap-status")).not_to_be_empty()
    expect(projector.locator(".bell-banner .also-said")).to_have_text("¡Campana! Terminó la ronda 1.")
    picture(projector, out, "projector-bilingual.png")


def mail_picture(browser, out: Path) -> None:
    """Bea reads Spanish: the RSVP reminder the club sends her, taken from Django's in-memory
    mail backend, its headers and text laid out on a page."""
    from django.contrib.auth import get_user_model
    from django.core import mail
    from django.test.utils import setup_test_environment

    from bunco_club import actions
    from bunco_club.mail import send_due_reminders

    setup_test_environment()  # this process's mail goes to mail.outbox (the server is another process)
    user = get_user_model().objects.create_user("host")
    club = actions.create_club(user=user, name="Maple Street Bunco", place="12 Maple Street",
                               usual_time=datetime.time(19, 0), buy_in_cents=500, time_zone="America/Chicago")
    members = {name: actions.add_member(club, name=name, email=f"{name.lower()}@example.com")
               for name in ("Ada", "Bea", "Cal", "Dot")}
    actions.set_member_language(members["Bea"], "es")
    starts = club.at(datetime.date.today() + datetime.timedelta(days=10), club.usual_time)
    party = actions.add_party(club, starts_at=starts, location="Casa de Dot, 4 Elm Road")
    actions.edit_party(party, starts_at=party.starts_at, location=party.location, host=members["Ada"])
    send_due_reminders(now=starts - datetime.timedelta(days=2))
    message = next(message for message in mail.outbox if message.to == ["bea@example.com"])
    page = browser.new_context(viewport={"width": 620, "height": 400}).new_page()
    page.set_content(MAIL_PAGE.format(sender=html.escape(str(message.from_email)), to=html.escape(message.to[0]),
                                      subject=html.escape(str(message.subject)), body=html.escape(str(message.body))))
    out.mkdir(parents=True, exist_ok=True)
    path = out / "mail-es.png"
    page.locator("article").screenshot(path=str(path))
    print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: {path.stat().st_size // 1024} KB")


if __name__ == "__main__":
    raise SystemExit(main())
