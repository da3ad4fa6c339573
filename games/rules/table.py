"""The one interface every game played at a game table implements (DESIGN.md §2, §3).

Pure Python, no Django, no global random. A game table (games/table/) knows nothing of Fill or Bust,
Kismet or Ninety-Nine or Bust: it stores a `TableGame` as `to_dict()`, asks whose move it is and
which moves a seat may make, applies a move with the table's own generator (`apply(seat, move, rng)`
returns a new game; nothing is changed in place), and sends each phone `view(seat)`:

- `View.public` is what every seat and the table screen may see (scores, whose turn, the dice on the
  table, the count, how many cards each player holds);
- `View.private` is what only that seat may see (its own hand). A spectator's view has none.

Neither part ever carries the deck's order, another seat's hand or anything chance has not produced
yet: those stay inside `to_dict()`, which only the server reads.

Seats are numbered 0..n-1 in playing order (clockwise); `seats` gives their names. A move is a small
JSON-ready mapping with a `"kind"` ("toss", "keep", "play", "score", ...) and its arguments; every
engine's errors derive from `IllegalMove`, raised with a message a player can read.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

Move = Mapping[str, Any]


class IllegalMove(ValueError):
    """A move the rules don't allow now: every engine's errors derive from this one."""


class NotYourTurn(IllegalMove):
    """A seat tried to move while it is another seat's move (or the game is over)."""


@dataclass(frozen=True)
class View:
    """What one seat (or, with `seat=None`, a spectator) may see of the game."""

    public: dict[str, Any]
    private: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Result:
    """A finished game: the winning seats (several on a shared win) and each seat's final figure
    (points for the dice games, markers left for Ninety-Nine or Bust), in seat order."""

    winners: tuple[int, ...]
    scores: tuple[int, ...]


class TableGame(ABC):
    """A whole game at a table. Immutable: `apply` returns the next game."""

    game: ClassVar[str]  # "fill_or_bust", "kismet", "ninety_nine"

    @property
    @abstractmethod
    def seats(self) -> tuple[str, ...]:
        """The players' names, in seat order."""

    @abstractmethod
    def to_move(self) -> tuple[int, ...]:
        """The seats that may move now (empty when the game is over)."""

    @abstractmethod
    def legal_moves(self, seat: int) -> list[dict[str, Any]]:
        """Every move `seat` may make now, each complete as `apply` takes it (empty when it is
        not that seat's move)."""

    @abstractmethod
    def apply(self, seat: int, move: Move, rng: random.Random) -> Self:
        """The game after `seat` makes `move`; `rng` is the only source of chance (dice, cards).
        IllegalMove (and nothing changed) for a move out of turn or against the rules."""

    @abstractmethod
    def view(self, seat: int | None) -> View:
        """What `seat` may see; `None` is the table screen (public part only)."""

    @property
    @abstractmethod
    def is_over(self) -> bool: ...

    @abstractmethod
    def result(self) -> Result | None:
        """The outcome once the game is over, else None."""

    @abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """Every bit of state, JSON-ready (the server's copy: it holds the secrets)."""

    @classmethod
    @abstractmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self: ...

    # -- helpers every engine shares ---------------------------------------------------------------

    def check_seat(self, seat: object) -> int:
        if type(seat) is not int or not 0 <= seat < len(self.seats):
            raise IllegalMove(f"There is no seat {seat!r}; seats are 0 to {len(self.seats) - 1}.")
        return seat

    def check_turn(self, seat: object) -> int:
        """`seat`, if it is one of the seats to move; NotYourTurn otherwise."""
        seat = self.check_seat(seat)
        if seat in self.to_move():
            return seat
        if self.is_over:
            raise NotYourTurn("The game is over.")
        waiting = " or ".join(self.seats[s] for s in self.to_move())
        raise NotYourTurn(f"It is {waiting}'s move, not {self.seats[seat]}'s.")


def move_kind(move: object, kinds: Sequence[str]) -> str:
    """The `"kind"` of a move, checked against the kinds the game knows."""
    if not isinstance(move, Mapping):
        raise IllegalMove(f"A move is a mapping such as {{'kind': '{kinds[0]}'}}, not {move!r}.")
    kind = move.get("kind")
    if kind not in kinds:
        raise IllegalMove(f"Unknown move {kind!r}; the moves are {', '.join(kinds)}.")
    return str(kind)


def move_dice(move: Move, name: str = "dice") -> tuple[int, ...]:
    """The dice a move names (faces 1-6), as a tuple; IllegalMove for anything else."""
    value = move.get(name)
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise IllegalMove(f"Say the {name} as a list of faces 1 to 6, not {value!r}.")
    faces = tuple(value)
    for face in faces:
        if type(face) is not int or not 1 <= face <= 6:
            raise IllegalMove(f"A die shows 1 to 6, not {face!r}.")
    return faces
