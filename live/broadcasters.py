"""Delivery of committed events to the streams that follow their channels (docs/DESIGN.md §4).

* `MemoryBroadcaster` (embedded default): asyncio queues in this one process.
* `RedisBroadcaster` (REDIS_URL set): Redis pub/sub, so a POST served by one process reaches the
  streams held by another. When Redis is unreachable, publishing logs one line and gives up at
  once: the change is already committed, and streams catch up from the log at their next
  heartbeat (and pages by their slow poll). Nothing is lost and no request fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

logger = logging.getLogger("live.broadcasters")

Message = dict[str, Any]  # {"id", "channel", "kind", "data"}: Event.as_message()


CLOSE_STREAM: Message = {"id": -1, "channel": "", "kind": "close", "data": {}}


# More messages waiting than this and the stream resynchronises from the log instead.
MAILBOX_SIZE = 512

# The process's look at the log forgets what was delivered as it moves on (LocalFanout.forget_delivered);
# this many at most are kept meanwhile, should it not run.
DELIVERED_KEPT = 65_536


@dataclass(eq=False)
class Subscription:
    """One open stream's mailbox, living on the event loop that serves it (`offer` and `take` run
    on that loop only).

    A stream may follow several channels: a table's public one and a seat's private one.
    A deque and one future, not an asyncio.Queue (three deques and an Event of its own): a few KiB
    less for each of a hall's thousand open streams (issue 34).
    """

    channels: tuple[str, ...]
    loop: asyncio.AbstractEventLoop
    waiting: deque[Message] = field(default_factory=deque)
    # Set when the mailbox overflowed: the stream then resynchronises from the log.
    overflowed: bool = False
    _wakeup: asyncio.Future[None] | None = None

    def offer(self, message: Message) -> None:
        if len(self.waiting) >= MAILBOX_SIZE:
            self.overflowed = True
            return
        self.waiting.append(message)
        if self._wakeup is not None and not self._wakeup.done():
            self._wakeup.set_result(None)

    async def take(self, timeout: float) -> list[Message]:
        """Every message waiting, in order, as soon as there is one; [] after `timeout` seconds."""
        if not self.waiting:
            self._wakeup = self.loop.create_future()
            try:
                await asyncio.wait_for(self._wakeup, timeout)
            except TimeoutError:
                return []
            finally:
                self._wakeup = None
        messages = list(self.waiting)
        self.waiting.clear()
        return messages


class LocalFanout:
    """The streams open in this process, by channel; delivery is safe from any thread."""

    def __init__(self) -> None:
        self._subscriptions: dict[str, set[Subscription]] = {}
        self._lock = threading.Lock()
        # Deliveries waiting for their event loop to run them, by loop. The events one action
        # commits (a tap's new totals, then the bell) are published back to back: handed over
        # together, each stream wakes once for all of them and writes them in one chunk.
        self._pending: dict[asyncio.AbstractEventLoop, list[tuple[list[Subscription], Message]]] = {}
        # The ids of the events lately handed to streams here (those of a channel some stream
        # follows): the process's look at the log at each heartbeat (live/streams.py LogWatch)
        # hands on only what pub/sub never brought, not everything logged since its last look.
        self._delivered: OrderedDict[int, None] = OrderedDict()

    def add(self, subscription: Subscription) -> None:
        with self._lock:
            for channel in subscription.channels:
                self._subscriptions.setdefault(channel, set()).add(subscription)

    def remove(self, subscription: Subscription) -> None:
        with self._lock:
            for channel in subscription.channels:
                subscribers = self._subscriptions.get(channel)
                if subscribers is not None:
                    subscribers.discard(subscription)
                    if not subscribers:
                        del self._subscriptions[channel]

    def close_all(self) -> None:
        """Ask every open stream to end (server shutdown): each gets the closing sentinel."""
        self.deliver_to_all(CLOSE_STREAM)

    def deliver_to_all(self, message: Message) -> None:
        with self._lock:
            subscribers = list({sub for subs in self._subscriptions.values() for sub in subs})
        self._deliver(subscribers, message)

    def deliver(self, message: Message) -> None:
        """Hand `message` to every local stream on its channel.

        Streams live on event loops; one `call_soon_threadsafe` per loop (not per stream, and
        not per message when several come at once) keeps a bell to a thousand phones cheap.
        """
        with self._lock:
            subscribers = list(self._subscriptions.get(message["channel"], ()))
            if subscribers:
                self._delivered[message["id"]] = None
                if len(self._delivered) > DELIVERED_KEPT:
                    self._delivered.popitem(last=False)
        self._deliver(subscribers, message)

    def undelivered(self, logged: Iterable[tuple[int, str]]) -> list[int]:
        """The ids among `logged` ((id, channel) pairs read from the log) of a channel some stream here
        follows now that were never delivered here: what pub/sub lost."""
        with self._lock:
            return [event_id for event_id, channel in logged
                    if channel in self._subscriptions and event_id not in self._delivered]

    def forget_delivered(self, up_to: int) -> None:
        """Forget the delivered ids up to `up_to` (the next look at the log reads after it). Oldest
        first, in the order they came: one that came out of id order is forgotten a little later."""
        with self._lock:
            while self._delivered and next(iter(self._delivered)) <= up_to:
                self._delivered.popitem(last=False)

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

    def __init__(self, url: str, prefix: str | None = None) -> None:
        import redis

        self.url = url
        self.local = LocalFanout()
        self._client = redis.Redis.from_url(url, socket_connect_timeout=0.3, socket_timeout=0.5)
        # Pub/sub channels belong to the whole Redis server, whatever database the URL names: the
        # database's number is in the prefix, so that two sites (or two test workers) given two
        # databases of one Redis never hear each other's events (both have a "night:1").
        database = self._client.connection_pool.connection_kwargs.get("db", 0)
        self.prefix = prefix if prefix is not None else f"bunco:{database}:events:"
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

