"""Kismet (docs/RULES.md §3): the box table, a player's sheet, a turn's rolls and a game's turn order.

Pure rules, no Django, no random: every function takes the dice it is given (the site rolls them
with `games.rules.dice`, or players roll real dice and type them in). The score-keeping pages keep
one `Game` per table; every value here is immutable and every action returns a new value, so a
game can be rebuilt from its recorded actions at any time.

- `options(dice)`: every box the five dice qualify for, with its score.
- `Sheet`: one player's 15 boxes; `score(box, dice)` fills one box.
- `Turn`: the first roll and up to two more of any dice the player picks up.
- `Game`: the players' sheets in turn order, with the second-Kismet rule.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations, combinations_with_replacement
from typing import Any, ClassVar

from games.rules import dice as dice_rolls
from games.rules import table as table_game
from games.rules.words import Said, gettext_noop

BOXES: tuple[str, ...] = (
    "ones",
    "twos",
    "threes",
    "fours",
    "fives",
    "sixes",
    "two_pair_same_color",
    "three_of_a_kind",
    "straight",
    "flush",
    "full_house",
    "full_house_same_color",
    "four_of_a_kind",
    "yarborough",
    "kismet",
)
BASIC_BOXES: tuple[str, ...] = BOXES[:6]
KISMET_BOXES: tuple[str, ...] = BOXES[6:]
DICE = 5
ROLLS_PER_TURN = 3  # the first roll of all five, then up to two more

# Two faces share a colour exactly when they add up to 7 (opposite faces of a die).
_COLORS = {1: "black", 6: "black", 2: "red", 5: "red", 3: "green", 4: "green"}
_STRAIGHTS = ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6})
_BONUS_STEPS = ((78, 75), (71, 55), (63, 35))  # (lowest Basic total, bonus), best first
_MAX_BASIC_TOTAL = 5 * (1 + 2 + 3 + 4 + 5 + 6)  # five of each number: 105


class KismetError(table_game.IllegalMove):
    """A move the rules don't allow, or dice that aren't five dice; the message says which."""


# --- the box table --------------------------------------------------------------------------------


def color(face: int) -> str:
    """The colour of a face's pips: "black" (1, 6), "red" (2, 5), "green" (3, 4)."""
    _check_face(face)
    return _COLORS[face]


def options(dice: Sequence[int]) -> dict[str, int]:
    """Every box whose requirement the five dice meet, with its score, in `BOXES` order.

    The six Basic boxes and Yarborough have no requirement, so they are always present (a Basic
    box may score 0). Whether a box is still open is the sheet's business, not this table's.
    """
    faces = _check_dice(dice)
    counts = Counter(faces)
    total = sum(faces)
    most = max(counts.values())
    one_color = len({_COLORS[face] for face in faces}) == 1
    full_house = sorted(counts.values()) == [2, 3]  # exactly: five alike is no full house

    found = {box: face * counts[face] for face, box in enumerate(BASIC_BOXES, start=1)}
    # Two pairs of one colour are a pair of some face and a pair of its 7-complement; four alike
    # are two pairs of the same face and count too.
    if most >= 4 or any(counts[face] >= 2 and counts[7 - face] >= 2 for face in (1, 2, 3)):
        found["two_pair_same_color"] = total
    if most >= 3:
        found["three_of_a_kind"] = total
    if set(faces) in _STRAIGHTS:
        found["straight"] = 30
    if one_color:
        found["flush"] = 35
    if full_house:
        found["full_house"] = total + 15
    if full_house and one_color:
        found["full_house_same_color"] = total + 20
    if most >= 4:
        found["four_of_a_kind"] = total + 25
    found["yarborough"] = total
    if most == 5:
        found["kismet"] = total + 50
    return {box: found[box] for box in BOXES if box in found}


def basic_bonus(basic_total: int) -> int:
    """The bonus for a Basic total: 63-70 -> 35, 71-77 -> 55, 78 and more -> 75, else 0."""
    if type(basic_total) is not int:
        raise KismetError(Said(gettext_noop("A Basic total is a whole number, not %(basic_total)s."), basic_total=repr(basic_total)))
    if not 0 <= basic_total <= _MAX_BASIC_TOTAL:
        raise KismetError(Said(gettext_noop("A Basic total is between 0 and %(most)s, not %(basic_total)s."), most=_MAX_BASIC_TOTAL, basic_total=basic_total))
    for lowest, bonus in _BONUS_STEPS:
        if basic_total >= lowest:
            return bonus
    return 0


def is_kismet(dice: Sequence[int]) -> bool:
    """Five alike."""
    return len(set(_check_dice(dice))) == 1


# --- a player's sheet ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Sheet:
    """One player's 15 boxes, in `BOXES` order: None while open, else the score written."""

    boxes: tuple[int | None, ...] = (None,) * len(BOXES)

    def __post_init__(self) -> None:
        if len(self.boxes) != len(BOXES):
            raise KismetError(Said(gettext_noop("A sheet has %(boxes)s boxes, not %(count)s."), boxes=len(BOXES), count=len(self.boxes)))
        for box, value in zip(BOXES, self.boxes, strict=True):
            if value is not None and (type(value) is not int or value < 0):
                raise KismetError(Said(gettext_noop("The %(box)s box holds %(value)s: a score is a whole number, 0 or more."),
                                       box=_label(box), value=repr(value)))

    @classmethod
    def from_scores(cls, scores: Mapping[str, int]) -> Sheet:
        """A sheet with the given boxes filled (e.g. rebuilt from recorded moves), the rest open."""
        for box in scores:
            _check_box(box)
        return cls(tuple(scores.get(box) for box in BOXES))

    def __getitem__(self, box: str) -> int | None:
        return self.boxes[_check_box(box)]

    def as_dict(self) -> dict[str, int | None]:
        return dict(zip(BOXES, self.boxes, strict=True))

    def is_open(self, box: str) -> bool:
        return self[box] is None

    @property
    def open_boxes(self) -> tuple[str, ...]:
        return tuple(box for box, value in zip(BOXES, self.boxes, strict=True) if value is None)

    @property
    def is_full(self) -> bool:
        return None not in self.boxes

    @property
    def basic_total(self) -> int:
        return sum(value or 0 for value in self.boxes[: len(BASIC_BOXES)])

    @property
    def bonus(self) -> int:
        # Boxes only ever gain points, so the bonus shown mid-game never has to be taken back.
        return basic_bonus(self.basic_total)

    @property
    def kismet_total(self) -> int:
        """The Kismet section: Two Pair Same Color to Kismet."""
        return sum(value or 0 for value in self.boxes[len(BASIC_BOXES) :])

    @property
    def total(self) -> int:
        return self.basic_total + self.bonus + self.kismet_total

    @property
    def has_kismet(self) -> bool:
        """The Kismet box holds a real (non-zero) Kismet: the condition for a second Kismet."""
        return bool(self["kismet"])

    def score(self, box: str, dice: Sequence[int]) -> Sheet:
        """This sheet with `box` filled: the dice's score there, or 0 if they don't qualify."""
        index = _check_box(box)
        faces = _check_dice(dice)
        if self.boxes[index] is not None:
            raise KismetError(Said(gettext_noop("The %(box)s box is already filled (it holds %(points)s)."), box=_label(box), points=self.boxes[index]))
        return self._write(index, options(faces).get(box, 0))

    def zero_top_most(self) -> tuple[str, Sheet]:
        """The second-Kismet penalty: 0 in the top-most open box (Basic first, `BOXES` order)."""
        for index, value in enumerate(self.boxes):
            if value is None:
                return BOXES[index], self._write(index, 0)
        raise KismetError(Said(gettext_noop("This sheet is full: there is no open box to write 0 in.")))

    def _write(self, index: int, points: int) -> Sheet:
        return Sheet(self.boxes[:index] + (points,) + self.boxes[index + 1 :])


# --- a turn ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Turn:
    """The dice of a turn so far: all five rolled first, then up to two rerolls."""

    dice: tuple[int, ...]
    rolls: int = 1

    def __post_init__(self) -> None:
        _check_dice(self.dice)
        if not 1 <= self.rolls <= ROLLS_PER_TURN:
            raise KismetError(Said(gettext_noop("A turn has 1 to %(rolls)s rolls, not %(count)s."), rolls=ROLLS_PER_TURN, count=self.rolls))

    @classmethod
    def first_roll(cls, dice: Sequence[int]) -> Turn:
        return cls(tuple(_check_dice(dice)))

    @property
    def rolls_left(self) -> int:
        return ROLLS_PER_TURN - self.rolls

    def roll_again(self, keep: Sequence[int], dice: Sequence[int]) -> Turn:
        """Keep the faces in `keep` (any of the current dice, including dice kept before) and
        reroll the rest, which came up `dice`."""
        if self.rolls_left == 0:
            raise KismetError(Said(gettext_noop("No rolls left: a turn has %(rolls)s rolls. Choose a box."), rolls=ROLLS_PER_TURN))
        kept = list(keep)
        for face in kept:
            _check_face(face)
        if Counter(kept) - Counter(self.dice):
            raise KismetError(Said(gettext_noop("Cannot keep %(kept)s: the dice show %(dice)s."), kept=_faces(kept), dice=_faces(self.dice)))
        if len(kept) == DICE:
            raise KismetError(Said(gettext_noop("Pick up at least one die to roll again.")))
        new = list(dice)
        for face in new:
            _check_face(face)
        if len(new) != DICE - len(kept):
            raise KismetError(Said(gettext_noop("%(picked)s dice were picked up, but %(count)s results were given (%(faces)s)."),
                                   picked=DICE - len(kept), count=len(new), faces=_faces(new)))
        return Turn(tuple(kept + new), self.rolls + 1)

    def options(self) -> dict[str, int]:
        return options(self.dice)


# --- a game ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scored:
    """What the last `Game.score` did, for the page to show and the event log to record."""

    player: str
    box: str
    points: int
    dice: tuple[int, ...]
    second_kismet: bool = False
    zeroed: tuple[tuple[str, str], ...] = ()  # (player, box) written 0 by a second Kismet


@dataclass(frozen=True)
class Game:
    """Several players' sheets and whose turn it is. Start one with `Game.start(names)`.

    A turn: `roll(dice)`, then optionally `roll_again(keep, dice)` twice, then `score(box)`. A
    score-keeping page whose players roll real dice can skip the rolls: `score(box, dice)`.
    """

    players: tuple[str, ...]
    sheets: tuple[Sheet, ...]
    current: int | None = 0  # index of the player to play; None when the game is over
    turn: Turn | None = None  # the current player's dice, once rolled
    last: Scored | None = field(default=None, compare=False)
    # House rule (the printed variant): a second Kismet may not go in Straight, not even as a 0.
    no_straight: bool = False

    def __post_init__(self) -> None:
        if not self.players:
            raise KismetError(Said(gettext_noop("A game needs at least one player.")))
        if len(set(self.players)) != len(self.players):
            raise KismetError(Said(gettext_noop("Each player needs a different name.")))
        if len(self.sheets) != len(self.players):
            raise KismetError(Said(gettext_noop("%(players)s players need %(players)s sheets, not %(count)s."),
                                   players=len(self.players), count=len(self.sheets)))
        if self.current is not None and not 0 <= self.current < len(self.players):
            raise KismetError(Said(gettext_noop("There is no player number %(current)s."), current=self.current))

    @classmethod
    def start(cls, players: Iterable[str], *, no_straight: bool = False) -> Game:
        names = tuple(players)
        for name in names:
            if not isinstance(name, str) or not name:
                raise KismetError(Said(gettext_noop("A player's name must be some text, not %(name)s."), name=repr(name)))
        return cls(names, tuple(Sheet() for _ in names), no_straight=no_straight)

    @property
    def player(self) -> str | None:
        """The name of the player to play, None when the game is over."""
        return None if self.current is None else self.players[self.current]

    def sheet(self, player: str) -> Sheet:
        return self.sheets[self._index(player)]

    @property
    def is_over(self) -> bool:
        return all(sheet.is_full for sheet in self.sheets)

    def totals(self) -> dict[str, int]:
        return {name: sheet.total for name, sheet in zip(self.players, self.sheets, strict=True)}

    def winners(self) -> list[str]:
        """The players with the highest total (several when tied: they share the win)."""
        if not self.is_over:
            raise KismetError(Said(gettext_noop("The game is not over: there are open boxes.")))
        totals = self.totals()
        best = max(totals.values())
        return [name for name, total in totals.items() if total == best]

    def roll(self, dice: Sequence[int]) -> Game:
        """The current player's first roll, all five dice."""
        self._check_playing()
        if self.turn is not None:
            raise KismetError(Said(gettext_noop("%(player)s has already rolled; roll again or choose a box."), player=self.player))
        return replace(self, turn=Turn.first_roll(dice))

    def roll_again(self, keep: Sequence[int], dice: Sequence[int]) -> Game:
        self._check_playing()
        if self.turn is None:
            raise KismetError(Said(gettext_noop("%(player)s has not rolled yet: the first roll is all five dice."), player=self.player))
        return replace(self, turn=self.turn.roll_again(keep, dice))

    def legal_boxes(self) -> tuple[str, ...]:
        """The boxes the current player may fill with the turn's dice: every open box, but after a
        second Kismet only those the dice qualify for (while there is one)."""
        self._check_playing()
        if self.turn is None:
            raise KismetError(Said(gettext_noop("%(player)s has not rolled yet."), player=self.player))
        assert self.current is not None
        return _boxes_for(self.sheets[self.current], self.turn.dice, self.no_straight)

    def box_choices(self) -> dict[str, int]:
        """Each open box of the current player with what the current dice would score there."""
        self._check_playing()
        if self.turn is None:
            raise KismetError(Said(gettext_noop("%(player)s has not rolled yet."), player=self.player))
        return self._choices(self.turn.dice)

    def score(self, box: str, dice: Sequence[int] | None = None) -> Game:
        """Fill one of the current player's boxes and pass the turn.

        `dice` are the final dice when the game is kept on paper (no `roll` was recorded);
        otherwise the dice of the turn are scored. A second Kismet (five alike while the player's
        Kismet box holds a Kismet) must go in an open box the dice qualify for if there is one;
        every other player then writes 0 in their top-most open box and loses that turn, so the
        roller plays again.
        """
        self._check_playing()
        assert self.current is not None
        if dice is None:
            if self.turn is None:
                raise KismetError(Said(gettext_noop("%(player)s has not rolled yet: roll, or give the dice to score."), player=self.player))
            faces = self.turn.dice
        else:
            if self.turn is not None:
                raise KismetError(Said(gettext_noop("%(player)s has rolled in the app: the dice to score are the turn's."), player=self.player))
            faces = tuple(_check_dice(dice))

        sheets = list(self.sheets)
        roller = sheets[self.current]
        second_kismet = roller.has_kismet and is_kismet(faces)
        if second_kismet and roller.is_open(box):
            allowed = _boxes_for(roller, faces, self.no_straight)
            if box not in allowed:
                raise KismetError(Said(gettext_noop("A second Kismet scores in a box the dice qualify for: %(boxes)s."),
                                       boxes=", ".join(map(_label, allowed))))
        sheets[self.current] = roller.score(box, faces)

        zeroed: list[tuple[str, str]] = []
        if second_kismet:
            for index, sheet in enumerate(sheets):
                if index != self.current and not sheet.is_full:
                    zeroed_box, sheets[index] = sheet.zero_top_most()
                    zeroed.append((self.players[index], zeroed_box))

        # After a second Kismet the others have spent their turn on the penalty: the roller goes on.
        start = self.current if second_kismet else self.current + 1
        scored = Scored(
            self.players[self.current],
            box,
            sheets[self.current][box] or 0,
            faces,
            second_kismet,
            tuple(zeroed),
        )
        return replace(self, sheets=tuple(sheets), current=_next_open(sheets, start), turn=None, last=scored)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data; `Game.from_dict` rebuilds the same game (the last score too)."""
        last = self.last
        return {
            "players": list(self.players),
            "sheets": [list(sheet.boxes) for sheet in self.sheets],
            "current": self.current,
            "turn": None if self.turn is None else {"dice": list(self.turn.dice), "rolls": self.turn.rolls},
            "last": None
            if last is None
            else {
                "player": last.player,
                "box": last.box,
                "points": last.points,
                "dice": list(last.dice),
                "second_kismet": last.second_kismet,
                "zeroed": [list(pair) for pair in last.zeroed],
            },
        } | ({"no_straight": True} if self.no_straight else {})

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Game:
        turn, last = data["turn"], data["last"]
        return cls(
            tuple(data["players"]),
            tuple(Sheet(tuple(boxes)) for boxes in data["sheets"]),
            data["current"],
            None if turn is None else Turn(tuple(turn["dice"]), turn["rolls"]),
            None
            if last is None
            else Scored(
                last["player"],
                last["box"],
                last["points"],
                tuple(last["dice"]),
                last["second_kismet"],
                tuple((player, box) for player, box in last["zeroed"]),
            ),
            bool(data.get("no_straight", False)),
        )

    def _choices(self, faces: Sequence[int]) -> dict[str, int]:
        assert self.current is not None
        available = options(faces)
        return {box: available.get(box, 0) for box in self.sheets[self.current].open_boxes}

    def _check_playing(self) -> None:
        if self.current is None:
            raise KismetError(Said(gettext_noop("The game is over: every box is filled.")))

    def _index(self, player: str) -> int:
        try:
            return self.players.index(player)
        except ValueError:
            raise KismetError(Said(gettext_noop("Nobody called %(player)s plays in this game."), player=repr(player))) from None


def _boxes_for(sheet: Sheet, faces: Sequence[int], no_straight: bool = False) -> tuple[str, ...]:
    """The open boxes of `sheet` the dice may go in (the second-Kismet rule narrows them; with the
    house rule `no_straight` it never goes in Straight while another box is open)."""
    if sheet.has_kismet and is_kismet(faces):
        # docs/RULES.md §3's example: five 5s qualify for Fives, never for Ones (a Basic box the dice
        # would score 0 in is not one they qualify for).
        scores = options(faces)
        qualifying = tuple(b for b in sheet.open_boxes
                           if b in scores and (b not in BASIC_BOXES or scores[b] > 0))
        if qualifying:
            return qualifying
        if no_straight and len(sheet.open_boxes) > 1:
            return tuple(b for b in sheet.open_boxes if b != "straight")
    return sheet.open_boxes


def next_bonus_step(basic_total: int) -> tuple[int, int] | None:
    """How many more Basic points reach the next bonus step, and that step's bonus (63 -> 35,
    71 -> 55, 78 -> 75); None once the top step is reached."""
    for lowest, bonus in reversed(_BONUS_STEPS):
        if basic_total < lowest:
            return lowest - basic_total, bonus
    return None


def _next_open(sheets: Sequence[Sheet], start: int) -> int | None:
    """The first player from `start` on (in turn order, wrapping) whose sheet has an open box."""
    for step in range(len(sheets)):
        index = (start + step) % len(sheets)
        if not sheets[index].is_full:
            return index
    return None


# --- checks ---------------------------------------------------------------------------------------


def _check_face(face: object) -> int:
    if type(face) is not int or not 1 <= face <= 6:
        raise KismetError(Said(gettext_noop("A die shows 1 to 6, not %(face)s."), face=repr(face)))
    return face


def _check_dice(dice: Sequence[int]) -> tuple[int, ...]:
    if isinstance(dice, str | bytes):
        raise KismetError(Said(gettext_noop("Kismet dice are %(count)s numbers, not the text %(dice)s."), count=DICE, dice=repr(dice)))
    faces = tuple(dice)
    if len(faces) != DICE:
        raise KismetError(Said(gettext_noop("Kismet is scored on %(dice)s dice, not %(count)s (%(faces)s)."), dice=DICE, count=len(faces), faces=_faces(faces)))
    for face in faces:
        _check_face(face)
    return faces


def _check_box(box: str) -> int:
    try:
        return BOXES.index(box)
    except ValueError:
        raise KismetError(Said(gettext_noop("There is no box called %(box)s; the boxes are %(list)s."), box=repr(box), list=', '.join(BOXES))) from None


def _label(box: str) -> str:
    return box.replace("_", " ").title()


def _faces(faces: Iterable[object]) -> str:
    return "[" + ", ".join(map(str, faces)) + "]"


# --- at a game table -------------------------------------------------------------------------------


@dataclass(frozen=True)
class KismetTable(table_game.TableGame):
    """Kismet as a `TableGame`, with the server's dice or with real dice typed in, chosen per seat.

    Server dice: {"kind": "roll"} rolls all five; {"kind": "roll", "keep": [faces]} keeps those
    and rolls the others (twice at most); {"kind": "score", "box": name}. Real dice (every seat
    when `server_dice` is False, else the seats in `real_seats`): after the last roll at the
    table, {"kind": "enter", "dice": [5 faces]} (again, to correct a typo), then
    {"kind": "score", "box": name}. Nothing is hidden from anyone.
    """

    state: Game
    server_dice: bool = True
    real_seats: tuple[int, ...] = ()
    game: ClassVar[str] = "kismet"

    @classmethod
    def new(
        cls, names: Sequence[str], *, server_dice: bool = True, real_seats: Iterable[int] = (),
        no_straight: bool = False,
    ) -> KismetTable:
        seats = tuple(sorted(set(real_seats)))
        for seat in seats:
            if type(seat) is not int or not 0 <= seat < len(names):
                raise KismetError(Said(gettext_noop("There is no seat %(seat)s to roll real dice."), seat=repr(seat)))
        return cls(Game.start(names, no_straight=no_straight), server_dice, seats)

    def typed(self, seat: int) -> bool:
        """Whether `seat` rolls real dice and types them in (else the server rolls for it)."""
        return not self.server_dice or seat in self.real_seats

    @property
    def seats(self) -> tuple[str, ...]:
        return self.state.players

    def to_move(self) -> tuple[int, ...]:
        return () if self.state.current is None else (self.state.current,)

    def legal_moves(self, seat: int) -> list[dict[str, Any]]:
        if seat not in self.to_move():
            return []
        turn = self.state.turn
        moves: list[dict[str, Any]] = []
        if not self.typed(seat):
            if turn is None:
                return [{"kind": "roll"}]
            if turn.rolls_left:
                moves += [{"kind": "roll", "keep": list(keep)} for keep in _keeps(turn.dice)]
        elif turn is None:
            return [{"kind": "enter", "dice": list(faces)} for faces in _ALL_ROLLS]
        else:
            moves += [{"kind": "enter", "dice": list(faces)} for faces in _ALL_ROLLS]
        return moves + [{"kind": "score", "box": box} for box in self.state.legal_boxes()]

    def apply(self, seat: int, move: table_game.Move, rng: dice_rolls.Chance) -> KismetTable:
        self.check_turn(seat)
        kinds = ("enter", "score") if self.typed(seat) else ("roll", "score")
        if isinstance(move, Mapping) and move.get("kind") in ("roll", "enter") and move.get("kind") not in kinds:
            raise KismetError(
                Said(gettext_noop("This seat types in its real dice: enter the five faces."))
                if self.typed(seat) else Said(gettext_noop("The table rolls this seat's dice: roll, don't type dice in."))
            )
        kind = table_game.move_kind(move, kinds)
        state = self.state
        if kind == "score":
            box = move.get("box")
            if not isinstance(box, str):
                raise KismetError(Said(gettext_noop("Say which box to fill, not %(box)s."), box=repr(box)))
            if state.turn is None:
                raise KismetError(Said(gettext_noop("%(player)s has not rolled yet."), player=state.player))
            return replace(self, state=state.score(box))
        if kind == "enter":
            return replace(self, state=replace(state, turn=None).roll(table_game.move_dice(move)))
        if state.turn is None:
            if move.get("keep"):
                raise KismetError(Said(gettext_noop("The first roll is all five dice: nothing can be kept yet.")))
            return replace(self, state=state.roll(dice_rolls.roll(rng, DICE)))
        keep = table_game.move_dice(move, "keep") if move.get("keep") is not None else ()
        if state.turn.rolls_left == 0:
            raise KismetError(Said(gettext_noop("No rolls left: a turn has %(rolls)s rolls. Choose a box."), rolls=ROLLS_PER_TURN))
        if len(keep) >= DICE or Counter(keep) - Counter(state.turn.dice):
            raise KismetError(Said(gettext_noop("Keep some of the dice %(dice)s and pick up at least one, not %(keep)s."),
                                   dice=_faces(state.turn.dice), keep=_faces(keep)))
        return replace(self, state=state.roll_again(keep, dice_rolls.roll(rng, DICE - len(keep))))

    def view(self, seat: int | None) -> table_game.View:
        state = self.state
        turn = state.turn
        last = state.last
        choices = {} if turn is None else _choices_in_order(state)
        typed = state.current is not None and self.typed(state.current)
        public: dict[str, Any] = {
            "game": self.game,
            "server_dice": self.server_dice,
            "real_dice": [self.typed(number) for number in range(len(state.players))],
            "no_straight": state.no_straight,
            "seats": list(state.players),
            "labels": BOX_LABELS,
            "turn": state.current,
            "dice": None if turn is None else list(turn.dice),
            "colors": None if turn is None else [_COLORS[face] for face in turn.dice],
            "rolls": 0 if turn is None else turn.rolls,
            "rolls_left": 0 if turn is None or typed else turn.rolls_left,
            "choices": choices,
            # The boxes the dice qualify for with their scores, best first, and where only a 0 goes.
            "options": [[box, points] for box, points in choices.items() if points > 0],
            "zeros": [box for box, points in choices.items() if points == 0],
            "second_kismet": turn is not None and state.current is not None
            and state.sheets[state.current].has_kismet and is_kismet(turn.dice),
            "sheets": [_sheet_view(sheet) for sheet in state.sheets],
            "scores": [sheet.total for sheet in state.sheets],
            "winners": state.winners() if state.is_over else [],
            "last": None if last is None else state.to_dict()["last"],
        }
        return table_game.View(public)

    @property
    def is_over(self) -> bool:
        return self.state.is_over

    def result(self) -> table_game.Result | None:
        if not self.state.is_over:
            return None
        winners = self.state.winners()
        return table_game.Result(
            winners=tuple(self.state.players.index(name) for name in winners),
            scores=tuple(sheet.total for sheet in self.state.sheets),
        )

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game, "server_dice": self.server_dice, "state": self.state.to_dict()} | (
            {"real_seats": list(self.real_seats)} if self.real_seats else {}
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> KismetTable:
        return cls(Game.from_dict(data["state"]), bool(data["server_dice"]), tuple(data.get("real_seats", ())))


# Each box's name on a sheet, marked for translation (the reader's language is chosen where it is shown).
BOX_LABELS: dict[str, str] = {
    "ones": gettext_noop("Ones"),
    "twos": gettext_noop("Twos"),
    "threes": gettext_noop("Threes"),
    "fours": gettext_noop("Fours"),
    "fives": gettext_noop("Fives"),
    "sixes": gettext_noop("Sixes"),
    "two_pair_same_color": gettext_noop("Two Pair Same Color"),
    "three_of_a_kind": gettext_noop("Three of a Kind"),
    "straight": gettext_noop("Straight"),
    "flush": gettext_noop("Flush"),
    "full_house": gettext_noop("Full House"),
    "full_house_same_color": gettext_noop("Full House Same Color"),
    "four_of_a_kind": gettext_noop("Four of a Kind"),
    "yarborough": gettext_noop("Yarborough"),
    "kismet": "Kismet",
}
assert tuple(BOX_LABELS) == BOXES


def _sheet_view(sheet: Sheet) -> dict[str, Any]:
    step = next_bonus_step(sheet.basic_total)
    return {
        "boxes": sheet.as_dict(),
        "basic": sheet.basic_total,
        "bonus": sheet.bonus,
        "kismet_section": sheet.kismet_total,
        "total": sheet.total,
        "filled": len(BOXES) - len(sheet.open_boxes),
        "next_bonus": None if step is None else {"needs": step[0], "bonus": step[1]},
    }


def _choices_in_order(state: Game) -> dict[str, int]:
    """The boxes the current dice may go in with their scores, best first (ties in sheet order)."""
    scores = state.box_choices()
    return {box: scores[box] for box in sorted(state.legal_boxes(), key=lambda box: -scores[box])}


def _keeps(faces: Sequence[int]) -> list[tuple[int, ...]]:
    """Every distinct choice of dice to keep for a reroll (at least one picked up)."""
    found: set[tuple[int, ...]] = set()
    for size in range(len(faces)):
        found.update(tuple(sorted(kept)) for kept in combinations(faces, size))
    return sorted(found, key=lambda kept: (len(kept), kept))


_ALL_ROLLS: tuple[tuple[int, ...], ...] = tuple(combinations_with_replacement(range(1, 7), DICE))
