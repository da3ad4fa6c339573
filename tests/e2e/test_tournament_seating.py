"""A round on phones while its phones take their seats, in real browsers (issue 42, T1 and P8).

- T1: the director presses "Start the clock" while nobody holds Fay's seat. The refusal shows on the
  dashboard itself, beside Fay's seat and its "Hand Fay to a bot" (it used to replace the whole
  dashboard with the bare message, and only a reload brought it back); one tap there, and the
  clock starts.
- P8: a player's phone waits at the group's game table while the clock waits. When the director
  starts the clock, the phone's countdown runs in place: the page is not reloaded (a marker set on
  its window survives), so the touch that unlocked its sound still counts for the clock's warnings.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from games.table import actions as table_actions
from games.table.models import Table
from tests.builders import groups_of, make_user
from tests.conftest import ServerProcess
from tests.e2e.pages import take_seat
from tests.e2e.test_tournament import PASSWORD, log_in_as_director
from tournaments import actions, digital
from tournaments.links import group_path
from tournaments.models import Group, Tournament

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

NAMES = ["Ada", "Bea", "Cy", "Fay"]


def seating_round(names: list[str] = NAMES) -> tuple[Tournament, Group, Table]:
    """A tournament of `names` (one table), its round 1 started on phones from the dashboard's
    Start: the clock waits while the phones take their seats."""
    director = make_user("director", password=PASSWORD)
    tournament = actions.create_tournament(director=director, name="Harvest Cup", seed=3)
    for name in names:
        actions.register(tournament, name, checked_in=True)
    actions.start_round(tournament, on_phones=True, seating=True)
    group = groups_of(tournament)[0]
    assert group.table_id is not None
    return tournament, group, Table.objects.get(pk=group.table_id)


def seat_phones(table: Table, names: list[str]) -> None:
    """The phones of `names` take their seats (as the table's own claim does)."""
    for seat in table.seats.filter(name__in=names):
        table_actions.claim_seat(table=table, number=seat.number, phone=f"phone-of-{seat.name}")


def test_a_refused_start_of_the_clock_shows_on_the_dashboard_beside_the_seat_it_names_and_its_bot(
    night_site: ServerProcess, browser: Browser
):
    tournament, group, table = seating_round()
    seat_phones(table, ["Ada", "Bea", "Cy"])
    dashboard = log_in_as_director(browser, night_site.url, f"/t/{tournament.code}/director/")
    state = dashboard.locator("#dashboard-state")
    expect(state).to_contain_text("3 of 4 seats held")

    dashboard.get_by_role("button", name="Start the clock").click()
    expect(dashboard.get_by_role("alert")).to_have_text(
        f"Nobody holds Fay's seat at {group} yet: wait for their phones, or hand each seat to a bot; "
        "then start the clock.")
    # The dashboard is still there around it: its buttons, its table, Fay's seat flagged.
    expect(dashboard.locator("#dashboard-state")).to_have_count(1)
    expect(state.get_by_role("button", name="Start the clock")).to_be_visible()
    expect(state.locator(f'article[aria-label="{group}"]')).to_contain_text("Nobody holds Fay's seat")
    expect(state).to_contain_text("3 of 4 seats held")
    # Beside the message, Fay's seat's own button: one tap, and the clock starts.
    refusal = state.locator("#dashboard-refusal")
    expect(refusal.get_by_role("alert")).to_be_visible()
    refusal.get_by_role("button", name="Hand Fay to a bot").click()
    expect(refusal).to_have_count(0)
    expect(state.locator(f'article[aria-label="{group}"]')).not_to_contain_text("Nobody holds")
    dashboard.get_by_role("button", name="Start the clock").click()
    expect(dashboard.get_by_role("button", name="Pause the clock")).to_be_visible()
    round_ = tournament.current_round()
    assert round_ is not None and not round_.seating and round_.paused_at is None


def phone_at_the_table(new_phone, url: str, group: Group, table: Table, name: str) -> Page:
    phone: Page = new_phone()
    phone.goto(url + group_path(group.code))
    expect(phone).to_have_url(url + digital.table_path(table))
    return take_seat(phone, name)


def test_a_phone_at_the_table_keeps_its_page_when_the_director_starts_the_clock(
    night_site: ServerProcess, browser: Browser, new_phone
):
    tournament, group, table = seating_round()
    seat_phones(table, ["Bea", "Cy", "Fay"])
    phone = phone_at_the_table(new_phone, night_site.url, group, table, "Ada")
    expect(phone.locator(".table-clock .countdown")).to_have_text("Paused")
    # The touch that unlocks the phone's sound (chime.js) is a touch of this page: the marker
    # stands for everything the page holds since, its sound among them.
    phone.locator("#turn-line").click()
    phone.evaluate("() => { window.stillThisPage = true; }")

    dashboard = log_in_as_director(browser, night_site.url, f"/t/{tournament.code}/director/")
    dashboard.get_by_role("button", name="Start the clock").click()
    expect(dashboard.get_by_role("button", name="Pause the clock")).to_be_visible()

    # The countdown runs on the phone (the clock's line drawn anew from the server's) ...
    expect(phone.locator(".table-clock [data-countdown]")).to_be_visible()
    expect(phone.locator(".table-clock [data-paused]")).to_have_count(0)
    expect(phone.locator(".table-clock [data-countdown]")).to_have_text(re.compile(r"^\d{1,2}:\d\d$"))
    # ... in the page it was: not reloaded.
    assert phone.evaluate("() => window.stillThisPage === true"), "the page was reloaded when the clock started"
    group.refresh_from_db()
    assert group.ends_at is not None
