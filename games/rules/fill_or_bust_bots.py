"""Bots for Fill or Bust at a game table (RULES.md §1), at three levels.

Pure rules: the standard library and games.rules only; every random choice comes from the
generator passed in. The game table calls one function, `choose_move(table, seat, level, rng)`,
and gets back one of `table.legal_moves(seat)`.

- **easy** ("Easy: any legal move"): a legal move drawn at random. Its games still end: a random
  toss busts often enough, and a NO DICE card ends any turn.
- **threshold** ("Steady: stops at a threshold"): the engine's own `bot_decide` with `DEFAULT_BOT`.
- **strong** ("Sharp: plays the odds"): stops, tosses, banks or continues by expected points, read
  from an `Odds` table built once per set of options (lazily, cached here, deterministic, about a
  tenth of a second): for every card it can play, every number of dice left to toss and every
  amount at risk, what the turn is worth from there played well, and what drawing another card is
  worth with some points pending. Keeps are chosen by the same values, so it will set aside a
  single 1 out of `[1, 5, 2, 3, 4, 4]` to toss five dice rather than the 1 and the 5 to toss four. On top of the table
  it plays the score situation: it banks the moment a bank reaches the goal, in a show down it plays
  on until it beats the top score (and stops then), it plays a Vengeance by what the hit is worth
  against what it risks, and when an opponent is close to the goal it presses on with a
  turn that cannot win the game.

The table counts points in units of 50 (every score in the game is a multiple of 50). It assumes
each card is drawn with the odds of the full deck, a Vengeance being drawn again (the generic
table does not know who leads).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations_with_replacement
from math import factorial
from typing import TYPE_CHECKING, Any, Final

from games.rules import dice
from games.rules import table as table_game
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

if TYPE_CHECKING:
    import random  # only the type: every generator is passed in

__all__ = [
    "LEVELS",
    "LEVEL_LABELS",
    "Odds",
    "UnknownLevel",
    "choose_action",
    "choose_move",
    "odds",
]

LEVELS: Final = ("easy", "threshold", "strong")
LEVEL_LABELS: Final = {
    "easy": "Easy: any legal move",
    "threshold": "Steady: stops at a threshold",
    "strong": "Sharp: plays the odds",
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


def _build(combo5: bool, must_bust_penalty: bool, fresh_guess: float) -> Odds:
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
    deck = {card: n for card, n in DECK_COMPOSITION.items() if card is not Card.VENGEANCE_2500}
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
    )


@cache
def odds(combo5: bool = False, must_bust_penalty: bool = False) -> Odds:
    """The table for these options, built on first use and kept. A fresh card's worth feeds
    back into the table (after a DOUBLE TROUBLE the turn goes on with nothing at risk), so it is
    built twice: once with a guess, once with the first build's figure."""
    first = _build(combo5, must_bust_penalty, fresh_guess=400.0)
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
        raise UnknownLevel(f"There is no bot level {level!r}; the levels are {', '.join(LEVELS)}.")
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
            play = ActionKind.PLAY if _vengeance_worth(game, table) > table.drawing(game.pending) else ActionKind.DECLINE
            return Action(play)
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
    if _pressed(game):
        return False
    assert game.card is not None
    if game.phase is Phase.BANK_OR_CONTINUE:
        return at_risk >= table.drawing(at_risk)
    # Stopping is worth `at_risk`; the table's entry is the better of stopping and tossing.
    return table.after_keep(game.card, game.fills, game.dice_to_toss, at_risk) <= at_risk


def _sharp_goes_on(game: Game, table: Odds) -> bool:
    """After a DOUBLE TROUBLE or VENGEANCE bank (nothing at risk): another card?"""
    verdict = _situation(game, 0)
    if verdict is not None:
        return not verdict
    return table.fresh_card > 0


def _vengeance_worth(game: Game, table: Odds) -> float:
    """Playing the Vengeance: fill it, bank, hit the targets and go on with a fresh card. A hit is
    worth what it takes off each target, shared among the other players."""
    return table.after_keep(Card.VENGEANCE_2500, 0, DICE, game.pending + _hit(game))


def _hit(game: Game) -> int:
    """What a Vengeance's hit is worth to the drawer: the points it takes off each target (at most
    what they have), shared among the other players; in points."""
    penalty = game.options.vengeance
    hit = sum(min(game.sheet[game.seats.index(name)], penalty) for name in game.targets)
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
        return table.after_keep(card, game.fills, left, at_risk + hit)

    values = [worth(kept, points) for kept, points in keeps]
    top = max(values)
    return dice.choice(rng, [kept for (kept, _), v in zip(keeps, values, strict=True) if v >= top - 1e-9])


WIN: Final = 1e12
