"""Season standings, derived from the nights' records every time (never stored running totals).

Pure, standard library only: the club's views read the records of a season's counting nights from
the database and hand them here as plain `Line`s.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Line:
    """One player's sheet of one night."""

    night: object  # anything that tells nights apart (a party id)
    name: str
    wins: int
    losses: int
    buncos: int
    prize_cents: int = 0


@dataclass(frozen=True)
class Standing:
    name: str
    nights: int
    wins: int
    losses: int
    buncos: int
    prize_cents: int

    @property
    def prize_dollars(self) -> str:
        return f"{self.prize_cents / 100:.2f}"

    @property
    def win_share(self) -> float:
        played = self.wins + self.losses
        return self.wins / played if played else 0.0


def season_standings(lines: Iterable[Line]) -> list[Standing]:
    """Each player's nights played, wins, losses, Buncos and prize money summed over `lines`.

    Ordered by wins, then Buncos, then prize money (most first), then name; a night counts once
    per player even if a player had two lines in it (it never should)."""
    totals: dict[str, list[int]] = {}
    nights: dict[str, set[object]] = {}
    for line in lines:
        figures = totals.setdefault(line.name, [0, 0, 0, 0])
        figures[0] += line.wins
        figures[1] += line.losses
        figures[2] += line.buncos
        figures[3] += line.prize_cents
        nights.setdefault(line.name, set()).add(line.night)
    table = [
        Standing(name=name, nights=len(nights[name]), wins=wins, losses=losses, buncos=buncos, prize_cents=cents)
        for name, (wins, losses, buncos, cents) in totals.items()
    ]
    table.sort(key=lambda row: (-row.wins, -row.buncos, -row.prize_cents, row.name.casefold(), row.name))
    return table
