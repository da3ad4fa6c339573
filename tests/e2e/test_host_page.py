"""The host's page in a browser (issue 9): a refused correction shows its message beside the form
and leaves the tables whole (fault 1); the error goes once a correction succeeds (fault 9); the
host can run the night from a phone without sideways scrolling (fault 8)."""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import Browser, Page, expect

from games.links import join_path
from games.night import actions
from games.night.models import Night, Seat
from tests.builders import play_rounds, real_seat, seating_of, someone_at, tally
from tests.conftest import ServerProcess
from tests.e2e.pages import start_night_from_form
from tests.e2e.test_bunco_night import NAMES

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


def start_night(browser: Browser, url: str, *, width: int = 1280, height: int = 900,
                names: list[str] = NAMES) -> Page:
    host = browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=1).new_page()
    start_night_from_form(host, url, names)
    expect(host.locator("[data-live-badge]")).to_have_text("Live")
    return host


def check(host: Page, table: str, points: str, round_number: str = "1") -> None:
    form = host.locator("form.correction")
    form.locator("#c-round").fill(round_number)
    form.locator("#c-table").fill(table)
    form.locator("#c-points").fill(points)
    form.get_by_role("button", name="Check the correction").click()


def correct(host: Page, table: str, points: str, round_number: str = "1") -> None:
    check(host, table, points, round_number)
    host.locator("#correction-check").get_by_role("button", name="Apply correction").click()


def test_a_refused_correction_shows_beside_the_form_and_leaves_the_page_whole(
    live_site: ServerProcess, browser: Browser
) -> None:
    host = start_night(browser, live_site.url)
    host.get_by_role("button", name="Start round 1").click()
    expect(host.locator("#host-state .round-label")).to_contain_text("Playing")
    host.get_by_text("Correct a tally").click()
    tables = host.locator("#host-state .table-card")
    expect(tables).to_have_count(3)

    check(host, "9", "2")

    expect(host.locator("#correction-message")).to_contain_text("table 9")
    expect(tables).to_have_count(3)
    expect(host.locator("form.correction .table-card")).to_have_count(0)

    correct(host, "2", "3")

    expect(host.locator("#host-state #r1-t2-a")).to_have_text("3")
    expect(host.locator("#correction-message")).to_have_text("")
    expect(host.locator("#correction-check")).to_contain_text("Correction applied: round 1, table 2")
    expect(tables).to_have_count(3)
    expect(host.locator("form.correction .table-card")).to_have_count(0)
    night = Night.objects.get()
    assert night.round_obj(1).tables.get(number=2).totals()["A"] == 3


@pytest.mark.parametrize("page_name", ["host", "entries"])
def test_the_host_can_run_the_night_from_a_phone_without_sideways_scrolling(
    live_site: ServerProcess, browser: Browser, page_name: str
) -> None:
    host = start_night(browser, live_site.url, width=PHONE["width"], height=PHONE["height"])
    if page_name == "entries":
        # A table's entries as a busy round leaves them: points, a Bunco with its roller's name,
        # an entry struck out, the host's correction.
        night = Night.objects.get()
        actions.start_round(night)
        for points in (1, 2, 5, 1):
            tally(night, 2, "A", points)
        roller = real_seat(night, 2, "B")
        tally(night, 2, "B", 0, bunco_player=roller)
        actions.undo_tally(night=night, table_number=2, tally_id=tally(night, 2, "A", 2).pk, by_host=True)
        tally(night, 2, "B", -3, by_host=True)
        host.locator("#host-state .table-card").nth(1).get_by_role("link", name="Entries").click()
        expect(host.locator("h1")).to_contain_text("Table 2")
        expect(host.locator("table.entries tbody tr")).to_have_count(8)

    assert host.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_a_correction_of_an_earlier_round_says_what_it_changes_before_it_is_applied(
    live_site: ServerProcess, browser: Browser
) -> None:
    host = start_night(browser, live_site.url)
    night = Night.objects.get()
    play_rounds(night, random.Random(3), 2)
    decided = night.round_obj(1).tables.get(number=2)
    loser = "B" if decided.winner == "A" else "A"
    totals = decided.totals()
    host.get_by_text("Correct a tally").click()
    form = host.locator("form.correction")
    form.locator("#c-team").select_option(loser)
    check(host, "2", str(totals[decided.winner] - totals[loser] + 1))

    explained = host.locator("#correction-check")
    expect(explained).to_contain_text(f"The winner changes from team {decided.winner} to team {loser}")
    expect(explained).to_contain_text("Round 2 was played from the old result")
    assert not night.tallies.filter(by_host=True).exists()
    explained.get_by_role("button", name="Apply correction").click()
    expect(explained).to_contain_text("Correction applied: round 1, table 2")
    assert night.round_obj(1).tables.get(number=2).winner == loser


def test_a_late_arrival_is_seated_from_the_host_page_and_her_name_waits_on_the_join_page(
    live_site: ServerProcess, browser: Browser
) -> None:
    host = start_night(browser, live_site.url, names=[*NAMES, "Mo"])
    card = host.locator("#players-card")
    expect(card).to_contain_text("Someone arrived")
    card.get_by_label("Their name").fill("Nia")
    card.get_by_role("button", name="Seat them from round 1").click()
    expect(host.locator("#players-card")).to_contain_text("Nia plays from round 1 at table")
    expect(host.locator("#host-state")).to_contain_text("Nia")
    # The card follows the night (its own "changed" events); what it said stays until the next send.
    host.evaluate("document.getElementById('players-card').dataset.old = 'yes'")
    host.evaluate("htmx.trigger(document.getElementById('night-stream'), 'changed')")
    expect(host.locator("#players-card:not([data-old])")).to_be_attached()  # the re-fetched card is in
    expect(host.locator("#players-said")).to_contain_text("Nia plays from round 1 at table")
    expect(host.locator("#arrival-seat option")).to_have_count(2)  # two ghosts' seats left
    phone = browser.new_context(viewport={"width": PHONE["width"], "height": PHONE["height"]}).new_page()
    phone.goto(live_site.url + join_path(Night.objects.get().code))
    expect(phone.get_by_role("button", name="Nia", exact=True)).to_be_visible()


def test_a_correction_whose_answer_is_lost_says_it_is_not_confirmed_and_is_applied_once_when_sent_again(
    live_site: ServerProcess, browser: Browser
) -> None:
    """Issue 16, N5: the correction arrived, but its answer never came back (the Wi-Fi)."""
    host = start_night(browser, live_site.url)
    host.get_by_role("button", name="Start round 1").click()
    expect(host.locator("#host-state .round-label")).to_contain_text("Playing")
    host.get_by_text("Correct a tally").click()
    night = Night.objects.get()

    def answer_lost(route) -> None:
        route.fetch()  # the server applies it...
        route.abort("connectionreset")  # ...and the answer is lost on the way back

    host.route("**/host/correct/", answer_lost)
    correct(host, "2", "3")

    explained = host.locator("#correction-check")
    expect(explained.get_by_role("alert")).to_contain_text("Not confirmed: no answer came back")
    host.unroute("**/host/correct/")
    explained.get_by_role("button", name="Send the correction again").click()

    expect(explained).to_contain_text("Correction applied: round 1, table 2")
    expect(host.locator("#host-state #r1-t2-a")).to_have_text("3")
    assert list(night.tallies.filter(by_host=True).values_list("points", flat=True)) == [3]


def test_striking_out_the_last_entry_of_a_decided_table_says_what_became_of_its_result(
    live_site: ServerProcess, browser: Browser
) -> None:
    """Issue 16, N9: the old winner stayed on 0-0 with no message."""
    host = start_night(browser, live_site.url)
    night = Night.objects.get()
    actions.start_round(night)
    tally(night, 2, "A", 5)
    for points in (5, 5, 5, 5, 1):
        tally(night, 1, "A", points)  # the bell
    actions.finish_turn(night=night, table_number=2)  # A wins 5-0; table 3 still finishing
    host.goto(live_site.url + f"/n/{night.code}/host/table/2/")
    expect(host.locator("h1")).to_contain_text("Table 2")

    host.locator("table.entries tbody tr").filter(has_text="+5").get_by_role("button", name="Strike out").click()

    expect(host.locator(".messages")).to_contain_text("Table 2 of round 1 is tied 0–0 now: it is undecided again "
                                                      "and rolls off the tie.")
    host.get_by_role("link", name="Back to all tables").click()
    expect(host.locator("#host-state .table-card").nth(1).locator(".table-status")).to_have_text("Tie: roll-off 1")


def test_a_leaver_stays_gone_when_the_host_reopens_a_table_of_the_round_before(
    live_site: ServerProcess, browser: Browser
) -> None:
    """Issue 16, N2: after a leaver's seat went to a ghost, re-opening a table of the round before
    seated the next round again from the movement: the leaver was back and the ghost gone."""
    host = start_night(browser, live_site.url, names=[*NAMES, "Mo"])
    host.on("dialog", lambda dialog: dialog.accept())
    night = Night.objects.get()
    play_rounds(night, random.Random(3), 1)
    expect(host.locator("#host-state .round-label")).to_contain_text("Round 2 of")
    night = Night.objects.get()
    # The seating is drawn at random: the leaver comes from a table with the fewest ghosts, so that
    # leaving never strands one player among three ghosts (which the host is rightly refused).
    table = min(range(1, night.round_obj().tables.count() + 1), key=lambda number: Seat.objects.filter(
        round__night=night, round__number=night.current_round, table_round__number=number,
        player__is_ghost=True).count())
    leaver = someone_at(night, table)
    # A table of round 1 decided by points (not by a roll-off): "Turn over" decides it again.
    reopened = next(number for number in (2, 3, 4)
                    if len(set(night.round_obj(1).tables.get(number=number).totals().values())) == 2)
    card = host.locator("#players-card")
    card.get_by_label("Who").select_option(label=f"{leaver} (table {table})")
    card.get_by_role("button", name="A ghost takes their seat").click()
    expect(host.locator("#players-said")).to_contain_text(f"{leaver} has left")
    ghost = night.players.filter(is_ghost=True).order_by("-pk").values_list("name", flat=True)[0]
    seated = seating_of(night, 2)  # the round seated after round 1, with the ghost in the leaver's seat

    host.locator("#reopen-table").select_option(str(reopened))
    host.get_by_role("button", name="Re-open last round").click()
    expect(host.locator("#host-state .round-label")).to_contain_text("Round 1 of")
    host.locator("#host-state .table-card").nth(reopened - 1).get_by_role("button", name="Turn over").click()

    expect(host.locator("#host-state .round-label")).to_contain_text("Round 2 of")
    expect(host.locator("#host-state .tables-grid")).to_contain_text(ghost)
    expect(host.locator("#host-state .tables-grid")).not_to_contain_text(leaver)
    assert seating_of(night, 2) == seated
