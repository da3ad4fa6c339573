#!/usr/bin/env python
"""Writes games/rules/fill_or_bust_gains.py: what a Fill or Bust turn yields, for the strong bot's
win-probability table (games/rules/fill_or_bust_bots.py, issue 18).

Plays TURNS turns of two-player timed games (no goal, default options) between two strong bots,
which then play by expected points alone, a fresh game every GAME_TURNS turns, game k dealt and
rolled from `random.Random(k)`. For every turn it records whether its player led alone when it
began (a Vengeance it draws is then discarded), whether the turn hit the other player with a
Vengeance, and two figures in units of 50 points:

- `reach`: the most the player could have banked at some moment of the turn (its own score's change
  so far, plus the points at risk whenever STOP was a legal action);
- `gain`: what the turn banked in the end.

A player who needs n units to reach the goal and stops as soon as a bank reaches it wins on that
turn exactly when `reach >= n` (up to that moment the turn is played as without a goal), and
otherwise banks `gain < n`. Both figures are capped at CAP units (the table does not need more).

Run: `.venv/bin/python scripts/fill_or_bust_gains.py` (about a minute and a half on one core);
`--check` compares a fresh run with the file instead of writing it (exit status 1 if they differ).
"""

from __future__ import annotations

import argparse
import random
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from games.rules.fill_or_bust import ActionKind, new_game  # noqa: E402
from games.rules.fill_or_bust_bots import UNIT, choose_action  # noqa: E402

TURNS = 120_000
GAME_TURNS = 30
CAP = 200  # units: 10,000 points
TARGET = ROOT / "games" / "rules" / "fill_or_bust_gains.py"


def record(turns: int = TURNS) -> Counter[tuple[int, int, int, int]]:
    """(led, hit, reach, gain) -> how many of the `turns` turns gave it (led, hit: 0 or 1)."""
    histogram: Counter[tuple[int, int, int, int]] = Counter()
    played = 0
    seed = 0
    while played < turns:
        rng = random.Random(seed)
        seed += 1
        game = new_game(["A", "B"], rng, first="A")
        for _ in range(min(GAME_TURNS, turns - played)):
            seat = game.seat
            start = game.sheet[seat]
            other = game.sheet[1 - seat]
            led = int(start > other)
            count = len(game.turns)
            reach = 0
            while len(game.turns) == count:
                own = game.sheet[seat] - start
                if ActionKind.STOP in game.legal_actions():
                    own += game.at_risk
                reach = max(reach, own)
                game = game.apply(choose_action(game, "strong", rng), rng)
            gain = game.turns[-1].gained
            reach = max(reach, gain)
            hit = int(game.sheet[1 - seat] < other)
            histogram[(led, hit, min(reach // UNIT, CAP), min(gain // UNIT, CAP))] += 1
            played += 1
    return histogram


def render(histogram: Counter[tuple[int, int, int, int]]) -> str:
    rows = "\n".join(f"    ({led}, {hit}, {r}, {g}, {n})," for (led, hit, r, g), n in sorted(histogram.items()))
    turns = sum(histogram.values())
    return f'''"""What a Fill or Bust turn yields, for the strong bot's win-probability table: written by
scripts/fill_or_bust_gains.py (read it for how), do not edit by hand.

`GAINS`: (led, hit, reach, gain, turns): of TURNS turns played by the strong bot on expected points
alone, how many began with its player leading alone (`led` 1) or not, hit the other player with a
Vengeance (`hit` 1) or not, could have banked at most `reach` units of 50 points at some moment
and banked `gain`.
"""

from typing import Final

TURNS: Final = {turns}
CAP: Final = {CAP}
GAINS: Final[tuple[tuple[int, int, int, int, int], ...]] = (
{rows}
)
'''


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=TURNS)
    parser.add_argument("--check", action="store_true", help="compare with the file, do not write")
    arguments = parser.parse_args()
    text = render(record(arguments.turns))
    if arguments.check:
        same = TARGET.read_text() == text
        print(f"{TARGET.relative_to(ROOT)} is {'up to date' if same else 'OUT OF DATE'}")
        sys.exit(0 if same else 1)
    TARGET.write_text(text)
    print(f"wrote {TARGET.relative_to(ROOT)}")
