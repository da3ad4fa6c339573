"""The event log, the broadcasters and the SSE stream (docs/DESIGN.md §4)."""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest
from asgiref.sync import sync_to_async
from django.db import transaction
from django.test import override_settings

from live import actions
from live.actions import open_room
from live.broadcasters import (
    MAILBOX_SIZE,
    MemoryBroadcaster,
    RedisBroadcaster,
    Subscription,
    get_broadcaster,
    reset_broadcaster,
)
from live.log import log_event, publish_together
from live.models import Event
from live.rendering import encode_frame
from live.streams import REPLAY_OVERLAP_IDS, releasing_the_connection

pytestmark = pytest.mark.django_db(transaction=True)


def run_async(coroutine):
    """Runs a coroutine on a fresh event loop in its own thread.

    Browser tests leave Playwright's loop running in the main thread, where asyncio.run refuses.
    """
    with ThreadPoolExecutor(max_workers=1) as executor:
        return executor.submit(asyncio.run, coroutine).result()


def in_a_thread(function):
    """`function` run off the event loop, as a view's code would be, giving its database connection
    back afterwards: asgiref's thread outlives the test, and a connection it kept would still be
    open when the test database is dropped."""
    return sync_to_async(releasing_the_connection(function))


class Recorder:
    """Stands in for the broadcaster's transport to see what is published, and when."""

    def __init__(self) -> None:
        self.published: list[dict] = []

    def publish(self, message: dict) -> bool:
        self.published.append(message)
        return True


@pytest.fixture
def recorder(monkeypatch):
    recorder = Recorder()
    monkeypatch.setattr(get_broadcaster(), "publish", recorder.publish)
    return recorder


def test_it_publishes_an_event_only_after_the_transaction_commits(recorder):
    with transaction.atomic():
        event = log_event("night:1", "tally", {"points": 2})
        assert recorder.published == []
    assert recorder.published == [{"id": event.id, "channel": "night:1", "kind": "tally", "data": {"points": 2}}]


def test_it_neither_stores_nor_publishes_an_event_whose_transaction_rolls_back(recorder):
    with pytest.raises(RuntimeError), transaction.atomic():
        log_event("night:1", "tally", {"points": 2})
        raise RuntimeError("the action failed")
    assert recorder.published == []
    assert not Event.objects.exists()


def test_event_ids_grow_so_a_phone_can_ask_for_what_came_after():
    first = log_event("night:1", "a")
    second = log_event("night:1", "b")
    log_event("night:2", "c")
    assert list(Event.objects.on("night:1").after(first.id)) == [second]
    assert Event.objects.latest_id("night:1") == second.id
    assert Event.objects.latest_id("nowhere") == 0


def test_the_memory_broadcaster_delivers_to_every_stream_on_the_channel_and_no_other():
    async def scenario() -> tuple[list, list, list]:
        broadcaster = MemoryBroadcaster()
        loop = asyncio.get_running_loop()
        first, second = Subscription(("night:1",), loop), Subscription(("night:1",), loop)
        elsewhere = Subscription(("night:2",), loop)
        for subscription in (first, second, elsewhere):
            broadcaster.local.add(subscription)
        # Published from another thread, as an on_commit callback of a sync view would.
        await asyncio.to_thread(broadcaster.publish, {"id": 7, "channel": "night:1", "kind": "bell", "data": {}})
        got_first = await first.take(1)
        got_second = await second.take(1)
        return got_first, got_second, [len(elsewhere.waiting)]

    got_first, got_second, elsewhere_size = run_async(scenario())
    assert got_first[0]["id"] == 7
    assert got_second[0]["id"] == 7
    assert elsewhere_size == [0]


def test_a_stream_that_falls_behind_is_marked_to_resynchronise_from_the_log():
    async def scenario() -> bool:
        subscription = Subscription(("night:1",), asyncio.get_running_loop())
        for number in range(MAILBOX_SIZE + 1):
            subscription.offer({"id": number, "channel": "night:1", "kind": "x", "data": {}})
        return subscription.overflowed

    assert run_async(scenario()) is True


def test_a_frame_with_several_lines_of_data_keeps_every_line():
    frame = encode_frame("<p>\nhello\n</p>", event="bell", event_id=3)
    assert frame == b"event: bell\nid: 3\ndata: <p>\ndata: hello\ndata: </p>\n\n"


async def relay_listening(broadcaster: RedisBroadcaster) -> None:
    """Until the broadcaster's relay hears Redis: a probe on a channel of its own, published again
    until it comes back (the relay subscribes in its own time; a fixed pause was a race)."""
    probe = Subscription(("probe:relay",), asyncio.get_running_loop())
    broadcaster.local.add(probe)
    try:
        for _ in range(600):  # a minute: only a relay that never subscribes runs it out
            await asyncio.to_thread(broadcaster.publish, {"id": 0, "channel": "probe:relay", "kind": "probe", "data": {}})
            if await probe.take(0.1):
                return
        raise AssertionError("the relay never heard Redis")
    finally:
        broadcaster.local.remove(probe)


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs the machine's Redis (make test-services)")
def test_events_published_together_cross_redis_as_one_delivery():
    """The tap's totals and its bell, relayed to another process's streams, wake each one once."""
    together = [{"id": 11, "channel": "night:9", "kind": "tally", "data": {}},
                {"id": 12, "channel": "night:9", "kind": "bell", "data": {}}]

    async def scenario() -> tuple[int, list[int]]:
        broadcaster = RedisBroadcaster(os.environ["REDIS_URL"], prefix=f"bunco:test:{uuid.uuid4().hex}:")
        subscription = Subscription(("night:9",), asyncio.get_running_loop())
        broadcaster.local.add(subscription)
        broadcaster.ensure_listening()
        await relay_listening(broadcaster)
        try:
            await asyncio.to_thread(broadcaster.publish_many, together)
            first, *rest = await subscription.take(2)
            # When the stream wakes for the first, the second is already in its mailbox.
            return first["id"], [message["id"] for message in rest]
        finally:
            await broadcaster.close()

    assert run_async(scenario()) == (11, [12])


def test_the_redis_channels_name_the_database_so_sites_on_one_redis_stay_apart():
    assert RedisBroadcaster("redis://127.0.0.1:1/7").prefix == "bunco:7:events:"
    assert RedisBroadcaster("redis://127.0.0.1:1").prefix == "bunco:0:events:"


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs the machine's Redis (make test-services)")
def test_two_databases_of_one_redis_do_not_hear_each_others_events():
    """Pub/sub ignores the database number: before it was in the prefix, a test worker on database
    1 heard another's "night:1" events on database 0, as two sites sharing a Redis would."""
    base = os.environ["REDIS_URL"].rsplit("/", 1)[0]
    message = {"id": 1, "channel": "night:1", "kind": "tally", "data": {}}

    async def scenario() -> tuple[dict, dict]:
        one, two = RedisBroadcaster(base + "/14"), RedisBroadcaster(base + "/15")
        heard = [Subscription(("night:1",), asyncio.get_running_loop()) for _ in range(2)]
        for broadcaster, subscription in zip((one, two), heard, strict=True):
            broadcaster.local.add(subscription)
            broadcaster.ensure_listening()
        for broadcaster in (one, two):
            await relay_listening(broadcaster)
        try:
            await asyncio.to_thread(one.publish, {**message, "id": 1})
            await asyncio.to_thread(two.publish, {**message, "id": 2})
            # Each hears its own first: the other's, had it crossed, was published before.
            return (await heard[0].take(5))[0], (await heard[1].take(5))[0]
        finally:
            await one.close()
            await two.close()

    first_heard, second_heard = run_async(scenario())
    assert first_heard["id"] == 1 and second_heard["id"] == 2


# --- Redis down -------------------------------------------------------------------------------

DEAD_REDIS = "redis://127.0.0.1:1/0"  # nothing listens on port 1


def test_publishing_to_a_dead_redis_logs_one_clear_line_and_raises_nothing(caplog):
    broadcaster = RedisBroadcaster(DEAD_REDIS)
    message = {"id": 1, "channel": "night:1", "kind": "bell", "data": {}}
    with caplog.at_level(logging.ERROR, logger="live.broadcasters"):
        assert broadcaster.publish(message) is False
        assert broadcaster.publish(message) is False
        broadcaster._down_until = 0  # past the back-off, it tries again and still says it once
        assert broadcaster.publish(message) is False
    lines = [record.getMessage() for record in caplog.records]
    assert len(lines) == 1
    assert "Live push is off" in lines[0]
    assert "127.0.0.1:1" in lines[0]


@override_settings(EVENTS_BACKEND="redis", REDIS_URL=DEAD_REDIS)
def test_a_post_still_saves_when_redis_is_down(client):
    room = open_room()
    reset_broadcaster()
    try:
        response = client.post(f"/check/{room.token}/ping/", {"name": "Dana"}, headers={"HX-Request": "true"})
    finally:
        reset_broadcaster()
    assert response.status_code == 200
    assert Event.objects.filter(kind="ping", data__sender="Dana").exists()


# --- The stream -------------------------------------------------------------------------------


async def read_frames(response, count: int, timeout: float = 5,
                      arrived: asyncio.Queue[str] | None = None) -> list[str]:
    """The first `count` SSE frames of a streaming response (comments and retry lines skipped);
    each frame is also put on `arrived` as it comes, so a test can act once the stream is past it."""
    frames: list[str] = []
    buffer = ""
    iterator = aiter(response.streaming_content)
    while len(frames) < count:
        chunk = await asyncio.wait_for(anext(iterator), timeout)
        buffer += chunk.decode()
        while "\n\n" in buffer:
            frame, buffer = buffer.split("\n\n", 1)
            if frame.startswith(":") or frame.startswith("retry:"):
                continue
            frames.append(frame)
            if arrived is not None:
                arrived.put_nowait(frame)
    await iterator.aclose()
    return frames


def test_a_fresh_stream_starts_with_a_snapshot_of_the_page(async_client_factory):
    room = open_room()
    actions.send_ping(room, "Alice")

    async def scenario() -> list[str]:
        response = await async_client_factory().get(f"/events/check/{room.token}/")
        assert response["Content-Type"] == "text/event-stream"
        return await read_frames(response, 1)

    [snapshot] = run_async(scenario())
    assert 'hx-target="#ping-list"' in snapshot
    assert "Alice" in snapshot
    assert f"id: {Event.objects.latest_id(room.channel)}" in snapshot


def other_events(count: int) -> None:
    """`count` events elsewhere: the ids of what comes next move on by as many."""
    Event.objects.bulk_create(Event(channel="check:elsewhere", kind="ping", data={}) for _ in range(count))


def test_a_reconnecting_stream_replays_what_it_missed_and_again_only_the_last_few_before(async_client_factory):
    room = open_room()
    actions.send_ping(room, "Old")
    other_events(REPLAY_OVERLAP_IDS + 1)
    seen = actions.send_ping(room, "Alice")
    actions.send_ping(room, "Bea")
    actions.send_ping(room, "Carmen")

    async def scenario() -> list[str]:
        response = await async_client_factory().get(f"/events/check/{room.token}/", headers={"Last-Event-ID": str(seen.id)})
        return await read_frames(response, 3)

    alice, bea, carmen = run_async(scenario())
    assert "Alice" in alice and "Bea" in bea and "Carmen" in carmen
    assert all("Old" not in frame for frame in (alice, bea, carmen))


def test_an_event_committed_after_a_newer_one_reaches_a_phone_that_reconnected_in_between(async_client_factory):
    """An event's id is taken at its insert, but it is published at its commit: a phone can have
    the newer event, lose its connection, and ask for what came after it before the older one
    commits. The replay reads again from a little before, so the older one still arrives."""
    room = open_room()
    late = actions.send_ping(room, "Late")  # as if committed only after the next one
    newer = actions.send_ping(room, "Newer")

    async def scenario() -> list[str]:
        response = await async_client_factory().get(f"/events/check/{room.token}/", headers={"Last-Event-ID": str(newer.id)})
        return await read_frames(response, 1)

    [replayed] = run_async(scenario())
    assert "Late" in replayed and f"id: {late.id}" in replayed


def test_a_live_event_reaches_an_open_stream(async_client_factory):
    room = open_room()

    async def scenario() -> list[str]:
        response = await async_client_factory().get(f"/events/check/{room.token}/")
        arrived: asyncio.Queue[str] = asyncio.Queue()
        frames_task = asyncio.create_task(read_frames(response, 2, arrived=arrived))
        await asyncio.wait_for(arrived.get(), 5)  # the stream is open and past its snapshot
        await in_a_thread(actions.send_ping)(room, "Dana")
        return await frames_task

    _snapshot, live = run_async(scenario())
    assert "Dana" in live


def test_events_committed_together_reach_a_stream_in_one_write():
    """A tap that rings the bell commits its totals and the bell, published together
    (`publish_together`, as the tap does): each phone wakes once for both. Two events published
    one by one are two Redis messages in the scaled layout, and may well come in two writes."""
    room = open_room()

    def commit_two_pings() -> tuple[int, int]:
        with transaction.atomic():
            first = log_event(room.channel, "ping", {"sender": "Fay"}, publish=False)
            second = log_event(room.channel, "ping", {"sender": "Gus"}, publish=False)
            publish_together([first, second])
        return first.id, second.id

    async def scenario() -> tuple[tuple[int, int], bytes]:
        from django.test import AsyncClient

        response = await AsyncClient().get(f"/events/check/{room.token}/")
        # django-stubs types AsyncClient's responses as non-streaming: no streaming_content.
        chunks = aiter(response.streaming_content)  # type: ignore[attr-defined]
        while b"data:" not in await asyncio.wait_for(anext(chunks), 5):
            pass  # up to and including the snapshot
        ids = await in_a_thread(commit_two_pings)()
        chunk = await asyncio.wait_for(anext(chunks), 5)
        await chunks.aclose()
        return ids, chunk

    reset_broadcaster()
    try:
        (first_id, second_id), chunk = run_async(scenario())
    finally:
        reset_broadcaster()
    assert f"id: {first_id}\n".encode() in chunk and f"id: {second_id}\n".encode() in chunk
    assert chunk.index(b"Fay") < chunk.index(b"Gus")


@override_settings(EVENTS_HEARTBEAT_SECONDS=0.2)
def test_the_heartbeat_finds_in_the_log_what_pub_sub_never_delivered(async_client_factory, monkeypatch):
    room = open_room()

    async def scenario() -> list[str]:
        response = await async_client_factory().get(f"/events/check/{room.token}/")
        arrived: asyncio.Queue[str] = asyncio.Queue()
        frames_task = asyncio.create_task(read_frames(response, 2, arrived=arrived))
        await asyncio.wait_for(arrived.get(), 5)  # the stream is open and past its snapshot
        # As if Redis were down: the event is committed but never published.
        monkeypatch.setattr(get_broadcaster(), "publish", lambda message: False)
        await in_a_thread(actions.send_ping)(room, "Edith")
        return await frames_task

    _snapshot, caught_up = run_async(scenario())
    assert "Edith" in caught_up


@override_settings(EVENTS_HEARTBEAT_SECONDS=0.2)
def test_the_heartbeat_finds_an_event_committed_after_a_newer_one_that_pub_sub_lost(async_client_factory, monkeypatch):
    room = open_room()
    hole = Event.objects.create(channel="check:elsewhere", kind="ping", data={})
    hole_id = hole.id
    hole.delete()  # an id taken by a transaction that commits later

    async def scenario() -> list[str]:
        response = await async_client_factory().get(f"/events/check/{room.token}/")
        arrived: asyncio.Queue[str] = asyncio.Queue()
        frames_task = asyncio.create_task(read_frames(response, 3, arrived=arrived))
        await asyncio.wait_for(arrived.get(), 5)  # the stream is open and past its snapshot
        await in_a_thread(actions.send_ping)(room, "Newer")  # published: the stream sends it
        # Sent before the older one commits: otherwise one read after the notice would carry both
        # in id order, and the heartbeat would have nothing left to find.
        await asyncio.wait_for(arrived.get(), 5)
        # The older one commits now, and pub/sub loses it (as if Redis were down a moment).
        monkeypatch.setattr(get_broadcaster(), "publish", lambda message: False)
        await in_a_thread(lambda: Event.objects.create(id=hole_id, channel=room.channel, kind="ping",
                                                       data={"sender": "Older"}))()
        return await frames_task

    _snapshot, newer, older = run_async(scenario())
    assert "Newer" in newer
    assert "Older" in older and f"id: {hole_id}" in older


@pytest.fixture
def async_client_factory():
    from django.test import AsyncClient

    reset_broadcaster()
    yield AsyncClient
    reset_broadcaster()


@override_settings(EVENTS_HEARTBEAT_SECONDS=0.2)
def test_a_stream_whose_log_read_finds_the_database_gone_ends_with_one_line_logged(async_client_factory, monkeypatch,
                                                                                   caplog):
    """PostgreSQL restarting under an open stream: the stream ends as streams end (the phone then
    reconnects with Last-Event-ID), rather than failing with a traceback and a cut connection.
    tests/reliability/test_fault_postgres_restart.py sees it with a real PostgreSQL stopped."""
    from django.db import OperationalError

    import live.streams

    room = open_room()

    async def database_gone(*args: object) -> list[object]:
        raise OperationalError("terminating connection due to administrator command\nSSL SYSCALL error")

    async def scenario() -> list[bytes]:
        response = await async_client_factory().get(f"/events/check/{room.token}/")
        chunks = aiter(response.streaming_content)
        rest = [await asyncio.wait_for(anext(chunks), 5), await asyncio.wait_for(anext(chunks), 5)]  # retry, snapshot
        # The next reads of the log: the process's look, then the stream's own, which the look's
        # failure leaves it to make.
        monkeypatch.setattr(live.streams, "_lost_after", database_gone)
        monkeypatch.setattr(live.streams, "_unsent_after", database_gone)
        rest += [chunk async for chunk in chunks]  # ends: no exception reaches the server
        return rest

    with caplog.at_level(logging.ERROR, logger="live.streams"):
        chunks = run_async(scenario())
    assert chunks[-1] == b": heartbeat\n\n"
    assert [record.getMessage() for record in caplog.records if record.name == "live.streams"] == [
        "A live stream ended: the database is unreachable (OperationalError: terminating connection due to "
        "administrator command)"
    ]


def test_open_streams_keep_no_thread_each_in_the_site_asgi_app():
    """An open stream must not hold an OS thread for as long as the phone stays (issue 22: 1,000
    phones kept 1,000 idle threads, a third of a stream's memory): the site's ASGI app serves
    streams outside Django's per-request thread-sensitive context. Opening a page's worth of
    streams leaves the server's thread count as it was."""
    import threading

    from bunco_club.site.asgi import application
    from tests.builders import http_scope

    room = open_room()
    path = f"/events/check/{room.token}/"
    streams = 8

    async def scenario() -> tuple[int, int]:
        gone = asyncio.Event()
        snapshots = [asyncio.Event() for _ in range(streams)]

        async def open_stream(snapshot: asyncio.Event) -> None:
            asked = False

            async def receive() -> dict:
                nonlocal asked
                if not asked:
                    asked = True
                    return {"type": "http.request", "body": b"", "more_body": False}
                await gone.wait()
                return {"type": "http.disconnect"}

            async def send(message: dict) -> None:
                if message["type"] == "http.response.body" and b"ping-list" in message.get("body", b""):
                    snapshot.set()

            await application(http_scope("GET", path, {"host": "testserver", "accept": "text/event-stream"}),
                              receive, send)

        tasks = [asyncio.create_task(open_stream(snapshots[0]))]
        await asyncio.wait_for(snapshots[0].wait(), 30)  # one open: the shared sync thread exists
        before = threading.active_count()
        tasks += [asyncio.create_task(open_stream(snapshot)) for snapshot in snapshots[1:]]
        for snapshot in snapshots:
            await asyncio.wait_for(snapshot.wait(), 30)
        during = threading.active_count()
        gone.set()
        await asyncio.wait_for(asyncio.gather(*tasks), 30)
        return before, during

    before, during = run_async(scenario())
    assert during - before < streams - 1, (before, during)



def test_a_private_event_written_for_the_streams_holding_goes_out_unread_and_any_other_is_read() -> None:
    """PrivateChannel: an event whose data names the holding the stream was opened for is let
    through without asking `since`; one naming another holding, or none, is checked as ever (left
    out when older than the phone's claim)."""
    from live.streams import WRITTEN_FOR, PrivateChannel, _Guard, _SentIds

    asked: list[str] = []

    def since() -> int:
        asked.append("asked")
        return 20

    guard = _Guard([PrivateChannel("seat", since, held_since=7)])

    def message(event_id: int, **data: object) -> dict[str, object]:
        return {"id": event_id, "channel": "seat", "kind": "hand", "data": data}

    mine = message(30, **{WRITTEN_FOR: 7})
    assert run_async(guard.allowed([mine], _SentIds(None))) == [mine] and asked == []
    older, newer = message(10, **{WRITTEN_FOR: 3}), message(25)
    assert run_async(guard.allowed([mine, older, newer], _SentIds(None))) == [mine, newer] and asked == ["asked"]
