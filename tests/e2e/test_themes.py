"""Light and dark (issue 32): every page follows the phone's light or dark setting, the header's switch
overrides it and is remembered on the phone, the theme is there before the first paint, and axe-core
finds no violation at all (contrast included) on a night's phone page, the host's page, the projector,
the home page and a club's pages, in either palette.

The phone pictures of the README come from here: TABLE_SCREENSHOTS=docs/screenshots (tests/e2e/pages.py)."""

from __future__ import annotations

from typing import Literal

import pytest
from playwright.sync_api import Browser, Page, expect

from bunco_club.models import Club
from games.night.models import Night
from scripts.screenshots_clubs import MEMBER
from scripts.screenshots_clubs import PASSWORD as CLUB_HOST_PASSWORD
from scripts.screenshots_clubs import seed as seed_a_club
from tests.builders import PASSWORD, groups_of, make_night, make_tournament, make_user, seating_of
from tests.conftest import ServerProcess
from tests.e2e.pages import axe_violations, join_night, log_in, shoot, start_night_from_form
from tests.e2e.test_bunco_night import NAMES
from tournaments import actions as tournament_actions
from tournaments.links import group_path

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

Scheme = Literal["light", "dark"]
SCHEMES: tuple[Scheme, ...] = ("light", "dark")
# Each palette's --bg (static/css/site.css): the browser's bar (theme-color) takes it.
BACKGROUND = {"light": "#f6f3ee", "dark": "#16131d"}
STORAGE_KEY = "bunco-theme"  # static/js/theme.js


def violations(page: Page, what: str, scheme: str) -> None:
    """axe-core on the page as it is now: no violation of any impact, in the theme asked for."""
    expect(page.locator("html")).to_have_attribute("data-theme", scheme)
    found = axe_violations(page)
    lines = [f"{what} in {scheme} ({page.url}):"]
    for violation in found:
        lines.append(f"[{violation['impact']}] {violation['id']}: {violation['help']}")
        lines.extend(f"    {node['target']}: {node.get('failureSummary', '').splitlines()[-1:]}"
                     for node in violation["nodes"][:5])
    assert not found, "\n".join(lines)


def switch_of(page: Page):
    return page.get_by_role("button", name="Theme:")


@pytest.mark.parametrize("scheme", SCHEMES)
def test_a_nights_phone_host_and_projector_pages_pass_axe_in_the_phones_own_scheme(
    live_site: ServerProcess, browser: Browser, new_phone, scheme: Scheme
) -> None:
    url = live_site.url
    host = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme).new_page()
    start_night_from_form(host, url, NAMES)
    expect(host.locator("[data-live-badge]")).to_have_text("Live")
    violations(host, "the host's page, seated", scheme)

    night = Night.objects.get()
    projector = browser.new_context(viewport={"width": 1920, "height": 1080}, color_scheme=scheme).new_page()
    projector.goto(f"{url}/n/{night.code}/screen/{night.screen_token}/")
    expect(projector.locator("[data-live-badge]")).to_have_text("Live")
    violations(projector, "the projector, seated", scheme)

    phone = join_night(new_phone(color_scheme=scheme), url, night.code, seating_of(night, 1)[0][0], table=1)
    violations(phone, "the phone page, waiting to start", scheme)
    phone.get_by_role("button", name="Start round 1").click()
    expect(phone.locator("#tally-form")).to_be_visible()
    for points in ("5", "2"):
        phone.locator(f"[data-points='{points}']").click()
        expect(phone.locator("#tap-status")).to_have_text(f"✓ +{points} for us")
    # Scoring for Them turns the tap area their colour: read in both palettes too.
    phone.locator(".switch-them").click()
    phone.locator("[data-points='1']").click()
    expect(phone.locator("#tap-status")).to_contain_text("for them")
    violations(phone, "the phone page, scoring for them", scheme)
    phone.locator(".switch-us").click()
    expect(phone.locator(".team-mine .team-points")).to_have_text("7")
    shoot(phone, f"phone-{scheme}.png")
    violations(phone, "the phone page, in a round", scheme)
    violations(host, "the host's page, in a round", scheme)

    # The head table's team to 21: the bell (the accent's banner) on every page.
    for points in ("5", "5", "2", "2"):
        phone.locator(f"[data-points='{points}']").click()
    expect(phone.locator(".bell-banner")).to_be_visible()
    expect(host.locator(".bell-banner")).to_be_visible()
    expect(projector.locator(".bell-banner")).to_be_visible()
    violations(phone, "the phone page, the bell", scheme)
    violations(host, "the host's page, the bell", scheme)
    violations(projector, "the projector, the bell", scheme)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_home_page_and_a_clubs_pages_pass_axe_in_the_phones_own_scheme(
    live_site: ServerProcess, new_phone, scheme: str
) -> None:
    url = live_site.url
    seeded = seed_a_club()
    club = Club.objects.get(slug=seeded.slug)

    visitor = new_phone(color_scheme=scheme)
    visitor.goto(url + "/")
    violations(visitor, "the home page", scheme)

    member = new_phone(color_scheme=scheme)
    member.goto(url + seeded.member_path)
    expect(member.get_by_role("heading", name=f"Hi {MEMBER}")).to_be_visible()
    violations(member, "a member's club page", scheme)

    club_host = log_in(new_phone(color_scheme=scheme), url, password=CLUB_HOST_PASSWORD, then=f"/clubs/{club.slug}/")
    expect(club_host.get_by_role("heading", name=club.name).first).to_be_visible()
    violations(club_host, "the club's page", scheme)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_a_tournaments_group_phone_director_and_projector_pass_axe_in_the_phones_own_scheme(
    live_site: ServerProcess, browser: Browser, new_phone, scheme: Scheme
) -> None:
    url = live_site.url
    tournament = make_tournament(make_user("director", password=PASSWORD), 8)
    tournament_actions.start_round(tournament)
    group = groups_of(tournament)[0]
    for points in (500, 0, 1250):
        tournament_actions.record_turn(group=group, entrant=group.players()[points % 3], points=points)

    phone = new_phone(color_scheme=scheme)
    phone.goto(url + group_path(group.code))
    expect(phone.locator("[data-live-badge]")).to_have_text("Live")
    expect(phone.locator("#turn-form")).to_be_visible()
    violations(phone, "a group's phone", scheme)

    desk = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme).new_page()
    log_in(desk, url, username="director", then=f"/t/{tournament.code}/director/")
    violations(desk, "the director's dashboard", scheme)

    screen = browser.new_context(viewport={"width": 1920, "height": 1080}, color_scheme=scheme).new_page()
    screen.goto(f"{url}/t/{tournament.code}/screen/{tournament.screen_token}/")
    expect(screen.locator("[data-live-badge]")).to_have_text("Live")
    violations(screen, "the tournament's projector", scheme)


def test_the_switch_overrides_the_phones_setting_and_is_remembered_after_a_reload(
    live_site: ServerProcess, new_phone
) -> None:
    night = make_night(names=NAMES)
    phone = join_night(new_phone(color_scheme="dark"), live_site.url, night.code, seating_of(night, 1)[1][0], table=2)
    html = phone.locator("html")
    expect(html).to_have_attribute("data-theme", "dark")
    expect(switch_of(phone)).to_have_text("Theme: Auto")

    # The first tap always changes the look: a dark phone goes light.
    switch_of(phone).click()
    expect(switch_of(phone)).to_have_text("Theme: Light")
    expect(html).to_have_attribute("data-theme", "light")
    expect(phone.locator("meta[name='theme-color']")).to_have_attribute("content", BACKGROUND["light"])
    expect(phone.locator("meta[name='color-scheme']")).to_have_attribute("content", "light")
    assert phone.evaluate("getComputedStyle(document.body).backgroundColor") == "rgb(246, 243, 238)"
    violations(phone, "the phone page, light through the switch", "light")

    phone.reload()
    expect(phone.locator("[data-live-badge]")).to_have_text("Live")
    expect(html).to_have_attribute("data-theme", "light")
    expect(switch_of(phone)).to_have_text("Theme: Light")

    # Then the phone's own dark, chosen: kept even when the phone turns light.
    switch_of(phone).click()
    expect(switch_of(phone)).to_have_text("Theme: Dark")
    phone.emulate_media(color_scheme="light")
    expect(html).to_have_attribute("data-theme", "dark")
    violations(phone, "the phone page, dark through the switch on a light phone", "dark")

    # Then Auto again: nothing is remembered, and the page follows the phone as it changes.
    phone.emulate_media(color_scheme="dark")
    switch_of(phone).click()
    expect(switch_of(phone)).to_have_text("Theme: Auto")
    assert phone.evaluate(f"localStorage.getItem('{STORAGE_KEY}')") is None
    phone.emulate_media(color_scheme="light")
    expect(html).to_have_attribute("data-theme", "light")
    expect(phone.locator("meta[name='theme-color']")).to_have_attribute("content", BACKGROUND["light"])
    phone.emulate_media(color_scheme="dark")
    expect(html).to_have_attribute("data-theme", "dark")
    expect(phone.locator("meta[name='theme-color']")).to_have_attribute("content", BACKGROUND["dark"])


@pytest.mark.parametrize(("scheme", "choice", "painted"), [
    ("light", None, "light"), ("dark", None, "dark"), ("light", "dark", "dark"), ("dark", "light", "light"),
])
def test_the_theme_is_on_the_page_before_its_first_paint(
    live_site: ServerProcess, new_phone, scheme: str, choice: str | None, painted: str
) -> None:
    """The first animation frame comes before the first paint: the theme is set by then, so a light
    phone never flashes the dark page (nor a phone that chose dark the light one)."""
    phone = new_phone(color_scheme=scheme)
    if choice:
        phone.context.add_init_script(f"localStorage.setItem('{STORAGE_KEY}', '{choice}')")
    phone.context.add_init_script(
        "requestAnimationFrame(() => { window.themeAtFirstFrame = document.documentElement.dataset.theme || 'none'; })"
    )
    phone.goto(live_site.url + "/")
    phone.wait_for_function("window.themeAtFirstFrame !== undefined")
    assert phone.evaluate("window.themeAtFirstFrame") == painted
