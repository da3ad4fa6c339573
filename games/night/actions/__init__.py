"""Workflows of live play: each is atomic, logs its events and publishes them after commit.

A Bunco night (RULES.md §4): `start_night` seats everyone; the head table's `start_round` opens a
round; phones `record_tally`; a head-table team at 21 or a head-table Bunco rings the bell
(exactly once, by a conditional update); other tables `finish_turn`; ties `finish_roll_off`;
when every table has a winner the round closes and `move_players` seats the next one. After round
24 the night ends and `award_prizes` hands out the pot.

Errors are `NightError`s, or the refusals every app shares (live.refusals: NotNow, SeatTaken,
KeyReused), carrying the HTTP status a view should answer with; they change nothing.
"""

from __future__ import annotations

from live.refusals import KeyReused, NotNow, Refusal, SeatTaken

POINT_BUTTONS = (1, 2, 5)  # +1, +2, +5 ("baby bunco"); a Bunco is its own button
MAX_CORRECTION = 99


class NightError(Refusal):
    """A request the night cannot take; `status` is the HTTP answer, the message is for people."""

    status = 400


class BadTally(NightError):
    status = 400


class NotYourTable(NightError):
    status = 403


class RoundClosed(NotNow):
    """A tally after its table's round has closed (the bell, a finished turn): told apart from any
    other refusal by the tallies' concurrency proof."""


class StepAlreadyEnded(NotNow):
    """A request to end a step (start a round, finish a turn, end a roll-off, resume after the
    break, end the night) naming a step that has already ended: a double tap, a second phone at
    the table, a late retry. Nothing changes; a view answers with the current state, no error."""


class KeyOfAnotherTable(NightError):
    """A tap's key already recorded at another table: never answered with that table's totals."""

    status = 409


def key_reused(what: str) -> KeyReused:
    """A request's idempotency key already used for a request with other content (another team,
    other points, a tap where an undo was sent, another player arriving...): refused, never taken
    for a retry of the first, which would answer with what the first did and drop this one."""
    return KeyReused(f"That {what} was sent with the key of an earlier, different one: nothing was changed. "
                     "Reload the page and do it again.")


class NoSuchNight(NightError):
    """A request for a night that does not exist (deleted, or a mistyped link)."""

    status = 404


# The workflows, one module per part of the night; imported here, after the errors they raise, so
# that `games.night.actions.<name>` is what callers and tests have always used.
from games.night.actions.corrections import (  # noqa: E402
    correct_tally,
    describe_correction,
    reopen_last_round,
    undo_tally,
)
from games.night.actions.ending import award_prizes, end_night, purge_abandoned_nights  # noqa: E402
from games.night.actions.rounds import (  # noqa: E402
    finish_roll_off,
    finish_turn,
    move_players,
    resume_after_break,
    start_round,
)
from games.night.actions.seats import claim_seat, let_player_leave, release_seat, seat_late_arrival  # noqa: E402
from games.night.actions.starting import NAME_MAX, clean_names, start_night  # noqa: E402
from games.night.actions.tallies import record_tally  # noqa: E402

__all__ = [
    "MAX_CORRECTION", "NAME_MAX", "POINT_BUTTONS", "BadTally", "KeyOfAnotherTable", "KeyReused", "NightError",
    "NoSuchNight", "NotNow", "NotYourTable", "Refusal", "RoundClosed", "SeatTaken", "StepAlreadyEnded",
    "award_prizes", "claim_seat", "clean_names", "correct_tally", "describe_correction", "end_night",
    "finish_roll_off", "finish_turn", "key_reused", "let_player_leave", "move_players", "purge_abandoned_nights",
    "record_tally", "release_seat", "reopen_last_round", "resume_after_break", "seat_late_arrival", "start_night",
    "start_round", "undo_tally",
]
