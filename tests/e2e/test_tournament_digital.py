"""A tournament round played on phones, in real browsers (issue 18, acceptance 3).

The director logs in, registers seven players (one checked in afterwards: two groups, of 4 and 3)
and starts round 1 with "Played on phones" ticked. Every player's phone opens its group's link,
lands on the group's game table and takes its seat; the players play by tapping the table's
buttons (turn a card, toss, set aside, stop...): at table 1 a whole turn and the next one under
way, at table 2 a turn under way. Then time is up: the server's clock sounds the buzzer at both
tables, each turn under way is played out by its player, and the clock closes the round by itself
once each game is over. The director's dashboard shows both tables final with the tables' scores,
the tie at the cut line (at most three turns can score, so at least four players share 0 and
the line falls among them) which the director decides, then who is through and who is out; every turn
played at a table is its group's Turn, and the director's entries page lists them.

The clock: the director's Start gives the tournament's round length (20 minutes at the least, as
the site allows), so the test ends the groups' time in the database at the moment it chooses (a
turn under way at each table), as the other tournament tests give `start_round` a short length.
The server's own clock (its in-process ticker) does the rest: nothing here calls it.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import Browser, Page, expect

from games.rules import fill_or_bust
from games.rules.fill_or_bust import FillOrBustTable
from games.table.models import Table
from tests.builders import groups_of, make_tournament, make_user
from tests.conftest import ServerProcess
from tests.e2e.pages import desk, log_in, register_player, table_move, take_seat
from tournaments import brackets, digital
from tournaments.links import group_path
from tournaments.models import Group, Tournament, TournamentRound, Turn

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

EXPECT_TIMEOUT_MS = 15_000
PASSWORD = "fill-or-bust"
NAMES = ["Ada", "Bea", "Cal", "Dot", "Eve", "Fay", "Gus"]
LATE = "Gus"  # registered not yet here; the director checks him in
TIME_UP = "Time is up: the turn under way is played out."
# A player who wants the turn over soon: bank as soon as the card allows, keep the most dice,
# decline a Vengeance (a Vengeance is another test's business).
SOONEST = ("stop", "end", "keep", "toss", "decline", "draw", "continue", "play")


def soonest_move(game: FillOrBustTable) -> dict[str, Any]:
    moves = game.legal_moves(game.to_move()[0])
    return next(move for kind in SOONEST for move in moves if move["kind"] == kind)


def table_of(group: Group) -> Table:
    assert group.table_id is not None
    return Table.objects.get(pk=group.table_id)


def game_of(table: Table) -> FillOrBustTable:
    game = table.loaded()
    assert isinstance(game, FillOrBustTable)
    return game


def play_one_move(table: Table, phones: dict[str, Page]) -> None:
    """The player on turn at `table` taps their next move on their phone, once their phone shows
    the table as it stands; then waits until the phone shows the move made."""
    table.refresh_from_db()
    game = game_of(table)
    name = game.state.seats[game.to_move()[0]]
    phone, number = phones[name], table.moves_made
    expect(phone.locator("#play")).to_have_attribute("data-moves", str(number))
    expect(phone.locator("#turn-line")).to_have_text("Your turn")
    table_move(phone, soonest_move(game), must_bust=game.state.card is fill_or_bust.Card.MUST_BUST)
    # (The move that ends the game reloads the page: the wait carries on in the new one, and reads
    # nothing while the new page has no #play yet.)
    phone.wait_for_function("n => { const play = document.getElementById('play'); return play !== null && +play.dataset.moves > n; }", arg=number)


def play_until(table: Table, phones: dict[str, Page], done: Any) -> None:
    while not done(game_of(table).state):
        play_one_move(table, phones)
        table.refresh_from_db()


def turns_at(table: Table) -> list[tuple[str, int]]:
    """Every finished turn at the table: the player and the points it banked."""
    return [(turn.player, turn.scores_after[turn.player] - turn.scores_before[turn.player])
            for turn in digital.finished_turns(table)]


def test_a_round_on_phones_is_played_at_the_tables_and_closed_by_its_clock_after_the_turns_under_way(
    night_site: ServerProcess, browser: Browser, new_phone
):
    url = night_site.url
    director = make_user("director", password=PASSWORD)
    tournament = make_tournament(director, 0, name="Harvest Cup", ties=Tournament.Ties.DIRECTOR)
    dashboard = log_in(desk(browser), url, username="director", password=PASSWORD,
                       then=f"/t/{tournament.code}/director/")
    state = dashboard.locator("#dashboard-state")

    # Registration and check-in, then round 1 on phones.
    for name in NAMES:
        register_player(dashboard, name, here=name != LATE)
    expect(state).to_contain_text("6 checked in")
    state.locator("table.entrants tr", has_text=LATE).get_by_role("button", name="Check in").click()
    expect(state).to_contain_text("7 checked in")
    expect(state).to_contain_text("groups of 4, 3")
    dashboard.get_by_label("Played on phones").check()
    dashboard.get_by_role("button", name="Start round 1").click()
    expect(state).to_contain_text("Round 1 is played on phones")
    round_ = tournament.current_round()
    assert round_ is not None and round_.on_phones
    groups = groups_of(tournament)
    assert [len(group.players()) for group in groups] == [4, 3]
    tables = [table_of(group) for group in groups]

    # Each player's phone opens its group's link, lands on the game table and takes its seat.
    phones: dict[str, Page] = {}
    for group, table in zip(groups, tables, strict=True):
        for entrant in group.players():
            phone = new_phone()
            phone.goto(url + group_path(group.code))
            expect(phone).to_have_url(url + digital.table_path(table))
            phones[entrant.name] = take_seat(phone, entrant.name)

    # Every seat is held: the director starts the clock (it waited while the phones sat down).
    expect(state).to_contain_text("7 of 7 seats held")
    dashboard.get_by_role("button", name="Start the clock").click()
    expect(dashboard.get_by_role("button", name="Pause the clock")).to_be_visible()
    round_.refresh_from_db()
    assert not round_.seating and round_.paused_at is None

    # Table 1: a whole turn, then the next player's under way; table 2: its first turn under way.
    play_until(tables[0], phones, lambda game: len(game.turns) >= 1)
    play_until(tables[0], phones, lambda game: game.turn_under_way)
    play_until(tables[1], phones, lambda game: game.turn_under_way)
    on_turn = []
    for table in tables:
        table.refresh_from_db()
        game = game_of(table)
        on_turn.append(game.state.seats[game.to_move()[0]])

    # Time is up: the server's clock sounds the buzzer at both tables; each turn under way goes on.
    now = timezone.now()
    Group.objects.filter(round=round_).update(ends_at=now, final_at=now + timedelta(seconds=tournament.grace_seconds))
    TournamentRound.objects.filter(pk=round_.pk).update(ends_at=now)
    for name in on_turn:
        expect(phones[name].locator("#said")).to_have_text(TIME_UP)
        expect(phones[name].locator("#turn-line")).to_have_text("Your turn")
    for table, name in zip(tables, on_turn, strict=True):
        table.refresh_from_db()
        assert game_of(table).state.buzzer and table.status == Table.Status.PLAYING
        # The player finishes the turn (stop or bust): the game is over, no new turn started.
        play_until(table, phones, lambda game: game.is_over)
        expect(phones[name].locator("#turn-line")).to_contain_text("win")
        assert turns_at(table)[-1][0] == name

    # The clock closes the round by itself: both tables final, their scores the tables' scores.
    scores: dict[str, int] = {}
    for group, table in zip(groups, tables, strict=True):
        table.refresh_from_db()
        sheet = game_of(table).state.scores
        scores |= sheet
        card = state.locator(f'article[aria-label="{group}"]')
        expect(card.locator("h3")).to_contain_text("final")
        for entrant in group.players():
            expect(card.locator(f"#tg{group.pk}-e{entrant.pk}")).to_have_text(str(sheet[entrant.name]))
    block = state.locator('section[aria-label="Round 1"]')
    expect(block.locator("h2")).to_contain_text("Play-off at the line")
    round_.refresh_from_db()
    assert round_.status == TournamentRound.Status.PLAY_OFF and round_.scores == scores
    # At most three turns scored (a NO DICE scores nothing): four or more share 0, across the line.
    expected = brackets.cut(scores, brackets.advance_count(len(NAMES)))
    tied = round_.tied()
    assert len(tied) >= 2 and sorted(tied) == sorted(expected.tied)
    assert sorted(round_.outcome["advancing"]) == sorted(expected.advancing)
    expect(block).to_contain_text(f"Tied at the line: {', '.join(tied)}: the director decides.")

    # The director decides the tie in the order shown: the cut is made.
    state.get_by_role("button", name="Decide").click()
    expect(block.locator("h2")).to_contain_text("Decided")
    round_.refresh_from_db()
    advancing, eliminated = round_.outcome["advancing"], round_.outcome["eliminated"]
    places = brackets.advance_count(len(NAMES)) - len(expected.advancing)
    assert sorted(advancing) == sorted(expected.advancing + tied[:places])
    assert sorted(eliminated) == sorted(tied[places:] + expected.eliminated)
    expect(block).to_contain_text(f"Through: {', '.join(advancing)}")
    expect(block).to_contain_text(f"Out: {', '.join(eliminated)}")
    # A player opens the group's link again: the scoresheet, final, with who is through.
    for group, name in zip(groups, on_turn, strict=True):
        phone = phones[name]
        phone.goto(url + group_path(group.code))
        expect(phone.locator("#group-state")).to_contain_text(f"{group}'s scores are final.")
        expect(phone.locator("#group-state")).to_contain_text("Round 1 is decided")
        for entrant in group.players():
            row = phone.locator("tr", has=phone.locator(f"#tg{group.pk}-e{entrant.pk}"))
            expect(row).to_contain_text("through" if entrant.name in advancing else "eliminated")
            expect(row.locator(".score")).to_have_text(str(scores[entrant.name]))

    # Every turn played at a table is its group's turn, in order, and the director sees them.
    for group, table in zip(groups, tables, strict=True):
        played = turns_at(table)
        recorded = [(turn.entrant.name, turn.points)
                    for turn in Turn.objects.filter(group=group, kind=Turn.Kind.TURN).select_related("entrant")
                    .order_by("pk")]
        assert recorded == played and len(played) >= (2 if group == groups[0] else 1)
        state.locator(f'article[aria-label="{group}"]').get_by_role("link", name="Entries", exact=True).click()
        rows = dashboard.locator("table.entries tbody tr")
        expect(rows).to_have_count(len(played))
        for row, (name, points) in zip(reversed(rows.all()), played, strict=True):  # newest first
            cells = row.locator("td")
            expect(cells.nth(0)).to_have_text("Turn")
            expect(cells.nth(1)).to_have_text(name)
            expect(cells.nth(2)).to_have_text(f"{points:+d}")
        dashboard.goto(f"{url}/t/{tournament.code}/director/")
