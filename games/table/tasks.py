"""The bots' clock: a bot moves by itself once its pause is over, with no phone open.

Embedded default: the in-process clock calls `move_bots_when_due` every second
(settings.CLOCK_TICKERS). Scaled: Celery beat runs `move_bots` on the same beat. Each call makes at
most one move per table whose bot is due, so people can follow the game; a late or doubled tick is
harmless (the move is made under the table's lock, and a bot no longer due is skipped).
"""

from __future__ import annotations

from datetime import datetime

from celery import shared_task
from django.db import transaction
from django.utils import timezone

from games.rules.table import IllegalMove
from games.table import actions, bots
from games.table.models import Move, Table


def play_bot_move(table: Table, *, now: datetime | None = None, waiting: bool = True) -> Move | None:
    """The move of the bot whose turn it is at `table`, if one is to move (and, with `waiting`, its
    pause is over); None otherwise."""
    with transaction.atomic():
        table = Table.objects.select_for_update().get(pk=table.pk)
        if table.status != Table.Status.PLAYING or table.bot_due_at is None:
            return None
        if waiting and table.bot_due_at > (now or timezone.now()):
            return None
        game = table.loaded()
        seats = {seat.number: seat for seat in table.seats.exclude(bot_level="")}
        to_move = [seat for seat in game.to_move() if seat in seats]
        if not to_move:
            return None
        seat = to_move[0]
        number = table.moves_made + 1
        try:
            move = bots.choose_move(game, seat, seats[seat].bot_level, bots.bot_rng(table.seed, number))
        except IllegalMove:
            return None
        return actions.make_move(table=table, seat=seat, move=move, by_bot=True)


def move_due_bots(now: datetime | None = None) -> int:
    """One move at every table whose bot is due; how many moves were made. First a bot takes every
    seat whose phone has gone quiet past its table's patience (actions.cover_quiet_seats), so that
    a seat on turn whose phone is asleep is played on the same beat."""
    now = now or timezone.now()
    actions.cover_quiet_seats(now)
    made = 0
    for table in Table.objects.bots_due(now).only("pk"):
        if play_bot_move(table, now=now) is not None:
            made += 1
    return made


def move_bots_when_due() -> None:
    """The in-process clock's ticker (one cheap indexed query when no bot is due)."""
    move_due_bots()


@shared_task(ignore_result=True)
def move_bots() -> int:
    """Beat's sweep in the scaled layout."""
    return move_due_bots()
