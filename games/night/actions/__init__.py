"""Workflows of live play: each is atomic, logs its events and publishes them after commit.

A Bunco night (docs/RULES.md §4): `start_night` seats everyone; the head table's `start_round` opens a
round; phones `record_tally`; a head-table team at 21 or a head-table Bunco rings the bell
(exactly once, by a conditional update); other tables `finish_turn`; ties `finish_roll_off`;
when every table has a winner the round closes and `move_players` seats the next one. After round
24 the night ends and `award_prizes` hands out the pot.

One module per part of the night: starting, seats, rounds, tallies (a tap, and what it leads to:
the engine's one answer, `bunco.after_tally`), corrections, ending. Errors are the refusals every
app shares (live.refusals: BadInput, NotYours, NotFound, NotNow, SeatTaken, KeyReused), by the
night's names for them where it has some (refusals.py: BadTally, NotYourTable, ...),
carrying the HTTP status a view should answer with; they change nothing.
"""

from __future__ import annotations

# The workflows, one module per part of the night, and their refusals (refusals.py), all named here
# so that `games.night.actions.<name>` is what callers and tests have always used.
from games.night.actions.corrections import (
    correct_tally,
    describe_correction,
    reopen_last_round,
    undo_tally,
)
from games.night.actions.ending import award_prizes, end_night, purge_abandoned_nights
from games.night.actions.refusals import (
    BadTally,
    KeyOfAnotherTable,
    NoSuchNight,
    NotYourTable,
    RoundClosed,
    StepAlreadyEnded,
    key_reused,
)
from games.night.actions.rounds import (
    finish_roll_off,
    finish_turn,
    move_players,
    resume_after_break,
    start_round,
)
from games.night.actions.seats import claim_seat, let_player_leave, release_seat, seat_late_arrival
from games.night.actions.starting import NAME_MAX, clean_names, start_night
from games.night.actions.tallies import MAX_CORRECTION, POINT_BUTTONS, record_tally
from live.refusals import KeyReused, NotNow, Refusal, SeatTaken

__all__ = [
    "MAX_CORRECTION", "NAME_MAX", "POINT_BUTTONS", "BadTally", "KeyOfAnotherTable", "KeyReused",
    "NoSuchNight", "NotNow", "NotYourTable", "Refusal", "RoundClosed", "SeatTaken", "StepAlreadyEnded",
    "award_prizes", "claim_seat", "clean_names", "correct_tally", "describe_correction", "end_night",
    "finish_roll_off", "finish_turn", "key_reused", "let_player_leave", "move_players", "purge_abandoned_nights",
    "record_tally", "release_seat", "reopen_last_round", "resume_after_break", "seat_late_arrival", "start_night",
    "start_round", "undo_tally",
]
