"""Plays whole rounds of a tournament through its actions, for the projector's tests and
screenshots: every player one turn of seeded random points, then the round closed by the clock
(`close_round_if_due`), ties decided by the director in the order listed.

Simulated time runs from `base` (give one well in the future, so that a live server's clock
never closes these rounds on its own while they are being played)."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from tournaments import actions, deciding
from tournaments.models import Tournament, TournamentRound

POINTS = [0, 300, 450, 500, 650, 750, 900, 1000, 1250, 1500, 1750, 2000, 2350, 2500, 3000, 3550]


def play_round(tournament: Tournament, rng: random.Random, start: datetime) -> TournamentRound:
    """Start the next round at `start`, enter one turn for everyone, close and decide it."""
    round_ = actions.start_round(tournament, now=start)
    for group in round_.groups.order_by("number"):
        for index, player in enumerate(group.players()):
            actions.record_turn(group=group, entrant=player, points=rng.choice(POINTS) + 50 * index,
                                now=start + timedelta(minutes=1 + index))
    deciding.close_round_if_due(round_.ends_at + timedelta(minutes=10))
    round_.refresh_from_db()
    if round_.status == TournamentRound.Status.PLAY_OFF:
        by_name = {entrant.name: entrant for entrant in tournament.entrants.all()}
        actions.decide_tie(round_=round_, order=[by_name[name] for name in round_.tied()],
                           now=round_.ends_at + timedelta(minutes=11))
        round_.refresh_from_db()
    return round_


def play_rounds(tournament: Tournament, rounds: int, *, base: datetime, seed: int = 16) -> list[TournamentRound]:
    """`rounds` rounds one after the other (fewer if the tournament finishes first)."""
    rng = random.Random(seed)
    played = []
    for number in range(rounds):
        tournament.refresh_from_db()
        if tournament.status == Tournament.Status.FINISHED:
            break
        played.append(play_round(tournament, rng, base + timedelta(hours=number)))
    return played
