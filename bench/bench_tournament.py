"""Benchmark: a 1,000-player Fill or Bust tournament through the real actions and the database.

Targets (docs/DESIGN.md §7, issue 11): grouping and a round's cut for 1,000 players < 100 ms as pure
work (measured by bench/bench_brackets.py, "Tournament brackets: 1,000 players": not repeated
here) and < 1 s through the actions on PostgreSQL; a whole simulated 1,000-player
double-elimination tournament, with its time.

1. Through the actions, on a throwaway PostgreSQL database (`bunco_bench_tournament_<pid>` on
   postgres://postgres@127.0.0.1:5432, dropped afterwards): a new tournament each repetition,
   1,000 players `register`ed checked in (not timed); `start_round` is timed (round 1's grouping
   into groups of 2-6 and its rows), then every player enters one turn with `record_turn` (not
   timed; distinct scores, so no tie at the line and the round is decided, eliminations written),
   then `close_round_if_due` is timed at a `now` after the round's end and grace (every group
   made final, the ranking across groups and the cut, or the strikes). Single and double
   elimination.
2. `manage.py simulate_tournament --players 1000 --format double --seed 1 --json` in a subprocess
   on SQLite (the embedded default: a temporary file, migrated first) and on PostgreSQL (a fresh
   throwaway database): the command's elapsed_s and its rounds.

REDIS_URL is unset everywhere (in-process events, no Celery), so the figures are the database path.

Run alone: `.venv/bin/python bench/bench_tournament.py` (or all benchmarks: `make bench`).
BENCH_TOURNAMENT_PLAYERS (default 1000), BENCH_TOURNAMENT_REPEATS (default 3) and
BENCH_TOURNAMENT_BACKENDS (whole tournament; default "sqlite,postgres") shrink a trial run.
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
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make the project importable
    sys.path.insert(0, str(ROOT))

from bench.common import machine_line  # noqa: E402

PLAYERS = int(os.environ.get("BENCH_TOURNAMENT_PLAYERS", "1000"))
REPEATS = int(os.environ.get("BENCH_TOURNAMENT_REPEATS", "3"))
BACKENDS = [name for name in os.environ.get("BENCH_TOURNAMENT_BACKENDS", "sqlite,postgres").split(",") if name]
FORMATS = ["single", "double"]
SIMULATION_SEED = 1
TARGET_S = 1.0
POSTGRES = "postgres://postgres@127.0.0.1:5432"
COMMAND = ".venv/bin/python bench/bench_tournament.py"
SIMULATION = f"manage.py simulate_tournament --players {PLAYERS} --format double --seed {SIMULATION_SEED} --json"
CHILD_TIMEOUT_S = 3600
LABELS = {"sqlite": "SQLite (file, WAL)", "postgres": "PostgreSQL"}


# --- In the child process: Django set up on the throwaway PostgreSQL database ----------------------


def measure() -> dict[str, Any]:
    """start_round and close_round_if_due for a 1,000-player round 1, each format, REPEATS times."""
    import random
    from datetime import UTC, datetime, timedelta

    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection

    from tournaments import actions, deciding
    from tournaments.models import Entrant, Group, GroupSeat, TournamentRound

    call_command("migrate", "--noinput", verbosity=0)
    director, _ = get_user_model().objects.get_or_create(username="tournament-bench")
    statements = 0

    def count(execute, sql, params, many, context):  # noqa: ANN001
        nonlocal statements
        statements += 1
        return execute(sql, params, many, context)

    def timed(work: Any) -> tuple[Any, float, int]:
        nonlocal statements
        statements = 0
        with connection.execute_wrapper(count):
            began = time.perf_counter()
            result = work()
            elapsed = time.perf_counter() - began
        return result, elapsed, statements

    results: dict[str, Any] = {"vendor": connection.vendor}
    start = datetime(2026, 1, 10, 10, 0, tzinfo=UTC)
    for tournament_format in FORMATS:
        runs = []
        for repeat in range(REPEATS):
            began = time.perf_counter()
            tournament = actions.create_tournament(
                director=director, name=f"Bench {tournament_format} {repeat}", format=tournament_format, seed=repeat
            )
            width = len(str(PLAYERS))
            for number in range(1, PLAYERS + 1):
                actions.register(tournament, f"Player {number:0{width}d}", checked_in=True)
            setup_s = time.perf_counter() - began

            round_, start_s, start_statements = timed(lambda t=tournament: actions.start_round(t, now=start))
            groups = list(round_.groups.filter(play_off=0).order_by("number"))
            seats = GroupSeat.objects.filter(group__round=round_).count()

            # One turn per player, distinct multiples of 50 (no tie at the line), before ends_at.
            began = time.perf_counter()
            points = [50 * index for index in range(PLAYERS)]
            random.Random(repeat).shuffle(points)
            banked = iter(points)
            for group in Group.objects.filter(round=round_, play_off=0).select_related("round__tournament"):
                for entrant in group.players():
                    actions.record_turn(group=group, entrant=entrant, points=next(banked),
                                        now=start + timedelta(minutes=1))
            turns_s = time.perf_counter() - began

            due = round_.ends_at + timedelta(seconds=tournament.grace_seconds, minutes=1)
            closed, close_s, close_statements = timed(lambda d=due: deciding.close_round_if_due(d))
            round_ = TournamentRound.objects.get(pk=round_.pk)
            runs.append({
                "setup_s": round(setup_s, 2),
                "turns_s": round(turns_s, 2),
                "start_ms": round(start_s * 1000, 1),
                "start_statements": start_statements,
                "close_ms": round(close_s * 1000, 1),
                "close_statements": close_statements,
                "groups": len(groups),
                "sizes": sorted({len(group.players()) for group in groups}),
                "seats": seats,
                "closed": closed,
                "status": round_.status,
                "eliminated": len(round_.outcome.get("eliminated", [])),
                "struck": sum(1 for strikes in round_.outcome.get("strikes", {}).values() if strikes),
                "still_in": Entrant.objects.filter(tournament=tournament, status=Entrant.Status.IN).count(),
            })
        results[tournament_format] = runs
    return results


# --- In the parent: the databases, the children, the Markdown ---------------------------------------


def _psql(sql: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["psql", "-h", "127.0.0.1", "-U", "postgres", "-qc", sql], capture_output=True, text=True, timeout=60
    )


def _postgres_reachable() -> bool:
    try:
        return shutil.which("psql") is not None and _psql("SELECT 1").returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


DATABASE = f"bunco_bench_tournament_{os.getpid()}"


def _fresh_postgres() -> str | None:
    """A new empty throwaway database (None), or why there is none."""
    if not _postgres_reachable():
        return f"PostgreSQL not reachable at {POSTGRES}: not measured"
    _psql(f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")
    created = _psql(f"CREATE DATABASE {DATABASE}")
    if created.returncode != 0:
        return f"could not create {DATABASE}: {created.stderr.strip()}"
    return None


def _env(backend: str, workdir: Path) -> dict[str, str]:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "bunco_club.site.settings", "REDIS_URL": "", "PYTHONUNBUFFERED": "1"}
    env.pop("DEBUG", None)
    if backend == "postgres":
        env["DATABASE_URL"] = f"{POSTGRES}/{DATABASE}"
    else:
        env["DATABASE_URL"] = ""
        env["SQLITE_PATH"] = str(workdir / "bench.sqlite3")
    return env


def _failure(done: subprocess.CompletedProcess[str]) -> str:
    return f"failed: {(done.stderr or done.stdout).strip().splitlines()[-1:]}"


def _actions_on_postgres() -> dict[str, Any] | str:
    workdir = Path(tempfile.mkdtemp(prefix="bunco-bench-tournament-"))
    try:
        refusal = _fresh_postgres()
        if refusal:
            return refusal
        done = subprocess.run([sys.executable, __file__, "--child"], cwd=ROOT, env=_env("postgres", workdir),
                              capture_output=True, text=True, timeout=CHILD_TIMEOUT_S)
        results = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
        if done.returncode != 0 or not results:
            return _failure(done)
        return json.loads(results[-1].removeprefix("RESULT "))
    finally:
        _psql(f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")
        shutil.rmtree(workdir, ignore_errors=True)


def _whole_tournament(backend: str) -> dict[str, Any] | str:
    """`simulate_tournament` in a subprocess on a fresh database: its JSON and the wall time."""
    workdir = Path(tempfile.mkdtemp(prefix="bunco-bench-tournament-"))
    try:
        if backend == "postgres":
            refusal = _fresh_postgres()
            if refusal:
                return refusal
        env = _env(backend, workdir)
        migrated = subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env,
                                  capture_output=True, text=True, timeout=600)
        if migrated.returncode != 0:
            return _failure(migrated)
        began = time.perf_counter()
        done = subprocess.run([sys.executable, *SIMULATION.split()], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=CHILD_TIMEOUT_S)
        wall = time.perf_counter() - began
        if done.returncode != 0:
            return _failure(done)
        report = json.loads(done.stdout.strip().splitlines()[-1])
        report["wall_s"] = round(wall, 1)
        return report
    except subprocess.TimeoutExpired:
        return f"did not finish in {CHILD_TIMEOUT_S} s"
    finally:
        if backend == "postgres":
            _psql(f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")
        shutil.rmtree(workdir, ignore_errors=True)


def _median_max(values: list[float]) -> str:
    return f"**{statistics.median(values):,.0f}** ms (max {max(values):,.0f})"


def _actions_lines(measured: dict[str, Any] | str) -> list[str]:
    if isinstance(measured, str):
        return [f"PostgreSQL: {measured}.", ""]
    names = {"single": "single elimination", "double": "double elimination"}
    lines = [
        f"| Round 1 of {PLAYERS:,} players, PostgreSQL | " + " | ".join(names[f] for f in FORMATS) + " | target |",
        "|---|" + "---|" * len(FORMATS) + "---|",
    ]

    def row(label: str, target: str, cell: Any) -> str:
        return "| " + " | ".join([label, *(cell(measured[f]) for f in FORMATS), target]) + " |"

    lines += [
        row("`start_round`: the grouping, the round, its groups and seats written", "< 1 s",
            lambda runs: _median_max([run["start_ms"] for run in runs])),
        row("`close_round_if_due` after the grace: groups final, ranking across groups, cut / strikes", "< 1 s",
            lambda runs: _median_max([run["close_ms"] for run in runs])),
        row("SQL statements: `start_round` · `close_round_if_due`", "—",
            lambda runs: f"{runs[0]['start_statements']} · {runs[0]['close_statements']}"),
        row("groups (sizes) · seats · groups closed", "—",
            lambda runs: f"{runs[0]['groups']} ({'-'.join(map(str, runs[0]['sizes']))}) · {runs[0]['seats']} · "
                         f"{runs[0]['closed']}"),
        row("round's status · eliminated · with a strike · still in", "—",
            lambda runs: f"{runs[0]['status']} · {runs[0]['eliminated']} · {runs[0]['struck']} · "
                         f"{runs[0]['still_in']}"),
        row(f"not timed: {PLAYERS:,} `register` · {PLAYERS:,} `record_turn`", "—",
            lambda runs: f"{statistics.median(r['setup_s'] for r in runs):.1f} s · "
                         f"{statistics.median(r['turns_s'] for r in runs):.1f} s"),
        "",
    ]
    worst = max(run[key] for f in FORMATS for run in measured[f] for key in ("start_ms", "close_ms"))
    verdict = "meet" if worst < TARGET_S * 1000 else "MISS"
    lines += [f"Worst of every run {worst:,.0f} ms: both actions {verdict} the < 1 s target in both formats.", ""]
    return lines


def _whole_lines(results: dict[str, dict[str, Any] | str]) -> list[str]:
    lines = [
        f"| Whole double-elimination tournament, {PLAYERS:,} players | " + " | ".join(LABELS[b] for b in BACKENDS) + " |",
        "|---|" + "---|" * len(BACKENDS),
    ]

    def row(label: str, cell: Any) -> str:
        values = [cell(results[b]) if isinstance(results[b], dict) else str(results[b]) for b in BACKENDS]
        return "| " + " | ".join([label, *values]) + " |"

    lines += [
        row("the command's elapsed_s", lambda r: f"**{r['elapsed_s']:,.1f}** s"),
        row("wall time of the subprocess (Django start-up included)", lambda r: f"{r['wall_s']:,.1f} s"),
        row("rounds (the face-off included)", lambda r: str(len(r["rounds"]))),
        row("players per round", lambda r: " → ".join(str(entry["players"]) for entry in r["rounds"])),
        row("eliminated in all (every player but the champion) · champion",
            lambda r: f"{sum(len(entry['eliminated']) for entry in r['rounds'])} · {r['champion']}"),
        "",
    ]
    return lines


def run() -> str:
    load_before = os.getloadavg()[0]
    measured = _actions_on_postgres()
    whole = {backend: _whole_tournament(backend) for backend in BACKENDS}
    load_after = os.getloadavg()[0]
    lines = [
        f"## Tournament through the real actions: {PLAYERS:,} players",
        "",
        "The pure grouping and cut (`tournaments.brackets`, target < 100 ms) are measured in "
        "\"Tournament brackets: 1,000 players\" above. Here the same work goes through "
        "`tournaments.actions` on a throwaway PostgreSQL database, a new tournament each time "
        f"({REPEATS} per format): {PLAYERS:,} players `register`ed checked in, then `start_round` is "
        "timed (round 1 drawn into groups of 2-6 and written: the round, its groups, their seats, "
        "the event); every player then enters one turn by `record_turn` (not timed; distinct "
        "scores, so nobody ties at the line and the round is decided), and `close_round_if_due` is "
        "timed at a `now` after the round's end and grace period (every group made final in one "
        "statement, the scores replayed from the turns, the ranking across groups and the cut or "
        "the strikes, the eliminations written). REDIS_URL unset (in-process events). "
        f"{machine_line()}; load average {load_before:.1f} before, {load_after:.1f} after (the "
        "machine is shared: wall times include waiting for a core).",
        "",
        *_actions_lines(measured),
        f"A whole tournament played by the bots of `{SIMULATION}` (every turn a "
        "`record_turn` on a simulated clock, every round closed by `close_round_if_due`, play-offs "
        "at the line, the face-off), in a subprocess on a fresh database per backend: SQLite (the "
        "embedded default, a temporary file) and PostgreSQL. docs/DESIGN.md §7 sets no target for it "
        "beyond reporting its time.",
        "",
        *_whole_lines(whole),
        f"Command: `{COMMAND}` (the tournament alone: `.venv/bin/python {SIMULATION}`)",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    if sys.argv[1:] == ["--child"]:
        print("RESULT " + json.dumps(measure()), flush=True)
    else:
        print(run())
