"""The prizes at the end of a Bunco night (docs/RULES.md §4.7), paid out of the pot in whole cents.

`allocate` is the contract entry point (docs/CONTRACT.md). Everything is derived from the
players' final sheets, the traveler's holder and an injected random generator, so the host can
re-run the allocation from the corrected record and get the same answer with the same seed.

Decisions the rule text leaves open, made here:
- Prizes are settled in the order of `PRIZES` (largest share first). That order only matters
  under the house rule "one prize each", where a player who already won is passed over and the
  best remaining player gets the prize; a traveler holder who already won leaves the Traveling
  money to the draw (the traveler is one person, there is no "next best").
- "Wins equal losses" is read literally, as the contract states it: a 0-0 sheet qualifies for
  the 50/50 (a real night gives every player 24 results, so this only matters for odd input).
- Under the house rule "split ties", a tied prize is shared in whole cents; the odd cents go
  one each to the tied players in sheet order (in whole dollars under "whole dollars").
- "Whole dollars" (PrizeRules.whole_dollars, what a club night starts with) rounds every prize
  down to a whole dollar and gives what is left over to the draw or to Most Buncos: nobody is
  handed coins at the end of the night. `allocate`'s own default stays whole cents (the contract).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from games.rules import dice
from games.rules.words import gettext_noop

PRIZES: tuple[str, ...] = ("most_buncos", "most_wins", "traveling", "fifty_fifty", "most_losses", "draw")
SHARES: dict[str, int] = {
    "most_buncos": 20,
    "most_wins": 15,
    "traveling": 10,
    "fifty_fifty": 8,
    "most_losses": 5,
    "draw": 2,
}
# What each prize is called where people read it (the prizes page, a club's past nights).
PRIZE_TITLES: dict[str, str] = {
    "most_buncos": gettext_noop("Most Buncos"),
    "most_wins": gettext_noop("Most Wins"),
    "traveling": gettext_noop("Traveling prize"),
    "fifty_fifty": gettext_noop("50/50"),
    "most_losses": gettext_noop("Most Losses"),
    "draw": gettext_noop("“At Least I’m Taking Something Home”"),
}
SHARE_DENOMINATOR = 60  # the official pot: 12 players x $5 = $60, shared 20/15/10/8/5/2


class PrizeError(ValueError):
    """Input that cannot be turned into prizes (a bad sheet, pot or traveler)."""


@dataclass(frozen=True)
class Sheet:
    """One real player's final figures for the night. Ghosts never have a sheet."""

    name: str
    wins: int
    losses: int
    buncos: int


@dataclass(frozen=True)
class Award:
    prize: str  # one of PRIZES
    name: str
    amount: int  # whole cents


@dataclass(frozen=True)
class PrizeRules:
    """House rules for prizes; the defaults are the official rules."""

    one_prize_each: bool = False  # a player who already won is passed over for later prizes
    split_ties: bool = False  # tied players share a prize instead of rolling off for it
    # Whole dollars: every prize is its share rounded down to a whole dollar, and what rounding
    # leaves over goes to `remainder_to` ("draw" or "most_buncos"); nobody is handed coins.
    whole_dollars: bool = False
    remainder_to: str = "draw"

    def __post_init__(self) -> None:
        if self.remainder_to not in REMAINDER_PRIZES:
            raise PrizeError(f"What rounding leaves over goes to the draw or to Most Buncos, not {self.remainder_to!r}.")


    @property
    def amounts(self) -> PrizeAmounts:
        """How these rules cut the pot, as a form offers it (the inverse of `PrizeAmounts.rules`)."""
        if not self.whole_dollars:
            return PrizeAmounts.CENTS
        return PrizeAmounts.DOLLARS_TO_MOST_BUNCOS if self.remainder_to == "most_buncos" else PrizeAmounts.DOLLARS_TO_DRAW


class PrizeAmounts(StrEnum):
    """The house rule "prize amounts" as a club and a night offer it: one choice standing for
    PrizeRules' `whole_dollars` and `remainder_to` together. The one list of values and labels:
    the club's model and forms and the night's form read it."""

    DOLLARS_TO_DRAW = "dollars_to_draw"
    DOLLARS_TO_MOST_BUNCOS = "dollars_to_most_buncos"
    CENTS = "cents"

    @property
    def label(self) -> str:
        return _PRIZE_AMOUNT_LABELS[self]

    def rules(self, *, one_prize_each: bool = False, split_ties: bool = False) -> PrizeRules:
        """The prize rules this choice stands for, with the other two house rules."""
        return PrizeRules(one_prize_each=one_prize_each, split_ties=split_ties,
                          whole_dollars=self is not PrizeAmounts.CENTS,
                          remainder_to="most_buncos" if self is PrizeAmounts.DOLLARS_TO_MOST_BUNCOS else "draw")


_PRIZE_AMOUNT_LABELS: dict[PrizeAmounts, str] = {
    PrizeAmounts.DOLLARS_TO_DRAW: gettext_noop("Whole dollars; the odd dollars go to the draw"),
    PrizeAmounts.DOLLARS_TO_MOST_BUNCOS: gettext_noop("Whole dollars; the odd dollars go to Most Buncos"),
    PrizeAmounts.CENTS: gettext_noop("Exact shares, to the cent (the official rules)"),
}
# The choice list a form or a model field offers: (value, label), in this order.
PRIZE_AMOUNTS: tuple[tuple[str, str], ...] = tuple((choice.value, choice.label) for choice in PrizeAmounts)
# What the two other prize house rules mean to a person, as every form labels them.
PRIZE_RULE_LABELS: dict[str, str] = {
    "one_prize_each": gettext_noop("One prize per player"),
    "split_ties": gettext_noop("Tied players share a prize instead of rolling off"),
}

REMAINDER_PRIZES = ("draw", "most_buncos")
OFFICIAL_PRIZE_RULES = PrizeRules()
# What a new night offers first (issue 9): whole-dollar prizes, the odd dollars to the draw.
CLUB_PRIZE_RULES = PrizeAmounts.DOLLARS_TO_DRAW.rules()
DOLLAR = 100  # cents


@dataclass(frozen=True)
class RollOff:
    """The outcome of a prize roll-off, with every throw, so the host screen can show it."""

    winner: str
    rounds: tuple[tuple[tuple[str, int], ...], ...]  # per round: (name, total of three dice)


def prize_amounts(pot: int, rules: PrizeRules = OFFICIAL_PRIZE_RULES) -> dict[str, int]:
    """Each prize's money in cents, always adding up to the pot exactly.

    Officially floor(pot * share / 60), and Most Buncos takes the rest. With whole dollars every
    prize is its share rounded down to a dollar, and the rest goes to `rules.remainder_to`."""
    _check_pot(pot)
    if not rules.whole_dollars:
        amounts = {prize: pot * SHARES[prize] // SHARE_DENOMINATOR for prize in PRIZES[1:]}
        return {"most_buncos": pot - sum(amounts.values()), **amounts}
    amounts = {prize: pot * SHARES[prize] // SHARE_DENOMINATOR // DOLLAR * DOLLAR for prize in PRIZES}
    amounts[rules.remainder_to] += pot - sum(amounts.values())
    return amounts


def roll_off(names: Sequence[str], rng: random.Random) -> RollOff:
    """Each player rolls three dice, highest total wins; those still tied roll again."""
    if not names:
        raise PrizeError("A roll-off needs at least one player.")
    if len(set(names)) != len(names):
        raise PrizeError("The same player cannot roll off against themselves.")
    tied = list(names)
    rounds: list[tuple[tuple[str, int], ...]] = []
    while len(tied) > 1:
        throws = tuple((name, sum(dice.roll(rng, 3))) for name in tied)
        rounds.append(throws)
        best = max(total for _, total in throws)
        tied = [name for name, total in throws if total == best]
    return RollOff(winner=tied[0], rounds=tuple(rounds))


@dataclass(frozen=True)
class Allocation:
    """The awards, and the throws of every roll-off that decided one (to show the dice)."""

    awards: list[Award]
    roll_offs: dict[str, tuple[tuple[tuple[str, int], ...], ...]]
    # The prizes nobody qualified for, each with the money it added to the draw (in PRIZES order).
    unclaimed: tuple[Award, ...] = ()


def allocate(
    sheets: Sequence[Sheet],
    *,
    pot: int,
    traveler: str | None,
    rng: random.Random,
    rules: PrizeRules = PrizeRules(),
) -> list[Award]:
    """The night's awards, in the order of PRIZES, the draw last.

    Officially there is exactly one Award per prize that is given (ties rolled off with `rng`),
    and a prize nobody qualifies for adds its money to the single "draw" award, so the amounts
    always add up to `pot`. The draw goes to a random player among those who won nothing else
    (everyone, if all did). With `rules.split_ties` a tied prize gives one Award per tied player.
    """
    return allocate_detailed(sheets, pot=pot, traveler=traveler, rng=rng, rules=rules).awards


def allocate_detailed(
    sheets: Sequence[Sheet],
    *,
    pot: int,
    traveler: str | None,
    rng: random.Random,
    rules: PrizeRules = PrizeRules(),
) -> Allocation:
    """`allocate`, keeping each roll-off's throws by prize for the end-of-night screen."""
    _check_pot(pot)
    players = _check_sheets(sheets)
    if traveler is not None and traveler not in {sheet.name for sheet in players}:
        raise PrizeError(f"The traveler's holder {traveler!r} has no sheet (ghosts cannot hold it).")

    amounts = prize_amounts(pot, rules)
    unit = DOLLAR if rules.whole_dollars else 1
    draw_amount = amounts["draw"]
    awards: list[Award] = []
    unclaimed: list[Award] = []
    roll_offs: dict[str, tuple[tuple[tuple[str, int], ...], ...]] = {}
    prize_winners: set[str] = set()
    for prize in PRIZES[:-1]:
        candidates = [s for s in players if not (rules.one_prize_each and s.name in prize_winners)]
        leaders = _leaders(prize, candidates, traveler)
        if not leaders:
            draw_amount += amounts[prize]  # nobody qualifies: the money goes to the draw
            unclaimed.append(Award(prize, "", amounts[prize]))
            continue
        if len(leaders) > 1 and not rules.split_ties:
            decided = roll_off(leaders, rng)
            roll_offs[prize] = decided.rounds
            leaders = [decided.winner]
        for name, amount in zip(leaders, _split(amounts[prize], len(leaders), unit), strict=True):
            awards.append(Award(prize, name, amount))
        prize_winners.update(leaders)

    pool = [s.name for s in players if s.name not in prize_winners] or [s.name for s in players]
    awards.append(Award("draw", dice.choice(rng, pool), draw_amount))
    return Allocation(awards=awards, roll_offs=roll_offs, unclaimed=tuple(unclaimed))


def _leaders(prize: str, candidates: Sequence[Sheet], traveler: str | None) -> list[str]:
    """The players tied at the top for `prize`, in sheet order; empty if nobody qualifies."""
    if prize == "traveling":
        return [s.name for s in candidates if s.name == traveler]
    if prize == "fifty_fifty":
        return [s.name for s in candidates if s.wins == s.losses]
    figure = {"most_buncos": "buncos", "most_wins": "wins", "most_losses": "losses"}[prize]
    best = max((getattr(s, figure) for s in candidates), default=0)
    if best == 0:  # a "most" prize needs at least one Bunco / win / loss
        return []
    return [s.name for s in candidates if getattr(s, figure) == best]


def _split(amount: int, ways: int, unit: int = 1) -> list[int]:
    """`amount` shared `ways` ways in whole `unit`s (cents, or dollars), the odd units one each to
    the first; cents below a unit go to the first share."""
    units, below = divmod(amount, unit)
    share, odd = divmod(units, ways)
    return [(share + (1 if i < odd else 0)) * unit + (below if i == 0 else 0) for i in range(ways)]


def _check_pot(pot: int) -> None:
    if type(pot) is not int or pot < 0:
        raise PrizeError(f"The pot must be a whole number of cents, 0 or more, not {pot!r}.")


def _check_sheets(sheets: Sequence[Sheet]) -> list[Sheet]:
    players = list(sheets)
    if not players:
        raise PrizeError("Prizes need at least one player's sheet.")
    seen: set[str] = set()
    for sheet in players:
        name = getattr(sheet, "name", None)
        if not isinstance(name, str) or not name:
            raise PrizeError(f"Every sheet needs a player's name, not {name!r}.")
        if name in seen:
            raise PrizeError(f"{name!r} has two sheets.")
        seen.add(name)
        for figure in ("wins", "losses", "buncos"):
            value = getattr(sheet, figure, None)
            if type(value) is not int or value < 0:
                raise PrizeError(f"{name!r}: {figure} must be a whole number, 0 or more, not {value!r}.")
    return players
