"""The Server-Sent Events stream a page follows (docs/DESIGN.md §4).

A stream subscribes first, then sends a snapshot (fresh connection) or replays the rows missed
after `Last-Event-ID` (reconnect); then it relays what the broadcaster hands it, with a heartbeat
comment. What pub/sub lost, the process's one look at the log each heartbeat (`LogWatch`) finds
and hands to its streams as the broadcaster would have.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.db import InterfaceError, OperationalError, connection, connections
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.utils import translation
from django.utils.translation import gettext, gettext_noop

from live.bilingual import SEPARATOR, shown_in
from live.broadcasters import CLOSE_STREAM, LocalFanout, Message, Subscription, get_broadcaster
from live.http import ID_MAX, client_address, parse_int
from live.models import Event
from live.refusals import Refusal, TooMany, answers_refusals, text_refusal
from live.rendering import encode_frame, render_message

logger = logging.getLogger("live.streams")


def parse_last_event_id(request: HttpRequest) -> int | None:
    """The id of the last event this browser saw (its EventSource's Last-Event-ID header, or
    ?last_event_id=), None on a fresh connection; BadNumber for anything but an event's id."""
    raw = request.headers.get("Last-Event-ID") or request.GET.get("last_event_id")
    if not raw:
        return None
    return parse_int(raw, low=0, high=ID_MAX, what=gettext_noop("the Last-Event-ID"))


class OpenStreams:
    """How many streams each client address has open in this process.

    A hall's phones share one public address, so the cap is high (settings.EVENTS_MAX_STREAMS_PER_ADDRESS,
    500: a charity night's 400 phones, its host and projectors): what it stops is one client opening
    streams until the process runs out of memory or file descriptors. Counted per process: with
    several uvicorn workers an address may hold the cap in each.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_address: dict[str, int] = {}

    def open(self, address: str, most: int) -> bool:
        """Count one more stream for `address`; False (and nothing counted) when it has `most`."""
        with self._lock:
            count = self._by_address.get(address, 0)
            if count >= most:
                return False
            self._by_address[address] = count + 1
            return True

    def close(self, address: str) -> None:
        with self._lock:
            count = self._by_address.get(address, 0) - 1
            if count > 0:
                self._by_address[address] = count
            else:
                self._by_address.pop(address, None)

    def count(self, address: str) -> int:
        with self._lock:
            return self._by_address.get(address, 0)

    def total(self) -> int:
        with self._lock:
            return sum(self._by_address.values())

    def clear(self) -> None:
        with self._lock:
            self._by_address.clear()


open_streams = OpenStreams()

TOO_MANY_STREAMS = gettext_noop(
    "Too many live screens are open from this network just now (%(most)s at most). "
    "Close a page or two: this one still updates every few seconds, and goes live again by itself."
)


class EventStreamResponse(StreamingHttpResponse):
    """An open stream, counted for its client's address until the server closes the response
    (it does, however the stream ended: finished, the phone gone, the server stopping)."""

    def __init__(self, streaming_content: AsyncIterator[bytes], *, address: str) -> None:
        super().__init__(streaming_content, content_type="text/event-stream")
        self._address: str | None = address

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self._address is not None:
                open_streams.close(self._address)
                self._address = None


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


def _events_after_sync(channels: tuple[str, ...], after_id: int, limit: int) -> list[Message]:
    return [event.as_message() for event in Event.objects.on(*channels).after(after_id)[:limit]]


def _unsent_after_sync(channels: tuple[str, ...], after_id: int, sent: _SentIds, limit: int) -> list[Message]:
    """The events after `after_id` this connection has not sent: their ids first (one cheap read,
    and usually every one of them was sent live), then the rows of those it lacks."""
    ids = Event.objects.on(*channels).after(after_id).values_list("id", flat=True)[:limit]
    unsent = [event_id for event_id in ids if event_id not in sent]
    if not unsent:
        return []
    return [event.as_message() for event in Event.objects.filter(id__in=unsent).order_by("id")]


_events_after = _reading_the_log(_events_after_sync)
_unsent_after = _reading_the_log(_unsent_after_sync)


@dataclass(frozen=True)
class PrivateChannel:
    """A channel one phone may follow only while it holds what the channel belongs to (a seat).

    Fixing a stream's channels when it connects is not enough: the phone may tap another seat, say
    "That's not me", or be freed by the table's opener while its stream stays open, and the seat's
    next holder's hand would then reach it. So before any event of this channel is sent, `since`
    is asked (synchronous, it may query): the id of the event from which on this phone may see the
    channel (its claim of the seat), or None when it holds it no more. An older event is left out
    (it was the seat's previous holder's); None ends the stream, and the page reconnects to follow
    what its phone holds now.

    That read is a stream's one cost beyond its write, and a move of a game of hidden hands deals to
    every seat: four streams reading at once, in the process that is still answering the move. So an event
    may say for which holding it was written (`data[WRITTEN_FOR]`: the `since` of whoever held the
    channel then, read under the lock every change of hands takes), and `held_since` is the
    holding this phone's stream was opened for (read with the seat's holder when it connected): an
    event written for it was written while this phone held the channel, so it goes out without a
    read. Any other (no stamp, another holding) is checked as above.
    """

    name: str
    since: Callable[[], int | None]
    held_since: int | None = None


# The key of a private event's data that names the holding it was written for (PrivateChannel).
WRITTEN_FOR = "written_for"


# More missed events than this and a snapshot is cheaper than the replay.
REPLAY_LIMIT = 500
# An event's id is taken when its row is written but it reaches the streams when its transaction
# commits, so events can arrive out of id order: a phone may have id 101 before 100 commits. Had
# the phone reconnected in between, asking for what came after 101, event 100 would never reach
# it (seen in the soak: a few phones a run). So a replay reads again from this many ids before the
# newest one sent, which is far more than the writers ever in flight at once (the pools and the
# servers' threads are a few dozen at most). What a phone gets twice is harmless: the renderers
# send absolute figures, swap whole regions and upsert by id, and the table pages skip a move or an
# event they have already taken.
REPLAY_OVERLAP_IDS = 100


def _lost_after_sync(after_id: int, local: LocalFanout) -> tuple[int, list[Message]]:
    """The newest id logged after `after_id` (0 when none was), and the events after it, of a
    channel some stream of `local` follows, that pub/sub never delivered there: the ids and
    channels of everything logged since first (one read by the primary key, whatever the number of
    channels followed; usually pub/sub brought every one), then the rows of those it lacks."""
    logged = list(Event.objects.after(after_id).values_list("id", "channel"))
    newest = max((event_id for event_id, _channel in logged), default=0)
    lost = local.undelivered(logged)  # the channels followed now, after the read: see LogWatch
    if not lost:
        return newest, []
    return newest, [event.as_message() for event in Event.objects.filter(id__in=lost).order_by("id")]


_newest_logged = _reading_the_log(Event.objects.newest_id)  # where the log ends: the first look
_lost_after = _reading_the_log(_lost_after_sync)

# The key a message read from the log by the process's look carries (`LogWatch`, `_SentIds.lacks`).
FROM_THE_LOG = "from_the_log"


class LogWatch:
    """The process's look at the event log at each heartbeat: the safety net for what pub/sub lost
    (Redis down a moment, a publish skipped), once for all the process's open streams rather than
    once for each (5,000 streams were 5,000 reads every 15 s, ~250 ms of CPU a second).

    Each look reads what was logged after the newest id the look before found, less
    REPLAY_OVERLAP_IDS, and hands the events of a channel a stream here follows that were never
    delivered here to the streams through the broadcaster's local fan-out, as pub/sub would have,
    marked FROM_THE_LOG: each stream leaves out what it sent already or what its first read
    covered (`_SentIds.lacks`), and a private channel's event still passes the stream's `_Guard`
    first.

    Why that covers every stream: an event committed after a look has an id above the newest
    committed before it less REPLAY_OVERLAP_IDS (what the replay relies on too), so at least the
    newest that look found less the overlap: the next look reads it. One committed before a stream
    subscribed is in the stream's own first read (its snapshot or replay, read after subscribing),
    and the channels followed are taken after each look's read, so a stream subscribed before that
    read is in it. A stream that subscribed before the watch's first look (the process's first
    streams), or whose last look failed, reads for itself at its heartbeat instead (`coverage`),
    as does one whose mailbox overflowed.

    One watch a process, on the loop of the stream that started it; it stops with the server
    (`stop_watching_the_log`, the ASGI lifespan).
    """

    def __init__(self, local: LocalFanout) -> None:
        self.local = local
        self._newest: int | None = None  # the newest id the last look found; None before the first look
        self._epoch = 0  # moves on when a look fails: the streams it covered read for themselves again
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start watching on the running loop, unless the watch runs already (a stream opens)."""
        task = self._task
        if task is not None and not task.done() and not task.get_loop().is_closed():
            return
        self._newest = None
        self._epoch += 1
        self._task = asyncio.get_running_loop().create_task(self._watch())
        self._task.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Task[None]) -> None:
        """The watch stopped (the server stops, or a look failed in a way it did not expect): the
        streams it covered read for themselves again, and the next stream to open or to look for
        itself starts it anew."""
        self._newest = None
        self._epoch += 1
        if not task.cancelled() and task.exception() is not None:
            logger.error("The process's look at the event log stopped: each stream looks for itself",
                         exc_info=task.exception())

    def coverage(self) -> int | None:
        """What a stream keeps, taken once it has subscribed or before it reads the log for itself:
        `covers` tells from it whether the watch's looks find whatever the stream lacks from then
        on. None before the watch's first look."""
        return None if self._newest is None else self._epoch

    def covers(self, coverage: int | None) -> bool:
        return coverage is not None and coverage == self._epoch and self._newest is not None

    async def _watch(self) -> None:
        while True:
            try:
                await self.look()
            except (OperationalError, InterfaceError):
                # The database is away: each stream reads for itself at its next heartbeat, and ends
                # as a stream ends when it is (the phone reconnects once it is back).
                self._epoch += 1
            await asyncio.sleep(settings.EVENTS_HEARTBEAT_SECONDS)

    async def look(self) -> None:
        """One look at the log: the first finds where the log ends; each after hands on what pub/sub lost."""
        if self._newest is None:
            self._newest = await _newest_logged()
            return
        newest, lost = await _lost_after(self._newest - REPLAY_OVERLAP_IDS, self.local)
        self._newest = max(self._newest, newest)
        self.local.forget_delivered(self._newest - REPLAY_OVERLAP_IDS)
        for message in lost:
            self.local.deliver({**message, FROM_THE_LOG: True})

    async def stop(self) -> None:
        """Stop watching, and wait for it when the watch runs on this loop."""
        task = self.abandon()
        if task is not None and task.get_loop() is asyncio.get_running_loop():
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def abandon(self) -> asyncio.Task[None] | None:
        """Stop watching, from any thread: the watching task, cancelled, if it still ran."""
        task, self._task = self._task, None
        if task is None or task.done() or task.get_loop().is_closed():
            return None
        task.get_loop().call_soon_threadsafe(task.cancel)
        return task


_watch: LogWatch | None = None
_watch_lock = threading.Lock()


def watching_the_log(local: LocalFanout) -> LogWatch:
    """The process's LogWatch over `local`'s streams, started if it does not run (lazily, when a
    stream opens; a new one when the broadcaster was made anew, in tests)."""
    global _watch
    with _watch_lock:
        if _watch is None or _watch.local is not local:
            if _watch is not None:
                _watch.abandon()
            _watch = LogWatch(local)
        _watch.start()
        return _watch


async def stop_watching_the_log() -> None:
    """Stop the process's look at the log (the server stops)."""
    with _watch_lock:
        watch = _watch
    if watch is not None:
        await watch.stop()


def _answer(request: HttpRequest, refusal: Refusal, **kwargs: object) -> HttpResponse:
    return text_refusal(refusal)


@answers_refusals(_answer)
def event_stream_response(
    request: HttpRequest,
    channels: Sequence[str],
    snapshot: Callable[[], str],
    *,
    private: Sequence[PrivateChannel] = (),
    languages: Sequence[str] = (),
) -> HttpResponse | StreamingHttpResponse:
    """The SSE response for one phone following `channels`; 400 for a malformed Last-Event-ID, 429
    when the client's address has too many streams open (settings.EVENTS_MAX_STREAMS_PER_ADDRESS).

    The view has already decided that this phone may follow every one of them now; a channel that
    is the phone's only while it holds a seat is given in `private` as well, and is checked again
    whenever one of its events is to be sent (`PrivateChannel`). One id sequence covers them all:
    the log's ids are global, so one Last-Event-ID replays whatever was missed on any of the
    channels.

    `snapshot` (synchronous, may query) renders the whole live region; it is sent on a fresh
    connection and after a gap too long to replay.

    Everything is said in the phone's language; a shared screen (a projector) gives `languages`,
    the first its own: its words are then said in each (live/bilingual.py).
    """
    last_event_id = parse_last_event_id(request)  # a bad one: a BadNumber, answered as text (400)
    address = client_address(request)
    most = settings.EVENTS_MAX_STREAMS_PER_ADDRESS
    if not open_streams.open(address, most):
        raise TooMany(gettext(TOO_MANY_STREAMS) % {"most": most}, retry_after=10)  # answered as text, as a bad id is
    try:
        _let_go_of_the_database()
        response = EventStreamResponse(
            _stream((*channels, *(channel.name for channel in private)), _in_language(snapshot, languages),
                    last_event_id, _Guard(private), SEPARATOR.join(languages) or translation.get_language()),
            address=address,
        )
    except BaseException:
        open_streams.close(address)
        raise
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


class _SeatLost(Exception):
    """A private channel's phone holds its seat no more: the stream ends here."""


class _Guard:
    """Lets a private channel's event through only while its phone holds the seat (PrivateChannel)."""

    def __init__(self, private: Sequence[PrivateChannel]) -> None:
        self._private = {channel.name: channel for channel in private}

    def guards(self, message: Message) -> bool:
        """Whether `message` is of a private channel (checked before it is sent)."""
        return message["channel"] in self._private

    async def allowed(self, messages: list[Message], sent: _SentIds) -> list[Message]:
        """`messages` less those of a private channel older than the phone's claim (counted as
        sent, so that no catch-up reads them again); _SeatLost when one is of a channel whose seat
        the phone no longer holds. One read a channel a batch, none for an event written for the
        holding this stream was opened for (PrivateChannel)."""
        to_check = [message for message in messages if message["channel"] in self._private
                    and not self._written_for_this_phone(message)]
        names = {message["channel"] for message in to_check}
        if not names:
            return messages
        since = {name: await _reading_the_log(self._private[name].since)() for name in names}
        if any(value is None for value in since.values()):
            raise _SeatLost
        checked = {id(message) for message in to_check}
        allowed = []
        for message in messages:
            if id(message) in checked and message["id"] <= (since[message["channel"]] or 0):
                sent.skip(message)
            else:
                allowed.append(message)
        return allowed

    def _written_for_this_phone(self, message: Message) -> bool:
        held_since = self._private[message["channel"]].held_since
        data = message["data"]
        # 0 is no holding (a seat's default before any claim): never a mark to trust.
        return bool(held_since) and isinstance(data, dict) and data.get(WRITTEN_FOR) == held_since


async def _stream(
    channels: tuple[str, ...], snapshot: Callable[[], str], last_event_id: int | None, guard: _Guard,
    language: str | None,
) -> AsyncIterator[bytes]:
    broadcaster = get_broadcaster()
    broadcaster.ensure_listening()
    watch = watching_the_log(broadcaster.local)
    subscription = Subscription(channels=channels, loop=asyncio.get_running_loop())
    # Subscribe before reading the log, so nothing committed in between is missed.
    broadcaster.local.add(subscription)
    # Subscribed after the watch's first look, the stream is in each look that follows.
    coverage = watch.coverage()
    heartbeat = settings.EVENTS_HEARTBEAT_SECONDS
    deadline = time.monotonic() + settings.EVENTS_STREAM_MAX_SECONDS
    sent: _SentIds = _SentIds(language)  # the phone's language, read while its request was active
    try:
        yield b"retry: 1000\n\n"
        for frame in await _first_frames(channels, snapshot, last_event_id, guard, sent):
            yield frame
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return  # the browser reconnects with Last-Event-ID
            # Whatever is already waiting comes out together: one write for a tap's totals and the
            # bell it rang.
            messages = await subscription.take(min(heartbeat, remaining))
            if not messages:
                yield b": heartbeat\n\n"
                frames, coverage = await _looked_for_itself(watch, coverage, channels, guard, sent)
                for frame in frames:
                    yield frame
                continue
            if any(queued is CLOSE_STREAM for queued in messages):
                return
            if subscription.overflowed:
                subscription.overflowed = False
                for frame in await _missed_frames(channels, guard, sent):
                    yield frame
            fresh = [queued for queued in messages if sent.lacks(queued)]
            # What everyone may see goes out at once; a private event waits for its seat's check
            # (a read of the log's database) unless it was written for this phone's holding
            # (PrivateChannel), so a move reaches every phone without waiting for the hands it
            # dealt (a Ninety-Nine move's four) to be checked.
            public = [queued for queued in fresh if not guard.guards(queued)]
            if public:
                yield b"".join(sent.frame(queued) for queued in public)
            if len(public) < len(fresh):
                to_send = await guard.allowed([queued for queued in fresh if guard.guards(queued)], sent)
                chunk = b"".join(sent.frame(queued) for queued in to_send)
                if chunk:
                    yield chunk
    except _SeatLost:
        return  # the page reconnects, following the channels its phone may follow now
    except (OperationalError, InterfaceError) as error:
        # The database went away under an open stream (PostgreSQL restarting): the stream ends
        # cleanly, and the phone reconnects with Last-Event-ID (answered 503 until the database is
        # back, bunco_club/site/unavailable.py, then replayed what it missed). One line, not a traceback.
        logger.error("A live stream ended: the database is unreachable (%s: %s)", type(error).__name__,
                     str(error).strip().splitlines()[0] if str(error).strip() else "")
    finally:
        broadcaster.local.remove(subscription)


async def _first_frames(channels: tuple[str, ...], snapshot: Callable[[], str], last_event_id: int | None,
                        guard: _Guard, sent: _SentIds) -> list[bytes]:
    """What a connection starts with: a fresh one the snapshot; a reconnecting one what it missed
    since its Last-Event-ID, or the snapshot when that is more than a replay is worth."""
    if last_event_id is None:
        return [await _snapshot_frame(channels, snapshot, sent)]
    missed = await _events_after(channels, max(0, last_event_id - REPLAY_OVERLAP_IDS), REPLAY_LIMIT + 1)
    if len(missed) > REPLAY_LIMIT:
        return [await _snapshot_frame(channels, snapshot, sent)]
    sent.high = last_event_id
    sent.floor = max(0, last_event_id - REPLAY_OVERLAP_IDS)  # the replay read everything after it
    return [sent.frame(message) for message in await guard.allowed(missed, sent)]


async def _looked_for_itself(watch: LogWatch, coverage: int | None, channels: tuple[str, ...], guard: _Guard,
                             sent: _SentIds) -> tuple[list[bytes], int | None]:
    """At a heartbeat, what the stream finds in the log for itself when the process's look does not
    cover it (it opened before the first look, or the last look failed), and its coverage after."""
    if watch.covers(coverage):
        return [], coverage
    watch.start()  # should the watch have stopped
    looking = watch.coverage()
    return await _missed_frames(channels, guard, sent), looking


async def _missed_frames(channels: tuple[str, ...], guard: _Guard, sent: _SentIds) -> list[bytes]:
    """What the log holds that this connection has not sent (pub/sub lost it, or its queue
    overflowed): the safety net, read from the log."""
    unsent = await _unsent_after(channels, sent.catch_up_from, sent, REPLAY_LIMIT)
    return [sent.frame(message) for message in await guard.allowed(unsent, sent)]


def _in_language(snapshot: Callable[[], str], languages: Sequence[str]) -> Callable[[], str]:
    """`snapshot`, rendered in the language of the phone that opened the stream (and a shared
    screen's `languages`), whichever thread runs it."""
    language = translation.get_language()

    def rendered() -> str:
        with translation.override(language), shown_in(languages if len(languages) > 1 else ()):
            return snapshot()

    return rendered


class _SentIds:
    """Which events this connection already sent, so a replay and a live copy are sent once, in
    the language of its phone."""

    def __init__(self, language: str | None) -> None:
        self.language = language
        self.high = 0  # the newest id sent
        # What the connection's first read covered: the snapshot's id (what it holds is never sent
        # again), or where a reconnection's replay started (the phone had everything before).
        self.floor = 0
        self._recent: OrderedDict[int, None] = OrderedDict()

    @property
    def catch_up_from(self) -> int:
        """Where a read of the log for what this connection lacks starts (REPLAY_OVERLAP_IDS)."""
        return max(self.floor, self.high - REPLAY_OVERLAP_IDS)

    def __contains__(self, event_id: int) -> bool:
        return event_id in self._recent

    def lacks(self, message: Message) -> bool:
        """Whether `message` is still to be sent: not sent yet, and, when the process's look at the
        log found it (LogWatch), after `floor` (the connection's first read had what came before,
        and more: the look hands on whatever this process's streams never had live, not only what
        this one lacks). The look reads from where it last stopped, so an event pub/sub lost
        reaches the stream even once a hundred newer ones came live meanwhile (its own read, from
        `catch_up_from`, would have passed it by)."""
        if message["id"] in self._recent:
            return False
        return not message.get(FROM_THE_LOG) or message["id"] > self.floor

    def frame(self, message: Message) -> bytes:
        self.skip(message)
        return render_message(message, self.language)

    def skip(self, message: Message) -> None:
        """Count `message` as sent without sending it (a private event this phone may not see)."""
        self._recent[message["id"]] = None
        if len(self._recent) > 1024:
            self._recent.popitem(last=False)
        self.high = max(self.high, message["id"])


async def _snapshot_frame(channels: tuple[str, ...], snapshot: Callable[[], str], sent: _SentIds) -> bytes:
    latest_id, html = await _reading_the_log(_read_snapshot)(channels, snapshot)
    sent.high = sent.floor = latest_id
    # The id lets a reconnect ask only for what came after this snapshot.
    return encode_frame(html, event_id=latest_id or None)


def _read_snapshot(channels: tuple[str, ...], snapshot: Callable[[], str]) -> tuple[int, str]:
    # The id is read first: an event committed between the two reads is then both in the
    # snapshot and replayed, which renderers make harmless, instead of lost.
    latest_id = Event.objects.latest_id(*channels)
    return latest_id, snapshot()

