"""The tournament desk in real browsers (issue 46): players check in by scanning the projector's
rotating code (decoded from a screenshot, as a phone's camera would), by their personal link or by
the director's tap, the no-shows are dropped and round 1 is drawn from those present; a table's
result waits until a second phone confirms it, another's is disputed and settled by the director,
and the bracket moves on only then; the desk flags a table gone quiet and rings."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
import zxingcpp
from django.utils import timezone
from PIL import Image
from playwright.sync_api import Browser, Page, expect

from tests.builders import groups_of, make_tournament, make_user
from tests.conftest import ServerProcess
from tests.e2e.pages import desk as laptop
from tests.e2e.pages import enter_turn, evaluate_between_loads, log_in, wait_until
from tournaments import actions, check_in
from tournaments.links import group_path
from tournaments.models import Entrant, Group, Tournament, TournamentRound

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PASSWORD = "fill-or-bust"


def log_in_as_director(browser: Browser, url: str, path: str) -> Page:
    return log_in(laptop(browser), url, username="director", password=PASSWORD, then=path)


def scanned(projector: Page) -> str:
    """What a phone's camera reads off the projector: the QR code decoded from a screenshot."""
    image = Image.open(io.BytesIO(projector.screenshot())).convert("L")
    found = [result.text for result in zxingcpp.read_barcodes(image)]
    assert len(found) == 1, found
    return found[0]


def test_players_check_in_by_the_projectors_code_their_link_or_the_director_and_no_shows_are_dropped(
    night_site: ServerProcess, browser: Browser, new_phone
):
    url = night_site.url
    director = make_user("director", password=PASSWORD)
    tournament = make_tournament(director, 0)
    for number in range(1, 13):
        actions.register(tournament, f"Kit {number:02d}")
    actions.set_check_in_window(tournament, starts_at=timezone.now() + timedelta(minutes=30), minutes=60)
    projector = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    projector.goto(f"{url}/t/{tournament.code}/screen/{tournament.screen_token}/")
    expect(projector.locator("#check-in-count")).to_have_text("0 of 12 checked in")
    dashboard = log_in_as_director(browser, url, f"/t/{tournament.code}/director/")

    for number in range(1, 9):  # eight phones scan the code on the screen and tap their names
        phone = new_phone()
        phone.goto(scanned(projector))
        phone.get_by_role("button", name=f"Kit {number:02d}", exact=True).click()
        expect(phone.locator("#checked-in")).to_contain_text(f"Kit {number:02d}, you're checked in")
    expect(projector.locator("#check-in-count")).to_have_text("8 of 12 checked in")  # live, without a reload

    # A photo of the code sent home, two minutes later: refused, nothing recorded.
    photo = new_phone()
    photo.goto(url + check_in.code_path(tournament.code, timezone.now() - timedelta(minutes=2)))
    expect(photo.get_by_role("alert")).to_contain_text("This check-in code has expired")
    assert not Entrant.objects.get(tournament=tournament, name="Kit 09").checked_in

    by_link = new_phone()
    by_link.goto(url + Entrant.objects.get(tournament=tournament, name="Kit 09").personal_path())
    by_link.get_by_role("button", name="I'm here: check me in").click()
    expect(by_link.locator("#checked-in")).to_be_visible()

    row = dashboard.locator("table.entrants tr", has_text="Kit 10")
    row.get_by_role("button", name="Check in").click()
    expect(dashboard.locator("#checked-in-count")).to_have_text("10 of 12 checked in")
    expect(projector.locator("#check-in-count")).to_have_text("10 of 12 checked in")

    dashboard.once("dialog", lambda dialog: dialog.accept())  # the director confirms the no-shows
    dashboard.get_by_role("button", name="Drop the no-shows").click()
    wait_until(dashboard, lambda: tournament.entrants.filter(status=Entrant.Status.NO_SHOW).count() == 2,
               "the two no-shows were not dropped")
    round_ = actions.start_round(tournament)
    seated = {player.name for group in round_.groups.all() for player in group.players()}
    assert seated == {f"Kit {number:02d}" for number in range(1, 11)}


def test_a_result_counts_once_a_second_phone_confirms_it_and_a_disputed_one_once_the_director_settles_it(
    night_site: ServerProcess, browser: Browser, new_phone
):
    url = night_site.url
    director = make_user("director", password=PASSWORD)
    tournament = make_tournament(director, 8, confirm_results=True)
    round_ = actions.start_round(tournament, length=timedelta(minutes=30))
    first, second = groups_of(tournament)
    scorers = []
    for group in (first, second):
        scorer = new_phone()
        scorer.goto(url + group_path(group.code))
        for index, player in enumerate(group.players()):
            enter_turn(scorer, player.name, 500 + 250 * index)
            expect(scorer.locator(f"#tg{group.pk}-e{player.pk}")).to_have_text(str(500 + 250 * index))
        scorers.append(scorer)
    projector = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    projector.goto(f"{url}/t/{tournament.code}/screen/{tournament.screen_token}/")

    actions.end_round_now(tournament, number=round_.number)

    expect(scorers[0].locator("#result-answer")).to_contain_text("This phone entered the turns")
    expect(projector.locator(".bracket-group.is-unconfirmed")).to_have_count(2)
    expect(projector.locator("#screen-state")).to_contain_text("not confirmed")

    # Table 1: another player confirms on their own phone.
    confirmer = new_phone()
    confirmer.goto(url + group_path(first.code))
    name = first.players()[1].name
    confirmer.get_by_role("button", name=f"I'm {name}: confirm").click()
    expect(confirmer.locator("#result-answer")).to_have_count(0)
    expect(projector.locator(".bracket-group.is-unconfirmed")).to_have_count(1)
    round_.refresh_from_db()
    assert round_.status == TournamentRound.Status.PLAYING  # table 2's result still waits

    # Table 2: a player disputes; the director settles it on the group's page.
    disputer = new_phone()
    disputer.goto(url + group_path(second.code))
    name = second.players()[2].name
    disputer.get_by_role("button", name=f"I'm {name}: dispute").click()
    expect(disputer.locator("#result-answer")).to_contain_text("locked until the director settles it")
    sheet = log_in_as_director(browser, url, f"/t/{tournament.code}/director/group/{second.pk}/")
    expect(sheet.locator("#result-state")).to_contain_text("Disputed")
    sheet.get_by_role("button", name="Confirm the result as it stands").click()
    expect(sheet.locator("#result-state")).to_contain_text("Settled by the director")

    wait_until(projector, lambda: TournamentRound.objects.get(pk=round_.pk).status != TournamentRound.Status.PLAYING,
               "the round was not decided once every result counted")
    expect(projector.locator(".bracket-group.is-unconfirmed")).to_have_count(0)
    assert set(Group.objects.filter(round=round_).values_list("result", flat=True)) == {Group.Result.CONFIRMED}


# Each ring felt and heard as the bell is (chime.js): vibrations and bells counted for the tab.
FELT = """(() => {
  const bump = (name) => sessionStorage.setItem(name, String(Number(sessionStorage.getItem(name) || 0) + 1));
  navigator.vibrate = function () { bump("vibrations"); return true; };
})();"""


def test_the_desk_flags_a_table_gone_quiet_and_rings_and_opens_its_sheet_in_one_tap(
    night_site: ServerProcess, browser: Browser, new_phone
):
    url = night_site.url
    director = make_user("director", password=PASSWORD)
    tournament: Tournament = make_tournament(director, 8)
    actions.set_alert_minutes(tournament, minutes=10)
    actions.start_round(tournament, now=timezone.now() - timedelta(minutes=5), length=timedelta(minutes=40))
    first, second = groups_of(tournament)
    actions.record_turn(group=first, entrant=first.players()[0], points=500)
    board = laptop(browser)
    board.add_init_script(FELT)
    board = log_in(board, url, username="director", password=PASSWORD, then=f"/t/{tournament.code}/director/desk/")
    expect(board.locator(".desk-group")).to_have_count(2)
    expect(board.locator(".desk-group.is-flagged")).to_have_count(0)
    board.locator("#desk-state h2").click()  # the director's touch: the page may ring from now on

    actions.set_alert_minutes(tournament, minutes=3)  # table 2 has said nothing for five minutes

    flagged = board.locator(".desk-group.is-flagged")
    expect(flagged).to_have_count(1)
    expect(flagged).to_contain_text(second.players()[0].name)
    wait_until(board, lambda: evaluate_between_loads(board, "() => sessionStorage.getItem('vibrations')") == "1",
               "the desk did not ring for the quiet table")
    flagged.get_by_role("link", name=str(Group.objects.get(pk=second.pk))).click()
    expect(board).to_have_url(f"{url}/t/{tournament.code}/director/group/{second.pk}/")
