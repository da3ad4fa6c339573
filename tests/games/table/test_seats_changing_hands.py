"""A hand reaches a phone's stream only while that phone holds the seat (issue 29, S1 and S5).

Each test opens a real stream (the ASGI view, the in-process broadcaster) for a phone, changes
who holds its seat in one of the ways a seat changes hands (another seat tapped in the lobby,
"That's not me", the opener's "Free for another phone", a bot taking over and handing back), plays
on through the site, and captures every frame the stream sent: none carries a hand of a seat the
phone did not hold when the frame was sent.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest
from django.test import AsyncClient, Client, override_settings

from games.table import actions
from games.table.models import Table, TableSeat
from games.table.tasks import play_bot_move
from live.broadcasters import reset_broadcaster
from tests.builders import seated_phone
from tests.builders import table_url as url
from tests.games.table.ninety_nine_tables import hand_of, ninety_nine_table
from tests.live.test_events import in_a_thread, run_async
from tests.live.test_log_watch import (
    Reads,
    a_watch_that_has_looked,
    open_stream,
    pub_sub_loses_everything,
    reads,  # noqa: F401  (a fixture)
)

pytestmark = pytest.mark.django_db(transaction=True)

# How long a stream that should have ended is waited for before the test says it did not: a
# failure's bound only (a correct stream ends as soon as its seat changes hands).
ENDS_WITHIN_SECONDS = 60


@pytest.fixture(autouse=True)
def fresh_broadcaster() -> Any:
    reset_broadcaster()
    yield
    reset_broadcaster()


def frames_of(raw: str) -> list[dict[str, Any]]:
    """The stream's frames as {"id", "event", "data"} (comments and the retry line left out)."""
    frames = []
    for block in raw.split("\n\n"):
        lines = [line for line in block.split("\n") if line and not line.startswith(":")]
        if not lines or lines[0].startswith("retry:"):
            continue
        fields: dict[str, Any] = {"id": None, "event": "message", "data": ""}
        for line in lines:
            name, _, value = line.partition(": ")
            if name == "data":
                fields["data"] += value
            elif name in ("id", "event"):
                fields[name] = value
        fields["data"] = json.loads(fields["data"])
        frames.append(fields)
    return frames


def hands_in(frames: list[dict[str, Any]]) -> list[tuple[int, list[Any]]]:
    """(seat, hand) of every hand a stream carried, in its snapshot or in a "hand" event."""
    found = []
    for frame in frames:
        private = frame["data"].get("private") or {}
        if private:
            found.append((private["seat"], private["hand"]))
    return found


def play_moves(table: Table, phones: dict[int, Client], count: int) -> None:
    """`count` moves through the site, each by the phone of the seat to move (a bot's by the bot)."""
    for _ in range(count):
        table.refresh_from_db()
        if table.is_over:
            return
        seat = table.loaded().to_move()[0]
        if seat in table.bot_seats:
            assert play_bot_move(table, waiting=False) is not None
            continue
        legal = phones[seat].get(url("state", table)).json()["legal_moves"]
        move = {key: str(value) for key, value in legal[0].items()}
        answer = phones[seat].post(url("move", table), {**move, "key": f"k{table.moves_made}"})
        assert answer.status_code == 200, answer.content


def watch_stream(phone: Client, table: Table, change: Callable[[], None],
                 headers: dict[str, str] | None = None) -> tuple[list[dict[str, Any]], bool]:
    """Open `phone`'s stream, wait for its first frame, run `change` (sync, off the event loop),
    then read until the stream ends (or, if it never does, for ENDS_WITHIN_SECONDS): every frame it
    sent, and whether it ended by itself."""

    async def scenario() -> tuple[str, bool]:
        client = AsyncClient()
        client.cookies = phone.cookies
        response = await client.get(url("events", table), headers=headers or {})
        chunks: list[str] = []
        first = asyncio.Event()

        async def read() -> None:
            async for chunk in response.streaming_content:  # type: ignore[attr-defined]
                chunks.append(chunk.decode())
                if "data: " in "".join(chunks):
                    first.set()
            first.set()

        reader = asyncio.create_task(read())
        await first.wait()
        await in_a_thread(change)()
        try:
            await asyncio.wait_for(reader, ENDS_WITHIN_SECONDS)
            ended = True
        except TimeoutError:
            ended = False
        return "".join(chunks), ended

    raw, ended = run_async(scenario())
    return frames_of(raw), ended


def test_a_phone_that_moved_to_another_seat_in_the_lobby_gets_none_of_its_old_seats_hands() -> None:
    table = ninety_nine_table(3, started=False)
    ann = seated_phone(table, 1)
    others: dict[int, Client] = {}

    def ann_moves_to_seat_0_and_the_game_is_played() -> None:
        assert ann.post(url("claim", table), {"seat": "0"}).status_code == 302
        others[1], others[2] = seated_phone(table, 1), seated_phone(table, 2)
        actions.start_table(table=table)
        play_moves(table, {0: ann, **others}, 9)

    frames, ended = watch_stream(ann, table, ann_moves_to_seat_0_and_the_game_is_played)
    assert [seat for seat, _ in hands_in(frames)] == [], "a stream opened on seat 1 was sent a hand"
    assert ended, "the stream kept following seat 1's channel after its phone moved to seat 0"
    assert Table.objects.get(pk=table.pk).moves_made >= 9


def ben_lets_go_and_a_new_phone_plays_seat_1(table: Table, phones: dict[int, Client]) -> Callable[[], None]:
    """Ben (seat 1) says "That's not me", a new phone takes his seat, and the game goes on 9 moves."""
    ben = phones[1]

    def scene() -> None:
        assert ben.post(url("not_me", table)).status_code == 302
        phones[1] = seated_phone(table, 1)
        play_moves(table, phones, 9)

    return scene


def test_a_phone_that_said_thats_not_me_gets_none_of_the_next_holders_hands() -> None:
    table = ninety_nine_table(3)
    phones = {seat: seated_phone(table, seat) for seat in range(3)}
    ben = phones[1]
    dealt = hand_of(table, 1)

    frames, ended = watch_stream(ben, table, ben_lets_go_and_a_new_phone_plays_seat_1(table, phones))
    assert hands_in(frames) == [(1, dealt)], "only the snapshot, while Ben held seat 1, may carry its hand"
    assert ended


def test_a_phone_freed_by_the_opener_gets_none_of_the_next_holders_hands() -> None:
    table = ninety_nine_table(3)
    phones = {seat: seated_phone(table, seat) for seat in range(3)}
    ben = phones[1]
    dealt = hand_of(table, 1)

    def the_opener_frees_seat_1_for_another_phone() -> None:
        assert actions.release_seat(table=table, number=1)
        phones[1] = seated_phone(table, 1)
        play_moves(table, phones, 9)

    frames, ended = watch_stream(ben, table, the_opener_frees_seat_1_for_another_phone)
    assert hands_in(frames) == [(1, dealt)], "Ben's stream carried seat 1's hands after he was freed"
    assert ended


def test_a_seat_a_bot_played_goes_back_to_its_phone_which_is_never_sent_the_bots_hands() -> None:
    table = ninety_nine_table(3)
    phones = {seat: seated_phone(table, seat) for seat in range(3)}
    ben = phones[1]

    def a_bot_plays_ben_for_a_while() -> None:
        actions.hand_seat_to_bot(table=table, number=1, level="easy")
        play_moves(table, phones, 9)

    frames_before, ended = watch_stream(ben, table, a_bot_plays_ben_for_a_while)
    assert ended, "the stream kept following seat 1 once a bot played it"
    assert all(seat == 1 for seat, _ in hands_in(frames_before)) and len(hands_in(frames_before)) == 1
    last_seen = max(int(frame["id"]) for frame in frames_before if frame["id"])

    seat = actions.take_seat_back(table=table, number=1)
    assert TableSeat.objects.get(pk=seat.pk).claimed_by == ben.session["phone-token"], \
        "the seat went back to the phone that held it before the bot"
    assert ben.get(url("state", table)).json()["seat"] == 1

    # Ben's page reconnects with the id it last saw: what the bot held meanwhile is not replayed.
    def one_more_round_of_moves() -> None:
        play_moves(table, phones, 3)
        actions.release_seat(table=table, number=1)  # ends the stream, so the test can read it whole

    frames_after, ended = watch_stream(ben, table, one_more_round_of_moves, headers={"Last-Event-ID": str(last_seen)})
    replayed = [frame for frame in frames_after if frame["event"] == "hand"]
    back = TableSeat.objects.get(pk=seat.pk).held_since
    assert replayed, "Ben's own hands, after he took his seat back, reach his stream"
    assert all(int(frame["id"]) > back for frame in replayed), "a hand from the bot's time was replayed"


def test_a_phone_that_played_one_seat_cannot_take_another_seats_hidden_hand() -> None:
    table = ninety_nine_table(3)
    phones = {seat: seated_phone(table, seat) for seat in range(3)}
    assert actions.release_seat(table=table, number=2)
    refused = phones[0].post(url("claim", table), {"seat": "2"})
    assert refused.status_code == 409 and "has seen that hand" in refused.content.decode()
    assert TableSeat.objects.get(table=table, number=2).claimed_by == ""
    assert phones[0].get(url("state", table)).json()["seat"] == 0, "the phone still plays its own seat"
    # The phone whose seat it was, and a phone that never held one, may take it.
    assert phones[2].post(url("claim", table), {"seat": "2"}).status_code == 302
    assert actions.release_seat(table=table, number=2)
    assert seated_phone(table, 2).get(url("state", table)).json()["private"]["seat"] == 2


def test_no_page_shows_a_hand_before_the_game_starts() -> None:
    table = ninety_nine_table(3, started=False)
    phone = seated_phone(table, 1)
    assert phone.get(url("state", table)).json()["private"] == {}
    assert '"hand"' not in phone.get(url("table", table)).content.decode()
    actions.start_table(table=table)
    assert phone.get(url("state", table)).json()["private"]["hand"] == hand_of(table, 1)


# --- A hand written for the stream's own holding goes out without a read (issue 47) ----------------


def test_a_phones_own_hands_reach_its_stream_without_a_read_of_its_seat_for_each(monkeypatch: Any) -> None:
    """A Ninety-Nine move deals to every seat: were each stream to read its seat for each hand, the
    four streams' reads would run while the move's answer is still on its way (they made a
    Ninety-Nine move's answer 1.6 times a tap's, issue 47). Each hand says the holding it was
    written for, and the stream of that holding sends it as it is: its seat is read for the
    snapshot and for the release that ends the stream, not once for each hand."""
    table = ninety_nine_table(4)
    phones = {seat: seated_phone(table, seat) for seat in range(4)}
    seat_reads: list[int] = []
    read_the_seat = TableSeat.held_since_for

    def counted(seat: TableSeat, phone: str) -> int | None:
        seat_reads.append(seat.number)
        return read_the_seat(seat, phone)

    monkeypatch.setattr(TableSeat, "held_since_for", counted)

    def a_round_of_moves_then_ben_is_freed() -> None:
        play_moves(table, phones, 8)
        actions.release_seat(table=table, number=1)  # ends the stream, so the test can read it whole

    frames, ended = watch_stream(phones[1], table, a_round_of_moves_then_ben_is_freed)
    hands = [frame for frame in frames if frame["event"] == "hand"]
    assert ended
    assert len(hands) >= 2, "Ben's stream was sent his hand after his moves and the others'"
    assert all(set(frame["data"]) == {"private"} for frame in hands), "a hand frame carries the hand alone"
    assert seat_reads == [1, 1], f"seat 1 read for the snapshot and the release only, not for each hand: {seat_reads}"


@override_settings(EVENTS_HEARTBEAT_SECONDS=0.2)
def test_a_hand_pub_sub_lost_found_by_the_processs_look_never_reaches_a_phone_that_let_its_seat_go(
        monkeypatch: pytest.MonkeyPatch, reads: Reads) -> None:  # noqa: F811  (reads: the imported fixture)
    """Pub/sub down: every hand reaches the streams only by the process's look at the log, which
    hands it to every stream of the seat's channel; the stream's guard still asks whether its phone
    holds the seat, and Ben's, who said "That's not me", ends without the next holder's hands."""
    table = ninety_nine_table(3)
    phones = {seat: seated_phone(table, seat) for seat in range(3)}
    ben = phones[1]
    dealt = hand_of(table, 1)

    async def scenario() -> tuple[str, bool]:
        await a_watch_that_has_looked()  # Ben's stream is in each of its looks
        client = AsyncClient()
        client.cookies = ben.cookies
        stream = await open_stream(client, url("events", table))
        pub_sub_loses_everything(monkeypatch)
        await in_a_thread(ben_lets_go_and_a_new_phone_plays_seat_1(table, phones))()
        await stream.until(lambda s: s.ended, "Ben's stream to end")
        return stream.text, stream.ended

    raw, ended = run_async(scenario())
    assert reads.own == [], "the stream read the log for itself: the look was not what found the hands"
    assert hands_in(frames_of(raw)) == [(1, dealt)], "only the snapshot, while Ben held seat 1, may carry its hand"
    assert ended
