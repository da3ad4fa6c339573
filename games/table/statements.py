"""The statements every move at a game table runs, in plain SQL (as games/night/taps.py does for a tap).

Building a statement through the ORM costs about half a millisecond on the development machine,
more than SQLite or PostgreSQL take to run it, and a move's answer is what every phone at the table
waits for (DESIGN.md §7: a move to every phone within 1.2 times a Bunco tap). So the two writes
every move makes are written out here in the common subset of SQLite and PostgreSQL; everything
else stays in the ORM.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from django.db import connection

from games.table.models import Move, Table

_MOVE = Move._meta.db_table
_TABLE = Table._meta.db_table


def _json() -> str:
    return "CAST(%s AS jsonb)" if connection.vendor == "postgresql" else "%s"


def _when(value: datetime | None) -> Any:
    return None if value is None else connection.ops.adapt_datetimefield_value(value)


def insert_move(move: Move) -> Move:
    """Append `move` (its fields set, no id yet); the same Move, with its id."""
    j = _json()
    key = connection.ops.quote_name("key")
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {_MOVE} (table_id, number, seat, move, chance, scores, by_bot, {key}, client, created_at) "
            f"VALUES (%s, %s, %s, {j}, {j}, {j}, %s, %s, %s, %s) RETURNING id",
            [move.table_id, move.number, move.seat, json.dumps(move.move), json.dumps(move.chance),
             json.dumps(move.scores), move.by_bot, move.key, move.client, _when(move.created_at)],
        )
        (move.id,) = cursor.fetchone()
    move._state.adding = False
    return move


def save_table_after_move(table: Table) -> None:
    """Store what a move changes on its table: the game, the count, the bot's due time, the end."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {_TABLE} SET state = {_json()}, moves_made = %s, bot_due_at = %s, status = %s, ended_at = %s "
            "WHERE id = %s",
            [json.dumps(table.state), table.moves_made, _when(table.bot_due_at), table.status,
             _when(table.ended_at), table.pk],
        )
