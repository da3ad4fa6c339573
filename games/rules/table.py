"""The one interface every game played at a game table implements (docs/DESIGN.md §2, §3).

Pure Python, no Django, no global random. A game table (games/table/) knows nothing of Fill or Bust,
Kismet or Ninety-Nine or Bust: it stores a `TableGame` as `to_dict()`, asks whose move it is and
which moves a seat may make, applies a move with the table's own generator (`apply(seat, move, rng)`
returns a new game; nothing is changed in place), and sends each phone `view(seat)`:

- `View.public` is what every seat and the table screen may see (scores, whose turn, the dice on the
  table, the count, how many cards each player holds);
- `View.private` is what only that seat may see (its own hand). A spectator's view has none.

Neither part ever carries the deck's order, another seat's hand or anything chance has not produced
yet: those stay inside `to_dict()`, which only the server reads.

Every public view carries `"game"`: the game's name in the registry (games/rules/registry.py), by
which a table finds the game's `GameRules` (below) for a move in words.

Seats are numbered 0..n-1 in playing order (clockwise); `seats` gives their names. A move is a small
JSON-ready mapping with a `"kind"` ("toss", "keep", "play", "score", ...) and its arguments; every
engine's errors derive from `IllegalMove`, raised with a message a player can read.
"""

from __future__ import annotations

import random
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Protocol, Self

from games.rules.dice import Chance, ChanceStream
from games.rules.words import Said, gettext_noop

Move = Mapping[str, Any]


class IllegalMove(ValueError):
    """A move the rules don't allow now: every engine's errors derive from this one."""


class NotYourTurn(IllegalMove):
    """A seat tried to move while it is another seat's move (or the game is over)."""


class MalformedMove(IllegalMove):
    """A move's fields, as a phone posted them, that are not a move at all (a game's `read_move`):
    the table refuses them as malformed (400) before the game is asked anything."""


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
    def apply(self, seat: int, move: Move, rng: Chance) -> Self:
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
            raise IllegalMove(Said(gettext_noop("There is no seat %(seat)s; seats are 0 to %(last)s."),
                                   seat=repr(seat), last=len(self.seats) - 1))
        return seat

    def check_turn(self, seat: object) -> int:
        """`seat`, if it is one of the seats to move; NotYourTurn otherwise."""
        seat = self.check_seat(seat)
        if seat in self.to_move():
            return seat
        if self.is_over:
            raise NotYourTurn(Said(gettext_noop("The game is over.")))
        waiting = " or ".join(self.seats[s] for s in self.to_move())
        raise NotYourTurn(Said(gettext_noop("It is %(waiting)s's move, not %(seat)s's."), waiting=waiting,
                               seat=self.seats[seat]))


# --- A move's one answer: everything a table does with a move, asked of the game once ---------------


def chance_of(fairness: int, seed: str, code: str, step: int, contribution: str = "") -> Chance:
    """The chance of a table's step (0: the deal at the start, n: the n-th move), as docs/FAIRNESS.md
    derives it: version 2's stream from the seed, the table's code and what the phones brought to
    the step (`contribution`); a version 1 table's `random.Random(f"{seed}:{step}")` ("setup" for
    the deal)."""
    if fairness == 1:
        return random.Random(f"{seed}:{'setup' if step == 0 else step}")
    return ChanceStream(seed, code, step, contribution)


@dataclass(frozen=True)
class Answer:
    """The game's one answer to a move (`answer`): all a table writes and sends for it.

    `game` is the game after the move and `state` its `to_dict()` (the server's copy); `chance` what
    chance produced in the move, in order, and `scores` the scoresheet after it (both recorded
    with the move, checked by verify_table); `public` the view every seat and the screen see;
    `hands` the private views the move changed, by seat (games of hidden hands: a hand the move
    left as it was is not sent again); `shown_chance` what of `chance` everyone may see (none of a
    hidden hand's cards); `to_move` the seats to move next; `is_over` and the `winners` then (none
    while it is played); `words` the move in words, as everyone may read it."""

    game: TableGame
    state: dict[str, Any]
    chance: list[list[Any]]
    scores: list[int]
    public: dict[str, Any]
    hands: dict[int, dict[str, Any]]
    shown_chance: list[list[Any]]
    to_move: tuple[int, ...]
    is_over: bool
    winners: tuple[int, ...]
    words: str


def answer(rules: GameRules, stored: Mapping[str, Any], seat: int, move: Move,
           chance: Callable[[], Chance]) -> Answer:
    """`seat` makes `move` in the game stored as `stored` (`to_dict()`), with the chance `chance()`
    makes (made only for a move the game takes its turn for): the game's one answer, for a table
    to write and send as it is. IllegalMove (NotYourTurn out of turn) for a move the game refuses."""
    before = rules.load(stored)
    return answered(rules, before, before.apply(seat, move, chance()), seat, move)


def answered(rules: GameRules, before: TableGame, after: TableGame, seat: int, move: Move) -> Answer:
    """The Answer of a game gone from `before` to `after` by `seat`'s `move` (a move applied, an
    undo replayed, the buzzer of a timed game)."""
    public = after.view(None).public
    hands: dict[int, dict[str, Any]] = {}
    for number in range(len(after.seats)) if rules.private_hands else ():
        private = after.view(number).private
        if private != before.view(number).private:
            hands[number] = private
    chance = rules.chance(before, after)
    shown = [] if rules.private_hands else chance
    result = after.result() if after.is_over else None
    return Answer(
        game=after, state=after.to_dict(), chance=chance, scores=rules.scores(after), public=public, hands=hands,
        shown_chance=shown, to_move=after.to_move(), is_over=after.is_over,
        winners=() if result is None else tuple(result.winners),
        words=rules.said({"seat": seat, "move": dict(move), "chance": shown}, public),
    )


def one_after_another(*sentences: str, joined: str = " ") -> Said:
    """Sentences said one after another, each a `Said` translated on its own where it is read."""
    return Said(joined.join(f"%(s{number})s" for number in range(len(sentences))),
                **{f"s{number}": sentence for number, sentence in enumerate(sentences)})


def names_and(names: Sequence[str]) -> str:
    """"Ada", "Ada and Bea", "Ada and Bea and Cy": each "and" a `Said` translated where it is read."""
    said: str = names[0] if names else ""
    for name in names[1:]:
        said = Said(gettext_noop("%(names)s and %(name)s"), names=said, name=name)
    return said


def move_kind(move: object, kinds: Sequence[str]) -> str:
    """The `"kind"` of a move, checked against the kinds the game knows."""
    if not isinstance(move, Mapping):
        raise IllegalMove(Said(gettext_noop("A move is a mapping such as %(example)s, not %(move)s."),
                               example=repr({"kind": kinds[0]}), move=repr(move)))
    kind = move.get("kind")
    if kind not in kinds:
        raise IllegalMove(Said(gettext_noop("Unknown move %(kind)s; the moves are %(kinds)s."),
                               kind=repr(kind), kinds=", ".join(kinds)))
    return str(kind)


def move_dice(move: Move, name: str = "dice") -> tuple[int, ...]:
    """The dice a move names (faces 1-6), as a tuple; IllegalMove for anything else."""
    value = move.get(name)
    if isinstance(value, str | bytes) or not isinstance(value, Sequence):
        raise IllegalMove(Said(gettext_noop("Say the %(name)s as a list of faces 1 to 6, not %(value)s."),
                               name=name, value=repr(value)))
    faces = tuple(value)
    for face in faces:
        if type(face) is not int or not 1 <= face <= 6:
            raise IllegalMove(Said(gettext_noop("A die shows 1 to 6, not %(face)s."), face=repr(face)))
    return faces


# --- A move as a phone posts it (each game reads its own fields: `GameRules.read_move`) -------------
#
# A phone posts a move as form fields, each field's values as text: `kind` (read by the table), the
# move's arguments (read by the game) and the table's own fields (the idempotency key, the seat, the
# phone's part of the chance). A number is read by the table's one way of reading numbers from a
# request (`ReadNumber`, live.http.parse_int on the site), handed to the game: its refusal is the
# table's, with the table's words.

PostedFields = Mapping[str, Sequence[str]]

MALFORMED = Said(gettext_noop("That move was malformed: tap one of the buttons."))
MOST_DICE = 6  # the most dice a phone may post in one field


class ReadNumber(Protocol):
    """Text from a request as a whole number from `low` to `high`; refused (400, with a message
    naming `what`) for anything else."""

    def __call__(self, raw: object, *, low: int, high: int, what: str) -> int: ...


def posted(fields: PostedFields, name: str) -> str | None:
    """The field's value (its last, as a form's single field reads it), None when not posted."""
    values = fields.get(name) or ()
    return values[-1] if values else None


def only_fields(fields: PostedFields, names: Collection[str]) -> None:
    """MalformedMove for a field (with a value) that the game does not read: a move of another game's
    page, or no page's. `kind` is always read."""
    if any(any(values) for name, values in fields.items() if name != "kind" and name not in names):
        raise MalformedMove(MALFORMED)


def posted_dice(fields: PostedFields, number: ReadNumber, name: str, too_many: str) -> list[int]:
    """The faces posted in field `name`, one value a die (at most MOST_DICE: `too_many` otherwise)."""
    raw = fields.get(name) or ()
    if len(raw) > MOST_DICE:
        raise MalformedMove(too_many)
    return [number(die, low=1, high=6, what=gettext_noop("a die")) for die in raw]


BOX = re.compile(r"[a-z_]{1,30}")


def posted_box(fields: PostedFields) -> str | None:
    """A score sheet's box, as its button posts it (None when none is posted)."""
    box = posted(fields, "box") or ""
    if not box:
        return None
    if not BOX.fullmatch(box):
        raise MalformedMove(Said(gettext_noop("That box was malformed: tap one of the boxes.")))
    return box


def read_no_fields(fields: PostedFields, number: ReadNumber) -> dict[str, Any]:
    """The arguments of a game whose moves take none: its kind says it all."""
    only_fields(fields, ())
    return {}


# --- What a game table needs of a game beyond TableGame (one record per game) ---------------------
#
# A table (games/table/) knows a game only by its name in the registry (games/rules/registry.py)
# and this record: it deals, replays, scores, words, plays the bots and builds the "Play a game"
# form through it, and never asks which game it is. A game's templates live in
# templates/games/table/<name>/ under the same partial names for every game (`_head.html`,
# `_play.html`, `_screen.html`, `_options.html`, `_replay_head.html`, `_replay_top.html`,
# `_replay_step.html`): the shared pages include them by the game's name.

OptionKind = Literal["choice", "check", "seat_check"]


@dataclass(frozen=True)
class OptionField:
    """One option of a game as pure data; games/table/forms.py makes the form field from it.

    - "choice": one of `choices` ((value, words) pairs; the values are ints);
    - "check": a box, True or False;
    - "seat_check": a box per seat, the form fields `<name>_<row>`; the option is the list of the
      seats (numbered among the seats named, played by a person) whose box is ticked.

    A field left empty (not posted: the chosen game's form hides the others) takes `default`. The
    stored option's key is `key`, or `name` when it has none."""

    name: str
    label: str
    kind: OptionKind
    choices: tuple[tuple[int, str], ...] = ()
    default: Any = None
    help: str = ""
    key: str = ""

    @property
    def option(self) -> str:
        return self.key or self.name


@dataclass(frozen=True)
class SimulatedOption:
    """A whole-number option of the game that `simulate_table` takes on its command line
    (docs/CONTRACT.md: `--goal G`, `--markers M`), stored as the table's option `key` (`flag` when empty)."""

    flag: str  # the command's `--<flag>`
    default: int
    help: str
    key: str = ""

    @property
    def option(self) -> str:
        return self.key or self.flag


@dataclass(frozen=True)
class Played:
    """A finished game as its table recorded it, for the game's `summary`: the game as dealt, each
    recorded move (`{"kind", ...}` as made) with the game after it, in order (read once, as they are
    replayed), and the game at the end."""

    dealt: TableGame
    steps: Iterable[tuple[Mapping[str, Any], TableGame]]
    final: TableGame


def _nothing_more(game: TableGame, seat: int, options: Mapping[str, Any]) -> dict[str, Any]:
    return {}


def _as_it_is(view: Mapping[str, Any]) -> Mapping[str, Any]:
    return view


def _no_extras(*_: Any) -> dict[str, Any]:
    return {}


def dice_tossed(move: Mapping[str, Any]) -> list[int] | None:
    """The dice a recorded move (`Move.as_data()`) showed, for the replay: the last "toss" or
    "roll" chance produced in it, None when it tossed none."""
    tossed = [step[1] for step in move.get("chance") or [] if step and step[0] in ("toss", "roll")]
    return list(tossed[-1]) if tossed else None


@dataclass(frozen=True)
class GameRules:
    """Everything game-specific a table needs, in one record per game (docs/DESIGN.md §2: a game is
    one folder). Pure: functions of games and plain data."""

    name: str  # the registry's key, the Table's `game`, the templates' folder
    label: str  # "Fill or Bust"
    min_seats: int
    max_seats: int
    # A new game dealt from the table's stored options and the deal's generator; IllegalMove for
    # options the game does not take.
    new: Callable[[Sequence[str], Mapping[str, Any], Chance], TableGame]
    load: Callable[[Mapping[str, Any]], TableGame]
    # What chance produced between two states of the game, in the order it happened (recorded with
    # the move, checked by verify_table).
    chance: Callable[[TableGame, TableGame], list[list[Any]]]
    # The scoresheet after a move (a figure per seat, in seat order), checked by verify_table.
    scores: Callable[[TableGame], list[int]]
    # A move in words, from the move as recorded (`Move.as_data()`) and the public view after it.
    said: Callable[[Mapping[str, Any], Mapping[str, Any]], str]
    # The bot's move: (game, seat, level, the bot's own generator) -> a move.
    bot_move: Callable[[TableGame, int, str, random.Random], dict[str, Any]]
    # The buzzer of a timed game (a tournament round's clock): the game after time is up, or None
    # for a game that is never timed.
    time_up: Callable[[TableGame], TableGame] | None = None
    # Whether a seat may hold what others may not see (a hand of cards): then each move sends
    # every seat its private view on its own channel.
    private_hands: bool = False
    # What the seed's commitment vouches for, in the words of the game: its heading and what
    # anyone can check once the seed is revealed.
    fairness: tuple[str, str] = (gettext_noop("Fair dice"), gettext_noop("every toss and card"))
    # What the phone on turn gets besides its view and `legal_moves` (it may replace them with
    # the moves its page shows): (game, seat, the table's options) -> more of the payload.
    on_turn: Callable[[TableGame, int, Mapping[str, Any]], dict[str, Any]] = _nothing_more
    # The "Play a game" form's fields of this game, and the line under its seats.
    options: tuple[OptionField, ...] = ()
    seats_note: str = ""
    # The caption of the scores' table on the screen.
    score_heading: str = "Scores"
    # The replay page: what its game folder's `_replay_top.html` shows, from the game as dealt and
    # the final public view; and what `_replay_step.html` shows of each step's game.
    replay_extras: Callable[[TableGame, Mapping[str, Any]], dict[str, Any]] = _no_extras
    step_extras: Callable[[TableGame], dict[str, Any]] = _no_extras
    # A move's arguments from the fields its page posts (the table reads `kind`, the key and the
    # seat): MalformedMove for fields that are no move of this game (`only_fields`); a number is read
    # with the table's `ReadNumber`, whose refusal is the table's.
    read_move: Callable[[PostedFields, ReadNumber], dict[str, Any]] = read_no_fields
    # simulate_table (docs/CONTRACT.md): the game's options on its command line, and what its JSON says
    # of a finished game beyond what every game's says (the game's own keys, in their order).
    simulated: tuple[SimulatedOption, ...] = ()
    summary: Callable[[Played], dict[str, Any]] = _no_extras
    # How the game's bots play at each level, in a line a level: (level, words).
    bot_hints: tuple[tuple[str, str], ...] = ()
    # The dice a recorded move showed (the replay draws them).
    dice_shown: Callable[[Mapping[str, Any]], list[int] | None] = dice_tossed
    # The public view's parts that chance makes when the game is dealt at the start (docs/FAIRNESS.md
    # step 0, with the phones' parts brought in the lobby): the lobby shows none of them.
    made_at_the_start: tuple[str, ...] = ()
    # The public view as a page shows it: each sentence or name in it that people read made a
    # `Said` (games/rules/words.py), which the page's language translates.
    shown: Callable[[Mapping[str, Any]], Mapping[str, Any]] = _as_it_is

    def stored_options(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """A table's options from the form's cleaned values of this game's fields (an empty
        value takes the field's default)."""
        stored: dict[str, Any] = {}
        for option in self.options:
            value = values.get(option.name)
            stored[option.option] = option.default if value is None else value
        return stored
