"""Issue 42 on real pages: the opener's "Take back for a person" on the seat of a phone gone quiet
(G1), a refusal said on the page the phone was on (G2), and the live badge after a move given up
in an outage (G3)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import Page, Route, expect

from games.table import actions
from games.table.models import Table, TableSeat
from tests.builders import make_table
from tests.conftest import ServerProcess
from tests.e2e.pages import take_seat
from tests.e2e.test_table_seats import NAMES, lobby, seat_line, seats_panel, token_of

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def page_url(site: ServerProcess, table: Table) -> str:
    return site.url + reverse("tables:table", args=[table.code])


def opened_by_the_first_phone(site: ServerProcess, new_phone: Any, **fields: Any) -> tuple[Table, list[Page]]:
    """Two phones at Fill or Bust, the first the table's opener, the game started and both live."""
    table = make_table(2, names=NAMES[:2], seed=3, started=False, **fields)
    phones = [take_seat(lobby(new_phone(), site.url, table), name) for name in NAMES[:2]]
    Table.objects.filter(pk=table.pk).update(opener_token=token_of(phones[0]))
    table = actions.start_table(table=Table.objects.get(pk=table.pk))
    for phone in phones:
        expect(phone.locator("#play")).to_have_attribute("data-moves", "0")
        expect(phone.locator("[data-live-badge]")).to_have_text("Live")
    return table, phones


def test_the_opener_takes_an_away_phones_seat_back_for_it_only_once_that_phone_is_back(
    table_site: ServerProcess, new_phone: Any
) -> None:
    """G1 (and G2): Bea's phone goes off the Wi-Fi mid-game and a bot covers her seat. The opener's
    "Take back for a person" is told, on the table's own page, that her phone is away: the bot
    plays on (before, the seat went straight back to the silent phone, the Seats said "on a phone"
    and the game waited a whole patience again). Back online, her page offers "I'm back", and the
    opener's tap now hands her the seat."""
    table, (opener, away) = opened_by_the_first_phone(table_site, new_phone, patience_seconds=60)
    away.context.set_offline(True)
    # As if the minute had passed with Bea's phone silent (the opener's page says "still here").
    TableSeat.objects.filter(table=table, number=1).update(quiet_at=timezone.now() - timedelta(seconds=1))
    bea = seat_line(seats_panel(opener), "Bea")
    expect(bea).to_contain_text("a bot (steady) plays until Bea's phone is back")

    bea.get_by_role("button", name="Take back for a person").click()
    expect(opener.locator("#refusal")).to_contain_text("Bea's phone is away")
    expect(opener).to_have_url(page_url(table_site, table))  # the table's page, live, not a page of its own
    expect(opener.locator("[data-live-badge]")).to_have_text("Live")
    expect(seat_line(seats_panel(opener), "Bea")).to_contain_text("plays until Bea's phone is back")
    assert TableSeat.objects.get(table=table, number=1).is_bot

    away.context.set_offline(False)  # back: its page reconnects, reloads, and is heard from
    expect(away.get_by_role("button", name="I'm back: play Bea")).to_be_visible()
    seat_line(seats_panel(opener), "Bea").get_by_role("button", name="Take back for a person").click()
    expect(away.locator(".phone-topline")).to_contain_text("You play Bea")
    expect(seat_line(seats_panel(opener), "Bea")).to_contain_text("on a phone")
    expect(opener.locator("#refusal")).to_have_count(0)


def test_a_refused_seat_tap_is_said_on_the_live_table_page_which_a_reload_shows_again(
    table_site: ServerProcess, new_phone: Any
) -> None:
    """G2: a phone taps a seat another phone took a moment before (its Seats not yet redrawn): the
    refusal is said on the table's page, whose stream is open and whose address is the table's,
    so a reload shows the table again (before: a page of its own, no stream, a blank 405)."""
    table = make_table(2, names=NAMES[:2], seed=3, started=False)
    late = lobby(new_phone(), table_site.url, table)
    late.route("**/events/table/**", lambda route: route.abort())  # it hears nothing of the claim below
    late.reload()
    other = take_seat(lobby(new_phone(), table_site.url, table), "Bea")
    expect(seat_line(other, "Bea")).to_contain_text("you")
    late.unroute("**/events/table/**")
    late.get_by_role("button", name="I'm Bea", exact=True).click()
    expect(late.locator("#refusal")).to_contain_text("Bea is already playing on another phone")
    expect(late).to_have_url(page_url(table_site, table))
    expect(late.locator("[data-live-badge]")).to_have_text("Live")
    late.reload()
    expect(late.locator("#lobby-title")).to_contain_text("take your seats")
    expect(late.locator("#refusal")).to_have_count(0)


def test_after_a_move_given_up_in_an_outage_the_badge_says_live_again_while_the_stream_is_open(
    table_site: ServerProcess, new_phone: Any
) -> None:
    """G3: every try of a move fails (the moves' address unreachable while the stream stays open);
    the badge says "Reconnecting…" while the phone tries, and once the move is given up it says what
    the stream says, "Live", not "Reconnecting…" until the next tap goes through."""
    table, phones = opened_by_the_first_phone(table_site, new_phone)
    phone = phones[table.loaded().to_move()[0]]
    tries: list[str] = []

    def unreachable(route: Route) -> None:
        tries.append(route.request.url)
        route.abort("connectionrefused")

    phone.route(f"**/g/{table.code}/move/", unreachable)
    phone.get_by_role("button", name="Turn a card").click()
    expect(phone.locator("#move-message")).to_have_text("Not sent: no connection. Check the game above, then move again.")
    assert len(tries) == 5  # static/js/send.js's TRIES: one policy for taps and moves
    expect(phone.locator("[data-live-badge]")).to_have_text("Live")
    assert Table.objects.get(pk=table.pk).moves_made == 0
