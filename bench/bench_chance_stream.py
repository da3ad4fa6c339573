"""Benchmark: what the fair-dice streams of docs/FAIRNESS.md version 2 cost a game table's move (issue 31;
docs/DESIGN.md §7 and issue 34: no more than 5 % of a move).

In a child process on a fresh SQLite database (`make run`'s default), whole games of each game are
played as `simulate_table --phones` plays them: every move through `games.table.actions.make_move`,
the action a phone's POST calls (lock the table, the engine with the move's own stream, the move
appended, the table stored, the events logged and published), each move with a phone's part. Two
clocks run: one around each `make_move`, one inside the stream (`games.rules.dice.ChanceStream`:
making the stream, every HMAC-SHA256 block, every die, `below(k)`, shuffle and noted draw, the
outermost call only). The stream's share is the second over the first.

Beside it, the same action with version 1's chance (`random.Random(f"{seed}:{step}")`, the tables
stored before version 2): tables of both versions alternate, so that both meet the same machine.

Run alone: `.venv/bin/python bench/bench_chance_stream.py` (or `make bench ONLY=chance_stream`).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.common import machine_line  # noqa: E402

GAMES = int(os.environ.get("BENCH_CHANCE_GAMES", "12"))  # of each game and each version
COMMAND = "make bench ONLY=chance_stream"
TARGET = 0.05
CHILD_TIMEOUT_S = 1800
OPTIONS: dict[str, dict[str, Any]] = {"fill_or_bust": {"goal": 2000}, "kismet": {}, "ninety_nine": {"markers": 2}}


def _child() -> None:
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from games.management.commands.simulate_table import simulate
    from games.rules import dice
    from games.table import actions
    from games.table.models import Table

    clocks = {"move": 0.0, "stream": 0.0, "moves": 0}
    depth = [0]

    def timed(function: Callable[..., Any], key: str) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            depth[0] += 1
            began = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                depth[0] -= 1
                if depth[0] == 0 or key == "move":
                    clocks[key] += time.perf_counter() - began
        return wrapper

    # The stream's clock: its outermost call only (a die inside `dice`, `below` inside a shuffle).
    for name in ("__init__", "dice", "die", "below", "shuffle", "drew"):
        setattr(dice.ChanceStream, name, timed(getattr(dice.ChanceStream, name), "stream"))
    make_move = actions.make_move

    def counted_move(**kwargs: Any) -> Any:
        depth_before = depth[0]
        depth[0] = 0  # the move's own clock; the stream's calls inside it start at depth 0
        began = time.perf_counter()
        try:
            return make_move(**kwargs)
        finally:
            clocks["move"] += time.perf_counter() - began
            clocks["moves"] += 1
            depth[0] = depth_before

    actions.make_move = counted_move
    fairness = Table._meta.get_field("fairness")
    results: dict[str, Any] = {}
    for game, options in OPTIONS.items():
        per_version: dict[int, dict[str, float]] = {1: {"move": 0.0, "moves": 0}, 2: {"move": 0.0, "moves": 0}}
        stream_s = 0.0
        for number in range(GAMES):
            for version in (2, 1) if number % 2 else (1, 2):  # alternating, so both meet the same machine
                fairness.default = version
                clocks.update(move=0.0, stream=0.0, moves=0)
                simulate(game, 2 + number % 3, 50_000 + number, options=options, phones=True)
                per_version[version]["move"] += clocks["move"]
                per_version[version]["moves"] += clocks["moves"]
                if version == 2:
                    stream_s += clocks["stream"]
        v2, v1 = per_version[2], per_version[1]
        results[game] = {
            "moves": int(v2["moves"]),
            "move_ms_v2": v2["move"] / v2["moves"] * 1000,
            "move_ms_v1": v1["move"] / v1["moves"] * 1000,
            "stream_us": stream_s / v2["moves"] * 1e6,
            "share": stream_s / v2["move"],
        }
    print("RESULT " + json.dumps(results))


def _measure() -> dict[str, Any] | str:
    workdir = Path(tempfile.mkdtemp(prefix="bunco-bench-chance-"))
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "bunco_club.site.settings", "REDIS_URL": "", "DATABASE_URL": "",
           "SQLITE_PATH": str(workdir / "bench.sqlite3"), "PYTHONUNBUFFERED": "1"}
    env.pop("DEBUG", None)
    try:
        done = subprocess.run([sys.executable, __file__, "--child"], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=CHILD_TIMEOUT_S)
        results = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
        if done.returncode != 0 or not results:
            return f"failed: {(done.stderr or done.stdout).strip().splitlines()[-1:]}"
        return dict(json.loads(results[-1].removeprefix("RESULT ")))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def run() -> str:
    runs = [_measure() for _ in range(3)]
    failed = [result for result in runs if isinstance(result, str)]
    lines = ["## The fair-dice streams' cost in a move", "", f"Command: `{COMMAND}`. {machine_line()}", ""]
    if failed:
        return "\n".join([*lines, f"Not measured: {failed[0]}", ""])
    measured = [result for result in runs if isinstance(result, dict)]
    lines += [
        f"Whole games played through `make_move` as `simulate_table --phones` plays them ({GAMES} of each game "
        "and each version, alternating, on SQLite); the median of three runs. The stream's share is the "
        "time spent in `ChanceStream` (making it, its HMAC-SHA256 blocks, dice, `below`, shuffles, noted "
        f"draws) over the move's whole action. Target: at most {TARGET:.0%} of a move.", "",
        "| game | moves a run | a move, version 2 | a move, version 1 | the stream in a move | its share | target |",
        "|---|---|---|---|---|---|---|",
    ]
    for game in OPTIONS:
        share = statistics.median(result[game]["share"] for result in measured)
        lines.append(
            f"| {game} | {measured[0][game]['moves']} "
            f"| {statistics.median(result[game]['move_ms_v2'] for result in measured):.2f} ms "
            f"| {statistics.median(result[game]['move_ms_v1'] for result in measured):.2f} ms "
            f"| {statistics.median(result[game]['stream_us'] for result in measured):.0f} µs "
            f"| **{share:.1%}** | {'met' if share <= TARGET else 'missed'} |")
    return "\n".join([*lines, ""])


if __name__ == "__main__":
    if "--child" in sys.argv:
        _child()
    else:
        print(run())
