"""Bots for Fill or Bust at a game table (docs/RULES.md §1), at three levels.

Pure rules: the standard library and games.rules only; every random choice comes from the
generator passed in. The game table calls one function, `choose_move(table, seat, level, rng)`,
and gets back one of `table.legal_moves(seat)`.

- **easy**: a legal move drawn at random. Its games still end: a random
  toss busts often enough, and a NO DICE card ends any turn.
- **threshold**: the engine's own `bot_decide` with `DEFAULT_BOT`.
- **strong**: stops, tosses, banks or continues by expected points, read
  from an `Odds` table built once per set of options (lazily, cached here, deterministic, a few
  tenths of a second): for every card it can play, every number of dice left to toss and every
  amount at risk, what the turn is worth from there played well, the chance that it banks rather
  than busts (`Chances`), and what drawing another card is worth with some points pending. Keeps are
  chosen by the same values, so it will set aside a single 1 out of `[1, 5, 2, 3, 4, 4]` to toss five
  dice rather than the 1 and the 5 to toss four. On top of the table it plays the score situation:
  it banks the moment a bank reaches the goal, and in a show down it plays on until it beats the top
  score (and stops then). In a two-player game to a goal of at most 10,000 without a show down, it
  stops, banks, keeps and plays a Vengeance by its **chance to win the game** instead of points:
  `_wins` is the chance that a player about to play wins from every pair of scores (on a 50-point
  grid, built on first use in a fraction of a second by solving the race backwards), each turn
  yielding what `games/rules/fill_or_bust_gains.py` counts (120,000 turns of this bot's play on
  points, written by `scripts/fill_or_bust_gains.py`: how much a turn could have banked at some
  moment, what it banked, whether its player led and whether it hit the other with a Vengeance). A
  decision looks one toss (or one card) ahead exactly and values what follows as a lottery: a state
  the `Odds` table says is worth V points and banks with chance p banks V / p with chance p, read in
  the win table. So it takes a small safe bank when far ahead near the goal, a long shot when far
  behind late, and the table counts that a leader can be hit by a Vengeance and cannot hit. Elsewhere
  (more players, a show down, a timed game) it plays by points, and when an opponent is close to
  the goal it presses on with a turn that cannot win the game.

The table counts points in units of 50 (every score in the game is a multiple of 50). It assumes
each card is drawn with the odds of the full deck, a Vengeance being drawn again (the generic
table does not know who leads). At a decision to draw another card (bank or continue after a Fill,
a Fill's worth when choosing a keep, declining a Vengeance) the bot counts cards: the next card
comes from the full deck less the cards turned over since the last shuffle, which every player saw
(`remaining_cards`; never the draw pile's order), a Vengeance being worth what playing it is worth
unless the bot leads alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations_with_replacement, islice
from math import factorial
from operator import mul
from typing import TYPE_CHECKING, Any, Final

from games.rules import dice
from games.rules import table as table_game
from games.rules.bot_levels import LEVELS
from games.rules.fill_or_bust import (
    DECK_COMPOSITION,
    DEFAULT_BOT,
    DICE,
    Action,
    ActionKind,
    Card,
    FillOrBustTable,
    Game,
    Phase,
    bot_decide,
    legal_keeps,
)
from games.rules.fill_or_bust_gains import CAP, GAINS
from games.rules.words import Said, gettext_noop

if TYPE_CHECKING:
    import random  # only the type: every generator is passed in

__all__ = [
    "LEVELS",
    "LEVEL_HINTS",
    "Odds",
    "UnknownLevel",
    "choose_action",
    "choose_move",
    "odds",
    "remaining_cards",
]

# What a page says of each level (games.rules.bot_levels.LEVELS) beside its word, in one line.
LEVEL_HINTS: Final = {
    "easy": gettext_noop("any move it may make, at random"),
    "threshold": gettext_noop("banks once a fair amount is at risk"),
    "strong": gettext_noop("plays the odds of every toss and card"),
}

UNIT: Final = 50  # every score is a multiple of 50
TOP: Final = 160  # the table covers up to 8,000 points at risk; beyond it a bonus card stops
DRAW_TOP: Final = 60  # and another card is worth drawing with at most 3,000 pending
PAD: Final = 60  # one toss gains at most 2,000 points (six 1s), a Fill at most 1,000 more


class UnknownLevel(table_game.IllegalMove):
    """A bot level that isn't one of `LEVELS`."""


# --- the odds of a toss ----------------------------------------------------------------------------

# For each number of dice, the tosses grouped by what they allow: (ways out of 6**d, options),
# an option being (dice left after the keep, points of the keep in units). For each number of dice
# kept only the best-scoring keep is an option: more points with the same dice left never hurt.
Options_ = tuple[tuple[int, int], ...]
Profiles = tuple[tuple[int, Options_], ...]


def _ways(key: Sequence[int]) -> int:
    """How many ordered tosses show the multiset `key`."""
    ways = factorial(len(key))
    for face in set(key):
        ways //= factorial(key.count(face))
    return ways


@cache
def _profiles(d: int, combo5: bool) -> tuple[Profiles, int, Profiles]:
    """(grouped tosses of d dice, ordered tosses that bust, the MUST BUST keep of each)."""
    grouped: dict[Options_, int] = {}
    forced: dict[Options_, int] = {}
    busts = 0
    for key in combinations_with_replacement(range(1, 7), d):
        ways = _ways(key)
        keeps = legal_keeps(key, combo5=combo5)
        if not keeps:
            busts += ways
            continue
        best: dict[int, int] = {}
        for kept, points in keeps:
            left = d - len(kept)
            best[left] = max(best.get(left, 0), points // UNIT)
        options = tuple(sorted(best.items()))
        grouped[options] = grouped.get(options, 0) + ways
        maximal, points = keeps[0]
        must = ((d - len(maximal), points // UNIT),)
        forced[must] = forced.get(must, 0) + ways
    return (
        tuple((ways, options) for options, ways in grouped.items()),
        busts,
        tuple((ways, options) for options, ways in forced.items()),
    )


def _toss(profiles: Profiles, total: int, rows: Sequence[Sequence[float]], i: int) -> float:
    """Expected value of tossing with `i` units at risk, then keeping the best option
    (`rows[left][i + units]` is worth having after a keep; a bust is worth 0)."""
    value = 0.0
    for ways, options in profiles:
        best = 0.0
        for left, units in options:
            v = rows[left][i + units]
            if v > best:
                best = v
        value += ways * best
    return value / total


@dataclass(frozen=True, slots=True)
class Odds:
    """The expected-value table of one set of options; every value is in points.

    `bonus[card][d][i]`: a BONUS card with `d` dice to toss and `i` units at risk, played well
    (stopping allowed for d < 6); `[0][i]` is a Fill's worth (bank or draw again). `fill_1000`
    likewise (no stopping). `double[d][i]`: a DOUBLE TROUBLE before its first Fill. `must_fill[d][s]`:
    a card that must be filled and then pays `s` units plus the points set aside (a Vengeance, or
    a DOUBLE TROUBLE's second round, which pays double). `draw[i]`: what turning over another card
    is worth with `i` units pending (i <= DRAW_TOP). `must_bust`: the points a MUST BUST adds on
    average. `bust[d]`: the chance that d dice bust, exactly.
    """

    combo5: bool
    must_bust_penalty: bool
    bust: tuple[Fraction, ...]
    bonus: dict[Card, tuple[tuple[float, ...], ...]]
    fill_1000: tuple[tuple[float, ...], ...]
    double: tuple[tuple[float, ...], ...]
    must_fill: tuple[tuple[float, ...], ...]
    draw: tuple[float, ...]
    must_bust: float
    card_worth: dict[Card, tuple[float, ...]]
    chances: Chances

    @property
    def fresh_card(self) -> float:
        """What turning over a card at the start of a turn (nothing pending) is worth."""
        return self.draw[0]

    def drawing(self, points: int) -> float:
        """What turning over another card with `points` pending is worth (a straight line beyond
        the table, where banking is always worth more)."""
        i = points // UNIT
        if i <= DRAW_TOP:
            return self.draw[i]
        return self.draw[DRAW_TOP] + (self.draw[DRAW_TOP] - self.draw[DRAW_TOP - 1]) * (i - DRAW_TOP)

    def drawing_from(self, cards: Mapping[Card, int] | None, points: int, vengeance: float | None = None) -> float:
        """What turning over the next card with `points` pending is worth when it comes from `cards`
        (how many of each kind the draw pile holds; None: the full deck's odds). A Vengeance is worth
        `vengeance` (None: the drawer would discard it and draw again)."""
        i = points // UNIT
        if cards is None or i > DRAW_TOP:
            return self.drawing(points)
        rest = count = 0.0
        for card, n in cards.items():
            if n > 0 and card is not Card.VENGEANCE_2500:
                rest += n * self.card_worth[card][i]
                count += n
        if not count:
            return self.drawing(points) if vengeance is None else vengeance
        rest /= count
        avenging = cards.get(Card.VENGEANCE_2500, 0)
        if vengeance is None or avenging <= 0:
            return rest  # a Vengeance the drawer must discard: the next card counts
        return (count * rest + avenging * max(vengeance, rest)) / (count + avenging)

    def must_filling(self, d: int, points: int) -> float:
        """A card that must be filled with `d` dice to toss, paying `points` plus what is set aside."""
        return self.must_fill[d][_clip(points // UNIT)] if points // UNIT <= TOP else _far(self, d, points)

    def after_keep(self, card: Card, fills: int, left: int, at_risk: int) -> float:
        """What the turn is worth after a keep that leaves `left` dice (0: a Fill) and `at_risk`
        points at risk under `card`, played well from there (a Vengeance's hit not counted)."""
        i = at_risk // UNIT
        if card is Card.DOUBLE_TROUBLE:
            if fills == 0 and left == 0:
                return 2 * self.must_filling(DICE, at_risk + self.half_fresh)
            if fills == 0:
                return self.double[left][_clip(i)] if i <= TOP else 0.0
            return 2 * self.must_filling(left, at_risk + self.half_fresh)
        if card is Card.VENGEANCE_2500:
            return self.must_filling(left, at_risk + max(0, round(self.fresh_card)))
        rows = self.fill_1000 if card is Card.FILL_1000 else self.bonus[card]
        if i <= TOP:
            return rows[left][i]
        if left == 0:
            return at_risk + card.fill_bonus
        return float(at_risk) if card.may_stop_early else _far(self, left, at_risk + card.fill_bonus)

    @property
    def half_fresh(self) -> int:
        """Half a fresh card's worth, rounded to the unit: a DOUBLE TROUBLE pays 2 x total and then a
        fresh card, i.e. 2 x (total + this)."""
        return UNIT * round(max(0.0, self.fresh_card) / 2 / UNIT)


def _far(table: Odds, d: int, points: int) -> float:
    """Beyond the table a must-fill card's worth is a straight line in the points."""
    top = table.must_fill[d]
    return top[TOP] + (top[TOP] - top[TOP - 1]) * (points // UNIT - TOP)


def _clip(i: int) -> int:
    return min(i, TOP + PAD - 1)


@cache
def _line(combo5: bool) -> list[tuple[float, float]]:
    """For a card that must be filled with a lot at risk: (chance to Fill, points of the Fill
    times that chance) by dice to toss, playing for the Fill first and the points second."""
    line: list[tuple[float, float]] = [(1.0, 0.0)]
    for d in range(1, DICE + 1):
        profiles, busts, _ = _profiles(d, combo5)
        total = 6**d
        q = c = 0.0
        for ways, options in profiles:
            best = max(
                ((line[left][0], line[left][0] * units * UNIT + line[left][1]) for left, units in options),
            )
            q += ways * best[0]
            c += ways * best[1]
        line.append((q / total, c / total))
    return line


def _build(combo5: bool, must_bust_penalty: bool, fresh_guess: float, *, chances: bool = True) -> Odds:
    width = TOP + PAD + 1
    profiles: list[tuple[Profiles, int, Profiles]] = [((), 0, ())]
    profiles += [_profiles(d, combo5) for d in range(1, DICE + 1)]
    totals = [6**d for d in range(DICE + 1)]
    line = _line(combo5)

    # A card that must be filled and pays s + the points set aside: no stopping, linear payoff.
    must: list[list[float]] = [[float(i * UNIT) for i in range(width)]]
    for d in range(1, DICE + 1):
        q, c = line[d]
        must.append([q * i * UNIT + c for i in range(width)])  # beyond TOP: the line
    for i in range(TOP, -1, -1):
        for d in range(1, DICE + 1):
            must[d][i] = _toss(profiles[d][0], totals[d], must, i)
    half_fresh = round(max(0.0, fresh_guess) / 2 / UNIT)

    # MUST BUST: forced keeps; its points are E[d] = a + b × E[6] (a Fill tosses six again).
    affine: list[tuple[float, float]] = [(0.0, 1.0)]  # left 0 = a Fill: E[6]
    for d in range(1, DICE + 1):
        _, _, forced = profiles[d]
        a = b = 0.0
        for ways, ((left, units),) in forced:
            a += ways * (units * UNIT + affine[left][0])
            b += ways * affine[left][1]
        affine.append((a / totals[d], b / totals[d]))
    a6, b6 = affine[DICE]
    must_bust = a6 / (1 - b6)
    # With the penalty the points of the card come off the sheet and the pending points are lost.

    bonus_cards = (Card.BONUS_300, Card.BONUS_400, Card.BONUS_500)
    draw = [0.0] * (width + 40)

    def stopping_rows(bonus_points: int, may_stop: bool) -> list[list[float]]:
        rows = [[float(i * UNIT + bonus_points) for i in range(width)]]
        for d in range(1, DICE + 1):
            if may_stop:
                rows.append([float(i * UNIT) for i in range(width)])
            else:
                q, c = line[d]
                rows.append([q * (i * UNIT + bonus_points) + c for i in range(width)])
        return rows

    bonus = {card: stopping_rows(card.fill_bonus, True) for card in bonus_cards}
    fill = stopping_rows(1000, False)
    double: list[list[float]] = [[2 * must[DICE][_clip(i + half_fresh)] for i in range(width)]]
    double += [[line[d][0] * line[DICE][0] * 2 * i * UNIT for i in range(width)] for d in range(1, DICE + 1)]
    deck: dict[Card, int] = {card: n for card, n in DECK_COMPOSITION.items() if card is not Card.VENGEANCE_2500}
    card_worth: dict[Card, list[float]] = {card: [0.0] * (DRAW_TOP + 1) for card in deck}
    cards = sum(deck.values())

    for i in range(TOP, -1, -1):
        for card in (*bonus_cards, Card.FILL_1000):
            rows = bonus[card] if card is not Card.FILL_1000 else fill
            filled = i * UNIT + card.fill_bonus
            j = i + card.fill_bonus // UNIT
            if j <= DRAW_TOP:
                rows[0][i] = max(filled, draw[j])
            for d in range(1, DICE + 1):
                if d == DICE and i > DRAW_TOP:
                    continue  # six dice under these cards only at the card's start
                tossing = _toss(profiles[d][0], totals[d], rows, i)
                may_stop = card is not Card.FILL_1000 and d < DICE
                rows[d][i] = max(tossing, i * UNIT) if may_stop else tossing
        for d in range(1, DICE + 1):
            if d == DICE and i > DRAW_TOP:
                continue
            double[d][i] = _toss(profiles[d][0], totals[d], double, i)
        if i <= DRAW_TOP:
            worth = {
                Card.NO_DICE: 0.0,
                Card.MUST_BUST: -must_bust if must_bust_penalty else i * UNIT + must_bust,
                Card.FILL_1000: fill[DICE][i],
                Card.DOUBLE_TROUBLE: double[DICE][i],
                **{card: bonus[card][DICE][i] for card in bonus_cards},
            }
            draw[i] = sum(n * worth[card] for card, n in deck.items()) / cards
            for card, value in worth.items():
                card_worth[card][i] = value

    banks = (
        _chances(profiles, line, {**bonus, Card.FILL_1000: fill}, double, must, draw, half_fresh, deck, must_bust_penalty)
        if chances
        else Chances({}, (), (), ())
    )
    return Odds(
        combo5=combo5,
        must_bust_penalty=must_bust_penalty,
        bust=tuple(Fraction(profiles[d][1], totals[d]) if d else Fraction(0) for d in range(DICE + 1)),
        bonus={card: tuple(map(tuple, rows)) for card, rows in bonus.items()},
        fill_1000=tuple(map(tuple, fill)),
        double=tuple(map(tuple, double)),
        must_fill=tuple(map(tuple, must)),
        draw=tuple(draw[: DRAW_TOP + 1]),
        must_bust=must_bust,
        card_worth={card: tuple(values) for card, values in card_worth.items()},
        chances=banks,
    )


@dataclass(frozen=True, slots=True)
class Chances:
    """The chance that a turn played by the `Odds` table's choices from a state banks something
    rather than busting (or losing its pending points to a NO DICE), the same shapes as the table:
    `cards[card][d][i]` for a BONUS card or FILL 1000 (`[0][i]`: a Fill), `double[d][i]`,
    `must_fill[d][i]` (the chance to Fill), `draw[i]` (another card with i units pending)."""

    cards: dict[Card, tuple[tuple[float, ...], ...]]
    double: tuple[tuple[float, ...], ...]
    must_fill: tuple[tuple[float, ...], ...]
    draw: tuple[float, ...]


def _toss_chance(
    profiles: Profiles, total: int, rows: Sequence[Sequence[float]], chance: Sequence[Sequence[float]], i: int
) -> float:
    """The chance of banking after tossing with `i` units at risk and keeping as `_toss` does."""
    p = 0.0
    for ways, options in profiles:
        best = 0.0
        best_p = 0.0
        for left, units in options:
            v = rows[left][i + units]
            if v > best:
                best = v
                best_p = chance[left][i + units]
        p += ways * best_p
    return p / total


def _chances(
    profiles: Sequence[tuple[Profiles, int, Profiles]],
    line: Sequence[tuple[float, float]],
    rows_of: Mapping[Card, Sequence[Sequence[float]]],
    double: Sequence[Sequence[float]],
    must: Sequence[Sequence[float]],
    draw: Sequence[float],
    half_fresh: int,
    deck: Mapping[Card, int],
    must_bust_penalty: bool,
) -> Chances:
    """The `Chances` of the choices `_build` made (it re-reads them from the values)."""
    width = TOP + PAD + 1
    totals = [6**d for d in range(DICE + 1)]
    p_must = [[1.0] * width] + [[line[d][0]] * width for d in range(1, DICE + 1)]
    for i in range(TOP, -1, -1):
        for d in range(1, DICE + 1):
            p_must[d][i] = _toss_chance(profiles[d][0], totals[d], must, p_must, i)
    p_cards: dict[Card, list[list[float]]] = {}
    for card in rows_of:
        stops = card is not Card.FILL_1000
        p_cards[card] = [[1.0] * width] + [[1.0 if stops else line[d][0]] * width for d in range(1, DICE + 1)]
    p_double = [[p_must[DICE][_clip(i + half_fresh)] for i in range(width)]]
    p_double += [[line[d][0] * line[DICE][0]] * width for d in range(1, DICE + 1)]
    p_draw = [0.0] * (DRAW_TOP + 1)
    cards = sum(deck.values())
    for i in range(TOP, -1, -1):
        for card, rows in rows_of.items():
            chance = p_cards[card]
            j = i + card.fill_bonus // UNIT
            if j <= DRAW_TOP and rows[0][i] > i * UNIT + card.fill_bonus:
                chance[0][i] = p_draw[j]
            for d in range(1, DICE + 1):
                if d == DICE and i > DRAW_TOP:
                    continue
                if card is Card.FILL_1000 or d == DICE or rows[d][i] > i * UNIT:
                    chance[d][i] = _toss_chance(profiles[d][0], totals[d], rows, chance, i)
        for d in range(1, DICE + 1):
            if d == DICE and i > DRAW_TOP:
                continue
            p_double[d][i] = _toss_chance(profiles[d][0], totals[d], double, p_double, i)
        if i <= DRAW_TOP:
            worth = {
                Card.NO_DICE: 0.0,
                Card.MUST_BUST: 0.0 if must_bust_penalty else 1.0,
                Card.DOUBLE_TROUBLE: p_double[DICE][i],
                **{card: p_cards[card][DICE][i] for card in rows_of},
            }
            p_draw[i] = sum(n * worth[card] for card, n in deck.items()) / cards
    return Chances(
        cards={card: tuple(map(tuple, rows)) for card, rows in p_cards.items()},
        double=tuple(map(tuple, p_double)),
        must_fill=tuple(map(tuple, p_must)),
        draw=tuple(p_draw),
    )


@cache
def odds(combo5: bool = False, must_bust_penalty: bool = False) -> Odds:
    """The table for these options, built on first use and kept. A fresh card's worth feeds
    back into the table (after a DOUBLE TROUBLE the turn goes on with nothing at risk), so it is
    built twice: once with a guess, once with the first build's figure."""
    first = _build(combo5, must_bust_penalty, fresh_guess=400.0, chances=False)
    return _build(combo5, must_bust_penalty, fresh_guess=first.fresh_card)


# --- the levels ------------------------------------------------------------------------------------


def choose_move(table: FillOrBustTable, seat: int, level: str, rng: random.Random) -> dict[str, Any]:
    """The move a bot of `level` makes for `seat`: one of `table.legal_moves(seat)`.

    UnknownLevel for a level not in `LEVELS`; NotYourTurn (an IllegalMove) when `seat` is not on
    the move or the game is over. `rng` only breaks ties (and is every choice of the easy bot).
    """
    check_level(level)
    table.check_turn(seat)
    moves = table.legal_moves(seat)
    if level == "easy":
        return dice.choice(rng, moves)
    action = choose_action(table.state, level, rng)
    wanted: dict[str, Any] = {"kind": action.kind.value}
    if action.kind is ActionKind.KEEP:
        wanted["dice"] = sorted(action.dice)
    for move in moves:
        if move == wanted:
            return move
    raise AssertionError(f"The {level} bot chose {wanted}, which is not among {moves}.")  # pragma: no cover


def check_level(level: object) -> str:
    if level not in LEVELS:
        raise UnknownLevel(Said(gettext_noop("There is no bot level %(level)s; the levels are %(list)s."), level=repr(level), list=', '.join(LEVELS)))
    return str(level)


def choose_action(game: Game, level: str, rng: random.Random) -> Action:
    """The engine `Action` a bot of `level` takes for the player whose turn it is (for callers
    that drive a `Game` directly, as the simulations do)."""
    check_level(level)
    legal = game.legal_actions()
    if not legal:
        raise table_game.NotYourTurn("The game is over.")
    if level == "easy":
        kind = dice.choice(rng, legal)
        if kind is ActionKind.KEEP:
            return Action(kind, dice.choice(rng, game.legal_keeps())[0])
        return Action(kind)
    if level == "threshold":
        return bot_decide(game, rng, style=DEFAULT_BOT)
    return _sharp(game, rng)


def _sharp(game: Game, rng: random.Random) -> Action:
    table = odds(game.options.combo5, game.options.must_bust_penalty)
    legal = game.legal_actions()
    match game.phase:
        case Phase.VENGEANCE:
            return Action(ActionKind.PLAY if _sharp_plays(game, table) else ActionKind.DECLINE)
        case Phase.KEEP:
            return Action(ActionKind.KEEP, _sharp_keep(game, table, rng))
        case Phase.TOSS:
            if ActionKind.STOP in legal and _sharp_stops(game, table):
                return Action(ActionKind.STOP)
            return Action(ActionKind.TOSS)
        case Phase.BANK_OR_CONTINUE:
            return Action(ActionKind.STOP if _sharp_stops(game, table) else ActionKind.CONTINUE)
        case Phase.END_OR_CONTINUE:
            return Action(ActionKind.CONTINUE if _sharp_goes_on(game, table) else ActionKind.END)
        case _:
            return Action(ActionKind.DRAW)


def _best_other(game: Game) -> int:
    return max(score for i, score in enumerate(game.sheet) if i != game.seat)


def _situation(game: Game, banked_now: int) -> bool | None:
    """What the score situation alone says about banking `banked_now` more points now: True (bank:
    it wins), False (don't: it cannot win a last turn), or None (let the odds decide)."""
    mine = game.sheet[game.seat] + banked_now
    if game.show_down_from is not None:
        return mine > _best_other(game)  # a last turn: only beating the top score counts
    if game.goal is not None and mine >= game.goal and not game.options.show_down:
        return True
    return None


def _pressed(game: Game) -> bool:
    """An opponent is so close to the goal that a bank short of it will hardly matter."""
    if game.goal is None or game.options.show_down:
        return False
    return game.goal - _best_other(game) <= PRESSED_WITHIN


PRESSED_WITHIN: Final = 600  # an opponent this close to the goal reaches it on most turns


def _sharp_stops(game: Game, table: Odds) -> bool:
    """STOP (under a BONUS card before a Fill, or BANK after one) or go on."""
    at_risk = game.at_risk
    verdict = _situation(game, at_risk)
    if verdict is not None:
        return verdict
    assert game.card is not None
    stakes = _stakes(game)
    i = at_risk // UNIT
    if stakes is not None and game.phase is Phase.BANK_OR_CONTINUE and i <= DRAW_TOP:
        return stakes(i) >= _draw_stakes(game, table, stakes, i)
    d = game.dice_to_toss
    if stakes is not None and game.phase is Phase.TOSS and i <= TOP and 0 < d < DICE:
        return stakes(i) >= _toss_stakes(game, table, stakes, i)
    if _pressed(game):
        return False
    if game.phase is Phase.BANK_OR_CONTINUE:
        return at_risk >= _drawing(game, table, at_risk)
    # Stopping is worth `at_risk`; the table's entry is the better of stopping and tossing.
    return table.after_keep(game.card, game.fills, game.dice_to_toss, at_risk) <= at_risk


def _sharp_goes_on(game: Game, table: Odds) -> bool:
    """After a DOUBLE TROUBLE or VENGEANCE bank (nothing at risk): another card?"""
    verdict = _situation(game, 0)
    if verdict is not None:
        return not verdict
    return table.fresh_card > 0


def _sharp_plays(game: Game, table: Odds) -> bool:
    """PLAY a Vengeance (or DECLINE it and draw again)."""
    declined = _drawing(game, table, game.pending)
    stakes = _stakes(game)
    i = game.pending // UNIT
    if stakes is None or i > DRAW_TOP:
        return _vengeance_worth(game, table) > declined
    hit = _stakes(game, hit=True)
    assert hit is not None
    j = _clip(i + round(max(0.0, table.fresh_card) / UNIT))
    filled = table.chances.must_fill[DICE][j]
    playing = filled * hit.outcome(table.must_fill[DICE][j] / filled) + (1 - filled) * stakes(0)
    return playing > stakes.lottery(declined, table.chances.draw[i])


def _toss_stakes(game: Game, table: Odds, stakes: Stakes, i: int) -> float:
    """The chance to win when tossing the dice left under a BONUS or FILL 1000 card with `i` units
    at risk: each toss kept as best for the chance to win (see `_Look`)."""
    assert game.card is not None
    return _Look(game, table, stakes, game.card).tossing(game.dice_to_toss, i)


class _Look:
    """A look one toss ahead under a BONUS or FILL 1000 card, by the chance to win: the toss's
    outcomes are exact, and each is kept as best for the chance to win; after the keep, banking is
    read from the win-probability table, and playing on from the `Odds` table: a state worth V
    points that banks with chance p (`Chances`) is taken as banking V / p with chance p
    (`Stakes.lottery`); another card, as a lottery for each kind of card left (`_draw_stakes`)."""

    def __init__(self, game: Game, table: Odds, stakes: Stakes, card: Card) -> None:
        self.game, self.table, self.stakes, self.card = game, table, stakes, card
        self.drawn: dict[int, float] = {}

    def tossing(self, d: int, i: int) -> float:
        """The chance to win when tossing `d` dice with `i` units at risk (a bust banks nothing)."""
        profiles, busts, _ = _profiles(d, self.table.combo5)
        value = busts * self.stakes(0)
        for ways, options in profiles:
            value += ways * max(self.kept(left, i + units) for left, units in options)
        return value / 6**d

    def kept(self, left: int, j: int) -> float:
        """The chance to win after a keep that leaves `left` dice and `j` units at risk: the better
        of banking now (where the card allows it) and playing on."""
        card, stakes, table = self.card, self.stakes, self.table
        if left == 0:
            j += card.fill_bonus // UNIT
            banked = stakes(j)
            if banked >= 1.0 or j > DRAW_TOP:
                return banked
            if j not in self.drawn:
                self.drawn[j] = _draw_stakes(self.game, table, stakes, j)
            return max(banked, self.drawn[j])
        stop = stakes(j) if card.may_stop_early else 0.0
        if stop >= 1.0 or j > TOP:
            return max(stop, stakes.lottery(table.after_keep(card, 0, left, j * UNIT), 0.5))
        rows = table.fill_1000 if card is Card.FILL_1000 else table.bonus[card]
        return max(stop, stakes.lottery(rows[left][j], table.chances.cards[card][left][j]))



def _draw_stakes(game: Game, table: Odds, stakes: Stakes, i: int) -> float:
    """The chance to win when turning over another card with `i` units pending (i <= DRAW_TOP),
    each kind of card taken as its own lottery, from the cards left."""
    cards = remaining_cards(game) or dict(DECK_COMPOSITION)
    chances = table.chances
    total = value = 0.0
    for card, n in cards.items():
        if n <= 0 or card is Card.VENGEANCE_2500:
            continue
        if card is Card.DOUBLE_TROUBLE:
            chance = chances.double[DICE][i]
        elif card is Card.MUST_BUST:
            chance = 0.0 if table.must_bust_penalty else 1.0
        elif card is Card.NO_DICE:
            chance = 0.0
        else:
            chance = chances.cards[card][DICE][i]
        value += n * stakes.lottery(table.card_worth[card][i], chance)
        total += n
    if not total:
        return stakes.lottery(table.draw[i], chances.draw[i])
    return value / total


@dataclass(frozen=True, slots=True)
class Stakes:
    """The chance to win a two-player game to a goal, as a function of what this turn banks: read
    from the win-probability table (`_wins`), the other player's score being `theirs` (after a
    Vengeance's hit, when counting one) and this player's `mine`, both in units."""

    wins: tuple[tuple[float, ...], ...]
    mine: int
    theirs: int

    def __call__(self, units: float) -> float:
        """The chance to win after banking `units` (a fraction of a unit read between two)."""
        goal = len(self.wins)
        x = self.mine + units
        if x >= goal:
            return 1.0
        low = int(x)
        row = self.wins[self.theirs]
        value = 1.0 - row[low]
        if x > low:
            high = 1.0 if low + 1 >= goal else 1.0 - row[low + 1]
            value += (x - low) * (high - value)
        return value

    def outcome(self, points: float) -> float:
        return self(points / UNIT)

    def lottery(self, worth: float, chance: float) -> float:
        """A turn worth `worth` points on average, banking with `chance` (else nothing), taken as
        banking `worth / chance` with that chance."""
        if chance <= 1e-9:
            return self(0)
        return chance * self.outcome(worth / chance) + (1 - chance) * self(0)


def _stakes(game: Game, *, hit: bool = False) -> Stakes | None:
    """The win-probability view of a two-player game to a goal (no show down); None otherwise, and
    the bot plays by points. `hit`: the other player's score after a Vengeance's hit."""
    goal = game.goal
    if goal is None or game.options.show_down or len(game.seats) != 2 or not 0 < goal <= CAP * UNIT:
        return None
    theirs = _best_other(game)
    if hit:
        theirs = max(0, theirs - game.options.vengeance)
    units = -(-goal // UNIT)
    mine, theirs = game.sheet[game.seat] // UNIT, theirs // UNIT
    if mine >= units or theirs >= units:
        return None
    return Stakes(_wins(units, game.options.vengeance // UNIT), mine, theirs)


@cache
def _wins(goal: int, penalty: int) -> tuple[tuple[float, ...], ...]:
    """`[m][o]`: the chance that a player with m units, about to play a turn, wins a two-player game
    to `goal` units against a player with o units, a Vengeance's hit taking `penalty` units. Each
    turn yields what `GAINS` says for a player who leads alone at its start, or not: a player who
    needs n units wins on the turn when it could have banked n, else banks what it banked.

    Solved in order of the two scores' total, downwards (a turn never lowers it but by a hit), twice:
    the second time a hit reads the first time's figure."""
    turns = (_Turns(False), _Turns(True))
    wins = [[0.0] * goal for _ in range(goal)]
    for _ in range(2):
        for both in range(2 * goal - 2, -1, -1):
            for m in range(max(0, both - goal + 1), min(goal - 1, both) + 1):
                o = both - m
                if m <= o:
                    wins[m][o], wins[o][m] = _pair(wins, turns, goal, penalty, m, o)
    return tuple(map(tuple, wins))


class _Turns:
    """What a turn yields (from `GAINS`) for a player who leads alone at its start, or not: the chance
    it could bank at least n units (`reached[n]`), and, when it could not, the chance it banked g
    without hitting the other player (`short[n][g]`) or with a hit (`hits[n]`: (g, chance) pairs)."""

    def __init__(self, led: bool) -> None:
        rows = [(hit, reach, gain, n) for lead, hit, reach, gain, n in GAINS if lead == led]
        total = float(sum(n for *_, n in rows))
        self.reached = [0.0] * (CAP + 2)
        for _, reach, _, n in rows:
            for k in range(reach + 1):
                self.reached[k] += n / total
        self.short: list[list[float]] = [[]]
        self.onward: list[tuple[float, ...]] = [()]  # short[n][1:]
        self.banked: list[float] = [0.0]  # reached[n] + sum(onward[n])
        self.hits: list[list[tuple[int, float]]] = [[]]
        rest = [0.0] * (CAP + 1)
        hits: dict[int, float] = {}
        for need in range(1, CAP + 1):
            for hit, reach, gain, n in rows:
                if reach == need - 1:
                    if hit:
                        hits[gain] = hits.get(gain, 0.0) + n / total
                    else:
                        rest[gain] += n / total
            self.short.append(rest[:need])
            self.onward.append(tuple(rest[1:need]))
            self.banked.append(self.reached[need] + sum(rest[1:need]))
            self.hits.append(sorted(hits.items()))


def _pair(
    wins: Sequence[Sequence[float]], turns: Sequence[_Turns], goal: int, penalty: int, m: int, o: int
) -> tuple[float, float]:
    """W[m][o] and W[o][m] together: a turn that banks nothing hands the same two scores over."""

    def known(me: int, other: int) -> tuple[float, float]:
        odds_of = turns[me > other]
        need = goal - me
        value = odds_of.banked[need] - sum(map(mul, odds_of.onward[need], islice(wins[other], me + 1, None)))
        hit = wins[max(0, other - penalty)]
        value += sum(p * (1.0 - hit[me + gain]) for gain, p in odds_of.hits[need])
        return value, odds_of.short[need][0]

    a, c = known(m, o)
    if m == o:
        x = (a + c) / (1 + c)
        return x, x
    b, d = known(o, m)
    x = (a + c - c * b - c * d) / (1 - c * d)
    return x, b + d * (1 - x)


def _vengeance_worth(game: Game, table: Odds) -> float:
    """Playing the Vengeance: fill it, bank, hit the targets and go on with a fresh card. A hit is
    worth what it takes off each target, shared among the other players."""
    return table.after_keep(Card.VENGEANCE_2500, 0, DICE, game.pending + _hit(game))


def remaining_cards(game: Game) -> dict[Card, int] | None:
    """How many cards of each kind the next draw comes from, as every player at the table knows
    it: the full deck less the cards turned over since the last shuffle (the discards and the card
    in play), or the whole deck when the draw pile is empty (the next draw reshuffles). Never the
    draw pile's order, nor its contents read directly. None for a game without a deck (the cards
    are named by the players: the full deck's odds)."""
    deck = game.deck
    if deck is None:
        return None
    counts = dict(DECK_COMPOSITION)
    if not deck.draw_pile:
        return counts
    for card in (*deck.discards, *((game.card,) if game.card is not None else ())):
        counts[card] -= 1
    return counts


def _drawing(game: Game, table: Odds, points: int) -> float:
    """What turning over another card with `points` pending is worth now, by the cards left."""
    board = _leaders(game)
    if board == (game.seat,):
        vengeance = None  # the sole leader discards a Vengeance
    else:
        targets = tuple(game.seats[i] for i in board if i != game.seat)
        vengeance = table.after_keep(Card.VENGEANCE_2500, 0, DICE, points + _hit(game, targets))
    return table.drawing_from(remaining_cards(game), points, vengeance)


def _leaders(game: Game) -> tuple[int, ...]:
    top = max(game.sheet)
    return tuple(i for i, score in enumerate(game.sheet) if score == top)


def _hit(game: Game, targets: Sequence[str] | None = None) -> int:
    """What a Vengeance's hit is worth to the drawer: the points it takes off each target (at most
    what they have), shared among the other players; in points."""
    penalty = game.options.vengeance
    targets = game.targets if targets is None else targets
    hit = sum(min(game.sheet[game.seats.index(name)], penalty) for name in targets)
    hit //= len(game.seats) - 1
    return hit - hit % UNIT


def _sharp_keep(game: Game, table: Odds, rng: random.Random) -> tuple[int, ...]:
    keeps = game.legal_keeps()
    assert game.last_toss is not None and game.card is not None and keeps
    if len(keeps) == 1:
        return keeps[0][0]
    card = game.card
    thrown = len(game.last_toss)
    hit = _hit(game) if card is Card.VENGEANCE_2500 else 0

    def worth(kept: tuple[int, ...], points: int) -> float:
        left = thrown - len(kept)
        at_risk = game.at_risk + points
        banks_now = left == 0 and (card is Card.VENGEANCE_2500 or (card is Card.DOUBLE_TROUBLE and game.fills))
        may_bank = banks_now or (left == 0 and card.fill_bonus) or (left > 0 and card.may_stop_early)
        if may_bank:
            bank = 2 * at_risk if card is Card.DOUBLE_TROUBLE else at_risk + (card.fill_bonus if left == 0 else 0)
            if _situation(game, bank) is True:
                return WIN + left  # a bank that wins; with dice left it can wait
        if left == 0 and card.fill_bonus:
            filled = at_risk + card.fill_bonus  # a Fill: bank it, or draw from the cards left
            return max(float(filled), _drawing(game, table, filled))
        return table.after_keep(card, game.fills, left, at_risk + hit)

    stakes = _stakes(game)
    if (
        stakes is not None
        and (card is Card.FILL_1000 or card in table.bonus)
        and game.at_risk // UNIT + max(points for _, points in keeps) // UNIT <= TOP
    ):
        look = _Look(game, table, stakes, card)

        def chance(kept: tuple[int, ...], points: int) -> float:
            left = thrown - len(kept)
            j = (game.at_risk + points) // UNIT
            assert stakes is not None
            return look.kept(left, j) + 1e-6 * left * (stakes(j) >= 1.0)

        values = [chance(kept, points) for kept, points in keeps]
    else:
        values = [worth(kept, points) for kept, points in keeps]
    top = max(values)
    return dice.choice(rng, [kept for (kept, _), v in zip(keeps, values, strict=True) if v >= top - 1e-9])


WIN: Final = 1e12

