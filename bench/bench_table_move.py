"""Benchmark: a game table's move to every phone at the table, against a Bunco tap (docs/DESIGN.md §7).

`make run`'s server (one uvicorn process, SQLite, the in-process broadcaster) serves, at once:

- a table of each of the three games (Fill or Bust, Kismet, Ninety-Nine or Bust) opened through
  "Play a game" (/tables/new/) with four people's seats: four phones, each with its own session,
  tap their seat (/g/<code>/claim/), the opener starts the game, and each phone opens its table
  stream (/events/table/<code>/) as its page does. The seat on turn moves by POST to
  /g/<code>/move/ as static/js/table_live.js sends it (the game's fields: `kind`, and `dice` for
  a keep, `keep` and `box` for Kismet, `card` for Ninety-Nine; then `seat`, a fresh `key`, the
  phone's fresh part of the move's chance `client`, the CSRF header; form-urlencoded); its moves
  come from the seat's own legal moves (the POST's JSON answer, or /g/<code>/state/ when the turn
  has passed to another seat). A game that ends is followed by a new table, until the run's count of moves.
- a Bunco night of 8 players started through the pages (two tables of four); the four phones of
  table 2 (not the head table: no bell ends the round) each follow their own stream
  (/events/night/<code>/player/<id>/, as the play page does) and take turns tapping +1.

A run is one game's batch of moves interleaved with a batch of taps (move, tap, move, tap...:
one request at a time, a latency measurement, not a load), so both meet the same machine. Each
game gets PAIRS runs, the games taking turns (run 1 of each, then run 2 of each, ...). For each
request: (a) the POST's answer time, (b) the time from sending the POST until every one of the
table's 4 streams has that move's event (its `"number"`) or that tap's new totals. The first
WARMUP of each run are left out. A game's figure is the median over its runs of the run's ratio
(move to every phone ÷ tap answer, at p50 and at p99), as issue 34 asks.

Run alone: `.venv/bin/python bench/bench_table_move.py` (or `make bench ONLY=table_move`).
BENCH_MOVES (default 300) sets how many moves a run makes (and as many taps).
"""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.bench_night_live import CSRF, host_post, start_night  # noqa: E402
from bench.common import Phone, Site, first_group, machine_line, percentile, uvicorn_site  # noqa: E402

MOVES = int(os.environ.get("BENCH_MOVES", "300"))
PAIRS = 3
WARMUP = 20
SEATS = ("Ann", "Ben", "Cy", "Dee")
COMMAND = "make bench ONLY=table_move"
TARGET = 1.0
TIMEOUT_S = 30
# Each game's "Play a game" form: its name, its label and its options as posted (the others take
# the form's defaults: Kismet without real dice or the hint, Ninety-Nine with its markers).
GAMES: dict[str, tuple[str, dict[str, str]]] = {
    "fill_or_bust": ("Fill or Bust", {"goal": "2000", "vengeance": "2500"}),
    "kismet": ("Kismet", {}),
    "ninety_nine": ("Ninety-Nine or Bust", {}),
}
SEAT_FIELDS = {**{f"name_{n}": name for n, name in enumerate(SEATS)}, **{f"who_{n}": "person" for n in range(len(SEATS))}}
# A move's fields as the games' pages post them (games/table/forms.py `read_move` reads these).
MOVE_FIELDS = ("kind", "dice", "keep", "box", "card")


@dataclass
class Seated:
    """A phone's own session (its cookies), its HTTP client and its open stream."""

    client: httpx.AsyncClient
    stream: Phone | None = None

    @property
    def headers(self) -> dict[str, str]:
        token = self.client.cookies.get("csrftoken")
        assert token, "the phone has no CSRF cookie"
        return {"X-CSRFToken": token, "Accept": "application/json"}


@dataclass
class Timings:
    answers: list[float] = field(default_factory=list)
    everyone: list[float] = field(default_factory=list)

    def add(self, answer: float, everyone: float, number: int) -> None:
        if number >= WARMUP:
            self.answers.append(answer)
            self.everyone.append(everyone)


def _session_of(site: Site, client: httpx.Client) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=site.url, timeout=TIMEOUT_S, cookies=client.cookies)


def _cookie_header(client: httpx.AsyncClient) -> dict[str, str]:
    return {"Cookie": "; ".join(f"{name}={value}" for name, value in client.cookies.items())}


# --- The game table -------------------------------------------------------------------------------


def open_game_table(site: Site, game: str) -> tuple[str, list[httpx.Client]]:
    """A table of `game` opened from "Play a game", its four seats tapped by four phones, started
    by its opener; the table's code and the phones' (synchronous) clients, seat by seat."""
    with httpx.Client(base_url=site.url, timeout=TIMEOUT_S) as opener:
        page = opener.get("/tables/new/")
        response = opener.post("/tables/new/", data={"game": game, **GAMES[game][1], **SEAT_FIELDS,
                                                      "csrfmiddlewaretoken": first_group(CSRF, page.text)})
        assert response.status_code == 302, response.text[:500]
        code = response.headers["location"].strip("/").split("/")[-1]
        phones = []
        for number in range(len(SEATS)):
            phone = httpx.Client(base_url=site.url, timeout=TIMEOUT_S)
            page = phone.get(f"/g/{code}/")
            claimed = phone.post(f"/g/{code}/claim/", data={"seat": str(number), "contribution": secrets.token_hex(16),
                                                             "csrfmiddlewaretoken": first_group(CSRF, page.text)})
            assert claimed.status_code == 302, claimed.text[:500]
            phone.get(f"/g/{code}/")  # the page as the phone now sees it: its CSRF cookie
            phones.append(phone)
        page = opener.get(f"/g/{code}/")
        started = opener.post(f"/g/{code}/start/", data={"csrfmiddlewaretoken": first_group(CSRF, page.text)})
        assert started.status_code == 302, started.text[:500]
    return code, phones


def choose(payload: dict[str, Any], rng: Random) -> dict[str, Any]:
    """One of the seat's legal moves: any kind at random, and the first legal one of that kind
    (Fill or Bust's first keep, Kismet's first hold or box, Ninety-Nine's first card)."""
    legal = payload["legal_moves"]
    kinds = sorted({move["kind"] for move in legal})
    kind = rng.choice(kinds)
    return next(move for move in legal if move["kind"] == kind)


def move_fields(move: dict[str, Any], seat: int) -> dict[str, str | list[str]]:
    """The move as the page's FormData posts it: its fields (a list as one field a value, so a
    `dice` or `keep` field per die), then seat, a fresh key and the phone's fresh part of the
    move's chance (docs/FAIRNESS.md), as static/js/table_live.js `send` sets them."""
    fields: dict[str, str | list[str]] = {}
    for name in MOVE_FIELDS:
        value = move.get(name)
        if isinstance(value, list):
            if value:
                fields[name] = [str(item) for item in value]
        elif value is not None:
            fields[name] = str(value)
    fields.update(seat=str(seat), key=secrets.token_hex(8), client=secrets.token_hex(16))
    return fields


class GameTable:
    """A table of one game in play: its phones, and the payload of the seat on turn."""

    def __init__(self, site: Site, game: str) -> None:
        self.site = site
        self.game = game
        self.code = ""
        self.phones: list[Seated] = []
        self.on_turn: dict[str, Any] = {}
        self.games = 0

    async def open(self) -> None:
        await self.close()
        self.code, clients = await asyncio.to_thread(open_game_table, self.site, self.game)
        self.phones = [Seated(_session_of(self.site, client)) for client in clients]
        for client in clients:
            client.close()
        for phone in self.phones:
            phone.stream = await Phone.connect(self.site.url, f"/events/table/{self.code}/", _cookie_header(phone.client))
            await phone.stream.wait_for(b'"snapshot": true')
        self.games += 1
        state = (await self.phones[0].client.get(f"/g/{self.code}/state/")).json()
        await self.find_turn(state["public"].get("turn"))

    async def find_turn(self, turn: Any) -> None:
        """The payload of the seat on turn, from its own phone's state request (not timed): the
        public view's `turn` first, else each seat's (Ninety-Nine's next deal has no turn)."""
        seats = [turn] if isinstance(turn, int) else []
        seats += [seat for seat in range(len(self.phones)) if seat not in seats]
        for seat in seats:
            payload = (await self.phones[seat].client.get(f"/g/{self.code}/state/")).json()
            if payload["on_turn"]:
                self.on_turn = payload
                return
        raise AssertionError(f"no seat on turn at {self.code}: {payload}")

    async def move(self, rng: Random) -> tuple[float, float]:
        """One move by the seat on turn: its answer time and its time to every phone's stream."""
        if self.on_turn.get("status") != "playing":
            await self.open()
        seat = self.on_turn["seat"]
        number = self.on_turn["moves_made"] + 1
        marker = b'"move": {"number": %d, ' % number
        phone = self.phones[seat]
        waits = [asyncio.create_task(other.stream.wait_for(marker, TIMEOUT_S)) for other in self.phones if other.stream]
        await asyncio.sleep(0)  # every stream is reading before the POST goes
        sent = time.perf_counter()
        response = await phone.client.post(f"/g/{self.code}/move/", data=move_fields(choose(self.on_turn, rng), seat),
                                           headers=phone.headers)
        answered = time.perf_counter()
        assert response.status_code == 200, (self.game, response.status_code, response.text[:500])
        arrived = await asyncio.gather(*waits)
        payload = response.json()
        assert payload["moves_made"] == number, payload
        if payload["on_turn"]:
            self.on_turn = payload
        elif payload["status"] == "playing":
            await self.find_turn(payload["public"].get("turn"))
        else:
            self.on_turn = payload  # over: the next move opens a new table
        return answered - sent, max(arrived) - sent

    async def close(self) -> None:
        for phone in self.phones:
            if phone.stream:
                phone.stream.close()
            await phone.client.aclose()
        self.phones = []


# --- The Bunco night ------------------------------------------------------------------------------


@dataclass
class Tapper:
    phone: Seated
    team: str


def seat_night_phones(site: Site) -> tuple[str, int, list[tuple[httpx.Client, int, str]]]:
    """A night of 8 started through the pages (two tables of four); the phones of table 2, each
    with its player's id and team: (code, table, [(client, player id, team)])."""
    host, code, join, _ = start_night(site, 8)
    host_post(host, f"/n/{code}/host/start/", round=1)
    host.close()
    with httpx.Client(base_url=site.url, timeout=TIMEOUT_S) as probe:
        listing = probe.get(join).text
    players = re.findall(r'name="player" value="(\d+)"><span class="player-name">', listing)
    seated = []
    for player_id in players:
        phone = httpx.Client(base_url=site.url, timeout=TIMEOUT_S)
        page = phone.get(join)
        phone.post(f"/n/{code}/claim/", data={"player": player_id, "csrfmiddlewaretoken": first_group(CSRF, page.text)})
        play = phone.get(f"/n/{code}/play/").text
        table = int(first_group(r"Table (\d+)", play))
        team = re.search(r'name="team" value="([AB])" checked', play) or re.search(r'id="r1-t\d+-([ab])">', play)
        if table == 2:
            seated.append((phone, int(player_id), team.group(1).upper() if team else "A"))
        else:
            phone.close()
    assert len(seated) == 4, f"table 2 has {len(seated)} phones"
    return code, 2, seated


class BuncoTable:
    """Table 2 of a night in round 1: four phones following their streams, tapping +1 in turn."""

    def __init__(self, site: Site) -> None:
        self.site = site
        self.code = ""
        self.table = 0
        self.tappers: list[Tapper] = []
        self.totals = {"A": 0, "B": 0}

    async def open(self) -> None:
        self.code, self.table, seated = await asyncio.to_thread(seat_night_phones, self.site)
        for client, player_id, team in seated:
            phone = Seated(_session_of(self.site, client))
            client.close()
            cookie = "; ".join(f"{name}={value}" for name, value in phone.client.cookies.items())
            phone.stream = await Phone.connect(self.site.url, f"/events/night/{self.code}/player/{player_id}/",
                                               {"Cookie": cookie})
            await phone.stream.wait_for(b"bell-slot")
            self.tappers.append(Tapper(phone, team))

    def marker(self) -> bytes:
        """The new totals as the tally's frame swaps them into every page at the table."""
        r, t = 1, self.table
        return (f'-t{t}-a" hx-swap="innerHTML">{self.totals["A"]}</hx-partial>'
                f'<hx-partial hx-target="#r{r}-t{t}-b" hx-swap="innerHTML">{self.totals["B"]}</hx-partial>').encode()

    async def tap(self, number: int) -> tuple[float, float]:
        tapper = self.tappers[number % len(self.tappers)]
        self.totals[tapper.team] += 1
        marker = self.marker()
        waits = [asyncio.create_task(t.phone.stream.wait_for(marker, TIMEOUT_S)) for t in self.tappers if t.phone.stream]
        await asyncio.sleep(0)
        sent = time.perf_counter()
        response = await tapper.phone.client.post(
            f"/n/{self.code}/tally/",
            data={"team": tapper.team, "points": "1", "table": str(self.table), "key": secrets.token_hex(8)},
            headers={**tapper.phone.headers, "HX-Request": "true"},
        )
        answered = time.perf_counter()
        response.raise_for_status()
        arrived = await asyncio.gather(*waits)
        answer = response.json()
        assert (answer["a"], answer["b"]) == (self.totals["A"], self.totals["B"]), (answer, self.totals)
        return answered - sent, max(arrived) - sent

    async def close(self) -> None:
        for tapper in self.tappers:
            if tapper.phone.stream:
                tapper.phone.stream.close()
            await tapper.phone.client.aclose()


# --- The run --------------------------------------------------------------------------------------


@dataclass
class Run:
    """One game's batch of moves and the taps interleaved with them."""

    moves: Timings
    taps: Timings
    games: int
    seconds: float

    def ratio(self, fraction: float) -> float:
        """The target's ratio: the move to every phone ÷ the tap's answer, at this percentile."""
        return percentile(self.moves.everyone, fraction) / percentile(self.taps.answers, fraction)

    def like_for_like(self, fraction: float) -> float:
        """The move to every phone ÷ the tap to every phone."""
        return percentile(self.moves.everyone, fraction) / percentile(self.taps.everyone, fraction)

    def answers(self, fraction: float) -> float:
        """The move's answer ÷ the tap's answer."""
        return percentile(self.moves.answers, fraction) / percentile(self.taps.answers, fraction)


async def one_run(site: Site, game: str, night: BuncoTable, count: int, rng: Random) -> Run:
    """`count` moves at a new table of `game` and `count` taps, alternating."""
    table = GameTable(site, game)
    moves, taps = Timings(), Timings()
    try:
        await table.open()
        began = time.perf_counter()
        for number in range(count):
            moves.add(*await table.move(rng), number)
            taps.add(*await night.tap(number), number)
        seconds = time.perf_counter() - began
    finally:
        await table.close()
    return Run(moves, taps, table.games, seconds)


async def measure(site: Site, count: int) -> dict[str, list[Run]]:
    """PAIRS runs of each game, the games taking turns (each pass starts with the next game)."""
    night = BuncoTable(site)
    await night.open()
    runs: dict[str, list[Run]] = {game: [] for game in GAMES}
    order = list(GAMES)
    try:
        for pair in range(PAIRS):
            for game in order[pair % len(order):] + order[:pair % len(order)]:
                runs[game].append(await one_run(site, game, night, count, Random(f"{game}-{pair}")))
    finally:
        await night.close()
    return runs


def load_average() -> str:
    output = subprocess.run(["uptime"], capture_output=True, text=True).stdout
    return output.split("load average:")[-1].strip() if "load average" in output else output.strip()


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def _median(runs: list[Run], figure: Callable[[Run], float]) -> float:
    return statistics.median(figure(one) for one in runs)


def _both(runs: list[Run], side: str, kind: str) -> str:
    """The runs' median p50 and p99 (ms) of one list of timings: `side` moves or taps, `kind`
    answers or everyone."""
    def at(fraction: float) -> Callable[[Run], float]:
        return lambda one: percentile(getattr(getattr(one, side), kind), fraction)
    return f"{_ms(_median(runs, at(0.5)))} / {_ms(_median(runs, at(0.99)))}"


def _pairs(values: list[float]) -> str:
    return ", ".join(f"{value:.2f}" for value in values)


def run() -> str:
    load_before = load_average()
    began = time.perf_counter()
    with uvicorn_site() as site:
        runs = asyncio.run(measure(site, MOVES))
    minutes = (time.perf_counter() - began) / 60
    load_after = load_average()

    kept = MOVES - min(WARMUP, MOVES)
    out = [
        "## Game tables: a move to every phone\n",
        f"Measured {machine_line()}; client and server share the machine's cores.",
        f"Command: `{COMMAND}` (or `.venv/bin/python bench/bench_table_move.py`), BENCH_MOVES={MOVES}; "
        f"{minutes:.1f} min in all.",
        f"Load on the machine (`uptime`, 1/5/15 min): {load_before} before, {load_after} after; other work "
        "may share the 2 cores, so only the ratios, each taken within one run, count.\n",
        "`make run`'s server (1 uvicorn process, SQLite, in-process broadcaster). A table of each game opened "
        "through \"Play a game\" with four people's seats, each tapped by its own phone (own session), each "
        "phone following the table's stream as its page does; the seat on turn posts one of its legal moves "
        "(any kind at random, the first legal one of that kind) to `/g/<code>/move/` with its fields, seat, "
        "key and its part of the move's chance, as the page sends them; a game that ends is followed by a new "
        "table. Against it, a night's table of four phones (table 2 of 8 players, each following its own "
        "player stream) taps +1 in turn, one tap after each move. Answer: the POST's response time. To every "
        "phone: from sending the POST until the last of the table's 4 streams has the move's event (its "
        "number) or the tap's new totals.",
        f"Each game: {PAIRS} runs (pairs) of {MOVES} moves interleaved with {MOVES} taps, the games taking "
        f"turns; the first {WARMUP} of each run left out ({kept} of each kept). Figures are the medians of "
        "the runs' (ms); the ratio is each run's, and the median of the pairs.\n",
        "| Game (4 phones) | games played | move answer p50 / p99 | move to every phone p50 / p99 | "
        "tap answer p50 / p99 | tap to every phone p50 / p99 | **move to every phone ÷ tap answer, p50** (pairs) "
        "| **p99** (pairs) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    verdicts = []
    for game, game_runs in runs.items():
        label = GAMES[game][0]
        p50s = [one.ratio(0.5) for one in game_runs]
        p99s = [one.ratio(0.99) for one in game_runs]
        p50, p99 = statistics.median(p50s), statistics.median(p99s)
        out.append(f"| {label} | {sum(one.games for one in game_runs)} | {_both(game_runs, 'moves', 'answers')} | "
                   f"{_both(game_runs, 'moves', 'everyone')} | {_both(game_runs, 'taps', 'answers')} | "
                   f"{_both(game_runs, 'taps', 'everyone')} | "
                   f"**{p50:.2f}** ({_pairs(p50s)}) | **{p99:.2f}** ({_pairs(p99s)}) |")
        verdicts.append((label, p50, p99))
    met = [label for label, p50, p99 in verdicts if max(p50, p99) <= TARGET]
    missed = [f"{label} ({p50:.2f} / {p99:.2f})" for label, p50, p99 in verdicts if max(p50, p99) > TARGET]
    out += [
        "",
        f"Target (docs/DESIGN.md §7, issue 34): each game's move to every phone ≤ {TARGET:.1f} × a Bunco tap's answer "
        "at p50 and at p99 (medians of the pairs). "
        + (f"Met: {', '.join(met)}. " if met else "")
        + (f"Missed: {', '.join(missed)}." if missed else "Every game meets it."),
        "",
        "Like for like, medians of the pairs (p50 / p99): the move to every phone ÷ the tap to every phone, "
        "and the answers alone (move ÷ tap):",
        "",
        "| Game | to every phone ÷ to every phone | answer ÷ answer |",
        "|---|---|---|",
    ]
    for game, game_runs in runs.items():
        out.append(f"| {GAMES[game][0]} | {_median(game_runs, lambda one: one.like_for_like(0.5)):.2f} / "
                   f"{_median(game_runs, lambda one: one.like_for_like(0.99)):.2f} | "
                   f"{_median(game_runs, lambda one: one.answers(0.5)):.2f} / "
                   f"{_median(game_runs, lambda one: one.answers(0.99)):.2f} |")
    late = [GAMES[game][0] for game, game_runs in runs.items()
            if _median(game_runs, lambda one: percentile(one.moves.everyone, 0.5))
            > _median(game_runs, lambda one: percentile(one.moves.answers, 0.5))]
    out += [
        "",
        "A move and a tap are published at their commit, and the move's view then builds the seat's answer "
        "from the game the action left, so the streams should have each before its answer"
        + (f"; at p50 they did not for: {', '.join(late)}. " if late else " (they did, at p50). ")
        + "A Ninety-Nine move also logs "
        "each hand it changed (an event on that seat's private channel), in the move's one INSERT, "
        "published with the move; a stream sends the move at once and the hand after its seat's check "
        "(live/streams.py). The hands are not waited for here.",
    ]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(run())
