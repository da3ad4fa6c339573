"""Live events: the log, the broadcaster and the Server-Sent Events stream (DESIGN.md §4).

The database is the truth. An action appends an `Event` row in the same transaction as its change
(`log_event`); after commit the event is published to the broadcaster, which hands it to every
stream open on its channel:

* `MemoryBroadcaster` (embedded default): asyncio queues in this one process.
* `RedisBroadcaster` (REDIS_URL set): Redis pub/sub, so a POST served by one process reaches the
  streams held by another. When Redis is unreachable, publishing logs one line and gives up at
  once: the change is already committed, and streams catch up from the log at their next
  heartbeat (and pages by their slow poll). Nothing is lost and no request fails.

A stream sends a snapshot when it connects without `Last-Event-ID`, replays the missed rows when
it reconnects with one, and renders each event once per process whatever the number of phones
(`render_message` is cached by event id).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.db import connection, connections, transaction
from django.http import HttpRequest, StreamingHttpResponse
from django.utils import timezone

from games import fast_sql
from games.models import Event

logger = logging.getLogger("games.events")

Message = dict[str, Any]  # {"id", "channel", "kind", "data"}: Event.as_message()
# A renderer turns one event into the SSE frames that carry it: (event name or None, data).
# None as name means "swap the data into the page" (htmx 4 swaps unnamed messages); a name makes
# a DOM event on the connecting element instead.
Frame = tuple[str | None, str]
Renderer = Callable[[Message], Iterable[Frame]]
T = TypeVar("T")


# --- Logging events ---------------------------------------------------------------------------


def log_event(channel: str, kind: str, data: dict[str, Any] | None = None, *, publish: bool = True) -> Event:
    """Append an event to the log and publish it once the surrounding transaction commits.

    Call it inside the action's `transaction.atomic()` block: if the transaction rolls back, the
    event is neither stored nor published. `publish=False` leaves publishing to the caller, to
    send several events of one action together (`publish_together`).
    """
    # Plain SQL: every tap logs an event, and the ORM's insert costs ten times the statement.
    event = fast_sql.insert_event(channel, kind, data or {}, timezone.now())
    if publish:
        message = event.as_message()
        transaction.on_commit(lambda: get_broadcaster().publish(message))
    return event


def publish_together(events: list[Event]) -> None:
    """Publish events logged with `publish=False` as one delivery once the transaction commits.

    A tap that rings the bell logs its totals and the bell: sent together, each phone wakes once
    and gets both in one write, in the scaled layout too (one Redis message, not two).
    The list is read at commit: events appended to it after this call go too, and go before
    events published by anything registered later (the round's close after the bell), in order.
    """

    def publish() -> None:
        if events:
            get_broadcaster().publish_many([event.as_message() for event in events])

    transaction.on_commit(publish)


# --- Local fan-out ----------------------------------------------------------------------------

# Put in a stream's queue to end it cleanly (uvicorn does not close open streams on shutdown).
CLOSE_STREAM: Message = {"id": -1, "channel": "", "kind": "close", "data": {}}


@dataclass(eq=False)
class Subscription:
    """One open stream's mailbox, living on the event loop that serves it."""

    channel: str
    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue[Message] = field(default_factory=lambda: asyncio.Queue(maxsize=512))
    # Set when the queue overflowed: the stream then resynchronises from the log.
    overflowed: bool = False

    def offer(self, message: Message) -> None:
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:
            self.overflowed = True


class LocalFanout:
    """The streams open in this process, by channel; delivery is safe from any thread."""

    def __init__(self) -> None:
        self._subscriptions: dict[str, set[Subscription]] = {}
        self._lock = threading.Lock()
        # Deliveries waiting for their event loop to run them, by loop. The events one action
        # commits (a tap's new totals, then the bell) are published back to back: handed over
        # together, each stream wakes once for all of them and writes them in one chunk.
        self._pending: dict[asyncio.AbstractEventLoop, list[tuple[list[Subscription], Message]]] = {}

    def add(self, subscription: Subscription) -> None:
        with self._lock:
            self._subscriptions.setdefault(subscription.channel, set()).add(subscription)

    def remove(self, subscription: Subscription) -> None:
        with self._lock:
            subscribers = self._subscriptions.get(subscription.channel)
            if subscribers is not None:
                subscribers.discard(subscription)
                if not subscribers:
                    del self._subscriptions[subscription.channel]

    def close_all(self) -> None:
        """Ask every open stream to end (server shutdown): each gets the closing sentinel."""
        self.deliver_to_all(CLOSE_STREAM)

    def deliver_to_all(self, message: Message) -> None:
        with self._lock:
            subscribers = [sub for subs in self._subscriptions.values() for sub in subs]
        self._deliver(subscribers, message)

    def deliver(self, message: Message) -> None:
        """Hand `message` to every local stream on its channel.

        Streams live on event loops; one `call_soon_threadsafe` per loop (not per stream, and
        not per message when several come at once) keeps a bell to a thousand phones cheap.
        """
        with self._lock:
            subscribers = list(self._subscriptions.get(message["channel"], ()))
        self._deliver(subscribers, message)

    def _deliver(self, subscribers: list[Subscription], message: Message) -> None:
        by_loop: dict[asyncio.AbstractEventLoop, list[Subscription]] = {}
        for subscription in subscribers:
            by_loop.setdefault(subscription.loop, []).append(subscription)
        for loop, group in by_loop.items():
            if loop.is_closed():
                continue
            if _running_loop() is loop:
                _offer_all(group, message)
                continue
            with self._lock:
                waiting = self._pending.setdefault(loop, [])
                first = not waiting
                waiting.append((group, message))
            if first:
                loop.call_soon_threadsafe(self._run_pending, loop)

    def _run_pending(self, loop: asyncio.AbstractEventLoop) -> None:
        with self._lock:
            waiting = self._pending.pop(loop, [])
        for group, message in waiting:
            _offer_all(group, message)


def _offer_all(subscriptions: list[Subscription], message: Message) -> None:
    for subscription in subscriptions:
        subscription.offer(message)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


# --- Broadcasters -----------------------------------------------------------------------------


class MemoryBroadcaster:
    """One process: publishing is delivering."""

    name = "memory"

    def __init__(self) -> None:
        self.local = LocalFanout()

    def publish(self, message: Message) -> bool:
        self.local.deliver(message)
        return True

    def publish_many(self, messages: list[Message]) -> bool:
        for message in messages:
            self.local.deliver(message)
        return True

    def ensure_listening(self) -> None:
        """Nothing to listen to: every publisher is in this process."""

    async def close(self) -> None:
        return None


class RedisBroadcaster:
    """Many processes: every process publishes to Redis and relays what it hears to its streams."""

    name = "redis"
    # After a failure, skip Redis for this long so that every POST doesn't wait on a dead socket.
    RETRY_AFTER_SECONDS = 5.0

    def __init__(self, url: str, prefix: str = "bunco:events:") -> None:
        import redis

        self.url = url
        self.prefix = prefix
        self.local = LocalFanout()
        self._client = redis.Redis.from_url(url, socket_connect_timeout=0.3, socket_timeout=0.5)
        self._down_until = 0.0
        self._down_logged = False
        self._listeners: dict[asyncio.AbstractEventLoop, asyncio.Task[None]] = {}

    def publish(self, message: Message) -> bool:
        return self._send(message["channel"], json.dumps(message))

    def publish_many(self, messages: list[Message]) -> bool:
        """Messages of one channel in one Redis message (a JSON list): relayed together."""
        return self._send(messages[0]["channel"], json.dumps(messages))

    def _send(self, channel: str, payload: str) -> bool:
        import redis

        if time.monotonic() < self._down_until:
            return False
        try:
            self._client.publish(self.prefix + channel, payload)
        except redis.RedisError as error:
            self._down_until = time.monotonic() + self.RETRY_AFTER_SECONDS
            self._report_down(error)
            return False
        self._report_up()
        return True

    def _report_down(self, error: Exception) -> None:
        if not self._down_logged:
            self._down_logged = True
            logger.error(
                "Live push is off: Redis at %s is unreachable (%s). Changes are still saved; "
                "screens catch up from the event log by polling.",
                _redacted(self.url),
                error,
            )

    def _report_up(self) -> None:
        if self._down_logged:
            self._down_logged = False
            logger.warning("Live push is back: Redis at %s answers again.", _redacted(self.url))

    def ensure_listening(self) -> None:
        """Start this event loop's relay from Redis, once."""
        loop = asyncio.get_running_loop()
        task = self._listeners.get(loop)
        if task is None or task.done():
            self._listeners[loop] = loop.create_task(self._listen())

    async def _listen(self) -> None:
        import redis.asyncio as aioredis
        from redis import RedisError

        delay = 0.5
        while True:
            client = aioredis.Redis.from_url(self.url, socket_connect_timeout=1)
            try:
                async with client.pubsub() as pubsub:
                    await pubsub.psubscribe(self.prefix + "*")
                    delay = 0.5
                    self._report_up()
                    async for raw in pubsub.listen():
                        if raw.get("type") != "pmessage":
                            continue
                        payload = json.loads(raw["data"])
                        for message in payload if isinstance(payload, list) else [payload]:
                            self.local.deliver(message)
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as error:
                self._report_down(error)
            finally:
                with contextlib.suppress(Exception):
                    await client.aclose()
            await asyncio.sleep(delay)
            delay = min(delay * 2, 10.0)

    async def close(self) -> None:
        loop = asyncio.get_running_loop()
        task = self._listeners.pop(loop, None)
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


def _redacted(url: str) -> str:
    """The URL without a password, for log lines."""
    if "@" in url:
        scheme, _, rest = url.partition("://")
        return f"{scheme}://…@{rest.split('@', 1)[1]}"
    return url


Broadcaster = MemoryBroadcaster | RedisBroadcaster
_broadcaster: Broadcaster | None = None
_broadcaster_lock = threading.Lock()


def get_broadcaster() -> Broadcaster:
    """This process's broadcaster, made from the settings on first use."""
    global _broadcaster
    if _broadcaster is None:
        with _broadcaster_lock:
            if _broadcaster is None:
                _broadcaster = make_broadcaster()
    return _broadcaster


def make_broadcaster() -> Broadcaster:
    if settings.EVENTS_BACKEND == "redis" and settings.REDIS_URL:
        return RedisBroadcaster(settings.REDIS_URL)
    return MemoryBroadcaster()


def reset_broadcaster() -> None:
    """Forget the broadcaster (tests that change settings)."""
    global _broadcaster
    with _broadcaster_lock:
        _broadcaster = None


# --- Rendering --------------------------------------------------------------------------------

_renderers: dict[str, Renderer] = {}


def renders(kind: str) -> Callable[[Renderer], Renderer]:
    """Register the function that turns events of `kind` into SSE frames.

    A renderer must not query the database: it runs on the event loop, once per event per
    process, from the event's data alone.
    """

    def register(function: Renderer) -> Renderer:
        _renderers[kind] = function
        return function

    return register


class _RenderCache:
    """The encoded frames of recent events: a bell to 1,000 phones is rendered once."""

    def __init__(self, size: int = 256) -> None:
        self._items: OrderedDict[int, bytes] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get_or_render(self, message: Message) -> bytes:
        key = message["id"]
        with self._lock:
            cached = self._items.get(key)
            if cached is not None:
                self._items.move_to_end(key)
                return cached
        encoded = encode_event(message)
        with self._lock:
            self._items[key] = encoded
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return encoded


_render_cache = _RenderCache()


def encode_event(message: Message) -> bytes:
    renderer = _renderers.get(message["kind"])
    frames: Iterable[Frame] = renderer(message) if renderer else [(message["kind"], json.dumps(message["data"]))]
    return b"".join(encode_frame(data, event=name, event_id=message["id"]) for name, data in frames)


def encode_frame(data: str, *, event: str | None = None, event_id: int | None = None) -> bytes:
    """One SSE message. Multi-line data becomes several `data:` lines, as the format requires."""
    lines = []
    if event:
        lines.append(f"event: {event}")
    if event_id is not None:
        lines.append(f"id: {event_id}")
    lines.extend(f"data: {line}" for line in data.splitlines() or [""])
    return ("\n".join(lines) + "\n\n").encode()


def render_message(message: Message) -> bytes:
    return _render_cache.get_or_render(message)


# --- The stream -------------------------------------------------------------------------------


def parse_last_event_id(request: HttpRequest) -> int | None:
    raw = request.headers.get("Last-Event-ID") or request.GET.get("last_event_id")
    if raw is None:
        return None
    try:
        value = int(raw)
    except ValueError:
        return None
    return value if value >= 0 else None


def _reading_the_log[T](function: Callable[..., T]) -> Callable[..., Awaitable[T]]:
    """Run a log read in the shared thread pool and give its database connection back at once.

    An open stream is a request that lasts minutes: Django would keep its connection until the
    response ends, so a thousand phones would pin a thousand connections (or empty the pool).
    """

    return sync_to_async(releasing_the_connection(function), thread_sensitive=False)


def releasing_the_connection[T](function: Callable[..., T]) -> Callable[..., T]:
    """`function`, closing this thread's connection when it returns (back to the pool)."""

    def read_and_release(*args: object) -> T:
        try:
            return function(*args)
        finally:
            connection.close()

    return read_and_release


_stream_reads = ThreadPoolExecutor(max_workers=4, thread_name_prefix="stream-reads")


def read_for_a_stream[T](request: HttpRequest, function: Callable[[], T]) -> T:
    """Run a stream view's own queries (find the night, check the phone may follow it) in a small
    shared pool, from the view's thread, and give the connection back at once.

    Under ASGI a sync view's thread lives as long as its response, minutes for a stream. Work
    done in it leaves memory behind for that long (the C library keeps each thread's freed
    blocks for the thread: some 60 KiB a phone after an ORM query); a handful of shared threads
    keep it once for everyone. (Served by WSGI, the thread is the server's own and is reused at
    once: the view's thread then reads, as usual, inside the request's transaction if any.)
    """
    if not isinstance(request, ASGIRequest):
        return function()
    return _stream_reads.submit(releasing_the_connection(function)).result()


def _events_after_sync(channel: str, after_id: int, limit: int) -> list[Message]:
    return [event.as_message() for event in Event.objects.on(channel).after(after_id)[:limit]]


_events_after = _reading_the_log(_events_after_sync)


# More missed events than this and a snapshot is cheaper than the replay.
REPLAY_LIMIT = 500


def event_stream_response(
    request: HttpRequest,
    channel: str,
    snapshot: Callable[[], str],
) -> StreamingHttpResponse:
    """The SSE response for one phone on `channel`.

    `snapshot` (synchronous, may query) renders the whole live region; it is sent on a fresh
    connection and after a gap too long to replay.
    """
    last_event_id = parse_last_event_id(request)
    _let_go_of_the_database()
    response = StreamingHttpResponse(
        _stream(channel, snapshot, last_event_id), content_type="text/event-stream"
    )
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: pass each message on at once
    return response


def _let_go_of_the_database() -> None:
    """Close the connections this thread opened.

    A stream lasts minutes and the request's connection would be held all that time (Django
    releases it when the response ends): a thousand phones would empty the pool. The view's own
    queries are done; the stream's reads take a connection only while they run.
    """
    for wrapper in connections.all(initialized_only=True):
        wrapper.close()


async def _stream(
    channel: str, snapshot: Callable[[], str], last_event_id: int | None
) -> AsyncIterator[bytes]:
    broadcaster = get_broadcaster()
    broadcaster.ensure_listening()
    subscription = Subscription(channel=channel, loop=asyncio.get_running_loop())
    # Subscribe before reading the log, so nothing committed in between is missed.
    broadcaster.local.add(subscription)
    heartbeat = settings.EVENTS_HEARTBEAT_SECONDS
    deadline = time.monotonic() + settings.EVENTS_STREAM_MAX_SECONDS
    sent: _SentIds = _SentIds()
    try:
        yield b"retry: 1000\n\n"
        if last_event_id is None:
            yield await _snapshot_frame(channel, snapshot, sent)
        else:
            missed = await _events_after(channel, last_event_id, REPLAY_LIMIT + 1)
            if len(missed) > REPLAY_LIMIT:
                yield await _snapshot_frame(channel, snapshot, sent)
            else:
                sent.high = last_event_id
                for message in missed:
                    yield sent.frame(message)
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return  # the browser reconnects with Last-Event-ID
            try:
                message = await asyncio.wait_for(subscription.queue.get(), min(heartbeat, remaining))
            except TimeoutError:
                # The safety net: whatever pub/sub lost, the log still has.
                yield b": heartbeat\n\n"
                for missed_message in await _events_after(channel, sent.high, REPLAY_LIMIT):
                    if missed_message["id"] not in sent:
                        yield sent.frame(missed_message)
                continue
            # Whatever else is already queued goes out in the same chunk: one write for a tap's
            # totals and the bell it rang.
            messages = [message]
            while not subscription.queue.empty():
                messages.append(subscription.queue.get_nowait())
            if any(queued is CLOSE_STREAM for queued in messages):
                return
            if subscription.overflowed:
                subscription.overflowed = False
                for missed_message in await _events_after(channel, sent.high, REPLAY_LIMIT):
                    if missed_message["id"] not in sent:
                        yield sent.frame(missed_message)
            chunk = b"".join(sent.frame(queued) for queued in messages if queued["id"] not in sent)
            if chunk:
                yield chunk
    finally:
        broadcaster.local.remove(subscription)


class _SentIds:
    """Which events this connection already sent, so a replay and a live copy are sent once."""

    def __init__(self) -> None:
        self.high = 0
        self._recent: OrderedDict[int, None] = OrderedDict()

    def __contains__(self, event_id: int) -> bool:
        return event_id in self._recent

    def frame(self, message: Message) -> bytes:
        self._recent[message["id"]] = None
        if len(self._recent) > 1024:
            self._recent.popitem(last=False)
        self.high = max(self.high, message["id"])
        return render_message(message)


async def _snapshot_frame(channel: str, snapshot: Callable[[], str], sent: _SentIds) -> bytes:
    latest_id, html = await _reading_the_log(_read_snapshot)(channel, snapshot)
    sent.high = latest_id
    # The id lets a reconnect ask only for what came after this snapshot.
    return encode_frame(html, event_id=latest_id or None)


def _read_snapshot(channel: str, snapshot: Callable[[], str]) -> tuple[int, str]:
    # The id is read first: an event committed between the two reads is then both in the
    # snapshot and replayed, which renderers make harmless, instead of lost.
    latest_id = Event.objects.latest_id(channel)
    return latest_id, snapshot()

