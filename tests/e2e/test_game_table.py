"""Fill or Bust at a game table, in the browser: three phones and a bot play to the short goal
(2,000) with a bust, a fill and a Vengeance; the table screen follows live; a phone reloads in the
middle of its turn and carries on; a phone not on turn has no buttons and its forged move is
refused. Then the replay shows the seed and the dice check out.

The table is dealt from a fixed seed and code (tests/builders.py make_table), its phones send no
part of their own to the chance (WITHOUT_PARTS), and they make the same deterministic choices as
`phone_choice` below, so the game is known in advance: `simulate` plays it offline with the pure
engine and the bot, and SEED is one under which a phone busts, a phone fills and a Vengeance hits
(found by running `simulate` over seeds)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Page, expect

from games.rules import dice
from games.rules.fill_or_bust import FillOrBustTable, StartRoll
from games.table import bots
from games.table.models import Table
from games.table.renderers import said_of
from tests.builders import make_table
from tests.conftest import ServerProcess
from tests.e2e.pages import (
    join_table,
    keep_dice,
    moved_past,
    open_table_screen,
    shoot,
    turn_comes_to,
)

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

EXPECT_TIMEOUT_MS = 15_000
NAMES = ["Ada", "Bea", "Cal", "Dot"]
BOT = 3  # Dot
SEED = 3
STOP_AT = 350  # a phone banks under a BONUS card once this much is at risk


def phone_choice(game: FillOrBustTable, seat: int) -> dict[str, Any]:
    """What a phone at this test's table does: turn a card, play every Vengeance, set aside the
    maximal keep, bank under a BONUS card at STOP_AT, bank after a Fill, end after a safe bank."""
    kinds = [move["kind"] for move in game.legal_moves(seat)]
    state = game.state
    if "draw" in kinds:
        return {"kind": "draw"}
    if "play" in kinds:
        return {"kind": "play"}
    if "keep" in kinds:
        return {"kind": "keep", "dice": list(state.legal_keeps()[0][0])}
    if "toss" in kinds:
        return {"kind": "stop"} if "stop" in kinds and state.pending + state.card_points >= STOP_AT else {"kind": "toss"}
    return {"kind": "stop"} if "stop" in kinds else {"kind": "end"}


def simulate(seed: str, code: str) -> list[tuple[int, str, str]]:
    """The game this test plays at table `code`, offline: (seat, kind, the move in words) for every
    move. No phone brings a part to its chance here (WITHOUT_PARTS)."""
    from games.rules.registry import GAMES

    game = FillOrBustTable.new(NAMES, dice.ChanceStream(seed, code, 0, ",,,"), goal=2000)
    said = []
    number = 0
    while not game.is_over:
        number += 1
        seat = game.to_move()[0]
        choice = (bots.choose_move(game, seat, "threshold", bots.bot_rng(seed, number)) if seat == BOT
                  else phone_choice(game, seat))
        after = game.apply(seat, choice, dice.ChanceStream(seed, code, number, ""))
        chance = GAMES["fill_or_bust"].chance(game, after)
        said.append((seat, choice["kind"], said_of({"seat": seat, "move": choice, "chance": chance},
                                                   after.view(None).public)))
        game = after
    return said


def watch_said(page: Page) -> None:
    """Keep every line the page says about the moves (#said), for the test to collect."""
    page.evaluate("""() => {
        window.saidLog = [];
        const said = document.getElementById("said");
        new MutationObserver(() => window.saidLog.push(said.textContent))
            .observe(said, {childList: true, characterData: true, subtree: true});
    }""")


def said_so_far(page: Page) -> list[str]:
    """What the page said since last asked; nothing if it is reloading (the bot's last move ended
    the game: the pages are drawn anew for the result)."""
    try:
        return page.evaluate("() => window.saidLog ? window.saidLog.splice(0) : []")
    except PlaywrightError:
        return []








# The phones' parts of each move's chance (docs/FAIRNESS.md) are random, so a game planned offline has
# its phones send none (the server takes a move without one, as from a page of before version 2).
# tests/e2e/test_table_parts.py plays with the parts.
WITHOUT_PARTS = """(() => {
    const set = FormData.prototype.set;
    FormData.prototype.set = function (name, value) { return set.call(this, name, name === "client" ? "" : value); };
})();"""


# A whole game to the goal through three phones is a long proof: `make proof` (and CI) plays it;
# `make test` keeps this file's start roll and the seats' tests of every game.
@pytest.mark.proof
def test_three_phones_and_a_bot_play_fill_or_bust_to_the_goal(table_site: ServerProcess, new_phone, browser) -> None:
    seed = f"{SEED:064x}"
    # A seed (searched offline once) under which a phone busts, a phone fills and a Vengeance hits.
    code = f"fob{SEED}"
    planned = simulate(seed, code)
    assert any("BUST!" in said for seat, _, said in planned if seat != BOT)
    assert any("FILL!" in said for seat, _, said in planned if seat != BOT)
    assert any("VENGEANCE hits" in said for seat, _, said in planned if seat != BOT)

    table = make_table(4, bots=["", "", "", "threshold"], seed=SEED, code=code)
    url = table_site.url
    phones = []
    for name in NAMES[:3]:
        phone = new_phone()
        phone.add_init_script(WITHOUT_PARTS)
        phones.append(join_table(phone, url, table.code, name))
    screen = open_table_screen(browser, url, table)
    expect(screen.locator("[data-commitment]")).to_have_text(table.commitment)
    for phone in phones:
        expect(phone.locator("[data-commitment]")).to_have_text(table.commitment)
    watch_said(screen)
    watch_said(phones[2])

    reloaded = forged = tossed_on_screen = False
    seen: dict[str, list[str]] = {"screen": [], "phone": []}
    while True:
        table.refresh_from_db()
        if table.is_over:
            break
        for name, page in (("screen", screen), ("phone", phones[2])):
            seen[name] += said_so_far(page)
        number = table.moves_made
        game = table.loaded()
        assert isinstance(game, FillOrBustTable)
        seat = game.to_move()[0]
        if seat == BOT:  # the clock moves Dot (maybe several moves): the screen follows
            moved_past(screen, number)
            continue
        phone, waiting = turn_comes_to(phones, seat, number)
        expect(waiting.locator("#turn-line")).to_have_text(f"{NAMES[seat]}'s turn")
        expect(waiting.locator("#actions button")).to_have_count(0)
        expect(waiting.locator("#dice button")).to_have_count(0)
        if not forged:  # a phone not on turn forges a move: refused, nothing changes
            forged = True
            token = next(c["value"] for c in waiting.context.cookies() if c["name"] == "csrftoken")
            forgeries: list[tuple[dict[str, str | float | bool], int]] = [
                ({"kind": "draw", "seat": str(seat)}, 403), ({"kind": "draw"}, 409)]
            for fields, status in forgeries:
                answer = waiting.request.post(f"{url}/g/{table.code}/move/", form=fields,
                                              headers={"X-CSRFToken": token})
                assert answer.status == status and answer.json()["error"]
            assert Table.objects.get(pk=table.pk).moves_made == number

        choice = phone_choice(game, seat)
        if choice["kind"] == "keep" and not reloaded and seat == 1:  # mid-turn: the page reloads
            reloaded = True
            phone.reload()
            expect(phone.locator("[data-live-badge]")).to_have_text("Live")
            expect(phone.locator("#turn-line")).to_have_text("Your turn")
        if choice["kind"] == "keep":
            expect(phone.locator("#dice .die")).to_have_count(len(game.state.last_toss or ()))
            if not tossed_on_screen:
                tossed_on_screen = True
                expect(screen.locator("#dice .die")).to_have_count(len(game.state.last_toss or ()))
                shoot(phone, "table-phone-toss.png")
                shoot(screen, "table-screen.png")
            if game.state.legal_keeps() and game.state.card is not None and game.state.card.value == "MUST_BUST":
                expect(phone.locator("#keep-line")).to_contain_text("MUST BUST")
                phone.get_by_role("button", name=re.compile("^Set aside")).click()
            else:
                keep_dice(phone, choice["dice"])
        else:
            label = {"draw": "Turn a card", "play": "Play the Vengeance", "toss": "Toss ", "stop": "Stop and bank",
                     "end": "End the turn"}[choice["kind"]]
            phone.get_by_role("button", name=re.compile("^" + label)).click()
        moved_past(phone, number)

    assert table.moves_made == len(planned)
    assert reloaded and forged and tossed_on_screen
    winner = Table.objects.get(pk=table.pk).loaded().view(None).public["winners"][0]
    for page in (*phones, screen):
        expect(page.locator("#turn-line")).to_have_text(f"{winner} wins!")
    for said in ("\n".join(lines) for lines in seen.values()):
        assert "BUST!" in said and "FILL!" in said and "VENGEANCE hits" in said, said[-2000:]

    phones[0].get_by_role("link", name="See the replay and check the dice").click()
    expect(phones[0].locator(".seed")).to_have_text(table.seed)
    phones[0].get_by_role("button", name="Show all").click()
    expect(phones[0].locator("[data-step-item]").last).to_be_visible()
    shoot(phones[0], "table-replay.png")
    phones[0].get_by_role("link", name="Check the dice").click()
    expect(phones[0].get_by_role("status")).to_contain_text("Verified on this phone")


def test_a_refresh_under_a_finger_keeps_the_button_so_the_tap_counts(table_site: ServerProcess, new_phone) -> None:
    """A tap is a press and a release. The table's page redraws its buttons on every refresh (the
    poll, an event): had a refresh swapped the button for a copy between the two, the release would
    land on another element and no click would happen (a plain rebuild shows it here). TableLive's
    redraw keeps every element that stays, so the tap counts."""
    table = make_table(2, seed=3)
    phone = join_table(new_phone(), table_site.url, table.code, NAMES[0])
    phone.evaluate("""() => {
        const box = document.createElement("div");
        box.id = "redraw-check";
        box.style.cssText = "position:fixed;top:0;left:0;z-index:1000;background:white";
        document.body.appendChild(box);
        window.keepTaps = 0;
        box.addEventListener("click", (event) => {
            const button = event.target.closest("button");
            if (button && button.textContent === "Keep") window.keepTaps++;
        });
        window.drawButtons = (labels) => (copy) => labels.forEach((label) => {
            const button = document.createElement("button");
            button.textContent = label;
            button.style.cssText = "display:block;width:200px;height:60px";
            copy.appendChild(button);
        });
        TableLive.redraw(box, window.drawButtons(["Roll", "Keep"]));
    }""")
    keep = phone.locator("#redraw-check button", has_text="Keep")
    spot = keep.bounding_box()
    assert spot is not None
    x, y = spot["x"] + spot["width"] / 2, spot["y"] + spot["height"] / 2

    def tap_while(refresh: str) -> int:
        before = phone.evaluate("window.keepTaps")
        phone.mouse.move(x, y)
        phone.mouse.down()
        phone.evaluate(refresh)
        phone.mouse.up()
        return phone.evaluate("window.keepTaps") - before

    # A plain rebuild between press and release: the tap is lost (what the pages did before).
    assert tap_while("""() => { const box = document.getElementById("redraw-check");
        box.textContent = ""; window.drawButtons(["Roll", "Keep"])(box); }""") == 0
    # The same state again, then a change to the other button: the tap counts each time.
    assert tap_while("() => TableLive.redraw(document.getElementById('redraw-check'), window.drawButtons(['Roll', 'Keep']))") == 1
    assert tap_while("() => TableLive.redraw(document.getElementById('redraw-check'), window.drawButtons(['Roll again', 'Keep']))") == 1
    expect(phone.locator("#redraw-check button").first).to_have_text("Roll again")


def start_roll_shown(page: Page) -> list[tuple[str, int]]:
    """Each player and die the page's start roll shows, in order (rounds one after the other)."""
    return [(name, face) for name, face in page.locator("#start-roll .start-roll-player").evaluate_all(
        "els => els.map(e => [e.firstChild.textContent.trim(), Number(e.dataset.face)])")]


def dealt_start_roll(seed: int) -> StartRoll:
    """The start roll of the table `make_table(3, seed=seed, code=f"roll{seed}")` deals at its start
    when no phone claimed a seat in the lobby."""
    chance = dice.ChanceStream(f"{seed:064x}", f"roll{seed}", 0, ",,")
    roll = FillOrBustTable.new(NAMES[:3], chance, goal=2000).state.start_roll
    assert roll is not None
    return roll


def game_at(table: Table) -> FillOrBustTable:
    """The game at `table` as stored now."""
    game = Table.objects.get(pk=table.pk).loaded()
    assert isinstance(game, FillOrBustTable)
    return game


def test_the_phones_and_the_screen_show_who_starts_and_every_die_of_the_start_roll(
        table_site: ServerProcess, new_phone, browser) -> None:
    from games.table import actions

    # A seed whose start roll ties (the tied players roll again): searched offline, like `simulate`.
    seed = next(s for s in range(1, 200) if len(dealt_start_roll(s).rounds) > 1)
    table = make_table(3, seed=seed, started=False, code=f"roll{seed}")
    roll = dealt_start_roll(seed)
    every_die = [pair for dice in roll.rounds for pair in dice]
    url = table_site.url

    lobby = new_phone()
    lobby.goto(f"{url}/g/{table.code}/")
    screen = open_table_screen(browser, url, table)
    for page in (lobby, screen):  # the dice are rolled when the game starts, with the phones' parts
        expect(page.locator("[data-commitment]")).to_have_text(table.commitment)
        expect(page.locator("#start-roll")).to_be_hidden()

    actions.start_table(table=table)
    for page in (lobby, screen):  # (the start reaches the pages live)
        shown = page.locator("#start-roll")
        expect(shown).to_be_visible()
        expect(shown).to_have_attribute("aria-label", roll.words())
        expect(shown.locator(".start-roll-starter")).to_have_text(f"{roll.starter} starts.")
        expect(shown.locator(".start-roll-round")).to_have_count(len(roll.rounds))
        expect(shown.locator(".start-roll-round").nth(1)).to_contain_text("A tie, so they rolled again")
        assert start_roll_shown(page) == every_die
    phone = join_table(new_phone(), url, table.code, roll.starter)
    expect(phone.locator("#turn-line")).to_have_text("Your turn")
    expect(screen.locator("#turn-line")).to_have_text(f"{roll.starter}'s turn")
    for page in (phone, screen):
        expect(page.locator("#start-roll .start-roll-starter")).to_have_text(f"{roll.starter} starts.")
        assert start_roll_shown(page) == every_die
    shoot(screen, "table-screen-start-roll.png")
    shoot(phone, "table-phone-start-roll.png", full_page=True)

    # The first turn ends (played here through the actions): the start roll has had its time.
    while not (game := game_at(table)).state.turns:
        seat = game.to_move()[0]
        actions.make_move(table=table, seat=seat,
                          move=bots.choose_move(game, seat, "threshold", bots.bot_rng("start", seat)))
    for page in (phone, screen):
        expect(page.locator("#start-roll")).to_be_hidden()
