"""Benchmark: the Fill or Bust bots against each other (issue 18).

For every pairing of levels (each level against itself included) plays GAMES two-player games to
5,000 with the default options, seat A starting in even-numbered games and seat B in odd ones,
game n dealt and rolled from `random.Random(n)` (so the figures can be reproduced exactly). The
games are spread over every core (multiprocessing). Prints each pairing's win rates (a shared win
counts half to each), the mean points banked per turn by each level (a turn's own change of its
player's score, so a Vengeance's hit on the other player is not in it), the mean turns per game
and the time taken. Acceptance: the strong bot beats the threshold bot in more than 55% of games.

Run alone: `.venv/bin/python bench/fill_or_bust_bots.py` (`--games N` for a quicker look;
`--pairing threshold,strong --first-seed N` plays that pairing only, on seeds N and on, and prints
one line; `--processes 1` plays in this process);
`make bench ONLY=bots` runs it and rewrites its section of docs/PERFORMANCE.md.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from dataclasses import dataclass
from itertools import combinations_with_replacement
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from games.rules.fill_or_bust import new_game  # noqa: E402
from games.rules.fill_or_bust_bots import LEVELS, choose_action, odds  # noqa: E402
from games.rules.registry import bot_levels  # noqa: E402

GAMES = 10_000
GOAL = 5_000
ACCEPTANCE = 0.55
COMMAND = ".venv/bin/python bench/fill_or_bust_bots.py"


@dataclass
class Tally:
    """One pairing's games: wins of each seat (halves for a shared win), points and turns."""

    games: int = 0
    wins_a: float = 0.0
    wins_b: float = 0.0
    points_a: int = 0
    points_b: int = 0
    turns_a: int = 0
    turns_b: int = 0

    def add(self, other: Tally) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


def play(level_a: str, level_b: str, seed: int) -> Tally:
    """Game `seed` between seat A (`level_a`) and seat B (`level_b`); A starts on even seeds."""
    rng = random.Random(seed)
    levels = {"A": level_a, "B": level_b}
    game = new_game(["A", "B"], rng, goal=GOAL, first="A" if seed % 2 == 0 else "B")
    while not game.is_over:
        game = game.apply(choose_action(game, levels[game.player], rng), rng)
    tally = Tally(games=1)
    for name in game.winners:
        share = 1 / len(game.winners)
        if name == "A":
            tally.wins_a += share
        else:
            tally.wins_b += share
    for turn in game.turns:
        if turn.player == "A":
            tally.points_a += turn.gained
            tally.turns_a += 1
        else:
            tally.points_b += turn.gained
            tally.turns_b += 1
    return tally


def _play_chunk(job: tuple[str, str, int, int]) -> Tally:
    level_a, level_b, start, stop = job
    odds()  # built once per worker process
    total = Tally()
    for seed in range(start, stop):
        total.add(play(level_a, level_b, seed))
    return total


def pairings() -> list[tuple[str, str]]:
    return list(combinations_with_replacement(LEVELS, 2))


def measure(
    games: int = GAMES,
    processes: int | None = None,
    first_seed: int = 0,
    only: list[tuple[str, str]] | None = None,
) -> tuple[dict[tuple[str, str], Tally], float]:
    """Every pairing's tally (or only those of `only`) over seeds first_seed .. first_seed + games - 1
    and the seconds taken, the games split into chunks over the cores."""
    chunk = 250
    chosen = only or pairings()
    stop = first_seed + games
    jobs = [(a, b, start, min(stop, start + chunk)) for a, b in chosen for start in range(first_seed, stop, chunk)]
    started = time.perf_counter()
    if processes == 1:
        results = [_play_chunk(job) for job in jobs]
    else:
        with Pool(processes or os.cpu_count() or 1) as pool:
            results = pool.map(_play_chunk, jobs)
    seconds = time.perf_counter() - started
    tallies = {pair: Tally() for pair in chosen}
    for (a, b, _start, _stop), tally in zip(jobs, results, strict=True):
        tallies[(a, b)].add(tally)
    return tallies, seconds


def duel(games: int, first_seed: int, processes: int | None, pairing: tuple[str, str]) -> str:
    """One pairing only, on seeds first_seed .. first_seed + games - 1 (for tuning): one line."""
    tallies, seconds = measure(games, processes, first_seed, [pairing])
    t = tallies[pairing]
    b = t.wins_b / t.games
    error = (b * (1 - b) / t.games) ** 0.5
    return (
        f"{pairing[0]} vs {pairing[1]}, seeds {first_seed:,}..{first_seed + games - 1:,}: "
        f"A {t.wins_a / t.games:.2%}, B {b:.2%} (standard error {error:.2%}); "
        f"points per turn A {t.points_a / t.turns_a:.0f}, B {t.points_b / t.turns_b:.0f}; {seconds:.0f} s"
    )


def run(games: int = GAMES, processes: int | None = None) -> str:
    tallies, seconds = measure(games, processes)
    processes = processes or os.cpu_count() or 1
    started = time.perf_counter()
    odds.cache_clear()
    odds()
    build_ms = (time.perf_counter() - started) * 1000
    per_level: dict[str, list[int]] = {level: [0, 0] for level in LEVELS}
    lines = [
        "## Fill or Bust bots",
        "",
        f"{games:,} two-player games to {GOAL:,} (default options) for every pairing of the bot levels "
        "of `games/rules/fill_or_bust_bots.py`, each level against itself included; seat A starts the "
        "even-numbered games, seat B the odd ones; game n is dealt and rolled from `random.Random(n)`. "
        "A shared win counts half to each seat. Points per turn: the mean change of the player's own "
        "score over its turns (busts and NO DICE count as 0; a Vengeance's hit on the other is not in it).",
        "",
        "| Seat A | Seat B | A wins | B wins | A points per turn | B points per turn | turns per game |",
        "|---|---|---|---|---|---|---|",
    ]
    for (a, b), t in tallies.items():
        per_level[a][0] += t.points_a
        per_level[a][1] += t.turns_a
        per_level[b][0] += t.points_b
        per_level[b][1] += t.turns_b
        lines.append(
            f"| {a} | {b} | {t.wins_a / t.games:.1%} | {t.wins_b / t.games:.1%} "
            f"| {t.points_a / t.turns_a:.0f} | {t.points_b / t.turns_b:.0f} "
            f"| {(t.turns_a + t.turns_b) / t.games:.1f} |"
        )
    lines += [
        "",
        "Mean points banked per turn by level, over all its games:",
        "",
        "| Level | What it does | points per turn | turns |",
        "|---|---|---|---|",
    ]
    labels = {level.name: level.label for level in bot_levels("fill_or_bust")}
    for level in LEVELS:
        points, turns = per_level[level]
        lines.append(f"| {level} | {labels[level]} | {points / turns:.0f} | {turns:,} |")
    duel = tallies[("threshold", "strong")]
    strong = duel.wins_b / duel.games
    error = (strong * (1 - strong) / duel.games) ** 0.5
    verdict = "met" if strong > ACCEPTANCE else "**missed**"
    lines += [
        "",
        f"Headline: the strong bot beats the threshold bot in **{strong:.1%}** of {duel.games:,} games "
        f"(standard error {error:.1%}; acceptance: more than {ACCEPTANCE:.0%}: {verdict}).",
        "",
        f"Time: {seconds:.0f} s for all {games * len(tallies):,} games on {processes} processes "
        f"({seconds * 1000 * processes / (games * len(tallies)):.1f} ms of one core per game); "
        f"the strong bot's expected-value table builds in {build_ms:.0f} ms.",
        "",
        f"Command: `{COMMAND}`",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=GAMES, help="games per pairing")
    parser.add_argument("--processes", type=int, default=None, help="worker processes (default: every core)")
    parser.add_argument("--first-seed", type=int, default=0, help="the first game's seed (with --pairing)")
    parser.add_argument(
        "--pairing",
        default=None,
        help="play only this pairing, e.g. threshold,strong (seat A, seat B), and print one line",
    )
    arguments = parser.parse_args()
    if arguments.pairing:
        a, b = arguments.pairing.split(",")
        if a not in LEVELS or b not in LEVELS:
            parser.error(f"--pairing takes two of {', '.join(LEVELS)}")
        print(duel(arguments.games, arguments.first_seed, arguments.processes, (a, b)))
    elif arguments.first_seed:
        parser.error("--first-seed goes with --pairing (the full table always starts at seed 0)")
    else:
        print(run(arguments.games, arguments.processes))
