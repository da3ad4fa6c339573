"""The tournament's projector and the director's clock in real browsers (issue 16, T5, T6, T7).

- T7: the projector shows a board of every player (still in and their strikes, went through,
  out, final places) beside a bracket picture (each round a column of its groups), and at
  1,920×1,080 the whole of it fits with no scrolling for 64 players, however many rounds.
- T5: once the clock has closed the last round, the projector shows the champion and no longer
  "Time is up".
- T6: the director pauses and resumes the clock and ends a round now from the dashboard; the
  group phones and the projector say "Paused" meanwhile, and a phone takes no turn.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import Browser, Page, expect

from tests.builders import groups_of, make_tournament, make_user
from tests.conftest import ServerProcess
from tests.e2e.pages import serious_violations
from tests.e2e.test_tournament import PASSWORD, log_in_as_director
from tests.tournaments.playing import play_rounds
from tournaments import actions, deciding
from tournaments.links import group_path
from tournaments.models import Tournament, TournamentRound

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

WIDTH, HEIGHT = 1920, 1080
MIN_BOARD_PX = 20  # any word on the projector, read from the back of a hall (issue 29, T7)
CARD_LABEL = r"^(Table \d+|Play-off \d+)"
NAMES = [f"{first} {last}" for first in ("Ann", "Bo", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hal")
         for last in ("Abbot", "Baker", "Carver", "Dunn", "Ellis", "Frost", "Grey", "Hart")]


def projector(browser: Browser, url: str, tournament: Tournament) -> Page:
    page = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT}).new_page()
    page.goto(f"{url}/t/{tournament.code}/screen/{tournament.screen_token}/")
    expect(page.locator("[data-live-badge]")).to_have_text("Live")
    return page


def sixty_four(director, **fields) -> Tournament:
    tournament = actions.create_tournament(director=director, name="Winter Open", seed=5, ties="director", **fields)
    for rank, name in enumerate(NAMES, start=1):
        actions.register(tournament, name, seed_rank=rank, checked_in=True)
    return tournament


def too_small(page: Page, least_px: float = MIN_BOARD_PX) -> list[str]:
    """Every piece of text shown on the projector drawn smaller than `least_px` (its words and
    size), those only for screen readers aside."""
    return page.evaluate(
        """(least) => [...document.querySelectorAll('#screen-state *')].filter((el) => {
            const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
            if (!own || el.closest('.visually-hidden, [hidden]') || !el.getClientRects().length) return false;
            return parseFloat(getComputedStyle(el).fontSize) < least;
        }).map((el) => `${el.textContent.trim().slice(0, 30)}: ${getComputedStyle(el).fontSize}`)""",
        least_px,
    )


def card_labels(page: Page) -> list[str]:
    """Each bracket card's label, as shown."""
    return page.locator(".bracket-group h3 .bg-label").all_inner_texts()


def inside_viewport(page: Page, selector: str) -> list[str]:
    """The elements matching `selector` whose box is not wholly on the screen."""
    return page.evaluate(
        """([selector, width, height]) => [...document.querySelectorAll(selector)].filter((el) => {
            const box = el.getBoundingClientRect();
            return box.width === 0 || box.height === 0 || box.top < 0 || box.left < 0
                || box.bottom > height || box.right > width;
        }).map((el) => el.getAttribute('aria-label') || el.textContent.trim().slice(0, 40))""",
        [selector, WIDTH, HEIGHT],
    )


@pytest.mark.parametrize(
    ("format", "decided", "playing"),
    [
        ("single", 0, True),  # round 1 of 64 players under way
        ("double", 2, True),  # round 3 under way: 64, 64 and 51 players in the columns
        ("double", 40, False),  # the whole double elimination, ten rounds, a champion
        ("single", 40, False),
    ],
    ids=["round-1", "double-round-3", "double-finished", "single-finished"],
)
def test_it_fits_the_board_and_every_round_of_64_players_on_one_screen(
    night_site: ServerProcess, browser: Browser, format: str, decided: int, playing: bool
):
    director = make_user("director", password=PASSWORD)
    tournament = sixty_four(director, format=format)
    rounds = play_rounds(tournament, decided, base=timezone.now() + timedelta(days=2))
    if playing:
        actions.start_round(tournament)
    tournament.refresh_from_db()
    page = projector(browser, night_site.url, tournament)
    columns = len(rounds) + (1 if playing else 0)
    expect(page.locator(".bracket-round")).to_have_count(columns)
    expect(page.locator(".board-row")).to_have_count(64)
    if not playing:
        champion = tournament.champion()
        assert champion is not None
        expect(page.locator(".screen-head")).to_contain_text(champion.name)
        expect(page.locator(".board-row").first).to_contain_text("1st")

    sizes = page.evaluate("() => [document.documentElement.scrollHeight, document.documentElement.scrollWidth]")
    assert sizes[0] <= HEIGHT and sizes[1] <= WIDTH, f"the page scrolls: {sizes}"
    assert inside_viewport(page, ".board, .board-row, .bracket-round, .bracket-group") == []
    board_px = page.evaluate(
        "() => Math.min(...[...document.querySelectorAll('.board-name')].map("
        "(el) => parseFloat(getComputedStyle(el).fontSize)))")
    assert board_px >= MIN_BOARD_PX
    newest_px = page.evaluate(
        "() => Math.min(...[...document.querySelectorAll('.level-full .bp-name')].map("
        "(el) => parseFloat(getComputedStyle(el).fontSize)))")
    assert newest_px >= MIN_BOARD_PX
    # Every word at least 20 px, every card labelled (issue 29, T7).
    assert too_small(page) == []
    labels = card_labels(page)
    assert len(labels) == page.locator(".bracket-group").count()
    assert all(re.match(CARD_LABEL, label) for label in labels), labels
    if format == "double" and decided and playing:
        expect(page.locator(".board .strikes").first).to_be_visible()
        assert serious_violations(page) == []


def test_the_projector_shows_the_champion_not_time_is_up_once_the_clock_closes_the_last_round(
    night_site: ServerProcess, browser: Browser
):
    director = make_user("director", password=PASSWORD)
    # "Time is up" shows for the grace seconds: long enough for a busy machine's projector to show it.
    tournament = make_tournament(director, 2, grace_seconds=10)
    page = projector(browser, night_site.url, tournament)
    face_off = actions.start_round(tournament, length=timedelta(seconds=3))
    assert face_off.is_face_off
    group = groups_of(tournament)[0]
    winner = group.players()[0]
    actions.record_turn(group=group, entrant=winner, points=1500)
    # The countdown reaches zero on the projector, then the server's clock decides the face-off.
    expect(page.locator("[data-clock-warning]")).to_contain_text("Time is up")
    expect(page.locator(".screen-head .champion")).to_contain_text(winner.name)
    expect(page.locator("[data-clock-warning]")).to_have_text("")
    expect(page.locator("body")).not_to_contain_text("Time is up")


def test_the_director_pauses_resumes_and_ends_a_round_from_the_dashboard(
    night_site: ServerProcess, browser: Browser, new_phone
):
    url = night_site.url
    director = make_user("director", password=PASSWORD)
    tournament = make_tournament(director, 8, grace_seconds=5)
    round_ = actions.start_round(tournament)
    points = 500
    for each in groups_of(tournament):  # every score different: no tie at the line
        for player in each.players():
            actions.record_turn(group=each, entrant=player, points=points)
            points += 50
    group = groups_of(tournament)[0]
    desk = log_in_as_director(browser, url, f"/t/{tournament.code}/director/")
    phone = new_phone()
    phone.goto(url + group_path(group.code))
    expect(phone.locator("[data-live-badge]")).to_have_text("Live")
    expect(phone.locator("#turn-form")).to_be_visible()
    screen = projector(browser, url, tournament)

    desk.get_by_role("button", name="Pause the clock").click()
    expect(desk.get_by_role("button", name="Resume the clock")).to_be_visible()
    for page in (phone, screen):
        expect(page.locator(".countdown.is-paused").first).to_have_text("Paused")
        expect(page.locator("[data-clock-warning]")).to_have_text("The clock is paused.")
    expect(phone.locator("#turn-form")).to_have_count(0)
    expect(phone.locator("#group-state")).to_contain_text("paused the clock")
    round_.refresh_from_db()
    assert round_.paused_at is not None

    desk.get_by_role("button", name="Resume the clock").click()
    expect(desk.get_by_role("button", name="Pause the clock")).to_be_visible()
    expect(phone.locator("#turn-form")).to_be_visible()
    expect(phone.locator("[data-countdown]")).to_be_visible()
    expect(screen.locator(".big-clock [data-countdown]")).to_be_visible()
    round_.refresh_from_db()
    assert round_.paused_at is None

    confirmations: list[str] = []
    desk.on("dialog", lambda dialog: (confirmations.append(dialog.message), dialog.accept()))
    desk.get_by_role("button", name="End round 1 now").click()
    expect(desk.get_by_role("button", name="Start the next round")).to_be_visible()
    assert confirmations and "End round 1 now?" in confirmations[0]
    expect(phone.locator("#group-state")).to_contain_text("final")
    # The phone says the director ended the round (issue 29, T9), not that time is up.
    expect(phone.locator("#group-state")).to_contain_text(f"The director ended Round 1 now: {group}'s scores are final.")
    expect(phone.locator("[data-clock-warning]")).to_have_text("The director ended the round: its scores are final.")
    expect(phone.locator("body")).not_to_contain_text("Time is up")
    expect(screen.locator(".screen-head")).to_contain_text("Round 1 is over")
    round_.refresh_from_db()
    assert round_.status != TournamentRound.Status.PLAYING


def test_the_director_runs_a_practice_round_from_the_dashboard(night_site: ServerProcess, browser: Browser):
    url = night_site.url
    director = make_user("director", password=PASSWORD)
    tournament = make_tournament(director, 6, practice_minutes=2)
    desk = log_in_as_director(browser, url, f"/t/{tournament.code}/director/")
    desk.on("dialog", lambda dialog: dialog.accept())
    desk.get_by_role("button", name="Start the practice round (2 min)").click()
    expect(desk.locator("#dashboard-state")).to_contain_text("counts for nothing")
    desk.get_by_role("button", name="End the practice round now").click()
    expect(desk.get_by_role("button", name="Start round 1")).to_be_visible()
    expect(desk.get_by_role("button", name="Start the practice round (2 min)")).to_have_count(0)
    desk.get_by_role("button", name="Start round 1").click()
    expect(desk.get_by_role("button", name="End round 1 now")).to_be_visible()
    assert tournament.rounds.get(number=0).outcome == {"practice": True}


def test_the_projector_draws_every_round_at_20_px_and_labels_each_play_off_card(
    night_site: ServerProcess, browser: Browser
):
    """Issue 29, T7: 64 players, double elimination, round 1 tied all round (nobody scored): its
    play-off is a card of its own, labelled, in the oldest column; three more rounds played. At
    1,920×1,080 every word is at least 20 px and nothing scrolls."""
    director = make_user("director", password=PASSWORD)
    tournament = actions.create_tournament(director=director, name="Winter Open", seed=5, ties="play_off",
                                           format="double")
    for rank, name in enumerate(NAMES, start=1):
        actions.register(tournament, name, seed_rank=rank, checked_in=True)
    base = timezone.now() + timedelta(days=2)
    first = actions.start_round(tournament, now=base)
    deciding.close_round_if_due(first.ends_at + timedelta(minutes=10))
    first.refresh_from_db()
    assert first.status == TournamentRound.Status.PLAY_OFF
    by_name = {entrant.name: entrant for entrant in tournament.entrants.all()}
    actions.decide_tie(round_=first, order=[by_name[name] for name in first.tied()],
                       now=first.ends_at + timedelta(minutes=11))
    play_rounds(tournament, 3, base=base + timedelta(hours=1))
    page = projector(browser, night_site.url, tournament)
    expect(page.locator(".bracket-round")).to_have_count(4)
    oldest = page.locator(".bracket-round").first
    expect(oldest.locator(".bracket-group h3 .bg-label", has_text="Play-off 1")).to_be_visible()
    assert too_small(page) == []
    labels = card_labels(page)
    assert len(labels) == page.locator(".bracket-group").count()
    assert all(re.match(CARD_LABEL, label) for label in labels), labels
    sizes = page.evaluate("() => [document.documentElement.scrollHeight, document.documentElement.scrollWidth]")
    assert sizes[0] <= HEIGHT and sizes[1] <= WIDTH, f"the page scrolls: {sizes}"


def lowest_edge(page: Page) -> float:
    """How far down the screen the board and the bracket reach (the bottom of the lowest row or card)."""
    return page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('.board-row, .bracket-group')]"
        ".map((el) => el.getBoundingClientRect().bottom))")


def headers_on_more_than_one_line(page: Page) -> list[str]:
    """Every bracket card whose header (its table and its status) takes more than one line, or
    cuts its table's name short."""
    return page.evaluate(
        """() => [...document.querySelectorAll('.bracket-group h3')].filter((h3) => {
            const label = h3.querySelector('.bg-label');
            return h3.getBoundingClientRect().height > 1.5 * parseFloat(getComputedStyle(h3).lineHeight)
                || label.scrollWidth > label.clientWidth;
        }).map((h3) => h3.textContent.trim())""")


@pytest.mark.parametrize(("players", "decided"), [(4, 0), (8, 0), (12, 1), (24, 0), (16, 3)],
                         ids=["4-players", "8-players", "12-players-round-2", "24-players", "16-players-round-4"])
def test_a_small_tournaments_projector_fills_the_screen_with_every_header_on_one_line(
    night_site: ServerProcess, browser: Browser, players: int, decided: int
):
    """Issue 42: a small tournament's board and bracket used the top third of a 1,080-px screen."""
    director = make_user("director", password=PASSWORD)
    tournament = make_tournament(director, players, format="double" if decided > 1 else "single", ties="director")
    play_rounds(tournament, decided, base=timezone.now() + timedelta(days=2))
    actions.start_round(tournament)
    for group in groups_of(tournament):
        actions.record_turn(group=group, entrant=group.players()[0], points=350)
    page = projector(browser, night_site.url, tournament)
    expect(page.locator(".board-row")).to_have_count(players)

    assert lowest_edge(page) >= HEIGHT / 2, f"the board and bracket end at {lowest_edge(page)} px of {HEIGHT}"
    sizes = page.evaluate("() => [document.documentElement.scrollHeight, document.documentElement.scrollWidth]")
    assert sizes[0] <= HEIGHT and sizes[1] <= WIDTH, f"the page scrolls: {sizes}"
    assert inside_viewport(page, ".board, .board-row, .bracket-round, .bracket-group") == []
    assert headers_on_more_than_one_line(page) == []
    assert too_small(page) == []
