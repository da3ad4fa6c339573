"""The event log, the broadcasters and the SSE stream (DESIGN.md §4)."""

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
    MemoryBroadcaster,
    RedisBroadcaster,
    Subscription,
    get_broadcaster,
    reset_broadcaster,
)
from live.log import log_event, publish_together
from live.models import Event
from live.rendering import encode_frame
from live.streams import releasing_the_connection

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
        got_first = [await asyncio.wait_for(first.queue.get(), 1)]
        got_second = [await asyncio.wait_for(second.queue.get(), 1)]
        return got_first, got_second, [elsewhere.queue.qsize()]

    got_first, got_second, elsewhere_size = run_async(scenario())
    assert got_first[0]["id"] == 7
    assert got_second[0]["id"] == 7
    assert elsewhere_size == [0]


def test_a_stream_that_falls_behind_is_marked_to_resynchronise_from_the_log():
    async def scenario() -> bool:
        subscription = Subscription(("night:1",), asyncio.get_running_loop())
        for number in range(subscription.queue.maxsize + 1):
            subscription.offer({"id": number, "channel": "night:1", "kind": "x", "data": {}})
        return subscription.overflowed

    assert run_async(scenario()) is True


def test_a_frame_with_several_lines_of_data_keeps_every_line():
    frame = encode_frame("<p>\nhello\n</p>", event="bell", event_id=3)
    assert frame == b"event: bell\nid: 3\ndata: <p>\ndata: hello\ndata: </p>\n\n"


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
        await asyncio.sleep(0.5)  # the relay has subscribed
        try:
            await asyncio.to_thread(broadcaster.publish_many, together)
            first = await asyncio.wait_for(subscription.queue.get(), 2)
            # When the stream wakes for the first, the second is already in its queue.
            return first["id"], [subscription.queue.get_nowait()["id"] for _ in range(subscription.queue.qsize())]
        finally:
            await broadcaster.close()

    assert run_async(scenario()) == (11, [12])


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


async def read_frames(response, count: int, timeout: float = 5) -> list[str]:
    """The first `count` SSE frames of a streaming response (comments and retry lines skipped)."""
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


def test_a_reconnecting_stream_replays_only_what_it_missed(async_client_factory):
    room = open_room()
    seen = actions.send_ping(room, "Alice")
    actions.send_ping(room, "Bea")
    actions.send_ping(room, "Carmen")

    async def scenario() -> list[str]:
        response = await async_client_factory().get(f"/events/check/{room.token}/", headers={"Last-Event-ID": str(seen.id)})
        return await read_frames(response, 2)

    bea, carmen = run_async(scenario())
    assert "Bea" in bea and "Alice" not in bea
    assert "Carmen" in carmen


def test_a_live_event_reaches_an_open_stream(async_client_factory):
    room = open_room()

    async def scenario() -> list[str]:
        response = await async_client_factory().get(f"/events/check/{room.token}/")
        frames_task = asyncio.create_task(read_frames(response, 2))
        await asyncio.sleep(0.2)
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
        frames_task = asyncio.create_task(read_frames(response, 2))
        await asyncio.sleep(0.1)
        # As if Redis were down: the event is committed but never published.
        monkeypatch.setattr(get_broadcaster(), "publish", lambda message: False)
        await in_a_thread(actions.send_ping)(room, "Edith")
        return await frames_task

    _snapshot, caught_up = run_async(scenario())
    assert "Edith" in caught_up


@pytest.fixture
def async_client_factory():
    from django.test import AsyncClient

    reset_broadcaster()
    yield AsyncClient
    reset_broadcaster()
