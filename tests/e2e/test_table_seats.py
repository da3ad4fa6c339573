"""Seats at a game table as phones really take them (issue 29: G1, G2, G3, G5, S1, S5).

- Four new phones (no cookie yet) open one lobby, go live, and tap their names at once, for each
  game: each ends holding its own seat, follows the opener's start by itself, and plays.
- A Ninety-Nine or Bust game on four phones and the table screen where seats change hands in the
  lobby and mid-game (another seat tapped, "That's not me", the opener's "Free for another phone",
  a bot taking a seat over and handing it back): every payload each phone and the screen received
  is captured (the page's, every answer, every stream event), and no phone ever receives a hand of
  a seat it did not hold at that moment.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.sessions.backends.db import SessionStore
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import Browser, Page, Route, expect

from games.phones import PHONE_TOKEN_KEY
from games.table import actions
from games.table.models import Table, TableSeat
from live.models import Event
from tests.builders import make_table
from tests.conftest import ServerProcess
from tests.e2e.pages import desk, moved_past, shoot, take_seat, wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

NAMES = ["Ada", "Bea", "Cal", "Dot"]

# Every payload a page is sent, reported to the test as it arrives: the page's own (#table-data),
# every answer its script fetches, and every event of its stream, with the event's id.
CAPTURE = """
(() => {
  const report = (kind, data, id) => { try { window.__capture(kind, data, id || ""); } catch (e) {} };
  const Native = window.EventSource;
  function Capturing(url, options) {
    const source = new Native(url, options);
    ["message", "moved", "hand", "table_state"].forEach((type) => source.addEventListener(type, (event) => {
      let data = event.data;
      try { data = JSON.parse(event.data); } catch (e) { /* kept as text */ }
      report("stream:" + type, data, event.lastEventId);
    }));
    return source;
  }
  Capturing.prototype = Native.prototype;
  window.EventSource = Capturing;
  const nativeFetch = window.fetch.bind(window);
  window.fetch = (...args) => nativeFetch(...args).then((response) => {
    response.clone().text().then((text) => {
      try { report("fetch", JSON.parse(text), ""); } catch (e) { /* not JSON */ }
    });
    return response;
  });
  document.addEventListener("DOMContentLoaded", () => {
    const data = document.getElementById("table-data");
    if (data) report("page", JSON.parse(data.textContent), "");
  });
})();
"""


@dataclass
class Capture:
    who: str  # "phone 0".."phone 4", or "screen"
    kind: str
    data: Any
    event_id: int | None


def capturing(page: Page, who: str, captures: list[Capture]) -> Page:
    """`page` reports every payload it is sent into `captures` (from its next navigation on)."""

    def keep(_source: Any, kind: str, data: Any, event_id: str) -> None:
        captures.append(Capture(who, kind, data, int(event_id) if event_id else None))

    page.context.expose_binding("__capture", keep)
    page.context.add_init_script(CAPTURE)
    return page


def token_of(page: Page) -> str:
    """The phone's own token (games.phones), as its session on the server holds it."""
    session = next(cookie["value"] for cookie in page.context.cookies() if cookie["name"] == "sessionid")
    return str(SessionStore(session_key=session).load()[PHONE_TOKEN_KEY])


def lobby(phone: Page, url: str, table: Table) -> Page:
    phone.goto(url + reverse("tables:table", args=[table.code]))
    expect(phone.locator("[data-live-badge]")).to_have_text("Live")  # G3: every game's lobby goes live
    return phone


# --- Four new phones claim at once ----------------------------------------------------------------


def first_move(phone: Page, game: str) -> None:
    """The phone on turn makes its game's first move through its buttons."""
    if game == "fill_or_bust":
        phone.get_by_role("button", name="Turn a card").click()
    elif game == "kismet":
        phone.get_by_role("button", name="Roll the dice").click()
    else:
        phone.locator("#hand button.is-playable").first.click()


@pytest.mark.parametrize("game", ["fill_or_bust", "kismet", "ninety_nine"])
def test_four_new_phones_tapping_their_names_at_once_each_hold_their_seat_follow_the_start_and_play(
    table_site: ServerProcess, new_phone, game: str
) -> None:
    options: dict[str, Any] = {"fill_or_bust": {"goal": 2000}, "kismet": {}, "ninety_nine": {"markers": 1}}[game]
    table = make_table(4, game=game, names=NAMES, options=options, seed=29, started=False)
    phones = [lobby(new_phone(), table_site.url, table) for _ in NAMES]
    for phone, name in zip(phones, NAMES, strict=True):  # one after another, as fast as a person's taps
        phone.get_by_role("button", name=f"I'm {name}", exact=True).click(no_wait_after=True)
    for phone, name in zip(phones, NAMES, strict=True):
        expect(phone.locator(".phone-topline")).to_contain_text(f"You play {name}")
        # By its name's own element: a seat's random "part" (hex) may hold a name's letters ("beab041c").
        seat_line = phone.locator("li.seat-line").filter(has=phone.locator(".seat-name").get_by_text(name, exact=True))
        expect(seat_line).to_contain_text("you")
        expect(phone.locator("[data-live-badge]")).to_have_text("Live")
    tokens = [token_of(phone) for phone in phones]
    seats = list(TableSeat.objects.filter(table=table).order_by("number"))
    assert [seat.claimed_by for seat in seats] == tokens and len(set(tokens)) == 4

    actions.start_table(table=table)  # the opener's Start: every lobby follows by itself
    for phone in phones:
        expect(phone.locator("#play")).to_be_visible()
        expect(phone.locator("[data-live-badge]")).to_have_text("Live")
    table.refresh_from_db()
    on_turn = table.loaded().to_move()[0]
    first_move(phones[on_turn], game)
    for phone in phones:
        moved_past(phone, 0)
    for seat, phone in enumerate(phones):
        assert phone.request.get(table_site.url + reverse("tables:state", args=[table.code])).json()["seat"] == seat


# --- Seats changing hands, every payload captured --------------------------------------------------


class Holders:
    """Who held each seat from which event id on: a phone's name, "bot", or None (nobody)."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.since: dict[int, list[tuple[int, str | None]]] = {seat: [] for seat in range(len(NAMES))}

    def claimed(self, seat: int, who: str) -> None:
        held = TableSeat.objects.get(table=self.table, number=seat)
        self.since[seat].append((held.held_since, who))

    def released(self, seat: int, to: str | None = None) -> None:
        """The seat's phone let it go (to nobody, or to a bot): from its release event on."""
        event = Event.objects.filter(channel=self.table.seat_channel(seat), kind="table_state").latest("id")
        self.since[seat].append((event.id, to))

    def at(self, seat: int, event_id: int) -> str | None:
        holder = None
        for since, who in self.since[seat]:
            if since < event_id:
                holder = who
        return holder

    def ever(self, seat: int, who: str) -> bool:
        return any(holder == who for _, holder in self.since[seat])


def seats_panel(phone: Page) -> Page:
    """The page's Seats (opened if it was folded)."""
    panel = phone.locator("details.seats-panel")
    if panel.get_attribute("open") is None:
        panel.locator("summary").click()
    return phone


def seat_line(phone: Page, name: str) -> Any:
    return phone.locator("li.seat-line", has=phone.locator(".seat-name", has_text=re.compile(f"^{name}$")))


def play(phones: dict[int, Page], table: Table, moves: int) -> None:
    """`moves` moves of the game, each by the phone of the seat to move (a bot's by the bot)."""
    for _ in range(moves):
        table.refresh_from_db()
        if table.is_over:
            return
        number = table.moves_made
        seat = table.loaded().to_move()[0]
        if seat in table.bot_seats:
            moved_past(phones[0], number)  # the bot moves by itself
            continue
        phone = phones[seat]
        moved_past(phone, number - 1)
        expect(phone.locator("#play")).to_have_attribute("data-moves", str(number))
        if table.loaded().view(None).public["phase"] == "round_over":
            phone.get_by_role("button", name="Deal the next round").click()
        else:
            phone.locator("#hand button.is-playable").first.click()
        moved_past(phone, number)


def test_seats_changing_hands_in_the_lobby_and_mid_game_never_bring_a_phone_another_seats_hand(
    table_site: ServerProcess, new_phone, browser: Browser
) -> None:
    url = table_site.url
    captures: list[Capture] = []
    phones = {n: capturing(new_phone(), f"phone {n}", captures) for n in range(5)}

    # Ada's phone opens the table: its lobby shows the table screen's link and QR code (G2).
    opener = phones[0]
    opener.goto(url + reverse("tables:new"))
    opener.get_by_label("Game").select_option("ninety_nine")
    opener.get_by_label("Markers each").select_option("3")
    for number, name in enumerate(NAMES, start=1):
        opener.get_by_label(f"Seat {number}", exact=True).fill(name)
    opener.get_by_role("button", name="Open the table").click()
    table = Table.objects.get()
    screen_link = opener.locator(".screen-link a")
    expect(screen_link).to_have_attribute("href", f"{url}/g/{table.code}/screen/{table.screen_token}/")
    expect(opener.locator(".screen-link svg")).to_be_visible()
    shoot(opener, "table-opener.png", full_page=True)
    screen = capturing(desk(browser), "screen", captures)
    screen.goto(screen_link.get_attribute("href") or "")
    expect(screen.locator("[data-live-badge]")).to_have_text("Live")
    holders = Holders(table)

    # The lobby: Bea's phone first taps Cal, then its own name; everyone else taps theirs.
    for n in (1, 2, 3):
        lobby(phones[n], url, table)
    take_seat(phones[1], "Cal")
    holders.claimed(2, "phone 1")
    take_seat(phones[1], "Bea")
    holders.released(2)
    holders.claimed(1, "phone 1")
    take_seat(opener, "Ada")
    holders.claimed(0, "phone 0")
    for n, name in ((2, "Cal"), (3, "Dot")):
        take_seat(phones[n], name)
        holders.claimed(n, f"phone {n}")
    expect(opener.locator("#hand")).to_have_count(0)  # no hand in the lobby
    opener.get_by_role("button", name="Start the game").click()
    for n in range(4):
        expect(phones[n].locator("#hand [data-card]")).to_have_count(3)
    seated = {n: phones[n] for n in range(4)}
    play(seated, table, 5)

    # "That's not me": Bea's first phone lets her seat go; her own phone (a new one) takes it.
    seats_panel(phones[1])
    seat_line(phones[1], "Bea").get_by_role("button", name="That's not me").click()
    holders.released(1)
    expect(phones[1].locator(".phone-topline")).not_to_contain_text("You play")
    phones[4].goto(url + reverse("tables:table", args=[table.code]))
    take_seat(phones[4], "Bea")
    holders.claimed(1, "phone 4")
    seated[1] = phones[4]
    # The phone that played Bea may not take another seat's hidden hand (S5): Dot's, freed.
    seats_panel(opener)
    seat_line(opener, "Dot").get_by_role("button", name="Free for another phone").click()
    holders.released(3)
    seats_panel(phones[1])
    seat_line(phones[1], "Dot").get_by_role("button", name="I'm Dot").click()
    expect(phones[1].get_by_text("has seen that hand")).to_be_visible()
    assert TableSeat.objects.get(table=table, number=3).claimed_by == ""
    expect(phones[3].locator(".phone-topline")).not_to_contain_text("You play")
    take_seat(seats_panel(phones[3]), "Dot")  # Dot's own phone takes her seat back
    holders.claimed(3, "phone 3")
    play(seated, table, 5)

    # The opener frees Cal's seat: his phone is told, taps his name again.
    seats_panel(opener)
    seat_line(opener, "Cal").get_by_role("button", name="Free for another phone").click()
    holders.released(2)
    expect(phones[2].locator(".phone-topline")).not_to_contain_text("You play")
    take_seat(seats_panel(phones[2]), "Cal")
    holders.claimed(2, "phone 2")
    play(seated, table, 4)

    # A bot plays Dot for a while, then the opener takes the seat back: it is her phone's again (G5).
    seats_panel(opener)
    seat_line(opener, "Dot").get_by_role("button", name="Hand Dot to a bot").click()
    holders.released(3, to="bot")
    expect(phones[3].locator(".phone-topline")).not_to_contain_text("You play")
    play(seated, table, 6)
    seats_panel(opener)
    seat_line(opener, "Dot").get_by_role("button", name="Take back for a person").click()
    holders.claimed(3, "phone 3")
    expect(phones[3].locator(".phone-topline")).to_contain_text("You play Dot")
    expect(phones[3].locator("[data-live-badge]")).to_have_text("Live")
    play(seated, table, 6)

    for page in (*phones.values(), screen):
        page.evaluate("1")  # every report the page made has reached the test
    hands = [c for c in captures if c.kind == "stream:hand"]
    assert {c.who for c in hands} >= {"phone 0", "phone 2", "phone 4"}, "the phones were sent their hands live"
    for capture in captures:
        data = capture.data if isinstance(capture.data, dict) else {}
        private = data.get("private") or {}
        if not private:
            continue
        assert capture.who != "screen", f"the screen was sent a hand: {capture}"
        seat = private["seat"]
        if capture.kind == "stream:hand":
            assert holders.at(seat, capture.event_id or 0) == capture.who, (
                f"{capture.who} was sent {NAMES[seat]}'s hand (event {capture.event_id}), held then by "
                f"{holders.at(seat, capture.event_id or 0)}")
        else:  # a page, an answer, a snapshot: for the seat the phone asked as
            assert data.get("seat") == seat and holders.ever(seat, capture.who), (capture.who, capture.kind, seat)
            assert data.get("status") != "seating", "a hand was shown in the lobby"


# --- A move whose answer is lost; a seat nobody plays -----------------------------------------------


def two_phones_at_fill_or_bust(site: ServerProcess, new_phone: Any) -> tuple[Table, list[Page]]:
    table = make_table(2, names=NAMES[:2], seed=3, started=False)
    phones = [take_seat(lobby(new_phone(), site.url, table), name) for name in NAMES[:2]]
    table = actions.start_table(table=table)  # dealt now, with the phones' parts: who starts is known from here
    for phone in phones:
        expect(phone.locator("#play")).to_have_attribute("data-moves", "0")
        expect(phone.locator("[data-live-badge]")).to_have_text("Live")
    return table, phones


def test_a_move_whose_answer_was_lost_is_sent_again_and_the_page_stops_saying_so_once_it_went_through(
    table_site: ServerProcess, new_phone
) -> None:
    table, phones = two_phones_at_fill_or_bust(table_site, new_phone)
    phone = phones[table.loaded().to_move()[0]]
    tries: list[str] = []

    def lose_the_first_answer(route: Route) -> None:
        tries.append(route.request.url)
        if len(tries) == 1:
            route.fetch()  # the server takes the move...
            route.abort("connectionreset")  # ...and the phone never hears back
        else:
            route.continue_()

    phone.route(f"**/g/{table.code}/move/", lose_the_first_answer)
    phone.get_by_role("button", name="Turn a card").click()
    wait_until(phone, lambda: len(tries) == 2, "the phone never sent its move again")
    expect(phone.locator("#play")).to_have_attribute("data-moves", "1")
    expect(phone.locator("#move-message")).to_be_hidden()  # not "No answer yet: sending the move again…"
    assert Table.objects.get(pk=table.pk).moves_made == 1


def test_every_page_says_when_the_game_waits_on_a_seat_nobody_plays_until_a_bot_takes_it(
    table_site: ServerProcess, new_phone
) -> None:
    table, phones = two_phones_at_fill_or_bust(table_site, new_phone)
    on_turn = table.loaded().to_move()[0]
    name, other = NAMES[on_turn], phones[1 - on_turn]
    actions.release_seat(table=table, number=on_turn)
    notice = other.locator("#unheld")
    expect(notice).to_have_text(f"Waiting for {name}: no phone plays this seat. {name}, tap your name under Seats.")
    expect(other.locator("details.seats-panel")).to_have_attribute("open", "")
    expect(seat_line(other, name).get_by_role("button", name=f"I'm {name}")).to_be_visible()
    actions.hand_seat_to_bot(table=table, number=on_turn, level="threshold")
    expect(notice).to_be_hidden()
    moved_past(other, 0)  # the bot plays the seat


def test_a_phone_offline_past_the_patience_has_a_bot_play_its_turn_and_takes_its_seat_back_with_one_tap(
    table_site: ServerProcess, new_phone
) -> None:
    """Issue 33: the phone on turn goes off the Wi-Fi; once the table's patience (1 minute, as the
    opener chose) has passed, a bot plays the seat and every page says so; back online, the phone
    offers its seat back and one tap takes it, the game carrying on from where the bot left it."""
    table = make_table(2, names=NAMES[:2], seed=3, started=False, patience_seconds=60)
    phones = [take_seat(lobby(new_phone(), table_site.url, table), name) for name in NAMES[:2]]
    expect(phones[0].locator("#patience")).to_have_text(
        "A phone that goes quiet for 1 minute mid-game has a bot play its seat until it's back.")
    table = actions.start_table(table=table)
    for phone in phones:
        expect(phone.locator("#play")).to_have_attribute("data-moves", "0")
        expect(phone.locator("[data-live-badge]")).to_have_text("Live")
    on_turn = table.loaded().to_move()[0]
    asleep, awake, name = phones[on_turn], phones[1 - on_turn], NAMES[on_turn]
    # A shown page says "still here" every 20 s, and at once when it is shown again: the seat's
    # patience starts anew.
    before = TableSeat.objects.get(table=table, number=1 - on_turn).quiet_at
    with awake.expect_response(lambda answer: answer.url.endswith("/here/")) as heard:
        awake.evaluate("() => document.dispatchEvent(new Event('visibilitychange'))")
    assert heard.value.status == 204
    after = TableSeat.objects.get(table=table, number=1 - on_turn).quiet_at
    assert before is not None and after is not None and after > before
    asleep.context.set_offline(True)
    # As if the minute had passed with the phone silent (the other phone's page says "still here"
    # every 20 s, so its seat stays its own): the bots' clock gives the seat to a bot, which plays.
    TableSeat.objects.filter(table=table, number=on_turn).update(quiet_at=timezone.now() - timedelta(seconds=1))
    expect(seat_line(awake, name)).to_contain_text(f"a bot (steady) plays until {name}'s phone is back")
    moved_past(awake, 0)
    expect(awake.locator("#scores")).to_contain_text(f"{name} · a bot until the phone is back")
    assert TableSeat.objects.get(table=table, number=on_turn).is_bot
    assert not TableSeat.objects.get(table=table, number=1 - on_turn).is_bot

    asleep.context.set_offline(False)  # back on the Wi-Fi: its stream reconnects and the page is told
    back = asleep.get_by_role("button", name=f"I'm back: play {name}")
    expect(asleep.locator("#kept-seat")).to_contain_text(f"a bot has been playing {name} for you")
    shoot(asleep, "table-seat-kept.png")
    back.click()
    expect(asleep.locator(".phone-topline")).to_contain_text(f"You play {name}")
    expect(asleep.locator("[data-live-badge]")).to_have_text("Live")
    seat = TableSeat.objects.get(table=table, number=on_turn)
    assert not seat.is_bot and seat.claimed_by and seat.quiet_at is not None
    expect(seat_line(awake, name)).to_contain_text("on a phone")
