"""Fill or Bust (docs/RULES.md §1): scoring a toss, the deck, and a whole game as a state machine.

Pure rules: no Django, no database, no global `random`. Chance comes from outside: the dice of
every toss are passed in (rolled by `games.rules.dice`, or by real players and typed in), and
the deck is shuffled with `dice.shuffled` from an injected generator.

Three layers, each built on the one before:

- **Scoring** (`score_selection`, `max_selection`, `is_bust`, `legal_keeps`, `maximal_keep`).
  Every multiset of 1 to 6 dice (923 of them) is scored once at import time; every ordered
  toss (55,986) then maps to its multiset's answer, so the hot path is one `tuple()` and one
  dict lookup (docs/DESIGN.md §7: all 46,656 six-dice tosses in well under 20 ms).
- **The deck** (`Deck`): 54 cards, a draw pile and a discard pile, reshuffled from the
  discards when the draw pile runs out.
- **The game** (`Game`): seats (players or teams) in clockwise order, the scoresheet, whose
  turn it is, the card in play, the dice set aside, pending and card points, the phase. A
  `Game` is immutable: every action returns a new `Game`, so an illegal call (which raises
  `IllegalMove`) changes nothing, and a game can be rebuilt from its recorded actions.
  `legal_actions()` says which buttons a page may show. `play_turn` (the contract entry point)
  replays one turn through the same engine, so the two can never disagree.

A small bot (`bot_decide`, `play_bot_turn`, `play_bot_game`) plays sensibly enough for
simulated tournaments.

Decisions on points docs/RULES.md leaves open (see also the docstrings where they apply):

- A Fill's bonus is only ever earned by all six dice being set aside; stopping under a BONUS
  card is allowed once something has been set aside under that card (a card must be followed
  by at least one toss).
- "A turn under way at the buzzer" is a turn whose first card has been turned over; at the
  buzzer between turns the game ends at once.
- Show Down: the players after the one who reached the goal, in seat order, each get one last
  turn, played out in full (reaching the goal does not cut a show-down turn short: the aim is
  now to beat the top score). A Vengeance that drops everyone below the goal cancels the show
  down at that moment; play goes on normally (the current turn included), and the next player
  to reach the goal at a bank starts a new show down.
- The discards are reshuffled lazily, when a card must be drawn and the draw pile is empty; by
  then the previous card has been discarded, so it joins the reshuffle.
- Team play: a seat is a side. For a team, the seat's name is the team's and its score is the
  team's, so "leaders are teams" needs nothing special; the 5,000 house rule is
  `Options(vengeance=TEAM_VENGEANCE_PENALTY)`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from enum import StrEnum
from functools import cache
from itertools import combinations_with_replacement, product
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Final

from games.rules import dice
from games.rules import table as table_game
from games.rules.words import Said, gettext_noop

if TYPE_CHECKING:
    import random  # only the type: every generator is passed in (never the global one)

__all__ = [
    "DECK_COMPOSITION",
    "DEFAULT_OPTIONS",
    "DICE",
    "FULL_DECK",
    "Action",
    "ActionKind",
    "BotStyle",
    "Card",
    "Deck",
    "FillOrBustTable",
    "EndReason",
    "Game",
    "IllegalMove",
    "IllegalSelection",
    "Options",
    "Phase",
    "StartRoll",
    "VENGEANCE_PENALTY",
    "TEAM_VENGEANCE_PENALTY",
    "TurnOutcome",
    "TurnResult",
    "bank",
    "bot_decide",
    "choose_first_player",
    "is_bust",
    "is_sole_leader",
    "leaders",
    "legal_keeps",
    "max_selection",
    "maximal_keep",
    "new_game",
    "play_bot_game",
    "play_bot_turn",
    "play_turn",
    "roll_for_first_player",
    "score_selection",
    "vengeance_targets",
]

DICE: Final = 6
FACES: Final = (1, 2, 3, 4, 5, 6)
STRAIGHT: Final = (1, 2, 3, 4, 5, 6)
STRAIGHT_POINTS: Final = 1500
COMBO_PAIR_POINTS: Final = 50  # house rule Combo 5: a 2+3 or a 1+4 pair that completes a Fill
# What each target of a Vengeance loses (docs/RULES.md §1.4); 5,000 is the team house rule. The one
# number every app names (a tournament's default, the table form's choice) instead of its own 2500.
VENGEANCE_PENALTY: Final = 2500
TEAM_VENGEANCE_PENALTY: Final = 5000  # the team house rule: `Options(vengeance=TEAM_VENGEANCE_PENALTY)`


class IllegalSelection(table_game.IllegalMove):
    """Dice set aside that the scoring rules don't allow (or dice that aren't dice)."""


class IllegalMove(table_game.IllegalMove):
    """A game action the rules don't allow at this point; nothing was changed."""


@dataclass(frozen=True, slots=True)
class Options:
    """The options agreed before the game (docs/RULES.md §1.5); the defaults are the official rules."""

    combo5: bool = False
    must_bust_penalty: bool = False
    vengeance: int = VENGEANCE_PENALTY  # what each target of a Vengeance loses
    show_down: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.vengeance, bool) or not isinstance(self.vengeance, int) or self.vengeance < 0:
            raise ValueError(
                f"The Vengeance penalty must be a whole number of points, not {self.vengeance!r}."
            )


DEFAULT_OPTIONS: Final = Options()


# --- scoring --------------------------------------------------------------------------------------

Dice = tuple[int, ...]


def _counts(dice_: Iterable[int]) -> list[int]:
    counts = [0] * 7  # index = face; 0 unused
    for face in dice_:
        counts[face] += 1
    return counts


def _plain_value(counts: Sequence[int]) -> int | None:
    """Best value of dice as singles and triples with every die in a unit; None if one is left over.

    A triple of 1s (1000) beats three single 1s (300) and a triple of 5s (500) beats three single
    5s (150), so the best partition takes as many triples as possible of every face; 2, 3, 4 and 6
    score only in triples, so their count must be a multiple of three.
    """
    total = 0
    for face in FACES:
        n = counts[face]
        if face == 1:
            total += 1000 * (n // 3) + 100 * (n % 3)
        elif face == 5:
            total += 500 * (n // 3) + 50 * (n % 3)
        elif n % 3:
            return None
        else:
            total += 100 * face * (n // 3)
    return total


def _combo_splits(counts: Sequence[int], combo5: bool) -> Iterable[tuple[int, list[int]]]:
    """(number of Combo 5 pairs, the counts left) for every way of pairing 1+4 and 2+3."""
    if not combo5:
        yield 0, list(counts)
        return
    for ones_fours in range(min(counts[1], counts[4]) + 1):
        for twos_threes in range(min(counts[2], counts[3]) + 1):
            rest = list(counts)
            rest[1] -= ones_fours
            rest[4] -= ones_fours
            rest[2] -= twos_threes
            rest[3] -= twos_threes
            yield ones_fours + twos_threes, rest


def _whole_value(key: Dice, combo5: bool) -> int | None:
    """Best value of setting aside the whole toss `key` (sorted); None if that isn't legal.

    Only a whole toss can hold a straight (it needs all six dice) or Combo 5 pairs (they count
    only when they set aside the last dice).
    """
    if key == STRAIGHT:
        # No other partition of 1-2-3-4-5-6 uses all six dice (even with Combo 5 the 6 is left).
        return STRAIGHT_POINTS
    best: int | None = None
    for pairs, rest in _combo_splits(_counts(key), combo5):
        value = _plain_value(rest)
        if value is not None and (best is None or value + COMBO_PAIR_POINTS * pairs > best):
            best = value + COMBO_PAIR_POINTS * pairs
    return best


def _plain_keep(key: Dice) -> Dice:
    """The most dice that score without Combo 5 or a straight: triples of each face, every 1 and 5."""
    counts = _counts(key)
    kept: list[int] = []
    for face in FACES:
        n = counts[face] if face in (1, 5) else 3 * (counts[face] // 3)
        kept.extend([face] * n)
    return tuple(kept)


def _maximal(key: Dice, combo5: bool) -> tuple[Dice, int]:
    """The maximal selection of the sorted toss `key`: (dice set aside, points); ((), 0) = bust.

    The most dice first, then the most points. The whole toss, when it is legal, has the most
    dice there can be (and `_WHOLE` holds its best partition); otherwise every die
    that can score alone or in a triple is kept, and keeping more never lowers the points.
    """
    whole = _WHOLE[combo5][key]
    if whole is not None:
        return key, whole
    kept = _plain_keep(key)
    value = _plain_value(_counts(kept))
    assert value is not None  # the plain keep is built to be fully partitioned
    return kept, value


def _sub_multisets(key: Dice) -> Iterable[Dice]:
    counts = _counts(key)
    for choice in product(*(range(counts[face] + 1) for face in FACES)):
        yield tuple(face for face, n in zip(FACES, choice, strict=True) for _ in range(n))


# Every multiset of 1..6 dice, sorted: 6 + 21 + 56 + 126 + 252 + 462 = 923.
_MULTISETS: Final = tuple(key for n in range(1, DICE + 1) for key in combinations_with_replacement(FACES, n))
# A kept multiset that is not the whole toss: singles and triples only (None = not legal).
_PARTIAL: Final = {key: _plain_value(_counts(key)) for key in _MULTISETS}
# The whole toss set aside, indexed by combo5 (False = 0, True = 1).
_WHOLE: Final = tuple({key: _whole_value(key, combo5) for key in _MULTISETS} for combo5 in (False, True))
_MAXIMAL: Final = tuple({key: _maximal(key, combo5) for key in _MULTISETS} for combo5 in (False, True))


_BUST: Final = (0, 0)  # one shared object, so that `is_bust` is an identity check


def _build_toss_tables() -> tuple[dict[Dice, tuple[int, int]], dict[Dice, tuple[int, int]]]:
    """Every ordered toss of 1..6 dice -> (points, dice) of its maximal selection: without and
    with Combo 5.

    Looking up the ordered toss skips `sorted` on the hot path. All orderings of a multiset share
    one answer object and both tables share their keys, so the tables cost little more than the
    55,986 keys. Built without sorting each toss (import time matters to every web process):
    `itertools.product` yields the tosses of n dice as "each toss of n - 1 dice, then each face",
    so each toss's multiset follows from its prefix's by a small add-a-face table.
    """
    multisets = ((), *_MULTISETS)
    number = {key: i for i, key in enumerate(multisets)}
    add_face = [
        tuple(number[tuple(sorted((*key, face)))] for face in FACES) if len(key) < DICE else ()
        for key in multisets
    ]

    def answers(combo5: bool) -> list[tuple[int, int]]:
        found = [_BUST]  # the empty multiset, never looked up
        for key in _MULTISETS:
            kept, points = _MAXIMAL[combo5][key]
            found.append((points, len(kept)) if kept else _BUST)
        return found

    plain_answers, combo_answers = answers(False), answers(True)
    plain: dict[Dice, tuple[int, int]] = {}
    combo: dict[Dice, tuple[int, int]] = {}
    level = [0]  # multiset numbers of the tosses of n dice, in `product` order
    for n in range(1, DICE + 1):
        level = [following for i in level for following in add_face[i]]
        tosses = list(product(FACES, repeat=n))
        plain.update(zip(tosses, map(plain_answers.__getitem__, level), strict=True))
        combo.update(zip(tosses, map(combo_answers.__getitem__, level), strict=True))
    return plain, combo


_MAX_BY_TOSS, _MAX_BY_TOSS_COMBO5 = _build_toss_tables()


def _check_dice(
    values: Iterable[int], what: str, error: type[ValueError], *, allow_empty: bool = False
) -> Dice:
    """`values` as a tuple of faces, or `error` with a readable message."""
    try:
        result = tuple(values)
    except TypeError:
        raise error(Said(gettext_noop("A %(what)s is a list of dice, not %(values)s."), what=what,
                         values=repr(values))) from None
    for face in result:
        if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= 6:
            raise error(Said(gettext_noop("A die shows 1 to 6, not %(face)s (in the %(what)s %(dice)s)."),
                             face=repr(face), what=what, dice=list(result)))
    if len(result) > DICE or (not result and not allow_empty):
        raise error(Said(gettext_noop("A %(what)s is 1 to 6 dice, not %(count)s: %(dice)s."), what=what,
                         count=len(result), dice=list(result)))
    return result


def _checked_lookup(toss: Sequence[int], table: Mapping[Dice, tuple[int, int]]) -> tuple[int, int]:
    """The answer for a toss that missed the fast lookup: a readable error if it isn't a toss."""
    return table[_check_dice(toss, "toss", IllegalSelection)]


# The hot path: `tuple()` (which returns a tuple argument itself) and one dict lookup. Anything
# that is not a toss misses the table and is explained by `_check_dice`. (Bools and floats equal
# to 1..6 hash like the ints, so the fast path takes them as those faces; harmless.)


def max_selection(toss: Sequence[int], *, combo5: bool = False) -> tuple[int, int]:
    """(points, dice set aside) of the maximal selection, the one MUST BUST forces; (0, 0) = bust.

    The legal selection with the most dice, then the most points. With Combo 5 a whole toss that
    completes a Fill is therefore maximal: `[1, 4]` -> (50, 2).
    """
    table = _MAX_BY_TOSS_COMBO5 if combo5 else _MAX_BY_TOSS
    try:
        return table[tuple(toss)]
    except (KeyError, TypeError):
        return _checked_lookup(toss, table)


def is_bust(toss: Sequence[int], *, combo5: bool = False) -> bool:
    """True when no die of the toss can be set aside (with Combo 5, a whole-toss pair saves it)."""
    table = _MAX_BY_TOSS_COMBO5 if combo5 else _MAX_BY_TOSS
    try:
        return table[tuple(toss)] is _BUST
    except (KeyError, TypeError):
        return _checked_lookup(toss, table) is _BUST


def maximal_keep(toss: Sequence[int], *, combo5: bool = False) -> Dice:
    """The dice of the maximal selection, sorted; () for a bust. The multiset is unique."""
    key = tuple(sorted(_check_dice(toss, "toss", IllegalSelection)))
    return _MAXIMAL[bool(combo5)][key][0]


def score_selection(toss: Sequence[int], keep: Sequence[int], *, combo5: bool = False) -> int:
    """Points for setting aside `keep` out of `toss` (all dice of one toss).

    IllegalSelection if `keep` is empty, is not part of `toss`, or holds a die that scores in no
    unit. A straight needs a toss of all six dice; a Combo 5 pair scores only when `keep` is the
    whole toss (it completes a Fill).
    """
    toss_key = tuple(sorted(_check_dice(toss, "toss", IllegalSelection)))
    keep_key = tuple(sorted(_check_dice(keep, "selection", IllegalSelection, allow_empty=True)))
    if not keep_key:
        raise IllegalSelection(Said(gettext_noop("Set aside at least one scoring die from %(toss)s."), toss=list(toss)))
    _check_part_of(toss, toss_key, keep_key)
    value = _WHOLE[bool(combo5)][keep_key] if keep_key == toss_key else _PARTIAL[keep_key]
    if value is None:
        raise IllegalSelection(_explain_unscored(toss, toss_key, keep_key, combo5))
    return value


@cache
def _legal_keeps(key: Dice, combo5: bool) -> tuple[tuple[Dice, int], ...]:
    keeps = []
    for sub in _sub_multisets(key):
        if not sub:
            continue
        value = _WHOLE[combo5][sub] if sub == key else _PARTIAL[sub]
        if value is not None:
            keeps.append((sub, value))
    # The maximal selection first, then fewer dice; the most points first within a size.
    keeps.sort(key=lambda item: (-len(item[0]), -item[1], item[0]))
    return tuple(keeps)


def legal_keeps(toss: Sequence[int], *, combo5: bool = False) -> tuple[tuple[Dice, int], ...]:
    """Every legal selection of the toss as (sorted dice, points), the maximal one first; () = bust."""
    return _legal_keeps(tuple(sorted(_check_dice(toss, "toss", IllegalSelection))), bool(combo5))


_NUMBER_WORDS: Final = ("no", "one", "two", "three", "four", "five", "six")
# "a 3", "two 3s": how many dice of a face, marked for translation.
_DICE_WORDS: Final = (
    "",
    gettext_noop("a %(face)s"),
    gettext_noop("two %(face)ss"),
    gettext_noop("three %(face)ss"),
    gettext_noop("four %(face)ss"),
    gettext_noop("five %(face)ss"),
    gettext_noop("six %(face)ss"),
)


def _dice_words(n: int, face: int) -> str:
    return Said(_DICE_WORDS[n], face=face)


def _check_part_of(toss: Sequence[int], toss_key: Dice, keep_key: Dice) -> None:
    have, want = _counts(toss_key), _counts(keep_key)
    for face in FACES:
        if want[face] > have[face]:
            if not have[face]:
                template = gettext_noop("You kept %(kept)s, but the toss %(toss)s has no %(face)ss.")
            elif have[face] == 1:
                template = gettext_noop("You kept %(kept)s, but the toss %(toss)s has only one %(face)s.")
            else:
                template = gettext_noop("You kept %(kept)s, but the toss %(toss)s has only %(has)s.")
            raise IllegalSelection(Said(template, kept=_dice_words(want[face], face), toss=list(toss), face=face,
                                        has=_dice_words(have[face], face)))


def _explain_unscored(toss: Sequence[int], toss_key: Dice, keep_key: Dice, combo5: bool) -> str:
    """Name the dice that score nothing, e.g. "You kept a 3, which scores nothing in [1, 3, 5]."."""
    whole = keep_key == toss_key
    # Leftover dice per face under the pairing that leaves the fewest (1s and 5s always score).
    leftover: list[int] | None = None
    for _pairs, rest in _combo_splits(_counts(keep_key), combo5 and whole):
        left = [0] * 7
        for face in (2, 3, 4, 6):
            left[face] = rest[face] % 3
        if leftover is None or sum(left) < sum(leftover):
            leftover = left
    assert leftover is not None
    kept = _counts(keep_key)
    parts = []
    for face in FACES:
        if leftover[face]:
            beyond = " beyond three of a kind" if kept[face] >= 3 else ""
            parts.append(Said(gettext_noop("%(dice)s beyond three of a kind"), dice=_dice_words(leftover[face], face))
                         if beyond else _dice_words(leftover[face], face))
    words = parts[0]
    if len(parts) > 1:
        listed = Said(", ".join(f"%(p{number})s" for number in range(len(parts) - 1)),
                      **{f"p{number}": part for number, part in enumerate(parts[:-1])})
        words = Said(gettext_noop("%(names)s and %(name)s"), names=listed, name=parts[-1])
    pairable = (leftover[2] and kept[3]) or (leftover[3] and kept[2]) or (leftover[4] and kept[1])
    note: str = ""
    if combo5 and not whole and pairable:
        note = Said(gettext_noop(" (with Combo 5, a 2+3 or 1+4 pair scores only when it sets aside the last dice)"))
    elif len(set(keep_key)) >= 5:
        note = Said(gettext_noop(" (a straight scores only on a toss of all six dice, all set aside)"))
    if sum(leftover) == 1:
        template = gettext_noop("You kept %(words)s, which scores nothing in %(toss)s%(note)s.")
    else:
        template = gettext_noop("You kept %(words)s, which score nothing in %(toss)s%(note)s.")
    return Said(template, words=words, toss=list(toss), note=note)


# --- cards and the deck ---------------------------------------------------------------------------


class Card(StrEnum):
    """The eight kinds of card; the value is the name `play_turn` steps use."""

    BONUS_300 = "BONUS_300"
    BONUS_400 = "BONUS_400"
    BONUS_500 = "BONUS_500"
    NO_DICE = "NO_DICE"
    FILL_1000 = "FILL_1000"
    MUST_BUST = "MUST_BUST"
    VENGEANCE_2500 = "VENGEANCE_2500"
    DOUBLE_TROUBLE = "DOUBLE_TROUBLE"

    @property
    def label(self) -> str:
        """As printed on the card: "BONUS 300"."""
        return self.value.replace("_", " ")

    @property
    def fill_bonus(self) -> int:
        """Points a Fill adds under this card (BONUS n and FILL 1000 only)."""
        return _FILL_BONUS.get(self, 0)

    @property
    def may_stop_early(self) -> bool:
        """Whether the player may stop (and bank) before a Fill: BONUS cards only."""
        return self in _BONUS_CARDS


_FILL_BONUS: Final = {Card.BONUS_300: 300, Card.BONUS_400: 400, Card.BONUS_500: 500, Card.FILL_1000: 1000}
_BONUS_CARDS: Final = frozenset({Card.BONUS_300, Card.BONUS_400, Card.BONUS_500})

DECK_COMPOSITION: Final[Mapping[Card, int]] = MappingProxyType(
    {
        Card.BONUS_300: 12,
        Card.BONUS_400: 10,
        Card.BONUS_500: 8,
        Card.NO_DICE: 8,
        Card.FILL_1000: 6,
        Card.MUST_BUST: 4,
        Card.VENGEANCE_2500: 4,
        Card.DOUBLE_TROUBLE: 2,
    }
)
FULL_DECK: Final = tuple(card for card, n in DECK_COMPOSITION.items() for _ in range(n))  # 54 cards


def _as_card(name: Card | str) -> Card:
    try:
        return Card(name)
    except ValueError:
        raise IllegalMove(Said(gettext_noop("There is no card %(name)s; the cards are %(cards)s."), name=repr(name),
                               cards=", ".join(Card))) from None


@dataclass(frozen=True, slots=True)
class Deck:
    """The draw pile (top card first) and the discards. Cards in play are in neither."""

    draw_pile: tuple[Card, ...]
    discards: tuple[Card, ...] = ()

    @classmethod
    def shuffled(cls, rng: dice.Chance) -> Deck:
        """All 54 cards in a fresh random order."""
        return cls(tuple(dice.shuffled(rng, FULL_DECK)))

    def __len__(self) -> int:
        return len(self.draw_pile) + len(self.discards)

    def draw(self, rng: dice.Chance) -> tuple[Card, Deck]:
        """The top card and the deck without it; an empty draw pile is first refilled by shuffling
        the discards with `rng` (docs/RULES.md §1.2)."""
        pile, discards = self.draw_pile, self.discards
        if not pile:
            if not discards:
                raise IllegalMove(Said(gettext_noop("There is no card left to draw.")))
            pile, discards = tuple(dice.shuffled(rng, discards)), ()
        rest = list(pile)
        card = dice.draw(rng, rest)
        return card, Deck(tuple(rest), discards)

    def discard(self, card: Card) -> Deck:
        return Deck(self.draw_pile, (*self.discards, card))


# --- the game -------------------------------------------------------------------------------------


class Phase(StrEnum):
    """What the player whose turn it is must do next."""

    DRAW = "draw"  # turn over a card
    VENGEANCE = "vengeance"  # play or decline the Vengeance just turned over
    TOSS = "toss"  # toss `dice_to_toss` dice (or stop, under a BONUS card once something is kept)
    KEEP = "keep"  # set aside a selection of the last toss
    BANK_OR_CONTINUE = "bank_or_continue"  # after a Fill under BONUS n / FILL 1000
    END_OR_CONTINUE = "end_or_continue"  # after a DOUBLE TROUBLE / VENGEANCE bank: nothing at risk
    GAME_OVER = "game_over"


class ActionKind(StrEnum):
    """The buttons. STOP banks (before or after a Fill); END ends a turn with nothing at risk."""

    DRAW = "draw"
    PLAY = "play"
    DECLINE = "decline"
    TOSS = "toss"
    KEEP = "keep"
    STOP = "stop"
    END = "end"
    CONTINUE = "continue"


class TurnOutcome(StrEnum):
    BUST = "bust"  # everything unbanked is lost
    NO_DICE = "no_dice"  # the card ended the turn; pending points are lost
    STOPPED = "stopped"  # banked by STOP (under a BONUS card, or after a Fill)
    ENDED = "ended"  # END after a DOUBLE TROUBLE / VENGEANCE bank
    MUST_BUST = "must_bust"  # the MUST BUST bust: banked (or, with the penalty, subtracted)
    REACHED_GOAL = "reached_goal"  # a bank reached the point goal, which ends the turn


class EndReason(StrEnum):
    GOAL = "goal"  # the first to reach the goal won
    SHOW_DOWN = "show_down"  # everyone else had their last turn; the highest score won
    TIME = "time"  # the time limit; the highest score won


@dataclass(frozen=True, slots=True)
class Action:
    """One decision; `dice` for TOSS (empty: roll them with the rng given to `Game.apply`) and KEEP,
    `card` for DRAW in a game without a deck."""

    kind: ActionKind
    dice: Dice = ()
    card: Card | None = None


Step = tuple[Any, ...]  # a `play_turn` step: ("card", NAME), ("toss", [dice]), ("stop",), ...


@dataclass(frozen=True, slots=True)
class TurnResult:
    """One finished turn: its steps in `play_turn` form (replayable) and the scoresheet around it."""

    player: str
    steps: tuple[Step, ...]
    outcome: TurnOutcome
    scores_before: Mapping[str, int]
    scores_after: Mapping[str, int]

    @property
    def gained(self) -> int:
        """The player's own change (negative only under the Must Bust penalty)."""
        return self.scores_after[self.player] - self.scores_before[self.player]


def leaders(scores: Mapping[str, int]) -> tuple[str, ...]:
    """Every player (or team) with the highest score, in seat order."""
    top = max(scores.values())
    return tuple(name for name, score in scores.items() if score == top)


# The Vengeance and the 0 floor (docs/RULES.md §1.4, §1.5), as functions of a scoresheet, so that every
# app scoring a Fill or Bust turn (the game below, a tournament's typed turns) asks this one place.


def is_sole_leader(scores: Mapping[str, int], player: str) -> bool:
    """`player` leads alone: a Vengeance they draw is discarded and they draw again."""
    return leaders(scores) == (player,)


def vengeance_targets(scores: Mapping[str, int], drawer: str) -> tuple[str, ...]:
    """Who a Vengeance played by `drawer` hits, from the scoresheet when it was drawn: the leaders
    other than the drawer (a drawer tied for the lead hits the others tied with them). Empty for
    a sole leader, who may not play it."""
    return tuple(name for name in leaders(scores) if name != drawer)


def bank(
    scores: Mapping[str, int],
    player: str,
    points: int,
    targets: Iterable[str] = (),
    penalty: int = VENGEANCE_PENALTY,
) -> dict[str, int]:
    """The scoresheet after `player` banks `points` (negative only for the Must Bust penalty) and,
    for a Vengeance, `penalty` comes off each of `targets`. No score goes below 0."""
    after = dict(scores)
    after[player] = max(0, after[player] + points)
    for name in targets:
        after[name] = max(0, after[name] - penalty)
    return after


@dataclass(frozen=True, slots=True)
class StartRoll:
    """The roll for who starts (docs/RULES.md §1.2), as it was made, for the players to see.

    `rounds[0]` holds every player's die in seat order; each later round, the dice of the players
    tied for the highest in the round before (they rolled again). `starter` had the highest die of
    the last round, alone. A lone seat starts without a roll: no rounds.
    """

    rounds: tuple[tuple[tuple[str, int], ...], ...]
    starter: str

    def words(self) -> str:
        """The roll in one line, each round after an arrow: "Who starts: Ann 5 · Ben 5 · Cy 2 →
        Ann 3 · Ben 6: Ben starts." """
        rolled = " → ".join(" · ".join(f"{name} {die}" for name, die in dice_) for dice_ in self.rounds)
        if not rolled:
            return Said(gettext_noop("%(name)s starts."), name=self.starter)
        return Said(gettext_noop("Who starts: %(rolled)s: %(name)s starts."), rolled=rolled, name=self.starter)

    def to_dict(self) -> dict[str, Any]:
        return {"rounds": [[[name, die] for name, die in dice_] for dice_ in self.rounds],
                "starter": self.starter}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> StartRoll:
        return cls(tuple(tuple((name, die) for name, die in dice_) for dice_ in data["rounds"]), data["starter"])


def roll_for_first_player(seats: Sequence[str], rng: dice.Chance) -> StartRoll:
    """Each player rolls one die, highest starts, ties roll again (docs/RULES.md §1.2); the roll as made.

    The dice come from `rng` exactly as they always have (one `dice.roll` per round, of as many
    dice as there are contenders): a game dealt before the roll was recorded deals the same."""
    contenders = list(seats)
    if not contenders:
        raise IllegalMove("Nobody to choose from.")
    rounds: list[tuple[tuple[str, int], ...]] = []
    while len(contenders) > 1:
        rolls = dice.roll(rng, len(contenders))
        rounds.append(tuple(zip(contenders, rolls, strict=True)))
        best = max(rolls)
        contenders = [name for name, rolled in zip(contenders, rolls, strict=True) if rolled == best]
    return StartRoll(tuple(rounds), contenders[0])


def choose_first_player(seats: Sequence[str], rng: dice.Chance) -> str:
    """Each player rolls one die, highest starts, ties roll again (docs/RULES.md §1.2): who starts."""
    return roll_for_first_player(seats, rng).starter


_VERBS: Final = {
    ActionKind.DRAW: gettext_noop("turn over a card"),
    ActionKind.PLAY: gettext_noop("play a Vengeance"),
    ActionKind.DECLINE: gettext_noop("decline a Vengeance"),
    ActionKind.TOSS: gettext_noop("toss"),
    ActionKind.KEEP: gettext_noop("set aside dice"),
    ActionKind.STOP: gettext_noop("stop"),
    ActionKind.END: gettext_noop("end the turn"),
    ActionKind.CONTINUE: gettext_noop("continue"),
}


@dataclass(frozen=True, slots=True)
class Game:
    """A whole game of Fill or Bust. Immutable: every action returns the next `Game`.

    Start one with `new_game` (shuffled deck, roll for first player) or `Game.start` (any
    seats and scores; without a deck the caller names each card turned over, as when a table
    plays with real cards and enters them). Then call the action that `legal_actions()` allows:
    `draw`, `play_vengeance` / `decline_vengeance`, `toss`, `keep`, `stop`, `end_turn`,
    `continue_turn`; `time_up` is the buzzer. A turn that ends moves play to the next seat by
    itself and is recorded in `turns`.

    Fields are read-only state; `pending` is the turn's points earned under earlier cards (at
    risk), `card_points` those earned under the card in play (a Fill's bonus included once
    earned), `set_aside` the dice set aside since the card (or the last Fill under it) began.
    """

    seats: tuple[str, ...]
    sheet: tuple[int, ...]  # scores in seat order; see `scores`
    options: Options = DEFAULT_OPTIONS
    goal: int | None = None  # None: the game ends only at `time_up`
    deck: Deck | None = None  # None: the caller names each card (`draw(card=...)`)
    seat: int = 0  # whose turn it is
    phase: Phase = Phase.DRAW
    card: Card | None = None  # the card in play
    pending: int = 0
    card_points: int = 0
    set_aside: Dice = ()
    last_toss: Dice | None = None  # the toss waiting for a KEEP
    fills: int = 0  # Fills so far under the card in play (MUST BUST, DOUBLE TROUBLE)
    targets: tuple[str, ...] = ()  # who the Vengeance in play will hit
    steps: tuple[Step, ...] = ()  # the turn so far, in `play_turn` form
    turn_start_sheet: tuple[int, ...] = ()
    buzzer: bool = False  # time is up; the turn under way is being played out
    show_down_from: str | None = None  # who reached the goal, while a show down is on
    winners: tuple[str, ...] = ()
    end_reason: EndReason | None = None
    turns: tuple[TurnResult, ...] = ()
    # How the first player was found; None when the caller named them, and in a state stored
    # before the roll was recorded (it loads and shows no roll).
    start_roll: StartRoll | None = None

    # -- setting up ------------------------------------------------------------------------------

    @classmethod
    def start(
        cls,
        seats: Sequence[str],
        *,
        options: Options = DEFAULT_OPTIONS,
        goal: int | None = None,
        scores: Mapping[str, int] | None = None,
        first: str | None = None,
        deck: Deck | None = None,
    ) -> Game:
        """A game at the start of `first`'s turn (default: the first seat); seats clockwise."""
        seats = tuple(seats)
        if not seats or len(set(seats)) != len(seats):
            raise IllegalMove(f"The seats must be one or more different names, not {list(seats)}.")
        scores = dict.fromkeys(seats, 0) if scores is None else dict(scores)
        if set(scores) != set(seats):
            raise IllegalMove(f"The scoresheet {scores} must list exactly the seats {list(seats)}.")
        for name, score in scores.items():
            if isinstance(score, bool) or not isinstance(score, int):
                raise IllegalMove(f"{name}'s score must be a whole number, not {score!r}.")
        if goal is not None and (isinstance(goal, bool) or not isinstance(goal, int) or goal <= 0):
            raise IllegalMove(f"The point goal must be a positive whole number, not {goal!r}.")
        if first is not None and first not in seats:
            raise IllegalMove(f"{first!r} is not one of the seats {list(seats)}.")
        sheet = tuple(scores[name] for name in seats)
        return cls(
            seats=seats,
            sheet=sheet,
            options=options,
            goal=goal,
            deck=deck,
            seat=0 if first is None else seats.index(first),
            turn_start_sheet=sheet,
        )

    # -- reading the state -----------------------------------------------------------------------

    @property
    def player(self) -> str:
        """Whose turn it is (after the game ends: whose turn was last)."""
        return self.seats[self.seat]

    @property
    def scores(self) -> dict[str, int]:
        """The scoresheet (banked points), in seat order."""
        return dict(zip(self.seats, self.sheet, strict=True))

    @property
    def at_risk(self) -> int:
        """Unbanked points of the turn: pending plus card points."""
        return self.pending + self.card_points

    @property
    def dice_to_toss(self) -> int:
        """How many dice the next toss must have (0 when a toss is not what comes next)."""
        return DICE - len(self.set_aside) if self.phase is Phase.TOSS else 0

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.GAME_OVER

    @property
    def in_show_down(self) -> bool:
        return self.show_down_from is not None

    @property
    def turn_under_way(self) -> bool:
        """A card has been turned over this turn (what the buzzer lets finish)."""
        return bool(self.steps)

    def leaders(self) -> tuple[str, ...]:
        return leaders(self.scores)

    def legal_actions(self) -> tuple[ActionKind, ...]:
        """The actions allowed now, for a page to show only those buttons."""
        match self.phase:
            case Phase.DRAW:
                return (ActionKind.DRAW,)
            case Phase.VENGEANCE:
                return (ActionKind.PLAY, ActionKind.DECLINE)
            case Phase.TOSS:
                # Stopping needs a BONUS card and something set aside under it (under a BONUS
                # card nothing is set aside after a Fill: the Fill moves to BANK_OR_CONTINUE).
                if self.card is not None and self.card.may_stop_early and self.set_aside:
                    return (ActionKind.TOSS, ActionKind.STOP)
                return (ActionKind.TOSS,)
            case Phase.KEEP:
                return (ActionKind.KEEP,)
            case Phase.BANK_OR_CONTINUE:
                return (ActionKind.STOP, ActionKind.CONTINUE)
            case Phase.END_OR_CONTINUE:
                return (ActionKind.END, ActionKind.CONTINUE)
            case _:
                return ()

    def legal_keeps(self) -> tuple[tuple[Dice, int], ...]:
        """The selections allowed from the last toss (sorted dice, points); under MUST BUST only
        the maximal one. Empty unless a KEEP is due."""
        if self.phase is not Phase.KEEP or self.last_toss is None:
            return ()
        keeps = legal_keeps(self.last_toss, combo5=self.options.combo5)
        return keeps[:1] if self.card is Card.MUST_BUST else keeps

    # -- actions ---------------------------------------------------------------------------------

    def draw(self, rng: dice.Chance | None = None, *, card: Card | str | None = None) -> Game:
        """Turn over a card: from the deck (with `rng` for a reshuffle), or `card` if there is none.

        NO DICE ends the turn at once. A VENGEANCE drawn by the sole leader is discarded and the
        phase stays DRAW (the steps show it); otherwise its targets are fixed now, when it is drawn.
        """
        self._require(ActionKind.DRAW)
        if self.deck is not None:
            if card is not None:
                raise IllegalMove("This game deals from its own deck: draw without naming a card.")
            if rng is None:
                raise IllegalMove(
                    "Drawing from the deck needs the game's random generator (for a reshuffle)."
                )
            drawn, deck = self.deck.draw(rng)
        else:
            if card is None:
                raise IllegalMove("This game has no deck: say which card was turned over.")
            drawn, deck = _as_card(card), None
        game = replace(self, deck=deck, steps=(*self.steps, ("card", drawn.value)))
        if drawn is Card.NO_DICE:
            return game._discard(drawn)._finish_turn(TurnOutcome.NO_DICE)
        if drawn is Card.VENGEANCE_2500:
            if is_sole_leader(game.scores, self.player):
                return game._discard(drawn)
            return replace(
                game, card=drawn, phase=Phase.VENGEANCE, targets=vengeance_targets(game.scores, self.player)
            )
        return game._begin_card(drawn)

    def play_vengeance(self) -> Game:
        """Play the Vengeance: it must now be filled."""
        self._require(ActionKind.PLAY)
        assert self.card is not None
        return replace(self, steps=(*self.steps, ("play",)))._begin_card(self.card, self.targets)

    def decline_vengeance(self) -> Game:
        """Discard the Vengeance and draw again in the same turn."""
        self._require(ActionKind.DECLINE)
        assert self.card is not None
        game = replace(self, card=None, targets=(), phase=Phase.DRAW, steps=(*self.steps, ("decline",)))
        return game._discard(self.card)

    def toss(self, thrown: Iterable[int]) -> Game:
        """Toss the dice not set aside (`dice_to_toss` of them); a bust ends the turn by itself."""
        self._require(ActionKind.TOSS)
        toss = _check_dice(thrown, "toss", IllegalMove, allow_empty=True)
        if len(toss) != self.dice_to_toss:
            raise IllegalMove(Said(gettext_noop("Toss %(dice)s dice (the ones not set aside), not %(count)s."),
                                   dice=self.dice_to_toss, count=len(toss)))
        game = replace(self, steps=(*self.steps, ("toss", toss)))
        if is_bust(toss, combo5=self.options.combo5):
            return game._bust()
        return replace(game, phase=Phase.KEEP, last_toss=toss)

    def keep(self, kept: Iterable[int]) -> Game:
        """Set aside a legal selection of the last toss (under MUST BUST: the maximal one)."""
        self._require(ActionKind.KEEP)
        assert self.last_toss is not None and self.card is not None
        selection = _check_dice(kept, "selection", IllegalMove, allow_empty=True)
        try:
            points = score_selection(self.last_toss, selection, combo5=self.options.combo5)
        except IllegalSelection as error:
            raise IllegalMove(error.args[0]) from None
        selection = tuple(sorted(selection))
        if self.card is Card.MUST_BUST:
            required = maximal_keep(self.last_toss, combo5=self.options.combo5)
            if selection != required:
                raise IllegalMove(Said(gettext_noop(
                    "Under MUST BUST every toss sets aside the maximal selection: %(required)s of %(toss)s, "
                    "not %(selection)s."), required=list(required), toss=list(self.last_toss),
                    selection=list(selection)))
        set_aside = self.set_aside + selection
        game = replace(
            self,
            steps=(*self.steps, ("keep", selection)),
            card_points=self.card_points + points,
            set_aside=set_aside,
            last_toss=None,
            phase=Phase.TOSS,
        )
        return game._fill() if len(set_aside) == DICE else game

    def stop(self) -> Game:
        """Bank pending + card points and end the turn: under a BONUS card before a Fill (no
        bonus), or BANK after a Fill under BONUS n / FILL 1000 (bonus included)."""
        self._require(ActionKind.STOP)
        game = replace(self, steps=(*self.steps, ("stop",)), pending=0, card_points=0)._credit(self.at_risk)
        return game._finish_turn(TurnOutcome.REACHED_GOAL if game._goal_reached() else TurnOutcome.STOPPED)

    def end_turn(self) -> Game:
        """END after a DOUBLE TROUBLE or VENGEANCE bank: nothing is at risk, nothing changes."""
        self._require(ActionKind.END)
        # The contract writes END as ("stop",): it is the same "I'm done" at the table.
        return replace(self, steps=(*self.steps, ("stop",)))._finish_turn(TurnOutcome.ENDED)

    def continue_turn(self) -> Game:
        """CONTINUE after a Fill (card points become pending) or after a DOUBLE TROUBLE /
        VENGEANCE bank (nothing at risk): the card is discarded and another must be drawn."""
        self._require(ActionKind.CONTINUE)
        assert self.card is not None
        game = replace(
            self,
            steps=(*self.steps, ("continue",)),
            pending=self.at_risk,
            card=None,
            card_points=0,
            set_aside=(),
            fills=0,
            targets=(),
            phase=Phase.DRAW,
        )
        return game._discard(self.card)

    def time_up(self) -> Game:
        """The buzzer: a turn under way is played out, then the game ends (highest score wins,
        ties all listed). Between turns the game ends now. Calling it again changes nothing."""
        if self.is_over or self.buzzer:
            return self
        if not self.turn_under_way:
            return self._game_over(EndReason.TIME, self.leaders())
        return replace(self, buzzer=True)

    def apply(self, action: Action, rng: dice.Chance | None = None) -> Game:
        """Do `action`. `rng` draws from the deck and rolls the dice of a TOSS that names none."""
        match action.kind:
            case ActionKind.DRAW:
                return self.draw(rng, card=action.card)
            case ActionKind.PLAY:
                return self.play_vengeance()
            case ActionKind.DECLINE:
                return self.decline_vengeance()
            case ActionKind.TOSS:
                if not action.dice and rng is not None and self.phase is Phase.TOSS:
                    return self.toss(dice.roll(rng, self.dice_to_toss))
                return self.toss(action.dice)
            case ActionKind.KEEP:
                return self.keep(action.dice)
            case ActionKind.STOP:
                return self.stop()
            case ActionKind.END:
                return self.end_turn()
            case ActionKind.CONTINUE:
                return self.continue_turn()
        raise IllegalMove(f"Unknown action {action!r}.")

    def apply_step(self, step: Sequence[Any]) -> Game:
        """Do one `play_turn` step: ("card", NAME), ("play",), ("decline",), ("toss", dice),
        ("keep", dice), ("stop",) (which is END after a DOUBLE TROUBLE / VENGEANCE bank), ("continue",)."""
        if isinstance(step, str | bytes) or not isinstance(step, Sequence) or not step:
            raise IllegalMove(f"A step is a tuple such as ('toss', [1, 5, 2]), not {step!r}.")
        kind, args = step[0], tuple(step[1:])
        arity = {"card": 1, "toss": 1, "keep": 1, "play": 0, "decline": 0, "stop": 0, "continue": 0}
        if kind not in arity or len(args) != arity[kind]:
            raise IllegalMove(f"Unknown step {step!r}.")
        match kind:
            case "card":
                return self.draw(card=args[0])
            case "play":
                return self.play_vengeance()
            case "decline":
                return self.decline_vengeance()
            case "toss":
                return self.toss(args[0])
            case "keep":
                return self.keep(args[0])
            case "stop":
                return self.end_turn() if ActionKind.END in self.legal_actions() else self.stop()
            case _:
                return self.continue_turn()

    # -- saving ----------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data; `Game.from_dict` rebuilds the same game."""
        steps = step_lists
        return {
            "seats": list(self.seats),
            "sheet": list(self.sheet),
            "options": asdict(self.options),
            "goal": self.goal,
            "deck": None
            if self.deck is None
            else {
                "draw_pile": [c.value for c in self.deck.draw_pile],
                "discards": [c.value for c in self.deck.discards],
            },
            "seat": self.seat,
            "phase": self.phase.value,
            "card": None if self.card is None else self.card.value,
            "pending": self.pending,
            "card_points": self.card_points,
            "set_aside": list(self.set_aside),
            "last_toss": None if self.last_toss is None else list(self.last_toss),
            "fills": self.fills,
            "targets": list(self.targets),
            "steps": steps(self.steps),
            "turn_start_sheet": list(self.turn_start_sheet),
            "buzzer": self.buzzer,
            "show_down_from": self.show_down_from,
            "winners": list(self.winners),
            "end_reason": None if self.end_reason is None else self.end_reason.value,
            "turns": [
                {
                    "player": t.player,
                    "steps": steps(t.steps),
                    "outcome": t.outcome.value,
                    "scores_before": dict(t.scores_before),
                    "scores_after": dict(t.scores_after),
                }
                for t in self.turns
            ],
            # Left out when there is none, so that a state stored before the roll was recorded
            # loads and saves unchanged.
            **({} if self.start_roll is None else {"start_roll": self.start_roll.to_dict()}),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Game:
        def steps(items: Iterable[Sequence[Any]]) -> tuple[Step, ...]:
            return tuple((s[0], *(tuple(a) if isinstance(a, list) else a for a in s[1:])) for s in items)

        deck = data["deck"]
        return cls(
            seats=tuple(data["seats"]),
            sheet=tuple(data["sheet"]),
            options=Options(**data["options"]),
            goal=data["goal"],
            deck=None
            if deck is None
            else Deck(tuple(Card(c) for c in deck["draw_pile"]), tuple(Card(c) for c in deck["discards"])),
            seat=data["seat"],
            phase=Phase(data["phase"]),
            card=None if data["card"] is None else Card(data["card"]),
            pending=data["pending"],
            card_points=data["card_points"],
            set_aside=tuple(data["set_aside"]),
            last_toss=None if data["last_toss"] is None else tuple(data["last_toss"]),
            fills=data["fills"],
            targets=tuple(data["targets"]),
            steps=steps(data["steps"]),
            turn_start_sheet=tuple(data["turn_start_sheet"]),
            buzzer=data["buzzer"],
            show_down_from=data["show_down_from"],
            winners=tuple(data["winners"]),
            end_reason=None if data["end_reason"] is None else EndReason(data["end_reason"]),
            turns=tuple(
                TurnResult(
                    player=t["player"],
                    steps=steps(t["steps"]),
                    outcome=TurnOutcome(t["outcome"]),
                    scores_before=dict(t["scores_before"]),
                    scores_after=dict(t["scores_after"]),
                )
                for t in data["turns"]
            ),
            start_roll=StartRoll.from_dict(data["start_roll"]) if data.get("start_roll") else None,
        )

    # -- the machinery ---------------------------------------------------------------------------

    def _require(self, kind: ActionKind) -> None:
        if kind not in self.legal_actions():
            raise IllegalMove(self._refusal(kind))

    def _refusal(self, kind: ActionKind) -> str:
        """Why `kind` is not allowed now, in words a player understands."""
        if self.is_over:
            return Said(gettext_noop("The game is over (%(winners)s won)."), winners=", ".join(self.winners))
        card = self.card.label if self.card is not None else ""
        if kind is ActionKind.STOP and self.phase is Phase.TOSS and self.card is not None:
            if self.card.may_stop_early:
                return Said(gettext_noop("Toss at least once under %(card)s before stopping."), card=card)
            if self.card is Card.MUST_BUST:
                return Said(gettext_noop("You can't stop under MUST BUST: keep tossing until you bust."))
            return Said(gettext_noop("You can't stop under %(card)s: the card must be filled."), card=card)
        expected = {
            Phase.DRAW: gettext_noop("turn over a card"),
            Phase.VENGEANCE: gettext_noop("play or decline the VENGEANCE"),
            Phase.TOSS: gettext_noop("toss %(dice)s dice"),
            Phase.KEEP: gettext_noop("set aside scoring dice from %(toss)s"),
            Phase.BANK_OR_CONTINUE: gettext_noop("bank or continue after the Fill under %(card)s"),
            Phase.END_OR_CONTINUE: gettext_noop("end the turn or continue after the %(card)s bank (nothing is at risk)"),
        }[self.phase]
        return Said(gettext_noop("You can't %(verb)s now: %(player)s must %(expected)s."), verb=Said(_VERBS[kind]),
                    player=self.player, expected=Said(expected, dice=self.dice_to_toss,
                                                      toss=list(self.last_toss or ()), card=card))

    def _begin_card(self, card: Card, targets: tuple[str, ...] = ()) -> Game:
        return replace(
            self,
            card=card,
            targets=targets,
            phase=Phase.TOSS,
            card_points=0,
            set_aside=(),
            last_toss=None,
            fills=0,
        )

    def _discard(self, card: Card) -> Game:
        return self if self.deck is None else replace(self, deck=self.deck.discard(card))

    def _with_score(self, name: str, score: int) -> Game:
        index = self.seats.index(name)
        return replace(self, sheet=(*self.sheet[:index], score, *self.sheet[index + 1 :]))

    def _with_scores(self, scores: Mapping[str, int]) -> Game:
        return replace(self, sheet=tuple(scores[name] for name in self.seats))

    def _credit(self, points: int) -> Game:
        return self._with_score(self.player, self.sheet[self.seat] + points)

    def _goal_reached(self) -> bool:
        """The player has just banked up to the goal (not during a show down: see the module doc)."""
        return self.goal is not None and self.show_down_from is None and self.sheet[self.seat] >= self.goal

    def _bust(self) -> Game:
        if self.card is not Card.MUST_BUST:
            return self._finish_turn(TurnOutcome.BUST)
        if self.options.must_bust_penalty:
            # The points tossed under this card come off the scoresheet; pending points are lost.
            lowered = bank(self.scores, self.player, -self.card_points)
            game = replace(self._with_scores(lowered), pending=0, card_points=0)
            return game._finish_turn(TurnOutcome.MUST_BUST)
        game = replace(self, pending=0, card_points=0)._credit(self.at_risk)
        return game._finish_turn(TurnOutcome.REACHED_GOAL if game._goal_reached() else TurnOutcome.MUST_BUST)

    def _fill(self) -> Game:
        """All six dice are set aside; what that does depends on the card (docs/RULES.md §1.4)."""
        card = self.card
        if card is Card.MUST_BUST or (card is Card.DOUBLE_TROUBLE and self.fills == 0):
            # Toss all six again under the same card; its points keep adding up.
            return replace(self, fills=self.fills + 1, set_aside=())
        if card is Card.DOUBLE_TROUBLE:
            amount = 2 * self.at_risk
            game = replace(self, fills=self.fills + 1, pending=0, card_points=0)._credit(amount)
            return game._after_safe_bank()
        if card is Card.VENGEANCE_2500:
            after = bank(self.scores, self.player, self.at_risk, self.targets, self.options.vengeance)
            game = replace(self._with_scores(after), fills=self.fills + 1, pending=0, card_points=0)
            if game.show_down_from is not None and game.goal is not None and max(game.sheet) < game.goal:
                game = replace(game, show_down_from=None)  # everyone below the goal: normal play resumes
            return game._after_safe_bank()
        assert card is not None and card.fill_bonus
        return replace(self, card_points=self.card_points + card.fill_bonus, phase=Phase.BANK_OR_CONTINUE)

    def _after_safe_bank(self) -> Game:
        if self._goal_reached():
            return self._finish_turn(TurnOutcome.REACHED_GOAL)
        return replace(self, phase=Phase.END_OR_CONTINUE)

    def _finish_turn(self, outcome: TurnOutcome) -> Game:
        """Record the turn, discard the card in play, and hand the dice on (or end the game)."""
        game = self if self.card is None else self._discard(self.card)
        result = TurnResult(
            player=self.player,
            steps=self.steps,
            outcome=outcome,
            scores_before=dict(zip(self.seats, self.turn_start_sheet, strict=True)),
            scores_after=self.scores,
        )
        game = replace(
            game,
            card=None,
            pending=0,
            card_points=0,
            set_aside=(),
            last_toss=None,
            fills=0,
            targets=(),
            steps=(),
            turns=(*self.turns, result),
            turn_start_sheet=self.sheet,
        )
        show_down_from = self.show_down_from
        if outcome is TurnOutcome.REACHED_GOAL:
            if not self.options.show_down:
                return game._game_over(EndReason.GOAL, (self.player,))
            show_down_from = self.player
        if self.buzzer:
            return game._game_over(EndReason.TIME, game.leaders())
        following = (self.seat + 1) % len(self.seats)
        if show_down_from is not None and self.seats[following] == show_down_from:
            return game._game_over(EndReason.SHOW_DOWN, game.leaders())
        return replace(game, seat=following, phase=Phase.DRAW, show_down_from=show_down_from)

    def _game_over(self, reason: EndReason, winners: tuple[str, ...]) -> Game:
        return replace(self, phase=Phase.GAME_OVER, end_reason=reason, winners=winners, show_down_from=None)


def new_game(
    seats: Sequence[str],
    rng: dice.Chance,
    *,
    options: Options = DEFAULT_OPTIONS,
    goal: int | None = None,
    first: str | None = None,
) -> Game:
    """A fresh digital game: a shuffled deck, and (unless `first` is given) a roll for who starts.

    `goal=None` is a timed game: it ends when `time_up()` is called. At least two seats.
    """
    if len(seats) < 2:
        raise IllegalMove(f"Fill or Bust needs two or more players or teams, not {list(seats)}.")
    deck = Deck.shuffled(rng)
    start_roll = None
    if first is None:
        start_roll = roll_for_first_player(seats, rng)
        first = start_roll.starter
    game = Game.start(seats, options=options, goal=goal, first=first, deck=deck)
    return replace(game, start_roll=start_roll)


def step_lists(items: Iterable[Step]) -> list[list[Any]]:
    """Steps as JSON-ready lists (the dice of a toss or keep as a list)."""
    return [[s[0], *(list(a) if isinstance(a, tuple) else a for a in s[1:])] for s in items]


# --- the contract's replay ------------------------------------------------------------------------


def play_turn(
    scores: Mapping[str, int],
    player: str,
    steps: Sequence[Step],
    *,
    options: Options = DEFAULT_OPTIONS,
) -> dict[str, int]:
    """Replay one whole turn of `player` and return the new scoresheet (every player's score).

    The steps run through `Game.apply_step`, the engine the live pages use. A bust or NO DICE ends
    the turn by itself; after a DOUBLE TROUBLE or VENGEANCE bank the steps may simply end (END).
    IllegalMove for a step the rules don't allow, a step after the turn ended, or steps that stop
    before the turn is over. The point goal is not this function's business.
    """
    if player not in scores:
        raise IllegalMove(f"{player!r} is not on the scoresheet {list(scores)}.")
    game = Game.start(list(scores), scores=scores, first=player, options=options)
    for number, step in enumerate(steps, 1):
        if game.turns:
            raise IllegalMove(
                f"Step {number} {step!r} comes after the turn ended ({game.turns[0].outcome.value})."
            )
        try:
            game = game.apply_step(step)
        except IllegalMove as error:
            raise IllegalMove(f"Step {number} {step!r}: {error}") from None
    if not game.turns:
        if game.phase is not Phase.END_OR_CONTINUE:
            needed = " or ".join(_VERBS[kind] for kind in game.legal_actions())
            raise IllegalMove(f"The steps end before the turn is over: {player} must still {needed}.")
        game = game.end_turn()
    return dict(game.turns[0].scores_after)


# --- a bot ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BotStyle:
    """How boldly a bot plays. The defaults are a cautious club player's habits."""

    # Under a BONUS card, stop once this much is at risk, by number of dice left to toss (0..6).
    stop_at: tuple[int, ...] = (0, 200, 300, 400, 700, 2000, 4000)
    bank_at: int = 700  # after a Fill under BONUS / FILL 1000, bank from this much at risk
    vengeance_risk: int = 1000  # play a Vengeance while at most this much is pending
    die_back: int = 60  # what a die thrown back is worth when choosing a partial keep


DEFAULT_BOT: Final = BotStyle()


def bot_decide(game: Game, rng: random.Random, *, style: BotStyle = DEFAULT_BOT) -> Action:
    """A sensible decision for the player whose turn it is. Pure: `rng` only breaks ties.

    Keeps every scoring die when that fills or the card must be filled; under a BONUS card keeps
    the best-looking partial selection and stops by how much is at risk against the dice left;
    banks a Fill worth enough; always continues when nothing is at risk; plays a Vengeance when
    little is pending. Near the goal (or in a show down) it stops as soon as it wins.
    """
    legal = game.legal_actions()
    if not legal:
        raise IllegalMove("The game is over.")
    match game.phase:
        case Phase.VENGEANCE:
            return Action(ActionKind.PLAY if game.pending <= style.vengeance_risk else ActionKind.DECLINE)
        case Phase.KEEP:
            return Action(ActionKind.KEEP, _bot_keep(game, rng, style))
        case Phase.TOSS:
            if ActionKind.STOP in legal and _bot_wants_to_stop(game, style.stop_at[game.dice_to_toss]):
                return Action(ActionKind.STOP)
            return Action(ActionKind.TOSS)
        case Phase.BANK_OR_CONTINUE:
            return Action(ActionKind.STOP if _bot_wants_to_stop(game, style.bank_at) else ActionKind.CONTINUE)
        case Phase.END_OR_CONTINUE:
            # Nothing is at risk, so another card can only help (bar the rare penalised MUST BUST).
            return Action(ActionKind.CONTINUE)
        case _:
            return Action(ActionKind.DRAW)


def _bot_wants_to_stop(game: Game, threshold: int) -> bool:
    mine = game.sheet[game.seat] + game.at_risk
    if game.show_down_from is not None:
        # A last turn: only beating the top score matters.
        best_other = max(s for name, s in game.scores.items() if name != game.player)
        return mine > best_other
    if game.goal is not None and mine >= game.goal:
        return True
    return game.at_risk >= threshold


def _bot_keep(game: Game, rng: random.Random, style: BotStyle) -> Dice:
    keeps = game.legal_keeps()
    assert game.last_toss is not None and keeps
    best_dice, _points = keeps[0]
    if game.card is not None and (not game.card.may_stop_early or len(best_dice) == len(game.last_toss)):
        # The card must be filled (or this keep fills): set aside every scoring die.
        return best_dice
    left = len(game.last_toss)

    def value(item: tuple[Dice, int]) -> int:
        return item[1] + style.die_back * (left - len(item[0]))

    top = max(value(item) for item in keeps)
    return dice.choice(rng, [item[0] for item in keeps if value(item) == top])


def play_bot_turn(game: Game, rng: random.Random, *, style: BotStyle = DEFAULT_BOT) -> Game:
    """Play the current player's whole turn with `bot_decide`, drawing and rolling with `rng`.

    The game must deal from its own deck. Returns the game after the turn (`turns[-1]` is it).
    """
    if game.is_over:
        raise IllegalMove("The game is over.")
    if game.deck is None:
        raise IllegalMove("A bot needs a game with a deck to draw from.")
    played = len(game.turns)
    while len(game.turns) == played:
        game = game.apply(bot_decide(game, rng, style=style), rng)
    return game


def play_bot_game(
    game: Game,
    rng: random.Random,
    *,
    styles: Mapping[str, BotStyle] | None = None,
    max_turns: int | None = None,
) -> Game:
    """Play bots until the game ends; with `max_turns`, the buzzer sounds after that many turns
    (a simulated clock). A game with neither a goal nor `max_turns` would never end: refused."""
    if game.goal is None and max_turns is None:
        raise IllegalMove("Without a point goal, say after how many turns time is up.")
    styles = styles or {}
    played = 0
    while not game.is_over:
        if max_turns is not None and played >= max_turns:
            game = game.time_up()
            continue
        game = play_bot_turn(game, rng, style=styles.get(game.player, DEFAULT_BOT))
        played += 1
    return game


# --- at a game table ------------------------------------------------------------------------------


@dataclass(frozen=True)
class FillOrBustTable(table_game.TableGame):
    """Fill or Bust as a `TableGame`: the server turns the cards and tosses the dice.

    Moves: {"kind": "draw"}, {"kind": "play"}, {"kind": "decline"}, {"kind": "toss"} (the server
    rolls: a toss naming its dice is refused), {"kind": "keep", "dice": [...]}, {"kind": "stop"},
    {"kind": "end"}, {"kind": "continue"}. Nothing is private to one seat; the deck's order is
    private to the server.
    """

    state: Game
    game: ClassVar[str] = "fill_or_bust"

    @classmethod
    def new(
        cls,
        names: Sequence[str],
        rng: dice.Chance,
        *,
        options: Options = DEFAULT_OPTIONS,
        goal: int | None = 5000,
    ) -> FillOrBustTable:
        """A fresh game: the deck shuffled and the first player rolled for with `rng`."""
        return cls(new_game(names, rng, options=options, goal=goal))

    @property
    def seats(self) -> tuple[str, ...]:
        return self.state.seats

    def to_move(self) -> tuple[int, ...]:
        return () if self.state.is_over else (self.state.seat,)

    def legal_moves(self, seat: int) -> list[dict[str, Any]]:
        if seat not in self.to_move():
            return []
        moves: list[dict[str, Any]] = []
        for kind in self.state.legal_actions():
            if kind is ActionKind.KEEP:
                moves += [{"kind": "keep", "dice": list(kept)} for kept, _points in self.state.legal_keeps()]
            else:
                moves.append({"kind": kind.value})
        return moves

    def apply(self, seat: int, move: table_game.Move, rng: dice.Chance) -> FillOrBustTable:
        self.check_turn(seat)
        kind = ActionKind(table_game.move_kind(move, [k.value for k in ActionKind]))
        if kind is ActionKind.KEEP:
            return FillOrBustTable(self.state.apply(Action(kind, table_game.move_dice(move)), rng))
        if kind is ActionKind.TOSS and move.get("dice") is not None:
            raise IllegalMove(Said(gettext_noop("Only the table tosses the dice: send the toss without dice.")))
        return FillOrBustTable(self.state.apply(Action(kind), rng))

    def view(self, seat: int | None) -> table_game.View:
        state = self.state
        deck = state.deck
        public = {
            "game": self.game,
            "seats": list(state.seats),
            "scores": list(state.sheet),
            "goal": state.goal,
            "turn": None if state.is_over else state.seat,
            "phase": state.phase.value,
            "legal": [kind.value for kind in state.legal_actions()],
            "card": None if state.card is None else state.card.value,
            "targets": list(state.targets),
            "pending": state.pending,
            "card_points": state.card_points,
            "set_aside": list(state.set_aside),
            "last_toss": None if state.last_toss is None else list(state.last_toss),
            "dice_to_toss": state.dice_to_toss,
            "steps": step_lists(state.steps),
            "cards_left": None if deck is None else len(deck.draw_pile),
            "buzzer": state.buzzer,
            "show_down_from": state.show_down_from,
            "winners": list(state.winners),
            "end_reason": None if state.end_reason is None else state.end_reason.value,
            # Who starts and how the dice said so, until the first turn is over (the replay reads
            # it from the deal): the lobby and the first turn show it, later moves need not carry it.
            "start_roll": None
            if state.start_roll is None or state.turns
            else {**state.start_roll.to_dict(), "words": state.start_roll.words()},
            # The turn just finished (every turn is in the moves a replay reads: the view sent
            # with each move stays the same size however long the game).
            "turns_played": len(state.turns),
            "last_turn": None
            if not state.turns
            else {
                "player": state.turns[-1].player,
                "steps": step_lists(state.turns[-1].steps),
                "outcome": state.turns[-1].outcome.value,
                "scores": dict(state.turns[-1].scores_after),
            },
        }
        return table_game.View(public)

    @property
    def is_over(self) -> bool:
        return self.state.is_over

    def result(self) -> table_game.Result | None:
        if not self.state.is_over:
            return None
        return table_game.Result(
            winners=tuple(self.state.seats.index(name) for name in self.state.winners),
            scores=self.state.sheet,
        )

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game, "state": self.state.to_dict()}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> FillOrBustTable:
        return cls(Game.from_dict(data["state"]))
