"""The process's one look at the event log at each heartbeat (live/streams.py LogWatch): what
pub/sub lost reaches every open stream of the process that follows its channel, each once, for one
read of the log a heartbeat, however many streams are open."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import OperationalError, connection
from django.test import AsyncClient, override_settings
from django.test.utils import CaptureQueriesContext

import live.streams
from live import actions
from live.actions import open_room
from live.broadcasters import get_broadcaster
from live.streams import (
    REPLAY_OVERLAP_IDS,
    LogWatch,
    releasing_the_connection,
    stop_watching_the_log,
    watching_the_log,
)
from tests.live.test_events import in_a_thread, run_async

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_streams")]

HEARTBEAT = 0.2
# How long a condition that should come true is waited for before the test says it did not: a
# failure's bound only (each comes true within a heartbeat or two).
FAILS_AFTER_SECONDS = 30


async def until(condition: Callable[[], bool], what: str) -> None:
    """Wait until `condition` holds, looking again at each turn of the event loop's clock."""
    loop = asyncio.get_running_loop()
    give_up = loop.time() + FAILS_AFTER_SECONDS
    while not condition():
        if loop.time() > give_up:
            raise AssertionError(f"never happened: {what}")
        await asyncio.sleep(0.01)


async def a_watch_that_has_looked() -> LogWatch:
    """The process's look at the log, started on this loop and past its first look: a stream
    opened from now on is in each of its looks (until then a stream reads for itself)."""
    watch = watching_the_log(get_broadcaster().local)
    await until(lambda: watch.coverage() is not None, "the watch's first look")
    return watch


class OpenStream:
    """A stream read as it comes, in a task of its own, until the test closes it."""

    def __init__(self, response: Any) -> None:
        self.chunks: list[bytes] = []
        self.ended = False
        self._came = asyncio.Event()
        self._task = asyncio.create_task(self._read(response))

    async def _read(self, response: Any) -> None:
        async for chunk in response.streaming_content:
            self.chunks.append(chunk)
            self._came.set()
        self.ended = True
        self._came.set()

    @property
    def text(self) -> str:
        return b"".join(self.chunks).decode()

    def heartbeats(self) -> int:
        return self.text.count(": heartbeat\n\n")

    async def until(self, condition: Callable[[OpenStream], bool], what: str) -> None:
        """Wait until `condition(self)` holds, woken by each chunk the stream sends."""

        async def waiting() -> None:
            while not condition(self):
                if self.ended:
                    raise AssertionError(f"the stream ended before: {what}")
                self._came.clear()
                await self._came.wait()

        try:
            await asyncio.wait_for(waiting(), FAILS_AFTER_SECONDS)
        except TimeoutError:
            raise AssertionError(f"never happened: {what}") from None

    async def close(self) -> None:
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)


async def open_stream(client: Any, path: str) -> OpenStream:
    """`path`'s stream, once it has sent its snapshot (it has subscribed and read the log)."""
    stream = OpenStream(await client.get(path))
    await stream.until(lambda s: "data: " in s.text, "the stream's snapshot")
    return stream


class Reads:
    """Counts the log's reads: the process's looks (and the queries each made), and each stream's
    reads for itself, by the channels it follows."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.looks = 0
        self.queries_per_look: list[int] = []
        self.own: list[tuple[str, ...]] = []

        def looking(after_id: int, local: Any) -> Any:
            with CaptureQueriesContext(connection) as queries:
                found = live.streams._lost_after_sync(after_id, local)
            self.looks += 1
            self.queries_per_look.append(len(queries))
            return found

        own_read = live.streams._unsent_after

        async def reading_for_itself(channels: tuple[str, ...], *args: Any) -> Any:
            self.own.append(channels)
            return await own_read(channels, *args)

        # As live.streams runs a look (_reading_the_log), counting it where it runs.
        from asgiref.sync import sync_to_async

        monkeypatch.setattr(live.streams, "_lost_after",
                            sync_to_async(releasing_the_connection(looking), thread_sensitive=False))
        monkeypatch.setattr(live.streams, "_unsent_after", reading_for_itself)

    def own_reads_of(self, channel: str) -> int:
        return sum(1 for channels in self.own if channel in channels)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Iterator[Reads]:
    yield Reads(monkeypatch)


def pub_sub_loses_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if Redis were down: events are committed but never published."""
    broadcaster = get_broadcaster()
    monkeypatch.setattr(broadcaster, "publish", lambda message: False)
    monkeypatch.setattr(broadcaster, "publish_many", lambda messages: False)


@override_settings(EVENTS_HEARTBEAT_SECONDS=HEARTBEAT)
def test_an_event_pub_sub_lost_reaches_every_stream_on_its_channel_once_by_the_processs_look(monkeypatch, reads):
    room, elsewhere = open_room(), open_room()

    async def scenario() -> tuple[int, list[str], str]:
        await a_watch_that_has_looked()
        client = AsyncClient()
        streams = [await open_stream(client, f"/events/check/{room.token}/") for _ in range(3)]
        other = await open_stream(client, f"/events/check/{elsewhere.token}/")
        pub_sub_loses_everything(monkeypatch)
        lost = await in_a_thread(actions.send_ping)(room, "Edith")
        for stream in streams:
            await stream.until(lambda s: "Edith" in s.text, "the lost ping on each of the room's streams")
        # Two more looks, each of which could have handed the ping on again.
        looked = reads.looks
        await until(lambda: reads.looks >= looked + 2, "two more looks")
        texts = [stream.text for stream in streams]
        for stream in (*streams, other):
            await stream.close()
        return lost.id, texts, other.text

    lost_id, texts, other = run_async(scenario())
    assert [text.count(f"id: {lost_id}\n") for text in texts] == [1, 1, 1]
    assert "Edith" not in other
    assert reads.own_reads_of(room.channel) == 0, "a stream read the log for itself"


def three_more_heartbeats_than(before: int) -> Callable[[OpenStream], bool]:
    return lambda stream: stream.heartbeats() >= before + 3


@override_settings(EVENTS_HEARTBEAT_SECONDS=HEARTBEAT)
def test_a_heartbeat_reads_the_log_once_for_all_the_streams_of_a_channel(reads):
    room = open_room()
    streams_open = 8

    async def scenario() -> tuple[int, int, list[int], list[int]]:
        await a_watch_that_has_looked()
        client = AsyncClient()
        streams = [await open_stream(client, f"/events/check/{room.token}/") for _ in range(streams_open)]
        beats_before = [stream.heartbeats() for stream in streams]
        looks_before, own_before = reads.looks, len(reads.own)
        for stream, before in zip(streams, beats_before, strict=True):
            await stream.until(three_more_heartbeats_than(before), "three heartbeats")
        looks, own = reads.looks - looks_before, len(reads.own) - own_before
        beats = [stream.heartbeats() - before for stream, before in zip(streams, beats_before, strict=True)]
        for stream in streams:
            await stream.close()
        return looks, own, beats, reads.queries_per_look[looks_before:looks_before + looks]

    looks, own, beats, queries = run_async(scenario())
    assert own == 0, "a stream read the log for itself at its heartbeat"
    # One look a heartbeat for all of them (the looks and the heartbeats run on one clock).
    assert 1 <= looks <= max(beats) + 1, (looks, beats)
    assert sum(beats) >= 3 * streams_open
    assert queries == [1] * looks, "a look is one read of the log when pub/sub lost nothing"


@override_settings(EVENTS_HEARTBEAT_SECONDS=HEARTBEAT)
def test_a_stream_opened_before_the_processs_first_look_reads_for_itself_until_the_look_covers_it(
        monkeypatch, reads):
    """The first streams of a process subscribed before anything tells where the log ended: what
    pub/sub loses for them they find themselves, once, and from then on the look covers them."""
    room = open_room()
    first_look: asyncio.Future[None] | None = None
    newest = live.streams._newest_logged

    async def first_look_held_back() -> int:
        assert first_look is not None
        await first_look
        return await newest()

    monkeypatch.setattr(live.streams, "_newest_logged", first_look_held_back)

    async def scenario() -> tuple[int, int, int, str]:
        nonlocal first_look
        first_look = asyncio.get_running_loop().create_future()
        stream = await open_stream(AsyncClient(), f"/events/check/{room.token}/")
        pub_sub_loses_everything(monkeypatch)
        lost = await in_a_thread(actions.send_ping)(room, "Iris")
        await stream.until(lambda s: "Iris" in s.text, "the lost ping, found by the stream itself")
        own_before_the_look = reads.own_reads_of(room.channel)
        first_look.set_result(None)
        watch = watching_the_log(get_broadcaster().local)
        await until(lambda: watch.coverage() is not None, "the watch's first look")
        beats = stream.heartbeats()
        await stream.until(lambda s: s.heartbeats() >= beats + 4, "four more heartbeats")
        text = stream.text
        await stream.close()
        return lost.id, own_before_the_look, reads.own_reads_of(room.channel), text

    lost_id, own_before_the_look, own, text = run_async(scenario())
    assert own_before_the_look >= 1
    # Two more reads of its own at most: one that may have begun before the watch had looked, and
    # the one after it, which the watch's looks cover from then on.
    assert own <= own_before_the_look + 2, (own_before_the_look, own)
    assert text.count(f"id: {lost_id}\n") == 1


@override_settings(EVENTS_HEARTBEAT_SECONDS=HEARTBEAT)
def test_when_the_processs_look_finds_the_database_gone_each_stream_looks_itself_and_ends_cleanly(
        monkeypatch, caplog):
    """PostgreSQL restarting: a stream the look covered ends as it did when it read the log itself
    (its page reconnects with Last-Event-ID once the database is back), with its one line logged."""
    room = open_room()

    async def database_gone(*args: object) -> Any:
        raise OperationalError("terminating connection due to administrator command\nSSL SYSCALL error")

    async def scenario() -> tuple[bool, str]:
        await a_watch_that_has_looked()
        stream = await open_stream(AsyncClient(), f"/events/check/{room.token}/")
        monkeypatch.setattr(live.streams, "_lost_after", database_gone)
        monkeypatch.setattr(live.streams, "_unsent_after", database_gone)
        await stream.until(lambda s: s.ended, "the stream to end")
        return stream.ended, stream.text

    with caplog.at_level(logging.ERROR, logger="live.streams"):
        ended, text = run_async(scenario())
    assert ended and text.endswith(": heartbeat\n\n")
    assert [record.getMessage() for record in caplog.records if record.name == "live.streams"] == [
        "A live stream ended: the database is unreachable (OperationalError: terminating connection due to "
        "administrator command)"
    ]


@override_settings(EVENTS_HEARTBEAT_SECONDS=HEARTBEAT)
def test_an_event_pub_sub_lost_still_reaches_a_stream_after_a_hundred_newer_ones_came_live(monkeypatch, reads):
    """A stream's own read looked only from a little before the newest id it had sent
    (REPLAY_OVERLAP_IDS): once more newer events than that had come live, what pub/sub lost before
    them was passed by. The process's look reads from where it last stopped."""
    room = open_room()
    look = live.streams._lost_after
    held: asyncio.Future[None] | None = None

    async def look_held_back(*args: Any) -> Any:
        if held is not None:
            await held
        return await look(*args)

    monkeypatch.setattr(live.streams, "_lost_after", look_held_back)

    async def scenario() -> tuple[int, str]:
        nonlocal held
        await a_watch_that_has_looked()
        stream = await open_stream(AsyncClient(), f"/events/check/{room.token}/")
        held = asyncio.get_running_loop().create_future()  # the next look waits for it
        publish = get_broadcaster().publish
        monkeypatch.setattr(get_broadcaster(), "publish", lambda message: False)
        lost = await in_a_thread(actions.send_ping)(room, "Lost")
        monkeypatch.setattr(get_broadcaster(), "publish", publish)
        newer = [await in_a_thread(actions.send_ping)(room, f"Newer {number}") for number in range(REPLAY_OVERLAP_IDS + 1)]
        await stream.until(lambda s: f"id: {newer[-1].id}\n" in s.text, "the newer pings, live")
        held.set_result(None)
        await stream.until(lambda s: "Lost" in s.text, "the lost ping, found by the look")
        text = stream.text
        await stream.close()
        return lost.id, text

    lost_id, text = run_async(scenario())
    assert text.count(f"id: {lost_id}\n") == 1


def looks_running() -> list[asyncio.Task[Any]]:
    return [task for task in asyncio.all_tasks() if task.get_coro().__qualname__ == "LogWatch._watch"]  # type: ignore[union-attr]


@override_settings(EVENTS_HEARTBEAT_SECONDS=HEARTBEAT)
def test_the_processs_look_stops_with_the_server():
    """The ASGI lifespan's shutdown stops it (bunco_club/site/asgi.py), after ending every stream."""

    async def scenario() -> tuple[int, int, bool]:
        watch = await a_watch_that_has_looked()
        running = len(looks_running())
        await stop_watching_the_log()
        return running, len(looks_running()), watch.coverage() is None

    assert run_async(scenario()) == (1, 0, True)
