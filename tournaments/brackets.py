"""Fill or Bust tournament brackets (docs/RULES.md §1.7): groups, rankings, cuts and strikes.

Pure arithmetic on names and scores: no Django, no database, no clock. The models and actions of
the `tournaments` app call these functions with a round's final scores and store what they return.
Chance (a random grouping) comes only from `games.rules.dice` with a generator the caller passes in,
so a tournament can be replayed from its seed.

The shape of a tournament:

- every round splits the players still in into the fewest groups of 2-6, sizes differing by at most
  one (`group_sizes`, `random_groups`, `seeded_groups`), each group plays a timed game
  (`round_lengths`);
- single elimination: everyone is ranked by round score across groups and the top `ceil(n/2)` go
  through (`advance_count`, `cut`; 12 -> 6 -> 3 -> 2, `single_elimination_sizes`);
- double elimination: the lower half takes a strike, a second strike eliminates
  (`double_elimination`);
- players tied across the line play off, one turn each, repeated while tied (`resolve_cut`,
  `resolve_strikes` apply a play-off's scores to a result that still has `tied` players);
- the last two play a 15-minute face-off (`FACE_OFF`, `face_off_winner`).

`Cut` and `Strikes` are named tuples holding lists, so callers can write either
`advancing, eliminated, tied = cut(...)` or `cut(...).advancing`, and compare with plain lists.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import NamedTuple

from games.rules import dice, fill_or_bust
from games.rules.words import Said, gettext_noop

MIN_GROUP_SIZE = 2
MAX_GROUP_SIZE = 6
ROUND_MINUTES = range(20, 31)  # a round lasts 20-30 minutes, the director's choice
PER_PLAYER_MINUTES = range(5, 11)  # or 5-10 minutes per player when group sizes differ
FACE_OFF = timedelta(minutes=15)
MAX_STRIKES = 2  # a second strike eliminates


class Cut(NamedTuple):
    """A single-elimination cut. Every list is ordered by score, high first."""

    advancing: list[str]
    eliminated: list[str]
    tied: list[str]  # tied across the cut line: neither through nor out until they play off


class Strikes(NamedTuple):
    """One round of double elimination."""

    strikes: dict[str, int]  # every player of the round, strikes after it (2 = eliminated)
    eliminated: list[str]  # those eliminated by this round, best first
    tied: list[str]  # tied across the half line: no strike yet, they play off


# --- groups -------------------------------------------------------------------------------------


def group_sizes(n_players: int, *, max_size: int = MAX_GROUP_SIZE) -> list[int]:
    """The fewest groups of at most `max_size`, sizes differing by at most 1, largest first.

    The fewest groups is `ceil(n / max_size)`; spreading n over them as evenly as possible is the
    only way to keep sizes within one of each other. If even that leaves a group below 2 (odd n
    with max_size 2), no split exists.
    """
    _check_int(n_players, "the number of players")
    _check_int(max_size, "the largest group size")
    if max_size < MIN_GROUP_SIZE:
        raise ValueError(f"Groups must be allowed at least {MIN_GROUP_SIZE} players, not {max_size}.")
    if n_players < MIN_GROUP_SIZE:
        raise ValueError(f"A tournament round needs at least {MIN_GROUP_SIZE} players, not {n_players}.")
    groups = -(-n_players // max_size)
    base, bigger = divmod(n_players, groups)
    if base < MIN_GROUP_SIZE:
        raise ValueError(
            f"{n_players} players cannot be split into groups of {MIN_GROUP_SIZE} to {max_size} "
            "with sizes differing by at most one: a group of 1 would be left."
        )
    return [base + 1] * bigger + [base] * (groups - bigger)


def random_groups(
    players: Sequence[str], rng: random.Random, *, max_size: int = MAX_GROUP_SIZE
) -> list[list[str]]:
    """Players drawn into groups at random (`rng` from `games.rules.dice`), largest groups first."""
    names = _check_names(players)
    return _chunk(dice.shuffled(rng, names), group_sizes(len(names), max_size=max_size))


def seeded_groups(ranking: Sequence[str], *, max_size: int = MAX_GROUP_SIZE) -> list[list[str]]:
    """Players dealt into groups in snake order by a ranking (best first).

    Snake order (1 2 3 3 2 1 1 2 3 ...) gives every group a similar spread of strength: the best
    and the worst seeds land together. A group that is already full (the smaller groups, at the
    end) is skipped, so the sizes are exactly those of `group_sizes`.
    """
    names = _check_names(ranking)
    sizes = group_sizes(len(names), max_size=max_size)
    groups: list[list[str]] = [[] for _ in sizes]
    forward = list(range(len(sizes)))
    backward = forward[::-1]
    # A plain loop is clearer than index arithmetic once full groups are skipped.
    placed = 0
    going_forward = True
    while placed < len(names):
        for g in forward if going_forward else backward:
            if placed < len(names) and len(groups[g]) < sizes[g]:
                groups[g].append(names[placed])
                placed += 1
        going_forward = not going_forward
    return groups


def round_lengths(
    sizes: Sequence[int], *, minutes: int | None = None, per_player: int | None = None
) -> list[timedelta]:
    """How long each group's round lasts, in group order.

    Either one length for every group (`minutes`, 20-30, the director's choice), or, when group
    sizes differ, `per_player` minutes (5-10) for each player, so a group of 6 plays longer than a
    group of 5 and everyone gets about the same number of turns.
    """
    if not sizes:
        raise ValueError("There are no groups to time.")
    for size in sizes:
        _check_int(size, "a group size")
        if size < MIN_GROUP_SIZE:
            raise ValueError(f"A group needs at least {MIN_GROUP_SIZE} players, not {size}.")
    if (minutes is None) == (per_player is None):
        raise ValueError("Give either minutes for the round or minutes per player, not both or neither.")
    if minutes is not None:
        _check_int(minutes, "the round length")
        if minutes not in ROUND_MINUTES:
            raise ValueError(
                f"A round lasts {ROUND_MINUTES.start} to {ROUND_MINUTES.stop - 1} minutes, not {minutes}."
            )
        return [timedelta(minutes=minutes)] * len(sizes)
    assert per_player is not None
    _check_int(per_player, "the minutes per player")
    if per_player not in PER_PLAYER_MINUTES:
        raise ValueError(
            f"Timing per player allows {PER_PLAYER_MINUTES.start} to {PER_PLAYER_MINUTES.stop - 1} "
            f"minutes a player, not {per_player}."
        )
    if len(set(sizes)) == 1:
        raise ValueError(
            "Minutes per player are for groups of different sizes; these groups are all the same size, "
            "so give the round one length."
        )
    return [timedelta(minutes=per_player * size) for size in sizes]


# --- single elimination --------------------------------------------------------------------------


def advance_count(n_players: int) -> int:
    """How many go through a single-elimination round: ceil(n/2), at least 2."""
    _check_int(n_players, "the number of players")
    if n_players < 3:
        raise ValueError(
            f"A single-elimination round needs at least 3 players, not {n_players}: two players play the face-off."
        )
    return max(2, math.ceil(n_players / 2))


def single_elimination_sizes(n_players: int) -> list[int]:
    """The number of players in each round, ending with the 2 of the face-off: 12 -> [12, 6, 3, 2]."""
    _check_int(n_players, "the number of players")
    if n_players < 2:
        raise ValueError(f"A tournament needs at least 2 players, not {n_players}.")
    sizes = [n_players]
    while sizes[-1] > 2:
        sizes.append(advance_count(sizes[-1]))
    return sizes


def rank(scores: Mapping[str, int]) -> list[str]:
    """Names by score, high first; equal scores keep the input order (a stable sort)."""
    _check_scores(scores)
    return sorted(scores, key=lambda name: -scores[name])


def cut(scores: Mapping[str, int], advance: int) -> Cut:
    """The top `advance` go through; players tied across the cut line need a play-off."""
    _check_scores(scores)
    _check_int(advance, "the number advancing")
    if not 1 <= advance < len(scores):
        raise ValueError(
            f"Between 1 and {len(scores) - 1} of {len(scores)} players can advance, not {advance}."
        )
    above, tied, below = _split_at(_score_groups(scores), advance)
    return Cut(above, below, tied)


def resolve_cut(result: Cut, playoff: Mapping[str, int], advance: int) -> Cut:
    """Apply a play-off among `result.tied` to a cut of `advance` players.

    `advance` is the number the original cut let through. The play-off decides only the places
    still open: its winners join `advancing`, its losers go to the top of `eliminated` (they
    ranked above everyone who scored below the tie). If the play-off ties across the line again,
    those players are `tied` once more: play off again and call this with the new result.
    """
    tied = _check_playoff(result.tied, playoff)
    places = advance - len(result.advancing)
    if not 1 <= places < len(tied):
        raise ValueError(
            f"This cut lets {advance} through but already has {len(result.advancing)} advancing and "
            f"{len(tied)} tied: the numbers don't match."
        )
    above, still_tied, below = _split_at(_score_groups({name: playoff[name] for name in tied}), places)
    return Cut(list(result.advancing) + above, below + list(result.eliminated), still_tied)


def face_off_winner(scores: Mapping[str, int]) -> str | None:
    """The higher score of the two finalists, or None for a tie (they play off turn by turn)."""
    _check_scores(scores)
    if len(scores) != 2:
        raise ValueError(f"The face-off is between 2 players, not {len(scores)}.")
    result = cut(scores, 1)
    return result.advancing[0] if result.advancing else None


# --- double elimination --------------------------------------------------------------------------


def double_elimination(scores: Mapping[str, int], strikes: Mapping[str, int]) -> Strikes:
    """One round of double elimination.

    The lower half (`floor(n/2)` lowest scores) each take a strike and a second strike
    eliminates. Players tied across the half line take no strike yet (`tied`): they play off and
    `resolve_strikes` finishes the round. If the round would leave fewer than two players, the
    best of those it eliminates stay in with one strike (`reinstate_best`); only a round of two
    can need this, since the lower half of n >= 3 players never holds more than n - 2.

    `strikes` may leave out players with none and may hold players no longer in the tournament
    (they are ignored); a player of this round must have 0 or 1 strike.
    """
    _check_scores(scores)
    if len(scores) < 2:
        raise ValueError(f"A double-elimination round needs at least 2 players, not {len(scores)}.")
    before = _strikes_before(scores, strikes)
    due = len(scores) // 2
    _, tied, struck = _split_at(_score_groups(scores), len(scores) - due)
    return _apply_strikes(before, struck, [], tied)


def resolve_strikes(
    result: Strikes, playoff: Mapping[str, int], strikes_before: Mapping[str, int]
) -> Strikes:
    """Apply a play-off among `result.tied` to a double-elimination round.

    `strikes_before` is the `strikes` mapping the round started from (what was passed to
    `double_elimination`): comparing it with `result.strikes` tells how many strikes the round has
    handed out, hence how many of the tied players still take one. Repeat while tied.
    """
    tied = _check_playoff(result.tied, playoff)
    before = _strikes_before(result.strikes, strikes_before)
    for name, after in result.strikes.items():
        # A round gives each player at most one strike, and none yet to those tied.
        if after not in (before[name], before[name] + 1) or (name in tied and after != before[name]):
            raise ValueError(
                f"{name} has {after} strikes after the round but {before[name]} before it: "
                "pass the strikes the round started from."
            )
    due = len(result.strikes) // 2
    struck_so_far = [name for name in result.strikes if result.strikes[name] > before[name]]
    still_due = due - len(struck_so_far)
    if not 1 <= still_due < len(tied):
        raise ValueError(
            f"This round hands out {due} strikes and has given {len(struck_so_far)} with {len(tied)} "
            "players tied: the strikes don't match the round. Pass the strikes the round started from."
        )
    groups = _score_groups({name: playoff[name] for name in tied})
    _, still_tied, struck = _split_at(groups, len(tied) - still_due)
    # Strikes already given stay (the tied players have none from this round, checked above).
    return _apply_strikes(result.strikes, struck, list(result.eliminated), still_tied)


def reinstate_best(eliminated: Sequence[str], remaining: int, *, keep: int = 2) -> list[str]:
    """Those of `eliminated` (best first) who stay in so that at least `keep` players remain.

    "If a round would leave fewer than two players, the best of those eliminated stay in": a
    tournament always ends with two players in the face-off, never with one by default.
    """
    missing = max(0, keep - remaining)
    return list(eliminated[:missing])


# --- internals ------------------------------------------------------------------------------------


def _apply_strikes(
    current: Mapping[str, int], struck: Sequence[str], earlier_eliminated: Sequence[str], tied: Sequence[str]
) -> Strikes:
    """Give `struck` one strike each; eliminate those at two; keep at least two players in."""
    after = dict(current)
    for name in struck:
        after[name] += 1
    # Players struck out now ranked above those eliminated earlier in the same round.
    eliminated = [name for name in struck if after[name] >= MAX_STRIKES] + list(earlier_eliminated)
    for name in reinstate_best(eliminated, len(after) - len(eliminated)):
        after[name] = MAX_STRIKES - 1
        eliminated.remove(name)
    return Strikes(after, eliminated, list(tied))


def tied_tiers(names: Sequence[str], keys: Mapping[str, Sequence[int | None]]) -> list[list[str]]:
    """`names`, best first, in tiers of players tied with each other: neighbours with equal `keys`
    (a round's score, then each of its play-off scores) share a tier."""
    tiers: list[list[str]] = []
    for name in names:
        if tiers and list(keys[name]) == list(keys[tiers[-1][0]]):
            tiers[-1].append(name)
        else:
            tiers.append([name])
    return tiers


def final_places(tiers: Sequence[Sequence[str]]) -> dict[str, int]:
    """Final places from the players in tiers, best first, tied players in one tier: a tier's
    players share the place after everyone above them (1, 2, 3, 3, 5), standard competition
    ranking."""
    places: dict[str, int] = {}
    for tier in tiers:
        place = len(places) + 1
        for name in tier:
            if name in places:
                raise ValueError(f"{name} is placed twice.")
            places[name] = place
    return places


def _score_groups(scores: Mapping[str, int]) -> list[list[str]]:
    """Names grouped by equal score, best group first, input order within a group."""
    groups: list[list[str]] = []
    last: int | None = None
    for name in rank(scores):
        if groups and scores[name] == last:
            groups[-1].append(name)
        else:
            groups.append([name])
            last = scores[name]
    return groups


def _split_at(groups: Sequence[Sequence[str]], line: int) -> tuple[list[str], list[str], list[str]]:
    """Split ranked groups at `line` places from the top: (above, tied across the line, below)."""
    above: list[str] = []
    tied: list[str] = []
    below: list[str] = []
    seen = 0
    for group in groups:
        if seen + len(group) <= line:
            above.extend(group)
        elif seen >= line:
            below.extend(group)
        else:
            tied.extend(group)
        seen += len(group)
    return above, tied, below


def _chunk(names: Sequence[str], sizes: Sequence[int]) -> list[list[str]]:
    groups = []
    start = 0
    for size in sizes:
        groups.append(list(names[start : start + size]))
        start += size
    return groups


def _strikes_before(players: Mapping[str, int], strikes: Mapping[str, int]) -> dict[str, int]:
    before = {}
    for name in players:
        count = strikes.get(name, 0)
        _check_int(count, f"{name}'s strikes")
        if not 0 <= count < MAX_STRIKES:
            raise ValueError(
                f"{name} has {count} strikes: a player in the round must have 0 or 1 "
                f"({MAX_STRIKES} strikes means eliminated)."
            )
        before[name] = count
    return before


def _check_playoff(tied: Sequence[str], playoff: Mapping[str, int]) -> list[str]:
    if not tied:
        raise ValueError(Said(gettext_noop("Nobody is tied: there is no play-off to apply.")))
    _check_scores(playoff)
    missing = [name for name in tied if name not in playoff]
    extra = [name for name in playoff if name not in tied]
    if missing or extra:
        problems = []
        if missing:
            problems.append(", ".join(map(str, missing)))
        if extra:
            problems.append(", ".join(map(str, extra)))
        if missing and extra:
            raise ValueError(Said(gettext_noop("The play-off must score exactly the tied players: no play-off score "
                                               "for %(missing)s; %(extra)s did not play off."),
                                  missing=problems[0], extra=problems[1]))
        if missing:
            raise ValueError(Said(gettext_noop("The play-off must score exactly the tied players: no play-off score "
                                               "for %(missing)s."), missing=problems[0]))
        raise ValueError(Said(gettext_noop("The play-off must score exactly the tied players: %(extra)s did not "
                                           "play off."), extra=problems[0]))
    return list(tied)


def _check_scores(scores: Mapping[str, int]) -> None:
    if not scores:
        raise ValueError(Said(gettext_noop("There are no scores.")))
    for name, score in scores.items():
        if type(score) is not int:
            raise ValueError(Said(gettext_noop("%(name)s's score must be a whole number, not %(score)r."),
                                  name=name, score=score))


def _check_names(players: Sequence[str]) -> list[str]:
    names = list(players)
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ValueError(Said(gettext_noop("%(name)s is listed twice."), name=name))
        seen.add(name)
    return names


def _check_int(value: object, what: str) -> None:
    # bool is an int subclass; True players is a mistake, not 1.
    if type(value) is not int:
        raise ValueError(f"{what.capitalize()} must be a whole number, not {value!r}.")


# --- a group's scoresheet (docs/RULES.md §1.4, as a tournament group enters it) ----------------------


def vengeance_targets(scores: Mapping[str, int], drawer: str) -> list[str]:
    """Who loses the Vengeance penalty when `drawer` plays one, from the scoresheet as it stood
    when the card was drawn (the engine's rule: `fill_or_bust.vengeance_targets`). ValueError for
    a sole leader, who must discard the card."""
    _check_scores(scores)
    if drawer not in scores:
        raise ValueError(Said(gettext_noop("%(name)s is not on this scoresheet."), name=drawer))
    if fill_or_bust.is_sole_leader(scores, drawer):
        raise ValueError(Said(gettext_noop("%(name)s leads alone: a sole leader discards a Vengeance and draws again."),
                              name=drawer))
    return list(fill_or_bust.vengeance_targets(scores, drawer))


def apply_turn(
    scores: Mapping[str, int],
    player: str,
    points: int,
    *,
    vengeance: bool = False,
    penalty: int = fill_or_bust.VENGEANCE_PENALTY,
) -> dict[str, int]:
    """The scoresheet after one entered turn: `points` banked by `player` (0 for a bust, negative
    only for a Must Bust penalty), and, when a Vengeance was played, `penalty` off each target
    as the leaders stood before the turn. No score goes below 0. A Vengeance bites only when the
    turn fills (docs/RULES.md §1.4), so it banks points: a bust (0 or less) can't play one. The
    arithmetic is the engine's (`fill_or_bust.bank`); this checks what a director typed."""
    _check_scores(scores)
    _check_int(points, "the points")
    _check_int(penalty, "the Vengeance penalty")
    if vengeance and points <= 0:
        raise ValueError(Said(gettext_noop("A Vengeance bites only when the turn fills: a bust plays none. "
                                           "Untick “Played a Vengeance”, or enter the points banked.")))
    targets = vengeance_targets(scores, player) if vengeance else []
    if player not in scores:
        raise ValueError(Said(gettext_noop("%(name)s is not on this scoresheet."), name=player))
    return fill_or_bust.bank(scores, player, points, targets, penalty)


class TurnEntry(NamedTuple):
    player: str
    points: int
    vengeance: bool = False


def replay_turns(
    players: Sequence[str], turns: Sequence[TurnEntry], *, penalty: int = fill_or_bust.VENGEANCE_PENALTY
) -> dict[str, int]:
    """A group's scores from its entered turns, in order (every round starts from 0). A bust
    stored with a Vengeance ticked (entered before such turns were refused) hits nobody."""
    scores = dict.fromkeys(_check_names(players), 0)
    for turn in turns:
        vengeance = turn.vengeance and turn.points > 0
        scores = apply_turn(scores, turn.player, turn.points, vengeance=vengeance, penalty=penalty)
    return scores
