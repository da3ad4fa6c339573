"""The only place where dice are rolled and cards shuffled.

Every function takes the chance to use: `secrets.SystemRandom()` in production (`system_rng()`), a
seeded `random.Random` in tests and simulations, so that any night can be replayed exactly, or, at a
game table, a `ChanceStream`: version 2 of docs/FAIRNESS.md, the HMAC-SHA256 byte stream of one
step that anyone can re-derive from the revealed seed, the table's code and the phones' contributions
(dice by rejection, `below(k)`, the shuffle, exactly as that page says).
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import MutableSequence, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

FACES = (1, 2, 3, 4, 5, 6)

# docs/FAIRNESS.md version 2: a byte at or above this is thrown away, so that `b mod 6` is even.
DIE_REJECT_FROM = 252
WORD = 2**32  # below(k) reads 4 bytes at a time, big-endian
CONTRIBUTION_LENGTH = 32  # a phone's contribution: 16 bytes as lowercase hex


def new_server_seed() -> str:
    """A table's seed S: 32 bytes from the operating system, as 64 lowercase hex characters."""
    return secrets.token_hex(32)


def commitment_of(seed: str) -> str:
    """C: the SHA-256 of the seed's 64 ASCII characters, lowercase hex."""
    return hashlib.sha256(seed.encode("ascii")).hexdigest()


class ChanceStream:
    """The byte stream of one step of a game table (docs/FAIRNESS.md v2): for i = 0, 1, 2, ... the
    HMAC-SHA256, keyed by the seed's 64 ASCII characters, of "{code}/{step}/{contribution}/{i}".
    Everything chance produces in that step is read from it, in the order the game needs it."""

    def __init__(self, seed: str, code: str, step: int, contribution: str) -> None:
        self._key = seed.encode("ascii")
        self._prefix = f"{code}/{step}/{contribution}/"
        self._block = 0
        self._bytes = b""
        self._at = 0
        # What the step's chance produced, in the order the stream was used: the record's "chance"
        # (docs/FAIRNESS.md, "The record"), which an outside check re-derives item by item.
        self.used: list[dict[str, Any]] = []

    def _next_byte(self) -> int:
        if self._at == len(self._bytes):
            message = f"{self._prefix}{self._block}".encode("ascii")
            self._bytes = hmac.new(self._key, message, hashlib.sha256).digest()
            self._block += 1
            self._at = 0
        byte = self._bytes[self._at]
        self._at += 1
        return byte

    def die(self) -> int:
        """One die: the next byte below 252, mod 6, plus 1."""
        byte = self._next_byte()
        while byte >= DIE_REJECT_FROM:
            byte = self._next_byte()
        return byte % 6 + 1

    def below(self, k: int) -> int:
        """A whole number from 0 to k - 1: 4 bytes big-endian, rejected at or above the largest
        multiple of k that fits, then mod k."""
        if not 1 <= k <= WORD:
            raise ValueError(f"below(k) takes k from 1 to 2**32, not {k}.")
        limit = WORD - WORD % k
        while True:
            word = int.from_bytes(bytes(self._next_byte() for _ in range(4)), "big")
            if word < limit:
                return word % k

    def dice(self, count: int) -> list[int]:
        """`count` dice, one after another: one entry of the record."""
        values = [self.die() for _ in range(count)]
        self.used.append({"dice": values})
        return values

    def shuffle(self, items: MutableSequence[T]) -> None:
        """The shuffle of docs/FAIRNESS.md: for i from the last index down to 1, swap items i and below(i + 1)."""
        before = [card_name(item) for item in items]
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
        self.used.append({"shuffle": {"before": before, "after": [card_name(item) for item in items]}})

    def drew(self, card: object, seat: int | None) -> None:
        self.used.append({"draw": {"card": card_name(card)} if seat is None else {"seat": seat, "card": card_name(card)}})


def card_name(card: object) -> str:
    """A card as the record writes it (docs/FAIRNESS.md): "BONUS 300", "minus 10", "7"."""
    return str(card).replace("_", " ")


# What a table's engine is handed to make chance with: a generator, or a step's stream.
Chance = random.Random | ChanceStream


def system_rng() -> random.Random:
    """The generator for real play: drawn from the operating system, never seeded."""
    return secrets.SystemRandom()


def seeded_rng(seed: str) -> random.Random:
    """A generator that gives the same throws for the same seed: for dice that must come out the
    same when something is worked out again (a night's prize roll-offs and draw)."""
    return random.Random(seed)


def roll(rng: Chance, count: int) -> list[int]:
    """Roll `count` six-sided dice."""
    if count < 0:
        raise ValueError("Cannot roll a negative number of dice.")
    if isinstance(rng, ChanceStream):
        return rng.dice(count)
    return [rng.randint(1, 6) for _ in range(count)]


def shuffled[T](rng: Chance, items: Sequence[T]) -> list[T]:
    """A shuffled copy of `items` (the original is left alone)."""
    copy = list(items)
    shuffle_in_place(rng, copy)
    return copy


def shuffle_in_place[T](rng: Chance, items: MutableSequence[T]) -> None:
    rng.shuffle(items)  # a stream shuffles as docs/FAIRNESS.md says, a generator as Python does


def draw[T](rng: Chance | None, pile: MutableSequence[T], *, seat: int | None = None) -> T:
    """The front card of `pile`, taken off it (docs/FAIRNESS.md: cards are drawn from the front), and
    noted in the step's record (`seat`: who it was dealt to, where the record says)."""
    card = pile.pop(0)
    if isinstance(rng, ChanceStream):
        rng.drew(card, seat)
    return card


def deal_one[T](rng: Chance, deck: MutableSequence[T], *, seat: int) -> T:
    """The next card of a deal to `seat`: from the front (docs/FAIRNESS.md version 2), or from the back for
    a generator (version 1 tables were dealt so, and still replay as they were)."""
    if isinstance(rng, ChanceStream):
        return draw(rng, deck, seat=seat)
    return deck.pop()


def choice[T](rng: random.Random, items: Sequence[T]) -> T:
    """One item drawn at random (a prize draw, a random seat)."""
    if not items:
        raise ValueError("Cannot choose from nothing.")
    return items[rng.randrange(len(items))]
