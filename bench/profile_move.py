"""Where a game-table move's time goes (issue 34): N move POSTs through Django's whole request path,
in this process's main thread, under cProfile, with every SQL statement and commit timed; the
companion of bench/profile_tap.py.

A table of four people's seats is opened through "Play a game", each seat claimed by its own phone
(Django's test client, CSRF included); the seat on turn posts one of its legal moves as the page's
table_live.js sends it (urlencoded, with its key and its part of the chance). A game that ends is
followed by a new table. The seat's legal moves are read from /g/<code>/state/ outside the
profile.

    .venv/bin/python bench/profile_move.py                       # Fill or Bust on SQLite, 600 moves
    .venv/bin/python bench/profile_move.py --game kismet --postgres
    .venv/bin/python bench/profile_move.py --game ninety_nine --moves 300 --top 40
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import re
import secrets
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import in_process_database  # noqa: E402

SEATS = ("Ann", "Ben", "Cy", "Dee")
GAME_FIELDS = {"fill_or_bust": {"goal": "2000", "vengeance": "2500"}, "kismet": {}, "ninety_nine": {}}
MOVE_FIELDS = ("kind", "dice", "keep", "box", "card")
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=sorted(GAME_FIELDS), default="fill_or_bust")
    parser.add_argument("--postgres", action="store_true", help="PostgreSQL instead of SQLite")
    parser.add_argument("--moves", type=int, default=600)
    parser.add_argument("--top", type=int, default=30, help="how many functions to list")
    options = parser.parse_args()
    with in_process_database(postgres=options.postgres):  # a fresh database
        profile(options.game, options.moves, options.top)


class Table:
    """A table of `game` opened and started through the pages, a test client per seat."""

    def __init__(self, game: str) -> None:
        from django.test import Client

        opener = Client(enforce_csrf_checks=True)
        page = opener.get("/tables/new/")
        fields = {"game": game, **GAME_FIELDS[game], **{f"name_{n}": name for n, name in enumerate(SEATS)},
                  **{f"who_{n}": "person" for n in range(len(SEATS))}}
        response = opener.post("/tables/new/", {**fields, "csrfmiddlewaretoken": _csrf(page)})
        assert response.status_code == 302, response.content[:300]
        self.code = response["Location"].strip("/").split("/")[-1]
        self.phones = []
        for number in range(len(SEATS)):
            phone = Client(enforce_csrf_checks=True)
            page = phone.get(f"/g/{self.code}/")
            claimed = phone.post(f"/g/{self.code}/claim/", {"seat": str(number), "contribution": secrets.token_hex(16),
                                                             "csrfmiddlewaretoken": _csrf(page)})
            assert claimed.status_code == 302, claimed.content[:300]
            phone.get(f"/g/{self.code}/")
            self.phones.append(phone)
        page = opener.get(f"/g/{self.code}/")
        assert opener.post(f"/g/{self.code}/start/", {"csrfmiddlewaretoken": _csrf(page)}).status_code == 302

    def on_turn(self) -> dict[str, Any] | None:
        """The payload of the seat on turn (None when the game is over)."""
        for phone in self.phones:
            payload = phone.get(f"/g/{self.code}/state/", headers={"Accept": "application/json"}).json()
            if payload["status"] != "playing":
                return None
            if payload["on_turn"]:
                return payload
        raise AssertionError(f"nobody on turn at {self.code}")

    def post(self, payload: dict[str, Any], rng: random.Random) -> None:
        legal = payload["legal_moves"]
        kind = rng.choice(sorted({move["kind"] for move in legal}))
        move = next(move for move in legal if move["kind"] == kind)
        fields: list[tuple[str, str]] = []
        for name in MOVE_FIELDS:
            value = move.get(name)
            if isinstance(value, list):
                fields += [(name, str(item)) for item in value]
            elif value is not None:
                fields.append((name, str(value)))
        seat = payload["seat"]
        fields += [("seat", str(seat)), ("key", secrets.token_hex(8)), ("client", secrets.token_hex(16))]
        phone = self.phones[seat]
        response = phone.post(f"/g/{self.code}/move/", urlencode(fields), content_type="application/x-www-form-urlencoded",
                              headers={"Accept": "application/json", "X-CSRFToken": phone.cookies["csrftoken"].value})
        assert response.status_code == 200, response.content[:300]


def _csrf(page: Any) -> str:
    found = CSRF.search(page.content.decode())
    assert found, "no CSRF token on the page"
    return found.group(1)


def profile(game: str, moves: int, top: int) -> None:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", "--noinput", verbosity=0)
    rng = random.Random(1)
    by_statement: dict[str, list[float]] = {}
    commits: list[float] = []
    counting = False

    def timed(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        began = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            if counting:
                by_statement.setdefault(" ".join(sql.split())[:90], []).append(time.perf_counter() - began)

    real_commit = connection._commit  # type: ignore[attr-defined]  # the stubs leave the private hook out

    def timed_commit() -> None:
        began = time.perf_counter()
        real_commit()
        if counting:
            commits.append(time.perf_counter() - began)

    profiler = cProfile.Profile()
    table, made, in_moves = Table(game), 0, 0.0
    with connection.execute_wrapper(timed):
        connection._commit = timed_commit  # type: ignore[attr-defined]
        while made < moves:
            payload = table.on_turn()
            if payload is None:
                table = Table(game)
                continue
            counting = made >= 50  # the first are a warm-up
            began = time.perf_counter()
            if counting:
                profiler.enable()
            table.post(payload, rng)
            if counting:
                profiler.disable()
                in_moves += time.perf_counter() - began
            counting = False
            made += 1
        connection._commit = real_commit  # type: ignore[attr-defined]
    counted = moves - 50
    statements = sum(len(spent) for spent in by_statement.values())
    print(f"{connection.vendor}, {game}: {counted} moves, {in_moves / counted * 1000:.3f} ms a move under cProfile")
    print(f"  statements {statements / counted:.1f} a move, "
          f"{sum(sum(spent) for spent in by_statement.values()) / counted * 1000:.3f} ms a move")
    print(f"  commits {len(commits) / counted:.1f} a move, {sum(commits) / counted * 1000:.3f} ms a move")
    for text, spent in sorted(by_statement.items(), key=lambda item: -sum(item[1])):
        print(f"  {len(spent) / counted:4.1f} a move, {sum(spent) / len(spent) * 1000:.3f} ms each: {text}")
    stats = pstats.Stats(profiler)
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)


if __name__ == "__main__":
    main()
