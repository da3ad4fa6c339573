"""Starting a night: the names, the draw, round 1 seated."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from games.night.actions.refusals import BadTally
from games.night.models import (
    TITLE_MAX,
    Night,
    Player,
    Round,
    night_size_refusal,
)
from games.night.taps import seat_tables
from games.rules import bunco, dice, prizes
from live.log import log_event
from live.refusals import NotNow
from live.text import has_control_characters

NAME_MAX = Player._meta.get_field("name").max_length or 40  # what a Player's name column holds


def clean_names(raw_names: Sequence[str]) -> list[str]:
    """Trimmed, non-empty names, or BadTally for a name too long or on the list twice (in any
    letter case): the rule the start action, its form and the form's live hint all ask."""
    names = [" ".join(name.split()) for name in raw_names]
    names = [name for name in names if name]
    seen: set[str] = set()
    for name in names:
        if len(name) > NAME_MAX:
            raise BadTally(_("“%(name)s…” is too long for a name (%(most)s letters at most).")
                           % {"name": name[:NAME_MAX], "most": NAME_MAX})
        if has_control_characters(name):
            raise BadTally(_("A name holds a character that is not a letter, a digit or a sign (a control "
                             "character): type it again."))
        if name.casefold() in seen:
            raise BadTally(_("“%(name)s” is on the list twice: give one of them a surname or initial.") % {"name": name})
        seen.add(name.casefold())
    return names


@transaction.atomic
def start_night(
    *,
    names: Sequence[str],
    buy_in_cents: int = 500,
    rules: bunco.Rules = bunco.OFFICIAL,
    prize_rules: prizes.PrizeRules = prizes.OFFICIAL_PRIZE_RULES,
    title: str = "Bunco night",
    club: Any = None,
    party: Any = None,
    host_user: Any = None,
    members: dict[str, Any] | None = None,
    rng: random.Random | None = None,
) -> Night:
    """Create the night, draw the seating (stars at the head table, random teams) and seat round 1."""
    if party is not None:
        # One night per party (issue 16, C5): two starts at once take turns on the party's row.
        type(party).objects.select_for_update().filter(pk=party.pk).first()
        if Night.objects.filter(party=party).exists():
            raise NotNow(_("This party's night is started already: open it from the party's page."))
    title = " ".join(str(title).split()) or "Bunco night"
    if len(title) > TITLE_MAX:
        raise BadTally(_("A night's title is %(most)s letters at most, and this one has %(length)s: shorten it.")
                       % {"most": TITLE_MAX, "length": len(title)})
    players = clean_names(names)
    too_many = night_size_refusal(len(players))
    if too_many is not None:
        raise BadTally(too_many)
    try:
        draw = bunco.draw_seating(players, rng or dice.system_rng())
    except bunco.BuncoError as error:
        raise BadTally(error.args[0]) from error
    night = Night.objects.create(
        title=title,
        club=club,
        party=party,
        host_user=host_user if getattr(host_user, "is_authenticated", False) else None,
        buy_in_cents=buy_in_cents,
        rules=asdict(rules),
        prize_rules=asdict(prize_rules),
    )
    members = members or {}
    by_name = {
        player.name: player
        for player in Player.objects.bulk_create(
            [Player(night=night, name=name, member=members.get(name)) for name in players]
            + [Player(night=night, name=name, is_ghost=True) for name in draw.ghosts]
        )
    }
    round_one = Round.objects.create(night=night, number=1)
    seat_round(round_one, draw.seating(), by_name)
    log_event(night.channel, "state", {"round": 1, "what": "started"})
    return night


def seat_round(round_: Round, seating: list[list[str]], by_name: dict[str, Player], *,
               teams: list[list[bunco.Team]] | None = None) -> None:
    """Create the round's tables and seats from a seating of names (table 0 = head); `teams`, the
    seats' teams when the caller has them from the engine (else `bunco.team_of_seat`); the write is
    `taps.seat_tables`, as the tap that closes a round seats the next."""
    teams = teams or [[bunco.team_of_seat(position) for position in range(len(names))] for names in seating]
    seat_tables(round_, seating, {name: player.pk for name, player in by_name.items()}, teams)
