"""Issue 33: a seat whose phone goes quiet mid-game (asleep, out of the room, off the Wi-Fi) for
longer than the table's patience, chosen by whoever opened it (never, 1, 2 or 5 minutes), is
played by a bot until the phone is back, which takes it back with one tap; a phone heard from
within the patience keeps its seat and its hand."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from games.table import actions
from games.table.models import Table, TableSeat
from games.table.tasks import move_due_bots
from live.models import Event
from tests.builders import make_table, seated_phone, to_move
from tests.builders import table_url as url

pytestmark = pytest.mark.django_db

MINUTE = 60


def seat(table: Table, number: int) -> TableSeat:
    return table.seats.get(number=number)


def later(seconds: float):
    return timezone.now() + timedelta(seconds=seconds)


def test_a_phone_quiet_past_the_patience_has_a_bot_play_its_seat_until_it_takes_it_back_with_one_tap() -> None:
    table = make_table(2, patience_seconds=MINUTE)
    phones = [seated_phone(table, number) for number in range(2)]

    assert actions.cover_quiet_seats(later(MINUTE - 5)) == 0  # within the patience: nothing happens
    assert actions.cover_quiet_seats(later(MINUTE + 5)) == 2  # neither phone was heard from since
    covered = seat(table, 0)
    assert covered.bot_level == actions.QUIET_SEAT_BOT and covered.claimed_by == ""
    said = Event.objects.filter(channel=table.channel, kind="table_state").order_by("-id").values_list("data", flat=True)
    assert {"what": "seat_to_bot", "seat": 0, "level": actions.QUIET_SEAT_BOT, "quiet": True} in list(said)
    page = phones[0].get(url("table", table)).content.decode()
    assert "a bot has been playing <strong>Ada</strong> for you" in page and "I'm back: play Ada" in page
    assert "I'm back" not in Client().get(url("table", table)).content.decode()  # only for its phone

    assert phones[0].post(url("back", table)).status_code == 302  # one tap
    back = seat(table, 0)
    assert back.bot_level == "" and back.claimed_by and back.quiet_at is not None
    assert phones[0].get(url("state", table)).json()["seat"] == 0
    assert table.seats.filter(number=1).values_list("bot_level", flat=True).get() == actions.QUIET_SEAT_BOT


def test_a_phone_heard_from_within_the_patience_keeps_its_seat_and_its_hand() -> None:
    table = make_table(2, patience_seconds=2 * MINUTE)
    phones = [seated_phone(table, number) for number in range(2)]
    with time_machine.travel(later(2 * MINUTE - 10), tick=False):
        assert phones[0].post(url("here", table)).status_code == 204  # its page, shown: "still here"
    with time_machine.travel(later(3 * MINUTE), tick=False):
        assert phones[1].get(url("table", table)).status_code == 200  # its page loaded: heard too
    assert actions.cover_quiet_seats(later(2 * MINUTE + 10)) == 0
    assert actions.cover_quiet_seats(later(4 * MINUTE + 10)) == 1  # seat 0 last heard at 2 min - 10 s
    assert seat(table, 0).is_bot and not seat(table, 1).is_bot


def test_a_move_is_heard_from_its_phone() -> None:
    table = make_table(2, patience_seconds=MINUTE)
    on_turn = to_move(table)
    phone = seated_phone(table, on_turn)
    seated_phone(table, 1 - on_turn)
    with time_machine.travel(later(50), tick=False):
        assert phone.post(url("move", table), {"kind": "draw", "key": "k-1"}).status_code == 200
    assert actions.cover_quiet_seats(later(MINUTE + 5)) == 1  # the other phone only
    assert not seat(table, on_turn).is_bot


def test_a_table_without_patience_waits_for_its_phones_however_long() -> None:
    table = make_table(2, patience_seconds=0)
    [seated_phone(table, number) for number in range(2)]
    assert table.seats.exclude(quiet_at=None).count() == 0
    assert actions.cover_quiet_seats(later(24 * 60 * MINUTE)) == 0
    assert table.seats.exclude(bot_level="").count() == 0


def test_the_bots_clock_covers_a_quiet_seat_on_turn_and_its_bot_plays_it() -> None:
    table = make_table(2, patience_seconds=MINUTE)
    on_turn = to_move(table)
    [seated_phone(table, number) for number in range(2)]
    moves = table.moves_made
    assert move_due_bots(later(MINUTE + 60)) == 1  # the beat covers both seats, and the one on turn moves
    table.refresh_from_db()
    assert table.moves_made == moves + 1 and table.moves.get(number=moves + 1).seat == on_turn


def test_only_the_phone_the_bot_covers_for_takes_the_seat_back() -> None:
    table = make_table(2, patience_seconds=MINUTE)
    seated_phone(table, 0)
    other = seated_phone(table, 1)
    with time_machine.travel(later(30), tick=False):
        other.post(url("here", table))
    assert actions.cover_quiet_seats(later(MINUTE + 5)) == 1  # seat 0's phone only
    answer = Client().post(url("back", table))
    assert answer.status_code == 403 and b"No seat here is kept for this phone" in answer.content
    answer = other.post(url("back", table))
    assert answer.status_code == 409 and b"This phone plays Bea already" in answer.content
    assert seat(table, 0).is_bot
    assert Client().get(url("here", table)).status_code == 405


def test_a_patience_not_on_the_list_is_refused_and_the_form_offers_the_list() -> None:
    with pytest.raises(actions.BadMove, match="how long a quiet phone keeps its seat"):
        make_table(2, patience_seconds=61)
    form = Client().get(url_new()).content.decode()
    assert '<option value="120" selected>2 minutes</option>' in form and '<option value="0">' in form


def test_a_table_opened_on_the_form_keeps_the_patience_chosen_and_its_lobby_says_so() -> None:
    phone = Client()
    phone.get(url_new())
    answer = phone.post(url_new(), {"game": "fill_or_bust", "goal": "2000", "patience": "300",
                                    "name_0": "Ada", "who_0": "person", "name_1": "Bea", "who_1": "person"})
    assert answer.status_code == 302, answer.content.decode()[:2000]
    table = Table.objects.get()
    assert table.patience_seconds == 300
    assert "goes quiet for 5 minutes mid-game" in phone.get(url("table", table)).content.decode()


def url_new() -> str:
    from django.urls import reverse

    return reverse("tables:new")


def test_the_opener_hands_a_quiet_phones_seat_back_to_it_only_once_that_phone_is_heard_from() -> None:
    """Issue 42 (G1): "Take back for a person" on a seat a bot plays because its phone went quiet.
    Handed back while the phone is still away, the game would wait a whole patience for nobody: the
    opener is told the phone is away and the bot plays on; once the phone is heard from (its page,
    with "I'm back" on it), the opener's tap hands the seat back to it."""
    table = make_table(2, patience_seconds=MINUTE)
    phones = [seated_phone(table, number) for number in range(2)]
    with time_machine.travel(later(MINUTE + 5), tick=False):
        assert actions.cover_quiet_seats() == 2
        with pytest.raises(actions.NotNow, match="Ada's phone is away"):
            actions.take_seat_back(table=table, number=0)
        assert seat(table, 0).is_bot and seat(table, 0).claimed_by == ""
        assert "I'm back: play Ada" in phones[0].get(url("table", table)).content.decode()  # heard from
        actions.take_seat_back(table=table, number=0)
    back = seat(table, 0)
    assert not back.is_bot and back.claimed_by and phones[0].get(url("state", table)).json()["seat"] == 0
    # Bea's phone is still away.
    with time_machine.travel(later(2 * MINUTE + 10), tick=False), pytest.raises(actions.NotNow, match="Bea's phone is away"):
        actions.take_seat_back(table=table, number=1)
    with time_machine.travel(later(3 * MINUTE), tick=False):  # away again, after coming back once
        assert actions.cover_quiet_seats() == 1
        with pytest.raises(actions.NotNow, match="Ada's phone is away"):
            actions.take_seat_back(table=table, number=0)

