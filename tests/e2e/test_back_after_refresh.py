"""Back and Forward to a page whose live region had refreshed itself (issue 42, P1).

A night's phone page refreshes its region every few seconds by asking its own URL again with
`HX-Request: true`, and gets the region alone. Open another page and press Back: the browser showed
that region as the whole page, unstyled, with no script, no score button, no stream and no bell,
until the player reloaded, and nothing told them so. The same held for every page that answers a
page and a region of it at one URL. Here every phone, host, projector and table page is opened on a
plain-HTTP origin that is not localhost (a living room's Wi-Fi), its refresh is let run, another page
is opened, and Back (then Forward and Back again) must find the whole page working: its styles,
its scripts, its live stream.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.urls import reverse
from playwright.sync_api import Browser, Page, expect

from bunco_club import actions as club_actions
from games.night.models import Night, Tally
from tests.builders import (
    groups_of,
    make_club,
    make_table,
    make_tournament,
    make_user,
    seating_of,
    soon,
    started_night,
)
from tests.conftest import PATIENT_MS, PHONE
from tests.e2e.pages import (
    DESKTOP,
    join_night,
    join_table,
    log_in,
    start_night_from_form,
    take_seat,
    wait_until,
)
from tournaments import actions as tournament_actions
from tournaments.links import group_path

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

EIGHT = ["Alice", "Bea", "Carmen", "Dana", "Eve", "Fran", "Gwen", "Hana"]
PARTY_POLL_SECONDS = 2  # the pages' own refresh (party_site), often enough that each test sees it run




def a_phone(browser: Browser) -> Page:
    options: dict[str, Any] = dict(PHONE)
    context = browser.new_context(**options)
    context.set_default_timeout(PATIENT_MS)
    return context.new_page()


def a_laptop(browser: Browser) -> Page:
    context = browser.new_context(viewport=DESKTOP)
    context.set_default_timeout(PATIENT_MS)
    return context.new_page()


def wait_for_its_own_refresh(page: Page, refresh: Callable[[], object] | None = None) -> None:
    """Until the page has asked its own URL again from a script (its region's refresh) and had the
    answer; `refresh` does what makes the page refresh, where a poll does not."""
    url = page.url
    with page.expect_request_finished(
        lambda request: request.url == url and request.resource_type in ("fetch", "xhr"), timeout=PATIENT_MS
    ):
        if refresh is not None:
            refresh()


def is_whole_and_working(page: Page, region: str) -> None:
    """The page as a visitor first had it: its region inside the site's layout, styled, with the
    site's scripts run (htmx among them) and its stream connected."""
    expect(page.locator(region)).to_be_visible()
    expect(page.locator("link[rel=stylesheet]")).not_to_have_count(0)
    expect(page.locator("body > header.site-header")).to_be_attached()
    expect(page.locator("body > main#main")).to_be_attached()
    assert page.evaluate("() => typeof window.htmx === 'object'"), "htmx is not loaded: the page is a bare fragment"
    assert page.evaluate("() => getComputedStyle(document.body).margin !== '8px'"), "the site's styles are not applied"


def back_and_forth(page: Page, elsewhere: str, region: str, *, live: str = "[data-live-badge]") -> None:
    """Another page opened, then Back, Forward, Back: the whole page each time it comes back."""
    here = page.url
    page.goto(elsewhere)
    page.go_back()
    expect(page).to_have_url(here)
    is_whole_and_working(page, region)
    if live:
        expect(page.locator(live).first).to_have_text("Live")
    page.go_forward()
    expect(page).to_have_url(elsewhere)
    page.go_back()
    expect(page).to_have_url(here)
    is_whole_and_working(page, region)


def test_back_to_a_players_phone_page_after_its_refresh_finds_the_whole_page(party_site: str, party_browser: Browser) -> None:
    night = started_night(names=EIGHT, seed=3)
    phone = join_night(a_phone(party_browser), party_site, night.code, seating_of(night, 1)[0][0], table=1)
    wait_for_its_own_refresh(phone)

    back_and_forth(phone, party_site + reverse("games:sheet", args=[night.code]), "#phone-state")
    phone.locator('[data-tap][data-points="1"]').click()  # the score buttons work again
    expect(phone.locator("#tap-status")).to_contain_text("+1")
    wait_until(phone, lambda: Tally.objects.filter(night=night).count() == 1, "the tap after Back was not saved")


def test_back_to_the_host_page_and_the_projector_after_their_refresh(party_site: str, party_browser: Browser) -> None:
    host = start_night_from_form(a_laptop(party_browser), party_site, EIGHT)
    wait_for_its_own_refresh(host)
    back_and_forth(host, party_site + "/", "#host-state")

    night = Night.objects.get()
    projector = a_laptop(party_browser)
    projector.goto(party_site + reverse("games:screen", args=[night.code, night.screen_token]))
    wait_for_its_own_refresh(projector)
    back_and_forth(projector, party_site + "/", "#screen-state")


def test_back_to_a_game_tables_page_after_its_seats_were_redrawn(party_site: str, party_browser: Browser) -> None:
    table = make_table(3)  # mid-game: a change of seats redraws the Seats list in place
    ada = join_table(a_phone(party_browser), party_site, table.code, "Ada")
    bea = a_phone(party_browser)
    bea.goto(party_site + reverse("tables:table", args=[table.code]))
    # Bea's claim changes the seats: Ada's page reads itself again to redraw them.
    wait_for_its_own_refresh(ada, lambda: take_seat(bea, "Bea"))

    back_and_forth(ada, party_site + "/", ".seats-panel")

    screen = a_laptop(party_browser)
    screen.goto(party_site + reverse("tables:screen", args=[table.code, table.screen_token]))
    expect(screen.locator("[data-live-badge]").first).to_have_text("Live")
    back_and_forth(screen, party_site + "/", "main")


def test_back_to_a_tournaments_group_phone_dashboard_and_projector_after_their_refresh(
    party_site: str, party_browser: Browser
) -> None:
    director = make_user("director")
    tournament = make_tournament(director, 4)
    tournament_actions.start_round(tournament)
    group = groups_of(tournament)[0]

    phone = a_phone(party_browser)
    phone.goto(party_site + group_path(group.code))
    wait_for_its_own_refresh(phone)
    back_and_forth(phone, party_site + "/", "#group-state")

    desk = log_in(a_laptop(party_browser), party_site, username="director",
                  then=reverse("tournaments:dashboard", args=[tournament.code]))
    wait_for_its_own_refresh(desk)
    back_and_forth(desk, party_site + "/", "#dashboard-state")

    projector = a_laptop(party_browser)
    projector.goto(party_site + reverse("tournaments:screen", args=[tournament.code, tournament.screen_token]))
    wait_for_its_own_refresh(projector)
    back_and_forth(projector, party_site + "/", "#screen-state")


def test_back_to_a_partys_page_after_its_headcount_refreshed(party_site: str, party_browser: Browser) -> None:
    club = make_club(hosts=[make_user("host")])
    party = club_actions.add_party(club, starts_at=soon(10))
    page = log_in(a_laptop(party_browser), party_site, then=reverse("clubs:party", args=[club.slug, party.pk]))
    wait_for_its_own_refresh(page)
    back_and_forth(page, party_site + "/", "#headcount", live="")


def test_back_to_a_groups_phone_asking_for_a_confirmation_and_to_the_desk_after_their_refresh(
    party_site: str, party_browser: Browser
) -> None:
    """Issue 46: the table's phone once the round is over (its confirm and dispute buttons), and the
    director's desk, each refreshed by its own stream or poll, then left and come back to."""
    tournament = make_tournament(make_user("director"), 4, confirm_results=True)
    round_ = tournament_actions.start_round(tournament)
    group = groups_of(tournament)[0]
    for player in group.players():
        tournament_actions.record_turn(group=group, entrant=player, points=500)
    tournament_actions.end_round_now(tournament, number=round_.number)

    phone = a_phone(party_browser)
    phone.goto(party_site + group_path(group.code))
    expect(phone.get_by_role("button", name=f"I'm {group.players()[0].name}: confirm")).to_be_visible()
    wait_for_its_own_refresh(phone)
    back_and_forth(phone, party_site + "/", "#result-answer")
    expect(phone.get_by_role("button", name=f"I'm {group.players()[0].name}: confirm")).to_be_enabled()

    desk = log_in(a_laptop(party_browser), party_site, username="director",
                  then=reverse("tournaments:desk", args=[tournament.code]))
    wait_for_its_own_refresh(desk)
    back_and_forth(desk, party_site + "/", "#desk-state")
