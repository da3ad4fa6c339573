"""Benchmark: the pure Bunco rules for a 100-table charity night (400 players).

Targets (docs/DESIGN.md §7): seating draw < 1 s, moving everyone after a round < 200 ms, a whole
24-round night by bots through the real actions < 60 s. Those targets are for the full path
through the database; this measures only the pure `games.rules.bunco` work inside it (the draw,
one movement with the "where do I go next" lookup, and a whole night played by the pure engine in
lock-step), so it shows how much of each budget the rules themselves take.

Run alone: `.venv/bin/python bench/bench_bunco_rules.py`
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import time_ms  # noqa: E402
from games.rules.bunco import draw_seating, next_seating, next_seating_with, places, simulate_night

PLAYERS = 400
GHOSTLY_PLAYERS = 397  # 100 tables with 3 ghosts, so movement has ghosts to keep apart
REPEATS = 200
NIGHT_REPEATS = 5
COMMAND = ".venv/bin/python bench/bench_bunco_rules.py"


def _time_ms(work: Callable[[], object], repeats: int = REPEATS) -> list[float]:
    return time_ms(work, repeats)


def _row(label: str, times: list[float], target_ms: float | None = None) -> str:
    target = f"{target_ms:,.0f}" if target_ms else "—"
    return f"| {label} | {statistics.median(times):.2f} | {max(times):.2f} | {target} |"


def run() -> str:
    names = [f"player-{i:03}" for i in range(PLAYERS)]
    ghostly = names[:GHOSTLY_PLAYERS]
    rng = random.Random(2024)
    seating = draw_seating(names, rng).seating()
    ghost_draw = draw_seating(ghostly, rng)
    winners = [rng.choice("AB") for _ in seating]

    draw = _time_ms(lambda: draw_seating(names, random.Random(7)))
    move = _time_ms(
        lambda: places(next_seating_with(ghost_draw.seating(), winners, ghosts=ghost_draw.ghosts))
    )
    contract_move = _time_ms(lambda: next_seating(seating, winners))
    nights = []
    night = None
    for seed in range(NIGHT_REPEATS):
        start = time.perf_counter()
        night = simulate_night(names, random.Random(seed))
        nights.append((time.perf_counter() - start) * 1000)
    assert night is not None
    rolls = sum(table.rolls for r in night.rounds for table in r.tables)
    tallies = sum(len(table.tallies) for r in night.rounds for table in r.tables)

    rows = [
        _row(f"seating draw, {PLAYERS} players into 100 tables", draw, 1000),
        _row("one movement of 100 tables with 3 ghosts + everyone's next table and partner", move, 200),
        _row("one movement of 100 tables, contract `next_seating` alone", contract_move),
        _row(f"whole simulated night: 100 tables x 24 rounds ({NIGHT_REPEATS} seeds)", nights, 60_000),
    ]
    return "\n".join(
        [
            "## Bunco rules: a 100-table night (pure engine)",
            "",
            f"Pure `games.rules.bunco` work for {PLAYERS} players at 100 tables: the random seating "
            "draw, one round's movement (with ghosts kept from partnering and the \"go to Table 2, "
            'your partner is Dana" lookup for everyone), and a whole 24-round night played by the '
            "pure table engine in lock-step with seeded dice (bell, finishing turns, roll-offs, "
            f"movement). {REPEATS} runs after one warm-up for the draw and movement. The last night "
            f"threw {rolls:,} rolls of three dice, {tallies:,} of them scoring "
            "(the tallies a replay through the database would post).",
            "",
            "| What | median ms | max ms | docs/DESIGN.md §7 target ms (full database path) |",
            "|---|---|---|---|",
            *rows,
            "",
            "The targets are for the whole path through the real actions and the database; these "
            "figures are the pure rules only, i.e. the share of each budget the rules take "
            f"(draw {1000 / statistics.median(draw):,.0f}x, movement {200 / statistics.median(move):,.0f}x "
            f"under budget at the median; a pure night takes {statistics.median(nights) / 1000:.2f} s, "
            "most of it rolling dice through `dice.roll`).",
            "",
            f"Command: `{COMMAND}`",
            "",
        ]
    )


if __name__ == "__main__":
    print(run())
