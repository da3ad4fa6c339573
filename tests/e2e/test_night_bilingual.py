"""A Bunco night on four phones, two Spanish and two English (issue 44, acceptance point 4): each
phone reads the night in its own browser's language (Accept-Language), the bell reaches each one in
its language through its stream, and the projector, opened in English, says its words in both.

Eight seats, two tables, so the bell stays up until the second table finishes its turn; a phone of
each language at each table. Round 1 is played to the bell and closed from the phones, and round 2
is started and tapped from every phone. The pages' poll is off (STREAM_ONLY): what reaches a page
came by its stream.
"""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import Browser, Page, expect

from games.links import join_path
from games.night.models import Night, Round
from games.rules import bunco
from tests.builders import make_night, seating_of
from tests.conftest import ServerProcess

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

NAMES = ["Alice", "Bea", "Carmen", "Dana", "Eve", "Fran", "Gwen", "Hana"]
SEED = 44
STREAM_ONLY = True  # the servers run with the pages' poll off (tests/conftest.py)
LIVE = {"es": "En vivo", "en": "Live"}
BELL = {"es": "¡Campana! Terminó la ronda 1.", "en": "Bell! Round 1 is over."}
TURN_OVER = {"es": "Terminamos nuestro turno", "en": "Our turn is over"}
START = {"es": "Empezar la ronda 2", "en": "Start round 2"}


def go_to(language: str, table: int, seat: int) -> str:
    if language == "es":
        return f"Ve a la mesa {table}, asiento {seat}."
    return f"Go to Table {table}, seat {seat}."


def join(new_phone, url: str, night: Night, name: str, table: int, language: str) -> Page:
    """A phone whose browser asks for `language` scans its table's code and taps `name`."""
    phone = new_phone(locale="es-ES" if language == "es" else "en-US", device_scale_factor=1)
    phone.goto(url + join_path(night.code, table))
    phone.get_by_role("button", name=name, exact=True).click()
    expect(phone.locator("html")).to_have_attribute("lang", language)
    expect(phone.locator("[data-live-badge]")).to_have_text(LIVE[language])
    return phone


def tap(page: Page, points: int) -> None:
    page.locator(f"#tally-form [data-points='{points}']").click()


def expect_scores(page: Page, us: int, them: int) -> None:
    expect(page.locator(".team-score.team-mine .team-points")).to_have_text(str(us))
    expect(page.locator(".team-score:not(.team-mine) .team-points")).to_have_text(str(them))


def open_projector(browser: Browser, url: str, night: Night) -> Page:
    projector = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-US").new_page()
    projector.goto(url + reverse("games:screen", args=[night.code, night.screen_token]))
    expect(projector.locator("[data-live-badge]")).to_have_text("Live")
    return projector


def test_four_phones_in_two_languages_play_a_night_and_the_projector_speaks_both(
    night_site: ServerProcess, browser: Browser, new_phone
) -> None:
    url = night_site.url
    night = make_night(names=NAMES, seed=SEED)
    head, second = seating_of(night, 1)
    # A Spanish and an English phone at each table, on opposite teams (seats 1 and 2).
    seated = {head[0]: (1, 0, "es"), head[1]: (1, 1, "en"), second[0]: (2, 0, "es"), second[1]: (2, 1, "en")}
    phones: dict[str, Page] = {}
    for name, (table, seat, language) in seated.items():
        phones[name] = join(new_phone, url, night, name, table, language)
        expect(phones[name].locator(".go-to-line")).to_have_text(go_to(language, table, seat + 1))
    language_of = {name: seated[name][2] for name in seated}
    assert dict(night.players.filter(name__in=seated).values_list("name", "language")) == language_of

    spanish, english = phones[head[0]], phones[head[1]]
    expect(spanish.locator("main")).to_contain_text("Tu compañero es")
    expect(english.locator("main")).to_contain_text("Your partner is")
    expect(phones[second[0]].locator("main")).to_contain_text("Esperando a que la mesa principal empiece la ronda 1")
    expect(phones[second[1]].locator("main")).to_contain_text("Waiting for the head table to start round 1")

    projector = open_projector(browser, url, night)
    expect(projector.locator("html")).to_have_attribute("lang", "en")
    expect(projector.locator(".standings h2")).to_contain_text("Standings")
    expect(projector.locator(".standings h2 .also-said[lang=es]")).to_have_text("Clasificación")
    expect(projector.locator(".projector-round")).to_contain_text(f"Round 1 of {bunco.ROUNDS}")
    expect(projector.locator(".projector-round .also-said[lang=es]")).to_have_text(f"Ronda 1 de {bunco.ROUNDS}")

    # The Spanish phone at the head table starts round 1; every phone gets its buttons, in its words.
    spanish.get_by_role("button", name="Empezar la ronda 1").click()
    for name, page in phones.items():
        expect(page.locator("#tally-form")).to_be_visible()
        expect(page.locator(".round-label")).to_contain_text("Ronda 1" if language_of[name] == "es" else "Round 1")
        expect(page.locator(".switch-us")).to_have_text("Nosotros" if language_of[name] == "es" else "Us")

    # Table 2: 1 for the Spanish phone's team, 2 for the English phone's.
    tap(phones[second[0]], 1)
    expect_scores(phones[second[1]], 0, 1)
    tap(phones[second[1]], 2)
    expect_scores(phones[second[0]], 1, 2)

    # The head table: 1 for the English phone's team, then the Spanish phone's team to 21.
    tap(english, 1)
    expect_scores(spanish, 0, 1)
    for total in (5, 10, 15, 20):
        tap(spanish, 5)
        expect_scores(spanish, total, 1)
    expect_scores(english, 1, 20)
    tap(spanish, 1)

    # The bell, pushed by the stream: each phone in its language, the projector in both.
    for name, page in phones.items():
        expect(page.locator(".bell-banner .bell-title")).to_have_text(BELL[language_of[name]])
        expect(page.locator(".bell-banner .bell-title")).to_be_visible()
    expect(spanish.locator(".bell-banner .bell-head")).to_have_text("Mesa principal: deténganse ya.")
    expect(english.locator(".bell-banner .bell-head")).to_have_text("Head table: stop now.")
    for name in second:
        if name in phones:
            expect(phones[name].get_by_role("button", name=TURN_OVER[language_of[name]])).to_be_visible()
    title = projector.locator(".bell-banner .bell-title")
    expect(title).to_contain_text(BELL["en"])
    expect(title.locator(".also-said[lang=es]")).to_have_text(BELL["es"])
    assert Round.objects.get(night=night, number=1).status == Round.Status.BELL

    # The Spanish phone at table 2 ends its turn: the round closes, every phone says where to go.
    phones[second[0]].get_by_role("button", name=TURN_OVER["es"]).click()
    play_round_two(night, phones, language_of, projector)


def play_round_two(night: Night, phones: dict[str, Page], language_of: dict[str, str], projector: Page) -> None:
    """Round 2: each phone told where to sit in its language; a phone at the head table starts it
    and every phone taps +1 for its team; each sees its table's scores."""
    for page in phones.values():
        expect(page.locator(".go-to")).to_be_visible()
    seating = seating_of(night, 2)
    places = bunco.places(seating)
    for name, page in phones.items():
        place = places[name]
        expect(page.locator(".go-to-line")).to_have_text(go_to(language_of[name], place.table_number, place.seat + 1))
        expect(page.locator(".bell-banner")).to_have_count(0)
    expect(projector.locator(".projector-round .also-said[lang=es]")).to_have_text(f"Ronda 2 de {bunco.ROUNDS}")
    starter = next(name for name in phones if places[name].table_number == 1)
    phones[starter].get_by_role("button", name=START[language_of[starter]]).click()

    points: dict[tuple[int, int], int] = {}  # (table, team seat parity) -> points
    for name, page in phones.items():
        expect(page.locator("#tally-form")).to_be_visible()
        tap(page, 1)
        key = (places[name].table_number, places[name].seat % 2)
        points[key] = points.get(key, 0) + 1
        expect(page.locator(".team-score.team-mine .team-points")).to_have_text(str(points[key]))
    for name, page in phones.items():
        table, parity = places[name].table_number, places[name].seat % 2
        expect_scores(page, points.get((table, parity), 0), points.get((table, 1 - parity), 0))
