"""The tournament's check-in codes (issue 46): the rotating code on the projector and each player's
personal link, signed as the join links are (live.signing), each with its own salt.

The projector's code carries the tournament's code and a time step (`STEP_SECONDS` long): a phone
scanning it in the hall gets a code of this step or the one before; a code older than
`MAX_STEPS_OLD` steps (a photo sent home) is refused as expired, one signed for another tournament
or altered as not valid. It is undated for the signer: the step is its time, so a test or a
simulation reads it on a clock of its own. A player's personal link carries the tournament's code
and the player's id, lives as long as the tournament, and opens only that player's page.
"""

from __future__ import annotations

from datetime import datetime

from django.urls import reverse
from django.utils.translation import gettext, gettext_noop

from live import signing
from live.refusals import Refusal

CODE_SALT = "bunco-club.tournament-check-in"
PLAYER_SALT = "bunco-club.tournament-player"
STEP_SECONDS = 30  # the projector's code changes this often
MAX_STEPS_OLD = 2  # a code scanned this many steps later is still taken (the scan, a slow network)
# The name chosen after the scan: one step more for the phone's tap on it.
MAX_STEPS_OLD_TO_CHOOSE = MAX_STEPS_OLD + 1

INVALID = gettext_noop("This check-in code isn't valid. Scan the code on the projector again.")
EXPIRED = gettext_noop("This check-in code has expired: it changes every 30 seconds. Scan the code on the "
                       "projector again, in the hall.")
ANOTHER = gettext_noop("This check-in code is for another tournament. Scan the code on this tournament's projector.")
PLAYER_INVALID = gettext_noop("This player link isn't valid. Ask the director for yours.")


class BadCheckInCode(Refusal):
    """A check-in code or a player's link that was altered, is too old, or is another
    tournament's; the message says which, for people."""

    status = 403


def step_of(now: datetime) -> int:
    """The time step `now` falls in: the code on the projector changes with it."""
    return int(now.timestamp()) // STEP_SECONDS


def code_token(tournament_code: str, now: datetime) -> str:
    """The projector's check-in code at `now`."""
    return signing.sign({"t": tournament_code, "s": step_of(now)}, salt=CODE_SALT, dated=False)


def code_path(tournament_code: str, now: datetime) -> str:
    return reverse("tournaments:check_in_scan", args=[tournament_code, code_token(tournament_code, now)])


def read_code(token: str, tournament_code: str, now: datetime, *, steps: int = MAX_STEPS_OLD) -> int:
    """The step a check-in code of this tournament was made in, if it is at most `steps` steps
    old at `now`; BadCheckInCode otherwise (forged, another tournament's, expired, from the future)."""
    payload = signing.read_link(token, salt=CODE_SALT, dated=False,
                                refused=signing.Refused(invalid=lambda: BadCheckInCode(gettext(INVALID))))
    code = signing.text_field(payload, "t")
    step = payload.get("s") if isinstance(payload, dict) else None
    if code is None or type(step) is not int:
        raise BadCheckInCode(gettext(INVALID))
    if code != tournament_code:
        raise BadCheckInCode(gettext(ANOTHER))
    age = step_of(now) - step
    if age < -1:  # made ahead of this clock by more than a step: not one the projector showed
        raise BadCheckInCode(gettext(INVALID))
    if age > steps:
        raise BadCheckInCode(gettext(EXPIRED))
    return step


def player_token(tournament_code: str, entrant_id: int) -> str:
    return signing.sign({"t": tournament_code, "e": entrant_id}, salt=PLAYER_SALT, dated=False)


def player_path(tournament_code: str, entrant_id: int) -> str:
    return reverse("tournaments:player", args=[tournament_code, player_token(tournament_code, entrant_id)])


def read_player_token(token: str, tournament_code: str) -> int:
    """The id of the player a personal link of this tournament names; BadCheckInCode otherwise."""
    payload = signing.read_link(token, salt=PLAYER_SALT, dated=False,
                                refused=signing.Refused(invalid=lambda: BadCheckInCode(gettext(PLAYER_INVALID))))
    entrant_id = payload.get("e") if isinstance(payload, dict) else None
    if signing.text_field(payload, "t") != tournament_code or type(entrant_id) is not int:
        raise BadCheckInCode(gettext(PLAYER_INVALID))
    return entrant_id
