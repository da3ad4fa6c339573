"""Where a tap's time goes (issue 22): N tally POSTs through Django's whole request path, in this
process's main thread, under cProfile, with every SQL statement and commit timed.

A server runs sync views in a worker thread, out of cProfile's sight; here the same handler,
middleware, session, view and action run in-process (Django's test client, CSRF included), so the
profile shows the Python a tap costs and the time spent waiting on the database.

    .venv/bin/python bench/profile_tap.py             # PostgreSQL (a fresh database), 2,000 taps
    .venv/bin/python bench/profile_tap.py --sqlite    # SQLite (a fresh file)
    .venv/bin/python bench/profile_tap.py --taps 500 --top 40
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import in_process_database  # noqa: E402

PLAYERS = 400
PHONES = 100


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sqlite", action="store_true", help="SQLite instead of PostgreSQL")
    parser.add_argument("--taps", type=int, default=2000)
    parser.add_argument("--top", type=int, default=25, help="how many functions to list")
    parser.add_argument("--explain", action="store_true", help="PostgreSQL's plan of each SELECT a tap runs")
    options = parser.parse_args()
    with in_process_database(postgres=not options.sqlite):  # a fresh database
        profile(options.taps, options.top, options.explain)


def profile(taps: int, top: int, explain: bool) -> None:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.urls import reverse

    from games.links import join_path
    from games.management.commands.simulate_night import player_names
    from games.night import actions
    from games.night.models import Seat

    call_command("migrate", "--noinput", verbosity=0)
    night = actions.start_night(names=player_names(PLAYERS), rng=random.Random(1))
    actions.start_round(night)
    seats = list(Seat.objects.filter(round__night=night, round__number=1, player__is_ghost=False)
                 .exclude(table_round__number=1)  # the head table would ring the bell
                 .select_related("table_round", "player")[:PHONES])
    phones = []
    for seat in seats:
        phone = Client(enforce_csrf_checks=True)
        phone.get(join_path(night.code))
        phone.post(reverse("games:claim", args=[night.code]),
                   {"player": seat.player.pk, "csrfmiddlewaretoken": phone.cookies["csrftoken"].value})
        phones.append((phone, seat.team, seat.table_round.number, phone.cookies["csrftoken"].value))
    url = reverse("games:tally", args=[night.code])

    database_s = 0.0
    statements = 0
    by_statement: dict[str, list[float]] = {}
    examples: dict[str, tuple[str, Any]] = {}

    def timed(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        nonlocal database_s, statements
        began = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            spent = time.perf_counter() - began
            database_s += spent
            statements += 1
            text = " ".join(sql.split())[:70]
            by_statement.setdefault(text, []).append(spent)
            examples[text] = (sql, params)

    # Commits don't pass through execute wrappers: time Django's own commit of the connection
    # (the driver's is read-only on SQLite).
    commit_s = 0.0
    commits = 0
    real_commit = connection._commit  # type: ignore[attr-defined]  # the stubs leave the private hook out

    def timed_commit() -> None:
        nonlocal commit_s, commits
        began = time.perf_counter()
        real_commit()
        commit_s += time.perf_counter() - began
        commits += 1

    def one_tap(number: int) -> None:
        phone, team, table, token = phones[number % len(phones)]
        # As the phone's tally.js sends it: urlencoded, asking for JSON.
        response = phone.post(url, urlencode({"team": team, "points": 1, "table": table, "key": f"p-{number}"}),
                              content_type="application/x-www-form-urlencoded",
                              headers={"Accept": "application/json", "X-CSRFToken": token})
        if response.status_code != 200:
            raise SystemExit(f"tap {number}: {response.status_code} {response.content[:200]!r}")

    for number in range(200):  # warm-up
        one_tap(-1 - number)
    profiler = cProfile.Profile()
    with connection.execute_wrapper(timed):
        connection._commit = timed_commit  # type: ignore[attr-defined]
        began = time.perf_counter()
        profiler.enable()
        for number in range(taps):
            one_tap(number)
        profiler.disable()
        wall = time.perf_counter() - began
        connection._commit = real_commit  # type: ignore[attr-defined]
    print(f"{connection.vendor}: {taps} taps, {wall / taps * 1000:.3f} ms a tap "
          f"(under cProfile, which slows the Python, not the database)")
    print(f"  statements {statements / taps:.1f} a tap, {database_s / taps * 1000:.3f} ms a tap")
    print(f"  commits {commits / taps:.1f} a tap, {commit_s / taps * 1000:.3f} ms a tap")
    for text, spent in sorted(by_statement.items(), key=lambda item: -sum(item[1])):
        print(f"  {len(spent) / taps:4.1f} a tap, {sum(spent) / len(spent) * 1000:.3f} ms each: {text}")
    if explain and connection.vendor == "postgresql":
        # The SELECTs only: EXPLAIN ANALYZE runs the statement, and the INSERTs would be taken again.
        for text, (sql, params) in examples.items():
            if text.startswith("SELECT"):
                with connection.cursor() as cursor:
                    cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql.replace(" FOR UPDATE OF t", ""), params)
                    print("\n".join(row[0] for row in cursor.fetchall()))
    stats = pstats.Stats(profiler)
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)


if __name__ == "__main__":
    main()
