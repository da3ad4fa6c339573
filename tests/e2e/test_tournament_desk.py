"""The tournament desk in real browsers (issue 46): players check in by scanning the projector's
rotating code (decoded from a screenshot, as a phone's camera would), by their personal link or by
the director's tap, the no-shows are dropped and round 1 is drawn from those present; a table's
result waits until a second phone confirms it, another's is disputed and settled by the director,
and the bracket moves on only then; the desk flags a table gone quiet and rings."""

from __future__ import annotations

import io
import re
from datetime import timedelta

import pytest
import zxingcpp
from django.utils import timezone
from PIL import Image
from playwright.sync_api import Browser, Page, expect

from tests.builders import groups_of, make_tournament, make_user
from tests.conftest import POLL_OFF_SECONDS, ServerProcess
from tests.e2e.pages import desk as laptop
from tests.e2e.pages import enter_turn, evaluate_between_loads, log_in, wait_until
from tournaments import actions, check_in
from tournaments.links import group_path
from tournaments.models import Entrant, Group, Tournament, TournamentRound

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
STREAM_ONLY = True  # the servers' safety-net poll off: what reaches a page came by its stream, or its own asking

PASSWORD = "fill-or-bust"


def log_in_as_director(browser: Browser, url: str, path: str) -> Page:
    return log_in(laptop(browser), url, username="director", password=PASSWORD, then=path)


def scanned(projector: Page) -> str:
    """What a phone's camera reads off the projector: the QR code decoded from a screenshot."""
    image = Image.open(io.BytesIO(projector.screenshot())).convert("L")
    found = [result.text for result in zxingcpp.read_barcodes(image)]
    assert len(found) == 1, found
    return found[0]


SCANNING = 16  # phones that scan the projector's code: with one by link, one by the director and two no-shows, 20


def test_players_check_in_by_the_projectors_code_their_link_or_the_director_and_no_shows_are_dropped(
    night_site: ServerProcess, browser: Browser, new_phone
):
    """Sixteen phones scan the code on the projector (each its own browser, as each player's phone),
    one with a photo of a code two minutes old is refused, one player checks in by their personal
    link and one by the director's tap; the two no-shows are dropped and round 1 seats the 18 present."""
    url = night_site.url
    director = make_user("director", password=PASSWORD)
    tournament = make_tournament(director, 0)
    names = [f"Kit {number:02d}" for number in range(1, SCANNING + 5)]
    for name in names:
        actions.register(tournament, name)
    scanners, by_link, by_director, no_shows = names[:SCANNING], names[SCANNING], names[SCANNING + 1], names[-2:]
    actions.set_check_in_window(tournament, starts_at=timezone.now() + timedelta(minutes=30), minutes=60)
    projector = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    projector.goto(f"{url}/t/{tournament.code}/screen/{tournament.screen_token}/")
    expect(projector.locator("#check-in-count")).to_have_text(f"0 of {len(names)} checked in")
    dashboard = log_in_as_director(browser, url, f"/t/{tournament.code}/director/")

    camera = Camera(projector)
    for name in scanners:  # each phone scans the code on the screen and taps its player's name
        phone = new_phone()
        phone.goto(camera.scan())
        phone.get_by_role("button", name=name, exact=True).click()
        expect(phone.locator("#checked-in")).to_contain_text(f"{name}, you're checked in")
    expect(projector.locator("#check-in-count")).to_have_text(f"{SCANNING} of {len(names)} checked in")  # live
    assert camera.screenshots <= 1 + camera.changes  # one photo of each code the projector showed

    # A photo of the code sent home, two minutes later: refused with a message, nothing recorded.
    photo = new_phone()
    photo.goto(url + check_in.code_path(tournament.code, timezone.now() - timedelta(minutes=2)))
    expect(photo.get_by_role("alert")).to_contain_text("This check-in code has expired")
    expect(photo.get_by_role("button", name=by_link, exact=True)).to_have_count(0)
    assert not Entrant.objects.get(tournament=tournament, name=by_link).checked_in

    link = new_phone()
    link.goto(url + Entrant.objects.get(tournament=tournament, name=by_link).personal_path())
    link.get_by_role("button", name="I'm here: check me in").click()
    expect(link.locator("#checked-in")).to_be_visible()

    row = dashboard.locator("table.entrants tr", has_text=by_director)
    row.get_by_role("button", name="Check in").click()
    present = SCANNING + 2
    expect(dashboard.locator("#checked-in-count")).to_have_text(f"{present} of {len(names)} checked in")
    expect(projector.locator("#check-in-count")).to_have_text(f"{present} of {len(names)} checked in")

    dashboard.once("dialog", lambda dialog: dialog.accept())  # the director confirms dropping the no-shows
    dashboard.get_by_role("button", name="Drop the no-shows").click()
    expect(dashboard.locator("form.no-shows")).to_have_count(0)
    assert set(tournament.entrants.filter(status=Entrant.Status.NO_SHOW).values_list("name", flat=True)) == set(no_shows)
    dashboard.get_by_role("button", name="Start round 1").click()
    wait_until(dashboard, lambda: TournamentRound.objects.filter(tournament=tournament).exists(),
               "round 1 was not started")
    round_ = TournamentRound.objects.get(tournament=tournament)
    seated = [player.name for group in round_.groups.all() for player in group.players()]
    assert sorted(seated) == sorted(set(names) - set(no_shows))
    expect(projector.locator(".bracket-group")).to_have_count(round_.groups.count())


class Camera:
    """What the phones' cameras read off the projector: its QR code decoded from a screenshot, once
    for each code it shows (it changes every 30 s: a new one is photographed when it has changed)."""

    def __init__(self, projector: Page) -> None:
        self.projector = projector
        self.shown = ""
        self.read = ""
        self.screenshots = 0
        self.changes = 0

    def scan(self) -> str:
        shown = self.projector.locator("[data-check-in-url]").get_attribute("data-check-in-url") or ""
        if shown != self.shown:
            self.changes += bool(self.shown)
            self.shown, self.read = shown, scanned(self.projector)
            self.screenshots += 1
            assert self.read.endswith(shown), (self.read, shown)
        return self.read


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

    # The director ends the round from the dashboard, as in the hall (the news then leaves the
    # server that made it, as every news of a real night does).
    dashboard = log_in_as_director(browser, url, f"/t/{tournament.code}/director/")
    dashboard.on("dialog", lambda dialog: dialog.accept())
    dashboard.get_by_role("button", name=re.compile(r"^End round 1 now$", re.I)).click()

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
    expect(projector.locator(".round-tally")).to_have_count(0)  # the bracket has not moved on

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
    settled = sheet.locator(".result-log > li").last  # the settlement in the result's log: who, when, what
    expect(settled).to_contain_text("the director (director)")
    expect(settled).to_contain_text("no score changed")
    expect(settled.locator("time")).to_have_attribute("datetime", re.compile(r"^\d{4}-\d\d-\d\dT"))

    wait_until(projector, lambda: TournamentRound.objects.get(pk=round_.pk).status != TournamentRound.Status.PLAYING,
               "the round was not decided once every result counted")
    expect(projector.locator(".bracket-group.is-unconfirmed")).to_have_count(0)
    expect(projector.locator(".round-tally")).to_have_count(1)  # round 1 decided: the bracket moved on
    assert set(Group.objects.filter(round=round_).values_list("result", flat=True)) == {Group.Result.CONFIRMED}


# Each ring felt and heard as the bell is (chime.js; tests/e2e/test_bell_heard.py): the calls of
# navigator.vibrate and the bells started on the page's AudioContext (a bell starts its tones at one
# moment: distinct start times are distinct bells), counted for the tab.
HEARD = """(() => {
  const bump = (name) => sessionStorage.setItem(name, String(Number(sessionStorage.getItem(name) || 0) + 1));
  navigator.vibrate = function () { bump("vibrations"); return true; };
  const starts = new Set();
  const startTone = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (when) {
    if (!starts.has(when)) { starts.add(when); bump("bells"); }
    return startTone.apply(this, arguments);
  };
})();"""


def rung(page: Page) -> tuple[str | None, str | None]:
    """How many times the page vibrated, and how many bells it played."""
    found = evaluate_between_loads(page, "() => [sessionStorage.getItem('vibrations'), sessionStorage.getItem('bells')]")
    return found[0], found[1]


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
    board.add_init_script(HEARD)
    board = log_in(board, url, username="director", password=PASSWORD, then=f"/t/{tournament.code}/director/desk/")
    expect(board.locator(".desk-group")).to_have_count(2)
    expect(board.locator(".desk-group.is-flagged")).to_have_count(0)
    assert rung(board) == (None, None)
    board.locator("#desk-state h2").click()  # the director's touch: the page may ring from now on

    actions.set_alert_minutes(tournament, minutes=3)  # table 2 has said nothing for five minutes

    flagged = board.locator(".desk-group.is-flagged")
    expect(flagged).to_have_count(1)
    expect(flagged).to_contain_text(second.players()[0].name)
    wait_until(board, lambda: rung(board) == ("1", "1"), "the desk did not ring (a vibration and a bell) for the quiet table")
    flagged.get_by_role("link", name=str(Group.objects.get(pk=second.pk))).click()
    expect(board).to_have_url(f"{url}/t/{tournament.code}/director/group/{second.pk}/")


@pytest.mark.proof  # it waits for the minute to pass (some twenty seconds): `make proof`
def test_the_desk_flags_a_table_the_moment_its_silence_reaches_the_set_minutes_and_rings_with_no_other_news(
    night_site: ServerProcess, browser: Browser
):
    """No event and no poll (STREAM_ONLY): the page itself asks for the board again when table 2's
    silence reaches the director's minute, and the flag and the ring come then."""
    director = make_user("director", password=PASSWORD)
    tournament: Tournament = make_tournament(director, 8)
    actions.set_alert_minutes(tournament, minutes=1)
    started = timezone.now() - timedelta(seconds=40)
    actions.start_round(tournament, now=started, length=timedelta(minutes=40))
    first, second = groups_of(tournament)
    actions.record_turn(group=first, entrant=first.players()[0], points=500)  # table 1 reports now
    board = laptop(browser)
    board.add_init_script(HEARD)
    board = log_in(board, night_site.url, username="director", password=PASSWORD,
                   then=f"/t/{tournament.code}/director/desk/")
    expect(board.locator(".desk-group")).to_have_count(2)
    expect(board.locator("#desk-state")).to_have_attribute("hx-trigger", re.compile(f"every {POLL_OFF_SECONDS}s$"))
    if timezone.now() - started < timedelta(seconds=45):  # a busy machine may have reached the minute already
        expect(board.locator(".desk-group.is-flagged")).to_have_count(0)  # table 2: quiet for 40 s of its minute
    board.locator("#desk-state h2").click()  # the director's touch: the page may ring from now on

    flagged = board.locator(".desk-group.is-flagged")
    expect(flagged).to_have_count(1)  # some twenty seconds on, with nothing sent by the server
    expect(flagged).to_have_attribute("aria-label", str(Group.objects.get(pk=second.pk)))
    wait_until(board, lambda: rung(board) == ("1", "1"), "the desk did not ring (a vibration and a bell) for the quiet table")


# Where each player's score stands on the desk, measured by the page: the players whose score is not
# inside their own line's box (a score floated past a wrapped name lands on the next player's line).
SCORES_ON_ANOTHER_LINE = """() => [...document.querySelectorAll('.desk-players li')].filter((line) => {
  const own = line.getBoundingClientRect();
  const score = line.querySelector('.score').getBoundingClientRect();
  return score.top < own.top - 0.5 || score.bottom > own.bottom + 0.5;
}).map((line) => line.innerText.replace(/\\s+/g, ' ').trim())"""


def test_on_the_desk_at_1920_each_players_score_stands_on_that_players_line_however_long_the_name(
    night_site: ServerProcess, browser: Browser
):
    director = make_user("director", password=PASSWORD)
    tournament = make_tournament(director, 0)
    for number in range(1, 9):
        actions.register(tournament, f"Kit {number:02d} Fernández-Llorente", checked_in=True)
    actions.start_round(tournament)
    for group in groups_of(tournament):
        for index, player in enumerate(group.players()):
            actions.record_turn(group=group, entrant=player, points=500 + 100 * index)
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    board = log_in(context.new_page(), night_site.url, username="director", password=PASSWORD,
                   then=f"/t/{tournament.code}/director/desk/")
    expect(board.locator(".desk-players li")).to_have_count(8)
    assert board.evaluate(SCORES_ON_ANOTHER_LINE) == []
