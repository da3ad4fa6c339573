"""Kismet at a game table, in the browser: three phones (Ada types in her real dice, Bea and Cal
roll the server's) and a bot (Dot) play a whole 15-turn game while the table screen follows.
Ada's typed dice are the test's dice: a Kismet first, then five alike again, a second Kismet; every
other sheet gets its 0 in its top-most open box and loses its turn, and each of those phones says
why. The totals and the winner on every page are the engine's, and the dice check out."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from games.rules import kismet
from games.rules.kismet import KismetTable
from games.table.models import Table
from games.table.replay import verify
from tests.builders import make_table
from tests.conftest import ServerProcess
from tests.e2e.pages import join_table, moved_past, open_table_screen, shoot, turn_comes_to

# A whole 15-turn game through three phones is a long proof: `make proof` (and CI) plays it; `make
# test` keeps Kismet's seats, pages and themes (tests/e2e/test_table_seats.py, test_table_themes.py).
pytestmark = [pytest.mark.e2e, pytest.mark.proof, pytest.mark.django_db(transaction=True)]

EXPECT_TIMEOUT_MS = 15_000
NAMES = ["Ada", "Bea", "Cal", "Dot"]
REAL, BOT = 0, 3
# Ada's real dice, turn by turn: a Kismet, then a second one, then dice that are never five alike.
ADA_DICE = [[6, 6, 6, 6, 6], [5, 5, 5, 5, 5]] + [
    [1, 2, 3, 4, 5], [2, 2, 3, 3, 3], [1, 1, 6, 6, 6], [4, 4, 4, 4, 2], [2, 3, 4, 5, 6], [3, 3, 4, 4, 1],
    [5, 5, 2, 2, 2], [6, 6, 6, 1, 2], [1, 1, 1, 3, 4], [2, 2, 2, 5, 6], [3, 3, 3, 6, 1], [4, 4, 4, 1, 2],
    [5, 5, 5, 1, 3], [6, 6, 1, 2, 3],
]


def game_of(table: Table) -> KismetTable:
    table.refresh_from_db()
    game = table.loaded()
    assert isinstance(game, KismetTable)
    return game


def type_in(phone: Page, dice: list[int]) -> None:
    """Ada taps in her five faces on the pad, then Enter."""
    for face in dice:
        phone.get_by_role("button", name=f"Face {face}", exact=True).click()
    phone.get_by_role("button", name="Enter " + " ".join(map(str, dice))).click()


def score_first_option(phone: Page, table: Table) -> str:
    """Tap the first box offered (the best score first) and wait until the page has the score;
    the box's name."""
    number = Table.objects.get(pk=table.pk).moves_made
    option = phone.locator("#options button").first
    box = option.get_attribute("data-box")
    assert box
    option.click()
    moved_past(phone, number)
    return box


def test_three_phones_and_a_bot_play_kismet_with_real_and_server_dice_and_a_second_kismet(
        table_site: ServerProcess, new_phone, browser) -> None:
    table = make_table(4, game="kismet", options={"real_seats": [REAL]}, bots=["", "", "", "threshold"], seed=19)
    url = table_site.url
    phones = [join_table(new_phone(), url, table.code, name) for name in NAMES[:3]]
    screen = open_table_screen(browser, url, table)
    expect(screen.locator("#sheets table")).to_have_count(4)
    expect(phones[REAL].locator(".kismet-dice-mode")).to_contain_text("Ada types in real dice")

    ada_turns = 0
    second_kismet_seen = held = shot = False
    while True:
        table.refresh_from_db()
        if table.is_over:
            break
        number = table.moves_made
        game = game_of(table)
        seat = game.to_move()[0]
        if seat == BOT:
            moved_past(screen, number)
            continue
        phone, waiting = turn_comes_to(phones, seat, number)
        expect(waiting.locator("#options button, #actions button")).to_have_count(0)
        if seat == REAL:
            dice = ADA_DICE[ada_turns]
            ada_turns += 1
            type_in(phone, dice)
            moved_past(phone, number)
            if dice == [5, 5, 5, 5, 5]:
                expect(phone.locator("#roll-line")).to_contain_text("SECOND KISMET")
                for unqualified in ("Straight", "Full House", "Kismet "):  # the dice don't qualify: not offered
                    expect(phone.locator("#options")).not_to_contain_text(unqualified)
                phone.get_by_role("button", name="Four of a Kind 50").click()
                moved_past(phone, number + 1)
                last = game_of(table).state.last
                assert last is not None and last.second_kismet and len(last.zeroed) == 3
                for name, box in last.zeroed:
                    page = screen if name == "Dot" else phones[NAMES.index(name)]
                    expect(page.locator("#penalty")).to_contain_text(
                        f"a 0 in {kismet.BOX_LABELS[box]}" if page is screen else
                        f"your sheet gets a 0 in {kismet.BOX_LABELS[box]} and you lose this turn")
                    if page is not screen:
                        expect(page.locator(f'#sheet tr[data-box="{box}"] td')).to_have_text("0")
                assert game_of(table).to_move() == (REAL,)
                second_kismet_seen = True
                continue
            score_first_option(phone, table)
        else:
            phone.get_by_role("button", name="Roll the dice").click()
            moved_past(phone, number)
            expect(phone.locator("#options button").first).to_be_visible()
            if not shot:
                shot = True
                expect(screen.locator("#dice .die")).to_have_count(5)
                shoot(phone, "kismet-phone-roll.png", full_page=True)
                shoot(screen, "kismet-screen.png", full_page=True)
            if not held:  # Bea holds two dice and rolls the other three
                held = True
                first = game_of(table).state.turn
                assert first is not None
                phone.locator("#dice button").nth(0).click()
                phone.locator("#dice button").nth(1).click()
                phone.get_by_role("button", name=re.compile("^Roll again, holding")).click()
                moved_past(phone, number + 1)
                turn = game_of(table).state.turn
                assert turn is not None and turn.rolls == 2 and sorted(turn.dice[:2]) == sorted(first.dice[:2])
            score_first_option(phone, table)

    assert second_kismet_seen and held
    game = game_of(table)
    assert all(sheet.is_full for sheet in game.state.sheets)
    totals = [sheet.basic_total + kismet.basic_bonus(sheet.basic_total) + sheet.kismet_total
              for sheet in game.state.sheets]
    final = table.last_move()
    assert final is not None and list(final.scores) == totals
    best = max(totals)
    winners = [name for name, total in zip(NAMES, totals, strict=True) if total == best]
    line = " and ".join(winners) + (" win!" if len(winners) > 1 else " wins!")
    for page in (*phones, screen):
        expect(page.locator("#turn-line")).to_have_text(line)
    for name, total in zip(NAMES, totals, strict=True):
        expect(screen.locator("#scores tr", has_text=name)).to_contain_text(f"{total} · 15/15")
    assert verify(table).verified

    phones[1].get_by_role("link", name=re.compile("See the replay")).click()
    expect(phones[1].locator(".kismet-final")).to_contain_text("Basic total")
    expect(phones[1].locator(".kismet-final tr.total-row").last).to_contain_text(str(best))
    phones[1].get_by_role("link", name="Check the dice").click()
    expect(phones[1].get_by_role("status")).to_contain_text("Verified on this phone")
