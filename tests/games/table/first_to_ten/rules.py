"""First to Ten, the pure side: each seat on turn rolls 1 to 3 dice (its choice) from the table's
chance and adds them to its total; a die showing the seat's lucky face counts double. Each seat's
lucky face is its hand: dealt at the start, seen by its own phone only. The first to reach the
target (10 unless the table says 20) wins."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from games.rules import dice
from games.rules.dice import Chance
from games.rules.table import (
    GameRules,
    IllegalMove,
    OptionField,
    Played,
    PostedFields,
    ReadNumber,
    Result,
    SimulatedOption,
    TableGame,
    View,
    move_kind,
    only_fields,
    posted,
)

NAME = "first_to_ten"
MOST_DICE = 3


@dataclass(frozen=True)
class FirstToTen(TableGame):
    game: ClassVar[str] = NAME

    names: tuple[str, ...]
    totals: tuple[int, ...]
    lucky: tuple[int, ...]  # each seat's lucky face: its hand
    target: int
    turn: int = 0
    last_roll: tuple[int, ...] = ()

    @property
    def seats(self) -> tuple[str, ...]:
        return self.names

    @property
    def is_over(self) -> bool:
        return max(self.totals) >= self.target

    def to_move(self) -> tuple[int, ...]:
        return () if self.is_over else (self.turn,)

    def legal_moves(self, seat: int) -> list[dict[str, Any]]:
        if seat not in self.to_move():
            return []
        return [{"kind": "roll", "dice": n} for n in range(1, MOST_DICE + 1)]

    def apply(self, seat: int, move: Mapping[str, Any], rng: Chance) -> Self:
        self.check_turn(seat)
        move_kind(move, ["roll"])
        count = move.get("dice")
        if type(count) is not int or not 1 <= count <= MOST_DICE:
            raise IllegalMove(f"Roll 1 to {MOST_DICE} dice, not {count!r}.")
        roll = tuple(dice.roll(rng, count))
        gained = sum(face * 2 if face == self.lucky[seat] else face for face in roll)
        totals = tuple(total + gained if n == seat else total for n, total in enumerate(self.totals))
        return type(self)(self.names, totals, self.lucky, self.target, (seat + 1) % len(self.names), roll)

    def view(self, seat: int | None) -> View:
        public = {"game": NAME, "seats": list(self.names), "scores": list(self.totals),
                  "turn": None if self.is_over else self.turn, "last_roll": list(self.last_roll),
                  "target": self.target}
        return View(public, {} if seat is None else {"lucky": self.lucky[seat]})

    def result(self) -> Result | None:
        if not self.is_over:
            return None
        best = max(self.totals)
        return Result(tuple(n for n, total in enumerate(self.totals) if total == best), self.totals)

    def to_dict(self) -> dict[str, Any]:
        return {"game": NAME, "names": list(self.names), "totals": list(self.totals), "lucky": list(self.lucky),
                "target": self.target, "turn": self.turn, "last_roll": list(self.last_roll)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        return cls(tuple(data["names"]), tuple(data["totals"]), tuple(data["lucky"]), data["target"], data["turn"],
                   tuple(data["last_roll"]))


def _game(game: TableGame) -> FirstToTen:
    assert isinstance(game, FirstToTen)
    return game


def new(names: Sequence[str], options: Mapping[str, Any], rng: Chance) -> TableGame:
    target = options.get("target", 10)
    if target not in (10, 20):
        raise IllegalMove(f"Play to 10 or 20, not {target!r}.")
    return FirstToTen(tuple(names), (0,) * len(names), tuple(dice.roll(rng, len(names))), target)


def read_move(fields: PostedFields, number: ReadNumber) -> dict[str, Any]:
    """A roll's one argument as its buttons post it: how many dice (`dice`, 1 to 3)."""
    only_fields(fields, ("dice",))
    count = posted(fields, "dice")
    return {} if count is None else {"dice": number(count, low=1, high=MOST_DICE, what="the number of dice")}


def chance(before: TableGame, after: TableGame) -> list[list[Any]]:
    return [] if _game(after).totals == _game(before).totals else [["roll", list(_game(after).last_roll)]]


def said(move: Mapping[str, Any], view: Mapping[str, Any]) -> str:
    name = view["seats"][move["seat"]]
    faces = ", ".join(str(face) for face in view["last_roll"])
    text = f"{name} rolled {faces}: {view['scores'][move['seat']]} now."
    return text + f" {name} wins!" if view["turn"] is None else text


def bot_move(game: TableGame, seat: int, level: str, rng: random.Random) -> dict[str, Any]:
    return {"kind": "roll", "dice": MOST_DICE if level == "strong" else rng.randint(1, MOST_DICE)}


def summary(played: Played) -> dict[str, Any]:
    """What simulate_table prints of a game of First to Ten: each roll and the totals."""
    rolls = []
    for move, game in played.steps:
        after = _game(game)
        rolls.append({"dice": list(after.last_roll), "totals": list(after.totals), "asked": move.get("dice")})
    return {"rolls": rolls, "totals": dict(zip(played.final.seats, _game(played.final).totals, strict=True))}


RULES = GameRules(
    name=NAME, label="First to Ten", min_seats=2, max_seats=4, new=new, load=FirstToTen.from_dict,
    chance=chance, scores=lambda game: list(_game(game).totals), said=said, bot_move=bot_move,
    private_hands=True,
    options=(OptionField("target", "Play to", "choice", choices=((10, "10"), (20, "20")), default=10),),
    seats_note="Two to four players: first to the target wins.",
    read_move=read_move,
    simulated=(SimulatedOption("target", 10, "First to Ten's target"),),
    summary=summary,
    bot_hints=(("easy", "rolls as many dice as it fancies"), ("strong", "always rolls three")),
)
