"""The statements every move at a game table runs, in plain SQL (as games/night/taps.py does for a tap).

Building a statement through the ORM costs about half a millisecond on the development machine,
more than SQLite or PostgreSQL take to run it, and a move's answer is what every phone at the table
waits for (docs/DESIGN.md §7: a move to every phone within 1.2 times a Bunco tap). So a move's read
(`read_move`) and its write (`write_move`: the table, then the move's row with its events through
the event log's one insert, live.log) are written out here in the common subset of SQLite and
PostgreSQL; everything else stays in the ORM.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime
from functools import cache
from typing import Any

from django.db import connection, models

from games.rules.table import TableGame
from games.table.models import Move, Table, TableSeat
from live.log import Row, Said, log_events

_MOVE = Move._meta.db_table
_TABLE = Table._meta.db_table
_SEAT = TableSeat._meta.db_table

_TABLE_FIELDS = tuple(Table._meta.concrete_fields)
# A phone's first read of the table leaves the game out: the action reads it under the table's lock.
_TABLE_FIELDS_BUT_GAME = tuple(field for field in _TABLE_FIELDS if field.attname != "state")
# What a move's answer and its checks need of the seats (the others load on first use, as with `.only()`).
_SEAT_FIELDS = tuple(field for field in TableSeat._meta.concrete_fields if field.attname in
                     {"id", "table_id", "number", "name", "bot_level", "claimed_by", "held_since", "held_before_bot"})
_MOVE_FIELDS = tuple(Move._meta.concrete_fields)

Converter = Callable[[Any, Any, Any], Any]


def _json() -> str:
    return "CAST(%s AS jsonb)" if connection.vendor == "postgresql" else "%s"


def _when(value: datetime | None) -> Any:
    return None if value is None else connection.ops.adapt_datetimefield_value(value)


def table_with_seats(code: str) -> Table | None:
    """The table `code` without its game, and its seats, read in one statement; the seats are kept
    as `table.seats.all()` (what `seats_data` lists). None when there is no such table."""
    sql = (f"SELECT {_columns('t', _TABLE_FIELDS_BUT_GAME)}, {_columns('s', _SEAT_FIELDS)} FROM {_TABLE} t "
           f"LEFT JOIN {_SEAT} s ON s.table_id = t.id WHERE t.code = %s ORDER BY s.number")
    with connection.cursor() as cursor:
        cursor.execute(sql, [code])
        rows = cursor.fetchall()
    if not rows:
        return None
    width = len(_TABLE_FIELDS_BUT_GAME)
    table = _from_row(Table, _TABLE_FIELDS_BUT_GAME, rows[0][:width])
    seats = [_from_row(TableSeat, _SEAT_FIELDS, row[width:]) for row in rows if row[width] is not None]
    for seat in seats:
        seat.table = table
    table._prefetched_objects_cache = {"seats": seats}  # type: ignore[attr-defined]  # Django's prefetch cache
    return table


def lock_table(pk: int) -> Table:
    """The table `pk`, all of it, its row locked until the transaction ends (PostgreSQL; SQLite's
    IMMEDIATE transactions already take turns)."""
    sql = f"SELECT {_columns('t', _TABLE_FIELDS)} FROM {_TABLE} t WHERE t.id = %s"
    if connection.features.has_select_for_update:
        sql += " FOR UPDATE"
    with connection.cursor() as cursor:
        cursor.execute(sql, [pk])
        row = cursor.fetchone()
    if row is None:
        raise Table.DoesNotExist(f"No table {pk}.")
    return _from_row(Table, _TABLE_FIELDS, row)


def move_with_key(table: Table, key: str) -> Move | None:
    """The move recorded at `table` with the idempotency key `key`, if any."""
    key_column = connection.ops.quote_name("key")
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {_columns('m', _MOVE_FIELDS)} FROM {_MOVE} m WHERE m.table_id = %s AND m.{key_column} = %s",
                       [table.pk, key])
        row = cursor.fetchone()
    return None if row is None else _move_at(table, row)


def _move_at(table: Table, row: Sequence[Any]) -> Move:
    """A move of `table` from its `_MOVE_FIELDS` columns as read."""
    move = _from_row(Move, _MOVE_FIELDS, row)
    move.table = table
    return move


def note_phone_heard(table: Table, phone: str, quiet_at: datetime) -> bool:
    """The seat `phone` holds at `table` (a person's, not a bot's), or the seat a bot keeps for it,
    counts as gone quiet (away) at `quiet_at`."""
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {_SEAT} SET quiet_at = %s WHERE table_id = %s AND ("
                       "(claimed_by = %s AND bot_level = %s) OR (held_before_bot = %s AND bot_level <> %s))",
                       [_when(quiet_at), table.pk, phone, "", phone, ""])
        return bool(cursor.rowcount)


def _columns(alias: str, fields: tuple[models.Field[Any, Any], ...]) -> str:
    return _quoted_columns(connection.vendor, alias, fields)


@cache
def _quoted_columns(vendor: str, alias: str, fields: tuple[models.Field[Any, Any], ...]) -> str:
    return ", ".join(f"{alias}.{connection.ops.quote_name(str(field.column))}" for field in fields)


def _from_row[M: models.Model](model: type[M], fields: Sequence[models.Field[Any, Any]], values: Sequence[Any]) -> M:
    """A model instance from a raw row of `fields`, each value converted as the ORM converts it
    (SQLite hands back datetimes and JSON as text); the model's other fields load on first use."""
    converted = []
    for value, (column, converters) in zip(values, _converters(connection.vendor, tuple(fields)), strict=True):
        for convert in converters:
            value = convert(value, column, connection)
        converted.append(value)
    return model.from_db(connection.alias, [field.attname for field in fields], converted)


@cache
def _converters(vendor: str, fields: tuple[models.Field[Any, Any], ...]) -> list[tuple[Any, list[Converter]]]:
    """Each field's column and its converters from the database's value, as the ORM's compiler
    finds them (by `vendor`: they are the backend's, and don't use the connection they came from)."""
    columns = [field.get_col(field.model._meta.db_table) for field in fields]
    return [(column, connection.ops.get_db_converters(column) + column.get_db_converters(connection))
            for column in columns]


def read_move(pk: int, key: str | None, *, holders: bool = False) -> tuple[Table, Move | None, dict[int, int]]:
    """A move's one locked read: the table `pk`, all of it (its game too), locked until the
    transaction ends (`lock_table`), the move its idempotency key `key` already recorded, if
    any (a retry), and with `holders` (a game of hidden hands) each seat a phone holds, by number,
    with its `held_since` (the holding its hand events are written for: live.streams.PrivateChannel).
    Two statements: the key's lookup (with the seats, when asked) follows the lock, so that under
    PostgreSQL's READ COMMITTED it sees a copy of this move, or a change of hands, that committed
    while this one waited."""
    table = lock_table(pk)
    if holders:
        done, held = _move_with_key_and_holders(table, key)
        return table, done, held
    return table, move_with_key(table, key) if key is not None else None, {}


def _move_with_key_and_holders(table: Table, key: str | None) -> tuple[Move | None, dict[int, int]]:
    """The move recorded at `table` with the key `key` (none for a keyless move) and the seats
    phones hold (number: held_since), in one statement: a row a seat, the move's columns on each."""
    key_column = connection.ops.quote_name("key")
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT s.number, s.claimed_by, s.bot_level, s.held_since, {_columns('m', _MOVE_FIELDS)} "
                       f"FROM {_SEAT} s LEFT JOIN {_MOVE} m ON m.table_id = s.table_id AND m.{key_column} = %s "
                       "WHERE s.table_id = %s", [key, table.pk])
        rows = cursor.fetchall()
    held = {number: held_since for number, claimed_by, bot_level, held_since, *_ in rows if claimed_by and not bot_level}
    found = next((row[4:] for row in rows if row[4] is not None), None)
    return (None if found is None else _move_at(table, found)), held


def write_move(table: Table, move: Move, game: TableGame, said: Sequence[Said],
               heard: tuple[str, datetime] | None = None) -> Move:
    """A move's one write: the table as the move left it (`save_table_after_move`; its game
    `game`, kept for the answer as `Table.stands_at` keeps it), the phone that sent it heard
    (`heard`: the phone and when it counts as quiet now, `note_phone_heard`), then the move's row
    and its events `said` by the event log's one insert (one statement on PostgreSQL), published
    together at commit. The same Move, with its id."""
    table._stored_game = (table.state, game)
    if heard is not None:
        note_phone_heard(table, *heard)
    save_table_after_move(table)
    j, key = _json(), connection.ops.quote_name("key")
    row = Row(f"INSERT INTO {_MOVE} (table_id, number, seat, move, chance, scores, by_bot, {key}, client, created_at) "
              f"VALUES (%s, %s, %s, {j}, {j}, {j}, %s, %s, %s, %s) RETURNING id",
              [move.table_id, move.number, move.seat, json.dumps(move.move), json.dumps(move.chance),
               json.dumps(move.scores), move.by_bot, move.key, move.client, _when(move.created_at)])
    log_events(said, row=row, together=[])
    move.id = row.id
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
