"""Benchmark: 100 game tables of bots playing at once on the embedded default (docs/DESIGN.md §7).

`make run`'s server (one uvicorn process, SQLite, the in-process clock, no Redis) plays 100 Fill or
Bust tables of three bots each to the short goal. Nothing drives the bots but the server's own
clock: every second it makes the move of each table whose bot's pause (TABLE_BOT_PAUSE_SECONDS) is
over, as at a real table nobody has a phone open at. Figures, from the moves' own timestamps:

- moves per second while all the tables play;
- how late a bot moves: the time from the table's previous move to this one, less the pause
  (the clock's one-second beat alone makes up to 1 s of it; more means the clock fell behind);
- each table's moves verify from its revealed seed (`verify_table`), a check that the load did not
  cost correctness.

Run alone: `.venv/bin/python bench/bench_table_bots.py` (or `make bench ONLY=table_bots`).
BENCH_TABLES (default 100) shrinks a trial run.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.common import machine_line, percentile, uvicorn_site  # noqa: E402

TABLES = int(os.environ.get("BENCH_TABLES", "100"))
PAUSE_S = 0.8
COMMAND = "make bench ONLY=table_bots"
MOST_S = 900  # the games end long before; a bench never runs unbounded

OPEN_TABLES = """
from games.table import actions
from games.rules.fill_or_bust_table import SHORT_GOAL
codes = [actions.open_table(game="fill_or_bust", names=["Ann", "Ben", "Cy"], bots=["easy", "threshold", "strong"],
                            options={"goal": SHORT_GOAL}).code for _ in range(%d)]
print(" ".join(codes))
"""

VERIFY_TABLES = """
from games.table.models import Table
from games.table.replay import verify
print(sum(verify(table).verified for table in Table.objects.filter(status="over")))
"""


def _moves(db: Path) -> list[tuple[int, str]]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30) as connection:
        return connection.execute("SELECT table_id, created_at FROM games_move ORDER BY id").fetchall()


def _open_count(db: Path) -> int:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30) as connection:
        return connection.execute("SELECT count(*) FROM games_table WHERE status != 'over'").fetchone()[0]


def run() -> str:
    extra = {"TABLE_BOT_PAUSE_SECONDS": str(PAUSE_S)}
    with uvicorn_site(extra_env=extra) as site:
        db = Path(site.env["SQLITE_PATH"])
        site.manage("shell", "-c", OPEN_TABLES % TABLES)
        started = time.monotonic()
        while _open_count(db) and time.monotonic() - started < MOST_S:
            time.sleep(1)
        unfinished = _open_count(db)
        moves = _moves(db)
        verified = int(site.manage("shell", "-c", VERIFY_TABLES).split()[-1])

    stamps: dict[int, list[float]] = {}
    for table_id, created in moves:
        stamps.setdefault(table_id, []).append(datetime.fromisoformat(created).timestamp())
    late = [b - a - PAUSE_S for times in stamps.values() for a, b in zip(times, times[1:], strict=False)]
    first = min(times[0] for times in stamps.values())
    last = max(times[-1] for times in stamps.values())
    rate = len(moves) / (last - first)
    per_table = sorted((len(times) - 1) / (times[-1] - times[0]) for times in stamps.values() if len(times) > 1)
    return f"""## Game tables: {TABLES} tables of bots at once

`{COMMAND}` · {machine_line()} · one uvicorn process, SQLite, the in-process clock, no Redis

{TABLES} Fill or Bust tables of three bots (easy, threshold, strong), short goal, bots moved only by
the server's clock, each after a {PAUSE_S} s pause.

| Figure | Value |
|---|---|
| moves in all | {len(moves)} |
| moves per second, first move to last | {rate:.1f} (games end at different times; at most {TABLES}: one move per table per clock beat) |
| moves per second at one table, median | {percentile(per_table, 0.5):.2f} |
| a bot's lateness past its pause, p50 / p99 / max | {percentile(late, 0.5) * 1000:.0f} / {percentile(late, 0.99) * 1000:.0f} / {max(late) * 1000:.0f} ms |
| games unfinished after {MOST_S} s | {unfinished} |
| games verified from their revealed seed | {verified} of {TABLES} |

The clock beats once a second, so up to 1,000 ms of lateness is the beat itself; beyond it the
clock would be falling behind.
"""


if __name__ == "__main__":
    print(run())
