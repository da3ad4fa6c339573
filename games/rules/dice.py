"""The only place where dice are rolled and cards shuffled.

Every function takes the random generator to use: `secrets.SystemRandom()` in production
(`system_rng()`), a seeded `random.Random` in tests and simulations, so that any night can be
replayed exactly.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import MutableSequence, Sequence
from typing import TypeVar

T = TypeVar("T")

FACES = (1, 2, 3, 4, 5, 6)


def system_rng() -> random.Random:
    """The generator for real play: drawn from the operating system, never seeded."""
    return secrets.SystemRandom()


def seeded_rng(seed: str) -> random.Random:
    """A generator that gives the same throws for the same seed: for dice that must come out the
    same when something is worked out again (a night's prize roll-offs and draw)."""
    return random.Random(seed)


def roll(rng: random.Random, count: int) -> list[int]:
    """Roll `count` six-sided dice."""
    if count < 0:
        raise ValueError("Cannot roll a negative number of dice.")
    return [rng.randint(1, 6) for _ in range(count)]


def shuffled[T](rng: random.Random, items: Sequence[T]) -> list[T]:
    """A shuffled copy of `items` (the original is left alone)."""
    copy = list(items)
    rng.shuffle(copy)
    return copy


def shuffle_in_place[T](rng: random.Random, items: MutableSequence[T]) -> None:
    rng.shuffle(items)


def choice[T](rng: random.Random, items: Sequence[T]) -> T:
    """One item drawn at random (a prize draw, a random seat)."""
    if not items:
        raise ValueError("Cannot choose from nothing.")
    return items[rng.randrange(len(items))]
