"""Benchmark: a 1,000-player Fill or Bust tournament's grouping and one round's cut.

Target (docs/DESIGN.md §7): grouping + a round's cut < 100 ms. What is timed is the pure work of
`tournaments.brackets` the round-closing action does: draw 1,000 players into groups, rank
everyone by their round score across groups and cut at ceil(n/2). The round scores are made up
beforehand (multiples of 50 up to 10,000, as Fill or Bust scores are, so ties across the line
happen) and are not timed. Seeded snake grouping and a double-elimination round are timed too,
for comparison.

Run alone: `.venv/bin/python bench/bench_brackets.py`
"""

from __future__ import annotations

import random
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the project importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import time_ms  # noqa: E402
from tournaments.brackets import advance_count, cut, double_elimination, random_groups, seeded_groups

PLAYERS = 1_000
REPEATS = 200
TARGET_MS = 100.0
COMMAND = ".venv/bin/python bench/bench_brackets.py"


def _time_ms(work: Callable[[], object], repeats: int = REPEATS) -> list[float]:
    return time_ms(work, repeats)


def _row(label: str, times: list[float]) -> str:
    return f"| {label} | {statistics.median(times):.2f} | {max(times):.2f} |"


def run() -> str:
    rng = random.Random(2024)
    names = [f"player-{i:04}" for i in range(PLAYERS)]
    scores = {name: rng.randrange(0, 201) * 50 for name in names}
    strikes = {name: rng.randrange(0, 2) for name in names}
    advance = advance_count(PLAYERS)

    def grouping_and_cut() -> None:
        random_groups(names, random.Random(7))
        cut(scores, advance)

    ranking = sorted(names, key=lambda name: -scores[name])
    main = _time_ms(grouping_and_cut)
    rows = [
        _row("random grouping + single-elimination cut (**the target**)", main),
        _row("random grouping alone", _time_ms(lambda: random_groups(names, random.Random(7)))),
        _row("seeded (snake) grouping alone", _time_ms(lambda: seeded_groups(ranking))),
        _row(f"cut alone (top {advance} of {PLAYERS})", _time_ms(lambda: cut(scores, advance))),
        _row("double-elimination round alone", _time_ms(lambda: double_elimination(scores, strikes))),
    ]
    result = cut(scores, advance)
    verdict = "meets" if max(main) < TARGET_MS else "MISSES"
    return "\n".join(
        [
            "## Tournament brackets: 1,000 players",
            "",
            f"Pure `tournaments.brackets` work when a round closes: {PLAYERS:,} players drawn into "
            f"groups of 2-6 ({len(random_groups(names, random.Random(7)))} groups), ranked by round score "
            f"across groups and cut at ceil(n/2) = {advance} ({len(result.advancing)} through, "
            f"{len(result.tied)} tied across the line for a play-off). Round scores are generated "
            f"beforehand and not timed; {REPEATS} runs after one warm-up.",
            "",
            "| What | median ms | max ms |",
            "|---|---|---|",
            *rows,
            "",
            f"Target (docs/DESIGN.md §7): grouping + a round's cut < {TARGET_MS:.0f} ms. "
            f"Worst of {REPEATS} runs {max(main):.2f} ms: {verdict} the target "
            f"({TARGET_MS / statistics.median(main):.0f}x headroom at the median).",
            "",
            f"Command: `{COMMAND}`",
            "",
        ]
    )


if __name__ == "__main__":
    print(run())
