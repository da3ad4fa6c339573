"""Screens that stay on (issue 32, acceptance 3), on the pages tests/e2e/test_wake_lock.py leaves
out: a game table's phone (a seat claimed) and its screen, a night's projector, a tournament group's
phone and the tournament's projector. Each asks for the Screen Wake Lock once it is open, nothing
while it is hidden, and again when it is shown (navigator.wakeLock observed by OBSERVE_WAKE_LOCK,
visibility set by the test as a browser sets it)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.builders import groups_of, make_table, make_tournament, make_user, started_night
from tests.conftest import ServerProcess
from tests.e2e.pages import desk, join_table
from tests.e2e.test_wake_lock import EIGHT, OBSERVE_WAKE_LOCK, assert_asks_again_when_shown
from tournaments import actions as tournament_actions
from tournaments.links import group_path

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

TABLE_NAMES = ["Ada", "Bea", "Cal"]  # make_table(3)'s seats (tests.builders.NAMES[:3])


def observed_phone(new_phone: Any) -> Page:
    """A new phone whose every page reports its wake lock requests (and can be hidden and shown)."""
    phone: Page = new_phone()
    phone.context.add_init_script(OBSERVE_WAKE_LOCK)
    return phone


def observed_screen(browser: Browser, url: str) -> Page:
    """A desktop-sized page (a projector, a table screen) observed from its first script on, at
    `url`, and live."""
    screen = desk(browser)
    screen.context.add_init_script(OBSERVE_WAKE_LOCK)
    screen.goto(url)
    expect(screen.locator("[data-live-badge]")).to_have_text("Live")
    return screen


# --- A game table ------------------------------------------------------------------------------


def test_a_game_tables_phone_asks_for_the_wake_lock_once_seated_and_again_when_it_comes_back(
    table_site: ServerProcess, new_phone
) -> None:
    table = make_table(3)
    phone = join_table(observed_phone(new_phone), table_site.url, table.code, TABLE_NAMES[0])
    expect(phone.locator("#play")).to_be_attached()

    assert_asks_again_when_shown(phone)


def test_a_game_tables_screen_asks_for_the_wake_lock_and_again_when_it_comes_back(
    table_site: ServerProcess, browser: Browser
) -> None:
    table = make_table(3)
    screen = observed_screen(browser, f"{table_site.url}/g/{table.code}/screen/{table.screen_token}/")

    assert_asks_again_when_shown(screen)


# --- A night -----------------------------------------------------------------------------------


def test_a_nights_projector_asks_for_the_wake_lock_and_again_when_it_comes_back(
    night_site: ServerProcess, browser: Browser
) -> None:
    night = started_night(names=EIGHT, seed=3)
    projector = observed_screen(browser, f"{night_site.url}/n/{night.code}/screen/{night.screen_token}/")
    expect(projector.locator("#screen-state")).to_be_visible()

    assert_asks_again_when_shown(projector)


# --- A tournament ------------------------------------------------------------------------------


def test_a_tournament_groups_phone_asks_for_the_wake_lock_and_again_when_it_comes_back(
    night_site: ServerProcess, new_phone
) -> None:
    tournament = make_tournament(make_user("director"), 4)
    tournament_actions.start_round(tournament)
    group = groups_of(tournament)[0]

    phone = observed_phone(new_phone)
    phone.goto(night_site.url + group_path(group.code))
    expect(phone.locator("#group-state")).to_contain_text(str(group))
    expect(phone.locator("[data-live-badge]")).to_have_text("Live")
    expect(phone.locator("#turn-form")).to_be_visible()

    assert_asks_again_when_shown(phone)


def test_a_tournaments_projector_asks_for_the_wake_lock_and_again_when_it_comes_back(
    night_site: ServerProcess, browser: Browser
) -> None:
    tournament = make_tournament(make_user("director"), 8)
    tournament_actions.start_round(tournament)
    projector = observed_screen(
        browser, f"{night_site.url}/t/{tournament.code}/screen/{tournament.screen_token}/")
    expect(projector.locator("#screen-state")).to_be_visible()

    assert_asks_again_when_shown(projector)
