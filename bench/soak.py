"""The soak (issue 21): a 100-table night of 400 phones for a bounded time, then the checks.

`make soak` (SOAK_SECONDS, default 600; SOAK_LAYOUTS, default "embedded,scaled"). For each layout
a server of its own on loopback and a fresh database:

- embedded: `make run`'s server, one uvicorn process, SQLite file, in-process events;
- scaled: scripts/run_scaled.py without Celery: nginx → gunicorn (pages, POSTs) + 2 uvicorn
  (streams), a Redis of the soak's own between them (private_redis says why), PostgreSQL.

The night is played through the pages, as people do (bench/bench_night_live.py's helpers): the
host starts a night of 400 names on /nights/new/; 400 phones each open the night's join link and
tap their name (claim); each follows its own stream (/events/night/<code>/player/<id>/, the play
page's), reconnecting with Last-Event-ID when the stream ends (the server ends each after
EVENTS_STREAM_MAX_SECONDS) or when the phone drops it (bad Wi-Fi: a few phones drop theirs every
few seconds); each re-reads its panel (/n/<code>/play/ as htmx does) on the night's changes
(round started, bell, moved, break over, night over) and on its own table's, and every
SOAK_POLL_SECONDS (10, the page's own poll; 0: none); and taps +1/+2/+5 (now and then a Bunco) for its
team or the other, at random (a Poisson process: SOAK_TAPS_PER_SECOND, 35, for all 400), each
tap with its own key as static/js/tally.js posts it. A few taps are sent twice with one key (the
answer lost, a second copy racing the first, a copy cut off before its answer then sent again):
each must count once. The head table's taps ring the bell; after it, each other table's seat 1
taps "Our turn is over" (a moment later: the turn under way is finished), and a tied table rolls
off (each seat taps its roll-off, seat 1 taps "Every seat has rolled off"), again while tied. The
host's own stream says when the round has closed and the phones have moved; the host reads the
host page and taps "Start round N" (or "Resume the night" after the break) three seconds later.
Every phone reads its new table and team from its panel and taps there.

When SOAK_SECONDS are up the host starts no new round; the round under way is played to its close
(for at most half the run more, or 30 s), the taps under way are answered, the streams are given
time to carry the last event, and the checks run. A night that reaches its 24th round before then
ends the soak early (said in the summary). SOAK_HEAD_PACE speeds the head table's taps (CI's
one-minute run: a round at a hall's pace lasts minutes).

Checks (the command exits 1 if any fails): every acknowledged tap is in the database exactly
once, and no refused one is; every phone's stream carried every bell rung after it connected
(live, or in a reconnect's replay); every phone's panel sent it to its seat's table; no 5xx; a bell
rang; the server's resident memory (the sum over its processes) flat after warm-up, over a run of
5 minutes or more (bench/soak_checks.py says how). Reported, not failed on: whether every stream
carried every event of the night (docs/RELIABILITY.md, "The soak", says why not).

SOAK_KILLS=1 (issue 33): on the scaled layout each process (nginx, gunicorn, both uvicorn) is killed
(SIGKILL) once during the play, scripts/run_scaled.py starting it again; the checks are the same,
but for the 5xx given while a killed process was down (its kill to its next answer, and a few
seconds more), which are counted apart.

Client and server share the machine's cores: the phones are lean (asyncio; the raw-socket SSE
client of bench/common.py; one shared httpx pool for the POSTs and panels).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from http.cookiejar import DefaultCookiePolicy
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.bench_night_live import PhoneSession, claim_phones, host_post, start_night  # noqa: E402
from bench.common import (  # noqa: E402
    Phone,
    Site,
    children,
    free_ports,
    percentile,
    raise_open_file_limit,
    rss_kib,
    scaled_site,
    uvicorn_site,
)
from bench.soak_checks import (  # noqa: E402
    Bell,
    StreamTrace,
    TapOutcome,
    check_bells,
    check_events,
    check_memory,
    check_taps,
)
from scripts.run_scaled import started_pids  # noqa: E402

PLAYERS = 400
TAPS_PER_SECOND = float(os.environ.get("SOAK_TAPS_PER_SECOND", "35"))
# The head table's phones tap this many times faster than the others. 1 (the default) is a real
# night, where a round lasts until a head-table team reaches 21, a few minutes at a busy hall's
# pace; CI's one-minute run sets 4, so that a bell rings (and the tables finish) within it.
HEAD_PACE = float(os.environ.get("SOAK_HEAD_PACE", "1"))
# Memory is judged flat or not only over a run at least this long: a shorter one is warm-up all
# through (each stream's memory of the ids it sent fills at 1,024 events; the first round's 400
# panel reads); its figures are printed all the same.
MEMORY_JUDGED_AFTER = 300.0
# The page's own poll (settings.PHONE_POLL_SECONDS); 0: the phones never poll (to see its cost).
POLL_SECONDS = float(os.environ.get("SOAK_POLL_SECONDS", "10"))
MEMORY_EVERY = 5.0  # seconds between samples of the server's resident memory
HOST_PAUSE = 3.0  # people walk to their new tables before the host starts the round
DROP_EVERY = 5.0  # every so often a few phones lose their stream (bad Wi-Fi) ...
DROPS = 2  # ... this many ...
DROP_AWAY = (1.0, 3.0)  # ... for this long, then reconnect with Last-Event-ID
WIND_DOWN_SECONDS = 30.0  # at most this long (or half the run) to play out the round under way
DRAIN_SECONDS = 60.0  # after the end, how long the streams get to carry the night's last event
CLAIMERS = 4  # phones claiming their seats at once (each its own sequence of pages)
# How a tap is sent: mostly once; sometimes its answer is lost and it is sent again; sometimes a
# second copy races the first (a retry before the first answered); sometimes the first copy is
# cut off before its answer (the phone's time limit) and sent again.
SENDS = (("once", 0.94), ("again", 0.02), ("racing", 0.02), ("cut", 0.02))
BUNCO_CHANCE = 0.01
TRIES = 5  # static/js/tally.js: tries of one tap before the phone says it was not saved
# SOAK_KILLS=1 (the scaled layout, issue 33): each process of the layout (nginx, gunicorn, both
# uvicorn) is killed (SIGKILL) once, the kills spread over the play; scripts/run_scaled.py starts
# it again. The 5xx check then leaves out the answers given while a process was down: from its
# kill until it answers /health/ again, and RESTART_GRACE_SECONDS more (nginx's connections to a
# backend that has just come back).
KILLS = os.environ.get("SOAK_KILLS", "") == "1"
RESTART_GRACE_SECONDS = 5.0


# --- Reading what the server sends ---------------------------------------------------------------


class Dechunker:
    """HTTP/1.1 chunked transfer coding, undone incrementally (a stream's body arrives in pieces)."""

    def __init__(self) -> None:
        self.buffer = b""
        self.remaining = -1  # bytes left in the current chunk (+2 for its CRLF); -1: a size line next
        self.ended = False

    def feed(self, data: bytes) -> bytes:
        self.buffer += data
        out = []
        while not self.ended:
            if self.remaining < 0:
                line_end = self.buffer.find(b"\r\n")
                if line_end < 0:
                    break
                size = int(self.buffer[:line_end].split(b";")[0], 16)
                self.buffer = self.buffer[line_end + 2:]
                if size == 0:
                    self.ended = True
                    break
                self.remaining = size + 2
            if len(self.buffer) < self.remaining:
                break
            out.append(self.buffer[:self.remaining - 2])
            self.buffer = self.buffer[self.remaining:]
            self.remaining = -1
        return b"".join(out)


@dataclass
class Frame:
    event: str | None
    id: int | None
    data: str


class SseParser:
    """Server-Sent Events frames from the decoded body (only the fields this server sends)."""

    def __init__(self) -> None:
        self.buffer = b""

    def feed(self, data: bytes) -> list[Frame]:
        self.buffer += data
        frames: list[Frame] = []
        while True:
            end = self.buffer.find(b"\n\n")
            if end < 0:
                return frames
            block, self.buffer = self.buffer[:end].decode(), self.buffer[end + 2:]
            event, event_id, lines = None, None, []
            for line in block.split("\n"):
                name, _, value = line.partition(":")
                value = value.removeprefix(" ")
                if name == "data":
                    lines.append(value)
                elif name == "event":
                    event = value
                elif name == "id":
                    event_id = int(value)
            if lines:
                frames.append(Frame(event, event_id, "\n".join(lines)))


# --- What a phone knows from its panel ------------------------------------------------------------

PLACE = re.compile(r'data-place="(\d+)-(\d+|none)"')
TABLE_STATUS = re.compile(r'class="phone-state [^"]*?table-([a-z_]+)"')
TEAM_CHECKED = re.compile(r'name="team" value="([AB])" checked')
TEAM_MINE = re.compile(r'team-mine">\s*<p class="team-names">[^<]*(?:<[^>]+>[^<]*)*?</p>\s*<p class="team-points"><span id="r\d+-t\d+-([ab])">')
SEAT = re.compile(r"\bseat (\d+)")
ROLL_OFF_DONE = re.compile(r'table/roll-off-done/" hx-vals=\'\{"round": "(\d+)", "roll_off": "(\d+)"\}\'')
BUNCO_TEAM = re.compile(r'<div class="bunco-team" data-team="([AB])">(.*?)</div>', re.S)
BUNCO_PLAYER = re.compile(r'data-bunco-player="(\d+)"')
HOST_STEP = re.compile(r'host/(start|resume)/" hx-vals=\'\{"round": "(\d+)"\}\'')


@dataclass
class Panel:
    """The phone's panel (#phone-state) as last read."""

    round: int = 0
    table: int | None = None
    table_status: str = ""
    team: str = ""
    seat: int = 0
    ready: bool = False  # the round waits for its start ("Go to table N")
    bell: bool = False
    can_score: bool = False
    turn_over: bool = False  # "Our turn is over" is offered
    roll_off: int = 0  # the roll-off whose "Every seat has rolled off" is offered
    over: bool = False  # the night is over
    buncos: list[int] = field(default_factory=list)  # who on my team can be named for a Bunco

    @classmethod
    def read(cls, html: str) -> Panel:
        panel = cls(over="That's the night!" in html)
        place = PLACE.search(html)
        if place:
            panel.round = int(place.group(1))
            panel.table = None if place.group(2) == "none" else int(place.group(2))
        status = TABLE_STATUS.search(html)
        panel.table_status = status.group(1) if status else ""
        team = TEAM_CHECKED.search(html) or TEAM_MINE.search(html)
        panel.team = team.group(1).upper() if team else ""
        seat = SEAT.search(html)
        panel.seat = int(seat.group(1)) if seat else 0
        panel.ready = 'class="go-to card"' in html or "Break time" in html
        panel.bell = "bell-banner" in html
        panel.can_score = 'id="tally-form"' in html
        panel.turn_over = "table/turn-over/" in html
        roll_off = ROLL_OFF_DONE.search(html)
        panel.roll_off = int(roll_off.group(2)) if roll_off else 0
        for team_code, buttons in BUNCO_TEAM.findall(html):
            if team_code == panel.team:
                panel.buncos = [int(player) for player in BUNCO_PLAYER.findall(buttons)]
        return panel


# --- The soak's bookkeeping -----------------------------------------------------------------------


@dataclass
class Tally:
    """The client's record of every answer, by kind of request."""

    statuses: Counter[tuple[str, int]] = field(default_factory=Counter)  # (what, status) -> count
    server_errors: list[str] = field(default_factory=list)
    failures: Counter[str] = field(default_factory=Counter)  # (what: exception) -> count
    tap_latencies: list[float] = field(default_factory=list)
    outcomes: dict[str, TapOutcome] = field(default_factory=dict)
    refusals: Counter[str] = field(default_factory=Counter)  # a tap's 4xx message -> count
    server_error_times: list[float] = field(default_factory=list)  # when each 5xx came (monotonic)

    def answered(self, what: str, response: httpx.Response) -> None:
        self.statuses[(what, response.status_code)] += 1
        if response.status_code >= 500:
            self.server_error(f"{what} {response.request.url.path} {response.status_code}: {response.text[:200]!r}")

    def server_error(self, text: str) -> None:
        self.server_errors.append(text)
        self.server_error_times.append(time.monotonic())


class SimPhone:
    """One phone: its session, its panel, its stream (reconnecting), its taps."""

    def __init__(self, soak: Soak, session: PhoneSession) -> None:
        self.soak = soak
        self.session = session
        self.name = session.name
        self.panel = Panel(table=session.table, team=session.team)
        self.trace = StreamTrace(phone=session.name, since_id=-1)
        self.last_id: int | None = None
        self.stream: Phone | None = None
        self.connected = asyncio.Event()  # the first snapshot arrived
        self.refresh = asyncio.Event()
        self.sending = asyncio.Lock()  # tally.js sends a phone's taps one after another, in order
        self.acted: set[tuple[str, int, int]] = set()  # the steps this phone has taken, not twice
        self.places: dict[int, int | None] = {}  # round -> the table its panel sent it to
        self.reconnects = 0
        self.drops = 0
        # Each connection: (opened at, the Last-Event-ID it sent, the ids of its first and last frames).
        self.connections: list[list[object]] = []

    @property
    def headers(self) -> dict[str, str]:
        return {"Cookie": self.session.cookie, "X-CSRFToken": self.session.csrf, "HX-Request": "true"}

    # The stream

    async def follow(self) -> None:
        path = f"/events/night/{self.soak.code}/player/{self.session.player}/"
        while not self.soak.closing:
            headers = {"Cookie": self.session.cookie}
            if self.last_id is not None:
                headers["Last-Event-ID"] = str(self.last_id)
            connected_at = time.time()
            try:
                self.stream = await Phone.connect(self.soak.site.url, path, headers)
            except OSError as error:
                self.soak.tally.failures[f"stream connect: {type(error).__name__}"] += 1
                await asyncio.sleep(1.0)
                continue
            status = int(self.stream.head.split(b" ", 2)[1])
            self.soak.tally.statuses[("stream", status)] += 1
            if status != 200:
                if status >= 500:
                    self.soak.tally.server_error(f"stream {path} {status}")
                self.stream.close()
                await asyncio.sleep(1.0)
                continue
            chunked = b"transfer-encoding: chunked" in self.stream.head.lower()
            self.connections.append([round(connected_at, 3), self.last_id, None, None])
            await self.read_stream(self.stream, Dechunker() if chunked else None, fresh=self.last_id is None,
                                   connected_at=connected_at)
            self.stream.close()
            self.stream = None
            if self.soak.closing:
                return
            self.reconnects += 1
            await asyncio.sleep(1.0)  # the stream's `retry: 1000`

    async def read_stream(self, stream: Phone, dechunker: Dechunker | None, *, fresh: bool,
                          connected_at: float) -> None:
        parser = SseParser()
        first = fresh
        while True:
            try:
                data = await stream.reader.read(65536)
            except (ConnectionError, OSError):
                return
            if not data:
                return
            body = dechunker.feed(data) if dechunker else data
            for frame in parser.feed(body):
                connection = self.connections[-1]
                connection[2] = connection[2] or frame.id
                connection[3] = frame.id or connection[3]
                if first:  # a fresh connection's first message is the snapshot of the live region
                    first = False
                    if self.trace.since_id < 0:
                        self.trace.since_id = frame.id or 0
                        self.connected.set()
                    if frame.id is not None:
                        self.last_id = frame.id
                    continue
                self.on_frame(frame, connected_at)
            if dechunker and dechunker.ended:
                return

    def on_frame(self, frame: Frame, connected_at: float) -> None:
        if frame.id is None:
            return
        self.last_id = frame.id
        if frame.event is None and frame.data.startswith('<hx-partial hx-target=".bell-slot"'):
            # The bell's banner (its "changed" follows, with the same id), or a snapshot that
            # stood in for a replay too long to send: neither marks the id seen by itself.
            return
        self.trace.mark(frame.id)
        if frame.event != "changed":
            return
        data = json.loads(frame.data)
        if "winners" in data:  # the bell
            self.trace.bells[frame.id] = (time.time(), connected_at)
            self.refresh.set()
        elif self.concerns_me(data):
            self.refresh.set()

    def concerns_me(self, data: dict[str, object]) -> bool:
        """A change the phone's panel follows: the night's own, or its table's this round. (The
        page re-reads on every change; news of the other 99 tables changes nothing on it.)"""
        if data.get("what") in ("round_started", "moved", "resumed", "night_over"):
            return True
        return data.get("table") is not None and data.get("table") == self.panel.table \
            and data.get("round") == self.panel.round

    def drop(self) -> bool:
        """Bad Wi-Fi: the stream is cut; the phone reconnects with Last-Event-ID."""
        if self.stream is None:
            return False
        self.drops += 1
        self.stream.writer.transport.abort()
        return True

    # The panel

    async def read_panel(self) -> None:
        try:
            response = await self.soak.client.get(f"/n/{self.soak.code}/play/", headers=self.headers)
        except httpx.HTTPError as error:
            self.soak.tally.failures[f"panel: {type(error).__name__}"] += 1
            return
        self.soak.tally.answered("panel", response)
        if response.status_code == 200:
            self.take_panel(response.text)

    def take_panel(self, html: str) -> None:
        self.panel = Panel.read(html)
        if self.panel.table is not None and self.panel.round:
            self.places[self.panel.round] = self.panel.table
        self.act()

    async def watch_panel(self) -> None:
        """Re-read the panel on the changes that concern this phone, and on the page's poll."""
        rng = self.soak.rng
        poll = POLL_SECONDS or 24 * 3600.0
        next_poll = time.monotonic() + rng.uniform(0, poll)
        while not self.soak.stopping:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.refresh.wait(), max(0.1, next_poll - time.monotonic()))
            if self.soak.stopping:
                return
            if not self.refresh.is_set():
                next_poll = time.monotonic() + poll
            self.refresh.clear()
            await self.read_panel()

    def act(self) -> None:
        """What the panel asks of the player: end the turn after the bell, roll off a tie."""
        panel = self.panel
        if self.soak.stopping or panel.table is None:
            return
        if panel.turn_over and ("turn", panel.round, 0) not in self.acted:
            self.acted.add(("turn", panel.round, 0))
            # Seat 1 taps it once the turn under way is played out; now and then another seat
            # taps it too, at the same moment (the server ends the step once).
            if panel.seat == 1 or self.soak.rng.random() < 0.02:
                self.soak.later(self.soak.rng.uniform(1.0, 5.0), self.end_step, "turn-over", {"round": panel.round},
                                ("turn", panel.round, 0))
        if panel.roll_off and ("roll-off", panel.round, panel.roll_off) not in self.acted:
            self.acted.add(("roll-off", panel.round, panel.roll_off))
            # Each seat takes its roll-off turn (a scoring roll or none), then seat 1 says so.
            if self.soak.rng.random() < 0.8:
                self.soak.later(self.soak.rng.uniform(0.3, 2.5), self.tap)
            if panel.seat == 1:
                self.soak.later(self.soak.rng.uniform(4.0, 6.0), self.end_step, "roll-off-done",
                                {"round": panel.round, "roll_off": panel.roll_off},
                                ("roll-off", panel.round, panel.roll_off))

    async def end_step(self, step: str, data: dict[str, int], done: tuple[str, int, int]) -> None:
        try:
            response = await self.soak.client.post(f"/n/{self.soak.code}/table/{step}/", headers=self.headers,
                                                   data={name: str(value) for name, value in data.items()})
        except httpx.HTTPError as error:
            self.soak.tally.failures[f"{step}: {type(error).__name__}"] += 1
            response = None
        if response is not None:
            self.soak.tally.answered(step, response)
        if response is not None and response.status_code == 200:
            self.take_panel(response.text)
        elif response is None or response.status_code >= 500:
            # No answer: the button is still there on the panel, and the player taps it again.
            self.acted.discard(done)
            self.refresh.set()

    # The taps

    async def tap_now_and_then(self) -> None:
        rng = self.soak.rng
        rate = TAPS_PER_SECOND / PLAYERS
        while not self.soak.stopping:
            await asyncio.sleep(rng.expovariate(rate * (HEAD_PACE if self.panel.table == 1 else 1)))
            if self.soak.stopping:
                return
            if self.panel.can_score:
                self.soak.spawn(self.tap())

    async def tap(self) -> None:
        async with self.sending:
            await self.send_one_tap()

    async def send_one_tap(self) -> None:
        panel, rng = self.panel, self.soak.rng
        if not panel.can_score or panel.table is None or self.soak.stopping:
            return
        mine = rng.random() < 0.85
        team = panel.team if mine else ("B" if panel.team == "A" else "A")
        data = {"csrfmiddlewaretoken": self.session.csrf, "table": str(panel.table), "team": team,
                "key": secrets.token_hex(16)}
        if mine and panel.buncos and rng.random() < BUNCO_CHANCE:
            data["bunco_player"] = str(rng.choice(panel.buncos))
        else:
            data["points"] = rng.choice("1111122225")
        outcome = TapOutcome(key=data["key"])
        self.soak.tally.outcomes[outcome.key] = outcome
        send = rng.choices([name for name, _ in SENDS], [weight for _, weight in SENDS])[0]
        if send == "racing":
            second = self.soak.spawn(self.send_tap(data, outcome, delay=rng.uniform(0.01, 0.2)))
            await self.send_tap(data, outcome)
            await second
            return
        cut_after = rng.uniform(0.001, 0.03) if send == "cut" else None
        for attempt in range(TRIES):  # tally.js: a try without an answer is sent again, same key
            answered = await self.send_tap(data, outcome, cut_after=cut_after)
            if answered is not None:
                break
            cut_after = None
            await asyncio.sleep(min(0.5 * 2 ** attempt, 4.0))
        if send == "again" and answered:
            await self.send_tap(data, outcome)

    async def send_tap(self, data: dict[str, str], outcome: TapOutcome, *, delay: float = 0,
                       cut_after: float | None = None) -> bool | None:
        """One copy of a tap (tally.js's postOnce): True if it was answered 2xx, False if refused
        (4xx), None if it got no answer (cut off, the connection lost) or a 5xx."""
        if delay:
            await asyncio.sleep(delay)
        outcome.copies += 1
        started = time.perf_counter()
        try:
            request = self.soak.client.post(f"/n/{self.soak.code}/tally/", data=data, headers=self.headers)
            if cut_after is None:
                response = await request
            else:
                response = await asyncio.wait_for(request, cut_after)
        except TimeoutError:
            outcome.unanswered = True  # cut off: it may or may not have been counted
            return None
        except httpx.HTTPError as error:
            outcome.unanswered = True
            self.soak.tally.failures[f"tap: {type(error).__name__}"] += 1
            return None
        self.soak.tally.answered("tap", response)
        if response.is_success:
            outcome.acknowledged = True
            self.soak.tally.tap_latencies.append(time.perf_counter() - started)
            return True
        if response.status_code >= 500:
            return None
        outcome.refused = True
        with contextlib.suppress(ValueError):
            message = response.json().get("error", "")
            self.soak.tally.refusals[re.sub(r"\d+", "N", message)[:90]] += 1
        return False


# --- The host --------------------------------------------------------------------------------------


class Host:
    """The host: a stream of the night, and the host page's buttons to start each round."""

    def __init__(self, soak: Soak, client: httpx.Client) -> None:
        self.soak = soak
        self.client = client
        self.started: list[tuple[int, float]] = []  # (round, when) started
        self.moved = asyncio.Event()
        self.closed: set[int] = set()  # rounds closed (the phones moved on, or the night ended)
        self.over = False

    async def follow(self) -> None:
        cookie = "; ".join(f"{name}={value}" for name, value in self.client.cookies.items())
        while not self.soak.closing:
            try:
                stream = await Phone.connect(self.soak.site.url, f"/events/night/{self.soak.code}/", {"Cookie": cookie})
            except OSError:
                await asyncio.sleep(1.0)
                continue
            chunked = b"transfer-encoding: chunked" in stream.head.lower()
            dechunker, parser = (Dechunker() if chunked else None), SseParser()
            with contextlib.suppress(ConnectionError, OSError):
                while data := await stream.reader.read(65536):
                    for frame in parser.feed(dechunker.feed(data) if dechunker else data):
                        if frame.event == "changed":
                            data = json.loads(frame.data)
                            what = data.get("what")
                            if what in ("moved", "night_over"):
                                self.closed.add(data["round"] - 1 if what == "moved" else data["round"])
                                self.over = self.over or what == "night_over"
                                self.moved.set()
            stream.close()
            await asyncio.sleep(1.0)

    async def run(self) -> None:
        """Start each round (and end the break) from the host page, until time is up."""
        while not self.soak.winding_down and not self.over:
            await self.press_start()
            with contextlib.suppress(TimeoutError):
                # The round closes and the phones move; the poll is the page's safety net.
                await asyncio.wait_for(self.moved.wait(), 10)
            if self.moved.is_set():
                self.moved.clear()
                await asyncio.sleep(HOST_PAUSE)

    async def press_start(self) -> None:
        for _ in range(2):  # after the break: "Resume the night", then "Start round N"
            if self.soak.winding_down:
                return
            try:
                page = await asyncio.to_thread(self.client.get, f"/n/{self.soak.code}/host/",
                                               headers={"HX-Request": "true"})
            except httpx.TransportError as error:  # nginx down (SOAK_KILLS): the host tries again
                self.soak.tally.failures[f"host page: {type(error).__name__}"] += 1
                return
            self.soak.tally.statuses[("host page", page.status_code)] += 1
            step = HOST_STEP.search(page.text)
            if step is None:
                return
            what, number = step.group(1), int(step.group(2))
            try:
                await asyncio.to_thread(host_post, self.client, f"/n/{self.soak.code}/host/{what}/", round=number)
                self.soak.tally.statuses[(f"host {what}", 200)] += 1
            except httpx.TransportError as error:
                self.soak.tally.failures[f"host {what}: {type(error).__name__}"] += 1
                return
            except httpx.HTTPStatusError as error:
                status = error.response.status_code
                self.soak.tally.statuses[(f"host {what}", status)] += 1
                if status >= 500:
                    self.soak.tally.server_error(f"host {what} {status}: {error.response.text[:200]!r}")
                return
            if what == "start":
                self.started.append((number, time.time()))
                say(f"{self.soak.layout}: round {number} started")
                return


# --- The run ------------------------------------------------------------------------------------


@dataclass
class Result:
    layout: str
    seconds: float
    lines: list[str]
    ok: bool


@dataclass
class Kill:
    """One process of the layout killed during the play (SOAK_KILLS)."""

    name: str
    killed_at: float  # monotonic
    back_at: float | None = None  # when it answered /health/ again

    def covers(self, moment: float) -> bool:
        """Whether an answer at `moment` came while this process was down (or just back)."""
        back = self.back_at if self.back_at is not None else float("inf")
        return self.killed_at <= moment <= back + RESTART_GRACE_SECONDS


def answers_health(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health/", timeout=2) as response:
            return bool(response.status == 200)
    except OSError:
        return False


class Soak:
    def __init__(self, site: Site, layout: str, seconds: float, seed: int = 21) -> None:
        self.site = site
        self.layout = layout
        self.seconds = seconds
        self.rng = random.Random(seed)
        self.code = ""
        self.tally = Tally()
        self.winding_down = False  # the host starts no new round
        self.stopping = False  # nothing new is started
        self.closing = False  # the streams are closed
        self.tasks: set[asyncio.Task[object]] = set()
        self.memory: list[tuple[float, int]] = []
        self.kills: list[Kill] = []
        self.started_at = 0.0  # when the play began (monotonic)
        # Seconds of play on a core and waiting for one: the server's processes, the phones' process.
        self.cpu = (0.0, 0.0, 0.0, 0.0)
        limits = httpx.Limits(max_connections=128, max_keepalive_connections=128)
        self.client = httpx.AsyncClient(base_url=site.url, timeout=60, limits=limits)
        # One pool for every phone: each request carries its phone's own cookies, and the pool
        # keeps none (a phone's Set-Cookie is not another phone's).
        self.client.cookies.jar.set_policy(DefaultCookiePolicy(allowed_domains=[]))

    def spawn(self, work: Coroutine[Any, Any, object]) -> asyncio.Task[object]:
        task = asyncio.create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    def later(self, delay: float, action: Callable[..., Awaitable[object]], *args: object) -> None:
        async def after() -> None:
            await asyncio.sleep(delay)
            if not self.stopping:
                await action(*args)
        self.spawn(after())

    async def sample_memory(self) -> None:
        while not self.stopping:
            self.memory.append((time.monotonic(), rss_kib(self.site.pid)))
            await asyncio.sleep(MEMORY_EVERY)

    async def kill_each_process(self, started: float) -> None:
        """SOAK_KILLS: each process scripts/run_scaled.py started, killed once, the kills spread
        over the play; each time, waits until it answers again (run_scaled starts it again)."""
        log = self.site.workdir / "layout.log"
        names = list(self.started_pids(log))  # each is "<program> :<port>"
        every = self.seconds / (len(names) + 1)
        for index, name in enumerate(names, 1):
            await asyncio.sleep(max(0.0, started + index * every - time.monotonic()))
            if self.winding_down:
                return
            port, pid = int(name.rsplit(":", 1)[1]), self.started_pids(log)[name]
            os.kill(pid, signal.SIGKILL)
            kill = Kill(name, time.monotonic())
            self.kills.append(kill)
            say(f"{self.layout}: killed {name} (pid {pid})")
            # Back once its new process answers: the old one's workers may answer for a moment
            # after their parent's death, until run_scaled ends them and starts it again.
            while self.started_pids(log)[name] == pid or not await asyncio.to_thread(answers_health, port):
                await asyncio.sleep(0.2)
            kill.back_at = time.monotonic()
            say(f"{self.layout}: {name} answers again {kill.back_at - kill.killed_at:.1f} s after its kill")

    @staticmethod
    def started_pids(log: Path) -> dict[str, int]:
        return started_pids(log.read_text(errors="replace"))

    async def drop_some(self, phones: list[SimPhone]) -> None:
        while not self.stopping:
            await asyncio.sleep(DROP_EVERY)
            for phone in self.rng.sample(phones, DROPS):
                phone.drop()

    async def run(self) -> Result:
        setup_started = time.monotonic()
        host_client, self.code, join, _ = await asyncio.to_thread(start_night, self.site, PLAYERS)
        say(f"{self.layout}: night {self.code} started in {time.monotonic() - setup_started:.0f} s; claiming")
        sessions = await claim_all(self.site, self.code, join)
        claimed_in = time.monotonic() - setup_started
        say(f"{self.layout}: {len(sessions)} phones claimed in {claimed_in:.0f} s; opening their streams")
        phones = [SimPhone(self, session) for session in sessions]
        followers = [asyncio.create_task(phone.follow()) for phone in phones]
        await asyncio.wait_for(asyncio.gather(*(phone.connected.wait() for phone in phones)), 120)
        host = Host(self, host_client)
        host_stream = asyncio.create_task(host.follow())
        sampler = asyncio.create_task(self.sample_memory())
        started = self.started_at = time.monotonic()
        server_at_start, phones_at_start = cpu_seconds(server_pids(self.site.pid)), cpu_seconds([os.getpid()])
        say(f"{self.layout}: streams open; playing for {self.seconds:.0f} s")
        workers = [asyncio.create_task(work) for phone in phones
                   for work in (phone.watch_panel(), phone.tap_now_and_then())]
        workers += [asyncio.create_task(host.run()), asyncio.create_task(self.drop_some(phones))]
        if KILLS and self.layout == "scaled":
            workers.append(asyncio.create_task(self.kill_each_process(started)))
        deadline = started + self.seconds
        while time.monotonic() < deadline and not host.over:
            await asyncio.sleep(1.0)
        # Time is up: no new round; the one under way is played to its close (within a bound).
        self.winding_down = True
        say(f"{self.layout}: time is up; round {len(host.started)} is played out")
        last_call = deadline + max(WIND_DOWN_SECONDS, self.seconds / 2)
        while time.monotonic() < last_call and not host.over and \
                not {number for number, _ in host.started} <= host.closed:
            await asyncio.sleep(1.0)
        played = time.monotonic() - started
        server, phones_cpu = cpu_seconds(server_pids(self.site.pid)), cpu_seconds([os.getpid()])
        self.cpu = (server[0] - server_at_start[0], server[1] - server_at_start[1],
                    phones_cpu[0] - phones_at_start[0], phones_cpu[1] - phones_at_start[1])
        say(f"{self.layout}: {len(host.closed)} rounds closed of {len(host.started)} started; draining")
        self.stopping = True
        for worker in workers:
            worker.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
        while self.tasks:  # the taps under way get their answers
            await asyncio.gather(*list(self.tasks), return_exceptions=True)
        # The streams carry the night's last event to every phone.
        last_id = await asyncio.to_thread(self.latest_event_id)
        drain_started = time.monotonic()
        while time.monotonic() - drain_started < DRAIN_SECONDS:
            behind = [phone for phone in phones if phone.last_id is None or phone.last_id < last_id]
            if not behind:
                break
            await asyncio.sleep(0.5)
        drained_in = time.monotonic() - drain_started
        if behind:
            say(f"{self.layout}: {len(behind)} phones short of event {last_id} after {drained_in:.0f} s: "
                f"{[(phone.name, phone.last_id, phone.stream is not None) for phone in behind[:5]]}")
        self.closing = True
        for task in (*followers, host_stream, sampler):
            task.cancel()
        await asyncio.gather(*followers, host_stream, sampler, return_exceptions=True)
        for phone in phones:
            if phone.stream is not None:
                phone.stream.close()
        await self.client.aclose()
        host_client.close()
        record = await asyncio.to_thread(self.database_record)
        return self.verdict(phones, host, record, played=played, claimed_in=claimed_in, drained_in=drained_in)

    def latest_event_id(self) -> int:
        return int(self.site.manage("shell", "--no-imports", "-v", "0", "-c", LATEST_EVENT.replace("CODE", self.code)).strip() or 0)

    def database_record(self) -> dict[str, object]:
        return json.loads(self.site.manage("shell", "--no-imports", "-v", "0", "-c", RECORD.replace("CODE", self.code)))

    def verdict(self, phones: list[SimPhone], host: Host, record: dict[str, object], *, played: float,
                claimed_in: float, drained_in: float) -> Result:
        tally = self.tally
        rows = Counter(str(key) for key, *_ in record["tallies"] if key)  # type: ignore[attr-defined]
        taps = check_taps(tally.outcomes.values(), rows)
        bells = [Bell(event_id, round_number, rung_at) for event_id, round_number, rung_at in record["bells"]]  # type: ignore[attr-defined]
        bell_verdict = check_bells([phone.trace for phone in phones], bells)
        event_ids = [int(event_id) for event_id in record["events"]]  # type: ignore[attr-defined]
        events = check_events([phone.trace for phone in phones], event_ids)
        memory = check_memory([kib for _, kib in self.memory])
        seats = {(player, number): table for player, number, table in record["seats"]}  # type: ignore[attr-defined]
        wrong_place = sum(
            1 for phone in phones for number, table in phone.places.items()
            if seats.get((phone.session.player, number)) != table
        )
        server_errors = sum(count for (_, status), count in tally.statuses.items() if status >= 500)
        # With SOAK_KILLS, a 5xx while a process was down is what a killed process gives (nginx's
        # 502 for a backend that is gone): only the others count.
        counted_errors = len([moment for moment in tally.server_error_times
                              if not any(kill.covers(moment) for kill in self.kills)]) if self.kills else server_errors
        rounds_closed = record["rounds_closed"]
        checks = {
            "every acknowledged tap in the database once, no refused one": taps.ok,
            "every phone saw every bell": bell_verdict.ok,
            "every phone followed the movement (its panel's table is its seat's)": wrong_place == 0,
            ("no 5xx outside the seconds a killed process was down" if self.kills else "no 5xx"): counted_errors == 0,
            ("memory flat after warm-up" if played >= MEMORY_JUDGED_AFTER else
             "memory flat after warm-up (not judged: too short a run)"): memory.ok or played < MEMORY_JUDGED_AFTER,
            "at least one bell rang": bool(bells),
        }
        ok = all(checks.values())
        mib = 1024
        lines = [
            f"## Soak: {self.layout}, {played:.0f} s of play ({'PASS' if ok else 'FAIL'})",
            f"- night {self.code}: {PLAYERS} phones claimed in {claimed_in:.0f} s; rounds started "
            f"{len(host.started)}, closed {rounds_closed}, bells {len(bells)} (the round under way when time "
            f"was up played to its close{'' if {n for n, _ in host.started} <= host.closed else ': NOT within the bound'})"
            f"{'; the night reached its end' if host.over else ''}",
            f"- taps: {len(tally.outcomes)} sent ({sum(o.copies for o in tally.outcomes.values())} copies), "
            f"{taps.acknowledged} acknowledged ({taps.retried} of them sent more than once), "
            f"{sum(1 for o in tally.outcomes.values() if o.refused and not o.acknowledged)} refused (4xx), "
            f"lost {len(taps.lost)}, duplicated {len(taps.duplicated)}, refused but recorded "
            f"{len(taps.refused_but_recorded)}, recorded but never sent {len(taps.recorded_unsent)}",
            f"- tap latency: p50 {percentile(tally.tap_latencies, 0.5) * 1000:.0f} ms, "
            f"p99 {percentile(tally.tap_latencies, 0.99) * 1000:.0f} ms, max "
            f"{max(tally.tap_latencies, default=0) * 1000:.0f} ms; "
            f"{len(tally.tap_latencies) / played:.1f} acknowledged copies a second",
            f"- bells: {bell_verdict.expected} (phone, bell) pairs expected, {bell_verdict.live} live, "
            f"{bell_verdict.replayed} by replay after a reconnect, missed {len(bell_verdict.missed)}; "
            f"latency from the ring p50 {percentile(bell_verdict.latencies, 0.5) * 1000:.0f} ms, "
            f"p99 {percentile(bell_verdict.latencies, 0.99) * 1000:.0f} ms, max "
            f"{max(bell_verdict.latencies, default=0) * 1000:.0f} ms",
            f"- events: {len(event_ids)} on the night's channel, {events.expected} (phone, event) pairs "
            f"expected, missed {sum(events.missed.values())} (phones missing any: {len(events.missed)}); "
            f"streams dropped by the phones {sum(p.drops for p in phones)}, reconnects "
            f"{sum(p.reconnects for p in phones)}; drained in {drained_in:.1f} s",
            f"- CPU over the {played:.0f} s of play: the server ran {self.cpu[0]:.0f} s ({self.cpu[0] / played:.0%} of a "
            f"core), its event loops waited {self.cpu[1]:.0f} s for a core; the 400 phones ran {self.cpu[2]:.0f} s "
            f"({self.cpu[2] / played:.0%}), their event loop waited {self.cpu[3]:.0f} s",
            f"- phones at a table other than their seat's: {wrong_place} "
            f"(over {sum(len(p.places) for p in phones)} (phone, round) places read)",
            f"- memory (server processes' RSS, {len(self.memory)} samples every {MEMORY_EVERY:.0f} s): warm-up "
            f"{memory.warm_up_kib / mib:.0f} MiB, second third {memory.second_kib / mib:.0f} MiB, last third "
            f"{memory.last_kib / mib:.0f} MiB (growth {memory.growth_kib / mib:+.1f} MiB, allowed "
            f"{memory.allowed_kib / mib:.0f} MiB), peak {memory.peak_kib / mib:.0f} MiB"
            + ("" if played >= MEMORY_JUDGED_AFTER else
               f"; not judged: under {MEMORY_JUDGED_AFTER:.0f} s of play the warm-up is not over"),
            f"- memory over time (MiB): {' '.join(f'{kib / mib:.0f}' for _, kib in self.memory)}",
            f"- answers: {', '.join(f'{what} {status}: {count}' for (what, status), count in sorted(tally.statuses.items()))}",
            f"- 5xx: {server_errors}" + (f" ({counted_errors} outside the kills' windows)" if self.kills else "")
            + "".join(f"\n  - {error}" for error in tally.server_errors[:10]),
        ]
        if self.kills:
            lines.append("- processes killed (SIGKILL) and started again by scripts/run_scaled.py: " + "; ".join(
                f"{kill.name} at {kill.killed_at - self.started_at:.0f} s, answering again after "
                + (f"{kill.back_at - kill.killed_at:.1f} s" if kill.back_at is not None else "never") for kill in self.kills))
        if tally.failures:
            lines.append(f"- client-side failures: {dict(tally.failures)}")
        if tally.refusals:
            lines.append("- taps refused, by message: " + "; ".join(
                f"{count}× {message!r}" for message, count in tally.refusals.most_common(6)))
        for name, passed in checks.items():
            lines.append(f"- [{'x' if passed else ' '}] {name}")
        # Reported, not failed on: beyond the checks, and failing today for a reason the
        # soak found (docs/RELIABILITY.md, "The soak"): an event's id is taken when it is written
        # and it is published when it commits, so a later id can reach a stream first; a phone that
        # reconnects in between sends the later id as Last-Event-ID and the earlier event is
        # never replayed.
        lines.append(f"- [{'x' if events.ok else '!'}] every phone's stream carried every event of the night "
                     f"(reported, not failed on: {sum(events.missed.values())} missed)")
        for what, found in (("lost", taps.lost), ("duplicated", taps.duplicated),
                            ("refused but recorded", taps.refused_but_recorded),
                            ("missed bells", bell_verdict.missed[:10]), ("missed events", list(events.missed.items())[:10])):
            if found:
                lines.append(f"  - {what}: {found[:10]}")
        for phone in phones:
            if phone.name in events.missed:
                gaps = [event_id for event_id in event_ids if event_id > phone.trace.since_id
                        and not phone.trace.saw(event_id)]
                lines.append(f"  - {phone.name} missed events {gaps[:10]}; its connections "
                             f"(opened, Last-Event-ID, first id, last id): {phone.connections}")
        return Result(self.layout, played, lines, ok)


LATEST_EVENT = """
from games.night.models import Night
from live.models import Event
night = Night.objects.get(code="CODE")
print(Event.objects.filter(channel=night.channel).order_by("-id").values_list("id", flat=True).first() or 0)
"""

RECORD = """
import json
from games.night.models import Night, Round, Seat, Tally
from live.models import Event
night = Night.objects.get(code="CODE")
events = Event.objects.filter(channel=night.channel).order_by("id")
rung = {r.number: r.bell_rung_at.timestamp() for r in Round.objects.filter(night=night, bell_rung_at__isnull=False)}
print(json.dumps({
    "tallies": list(Tally.objects.filter(night=night, by_host=False).values_list("key", "points", "table_round__number",
                                                                                "table_round__round__number")),
    "events": list(events.values_list("id", flat=True)),
    "bells": [(e.id, e.data["round"], rung[e.data["round"]]) for e in events.filter(kind="bell")],
    "seats": list(Seat.objects.filter(round__night=night, player__is_ghost=False)
                  .values_list("player_id", "round__number", "table_round__number")),
    "rounds_closed": Round.objects.filter(night=night, status="closed").count(),
}))
"""


async def claim_all(site: Site, code: str, join: str) -> list[PhoneSession]:
    """Every name claimed by its own phone, CLAIMERS phones at a time."""
    share = -(-PLAYERS // CLAIMERS)
    parts = await asyncio.gather(*(
        asyncio.to_thread(claim_phones, site, code, join, share, skip=start)
        for start in range(0, PLAYERS, share)
    ))
    sessions = [session for part in parts for session in part]
    if len({session.player for session in sessions}) != PLAYERS:
        raise RuntimeError(f"{len({session.player for session in sessions})} names claimed of {PLAYERS}.")
    return sessions


@contextlib.contextmanager
def private_redis() -> Iterator[str]:
    """A Redis of the soak's own on a free port, for the scaled layout's events.

    Redis's pub/sub ignores database numbers: every process on the machine whose broadcaster
    listens on bunco:events:* gets every other's messages, and a fresh database's night is
    night 1 in each of them (a test run's, a benchmark's). On a shared machine the soak's streams
    would carry another night 1's events; a Redis of its own carries only the soak's."""
    port = free_ports()
    server = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                               "--appendonly", "no"], stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1) as probe:
                probe.sendall(b"PING\r\n")
                if probe.recv(16).startswith(b"+PONG"):
                    break
            if time.monotonic() > deadline or server.poll() is not None:
                raise RuntimeError("The soak's own Redis did not start.")
            time.sleep(0.2)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        server.terminate()
        server.wait(timeout=10)


@contextlib.contextmanager
def scaled_with_own_redis() -> Iterator[Site]:
    with private_redis() as url:
        os.environ["BENCH_REDIS_URL"] = url  # bench_env gives it to every process of the layout
        try:
            with scaled_site(streams=2, web_workers=2) as site:
                yield site
        finally:
            os.environ.pop("BENCH_REDIS_URL", None)


LAYOUTS: dict[str, Callable[[], AbstractContextManager[Site]]] = {
    "embedded": uvicorn_site,
    "scaled": scaled_with_own_redis,
}


def cpu_seconds(pids: list[int]) -> tuple[float, float]:
    """Seconds on a core of these processes so far (all their threads, those already gone too:
    /proc/PID/stat), and seconds their main threads (the event loops) were ready to run but
    waited for a core (/proc/PID/schedstat): the machine is shared, and the wait says how much."""
    ran = waited = 0.0
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            schedstat = Path(f"/proc/{pid}/schedstat").read_text().split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        ran += (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
        waited += int(schedstat[1]) / 1e9
    return ran, waited


def server_pids(pid: int) -> list[int]:
    return [pid, *children(pid)]


def say(text: str) -> None:
    """Progress, on stderr: the summary on stdout stays whole."""
    print(f"[soak {time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def load_average() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def soak(layout: str, seconds: float) -> Result:
    with LAYOUTS[layout]() as site:
        result = asyncio.run(Soak(site, layout, seconds).run())
        if not result.ok:  # what the layout's own logs said, before its folder goes
            for log in (site.workdir / "layout" / "nginx-error.log", site.workdir / "layout.log"):
                if log.exists():
                    tail = log.read_text(errors="replace").splitlines()[-15:]
                    result.lines.append(f"- the end of {log.name}:" + "".join(f"\n    {line[:300]}" for line in tail))
        return result


def stop(*_: object) -> None:
    raise KeyboardInterrupt  # unwinds through the layouts' context managers: every server stopped


def main() -> int:
    # Started in the background a process may ignore SIGINT: both signals stop the soak cleanly.
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    raise_open_file_limit()
    seconds = float(os.environ.get("SOAK_SECONDS", "600"))
    layouts = [name.strip() for name in os.environ.get("SOAK_LAYOUTS", "embedded,scaled").split(",") if name.strip()]
    unknown = [name for name in layouts if name not in LAYOUTS]
    if unknown:
        print(f"Unknown layout {', '.join(unknown)}: SOAK_LAYOUTS takes {', '.join(LAYOUTS)}.", file=sys.stderr)
        return 2
    results = []
    for layout in layouts:
        before = load_average()
        began = time.monotonic()
        result = soak(layout, seconds)
        result.lines.insert(1, f"- {time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores shared with the "
                               f"client (and whatever else runs); load average (1, 5, 15 min) {before} before, "
                               f"{load_average()} after; {time.monotonic() - began:.0f} s in all")
        print("\n".join(result.lines), flush=True)
        print(flush=True)
        results.append(result)
    failed = [result.layout for result in results if not result.ok]
    # Not "N passed, N failed": CI would read that as the closing line of the test suite.
    print("The soak: " + ", ".join(f"{result.layout} {'PASS' if result.ok else 'FAIL'}" for result in results))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
