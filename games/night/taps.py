"""The night's taps: the statements every tap runs, in plain SQL.

A night of 400 players is some 55,000 taps, and a tap is a handful of statements that SQLite or
PostgreSQL answer in tens of microseconds each, while building the same statements through the
ORM costs about half a millisecond apiece on the development machine: a whole bot night through
the ORM took six times its one-minute budget. So the few statements every tap runs are written
out once here; everything that happens once a round (the bell, deciding tables, movement) stays
in the ORM. The SQL is the common subset of SQLite and PostgreSQL; rows come back as ordinary
model instances (`Model.from_db`), so the callers cannot tell the difference.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection

from games.night.models import (
    TOTALS,
    Night,
    Player,
    Round,
    Seat,
    TableRound,
    Tally,
    table_totals_sql,
    tally_counts_sql,
)
from live.models import Event

# Table names come from the models, so a renamed table cannot leave a statement behind.
_TALLY = Tally._meta.db_table
_TABLE = TableRound._meta.db_table
_ROUND = Round._meta.db_table
_NIGHT = Night._meta.db_table
_PLAYER = Player._meta.db_table
_SEAT = Seat._meta.db_table
_EVENT = Event._meta.db_table

_TABLE_COLUMNS = ("id", "round_id", "number", "status", "roll_off", "winner")
_ROUND_COLUMNS = ("id", "night_id", "number", "status", "started_at", "bell_rung_at", "closed_at")


# The night's columns a tap needs (no JSON or dates, which a raw cursor would hand back unparsed on
# SQLite); the others are deferred and load on first use, as with `.only()`.
_NIGHT_COLUMNS = ("id", "code", "title", "club_id", "party_id", "host_user_id", "host_key", "screen_token",
                  "buy_in_cents", "status", "current_round")
_PLAYER_COLUMNS = ("id", "night_id", "name", "member_id")


@dataclass(frozen=True)
class PhoneSeat:
    """Who a phone plays as, in which night, and the table they sit at in its current round."""

    night: Night
    player: Player
    table_number: int | None  # None: not seated in the current round


def phone_seat(player_id: int, code: str, phone: str) -> PhoneSeat | None:
    """The player a phone claimed (never a ghost) in the night `code`, with their current table;
    None unless the phone (its session's token, `phone`) still holds the seat (`Player.claimed_by`).

    One statement instead of the three ORM lookups a page makes: this runs on every tap.
    """
    night_fields = ", ".join(f"n.{name}" for name in _NIGHT_COLUMNS)
    player_fields = ", ".join(f"p.{name}" for name in _PLAYER_COLUMNS)
    sql = (
        f"SELECT {night_fields}, {player_fields}, t.number FROM {_PLAYER} p "
        f"JOIN {_NIGHT} n ON n.id = p.night_id "
        f"LEFT JOIN {_ROUND} r ON r.night_id = n.id AND r.number = n.current_round "
        f"LEFT JOIN {_SEAT} s ON s.round_id = r.id AND s.player_id = p.id "
        f"LEFT JOIN {_TABLE} t ON t.id = s.table_round_id "
        "WHERE p.id = %s AND n.code = %s AND p.is_ghost = %s AND p.claimed_by = %s"
    )
    row = _fetch_one(sql, [player_id, code, False, phone])
    if row is None:
        return None
    width = len(_NIGHT_COLUMNS)
    night = Night.from_db("default", _NIGHT_COLUMNS, row[:width])
    player = Player.from_db("default", (*_PLAYER_COLUMNS, "is_ghost"),
                            (*row[width:width + len(_PLAYER_COLUMNS)], False))
    player.night = night
    return PhoneSeat(night=night, player=player, table_number=row[-1])


def lock_table(night_id: int, round_number: int, table_number: int) -> TableRound | None:
    """The table of a round, its row locked until the transaction ends, with its round attached.

    PostgreSQL locks only the table's row (`FOR UPDATE OF`): taps at other tables don't wait.
    SQLite has no row locks; its IMMEDIATE transactions already take turns.
    """
    table_fields = ", ".join(f"t.{name}" for name in _TABLE_COLUMNS)
    round_fields = ", ".join(f"r.{name}" for name in _ROUND_COLUMNS)
    sql = (
        f"SELECT {table_fields}, {round_fields} FROM {_TABLE} t "
        f"JOIN {_ROUND} r ON r.id = t.round_id "
        "WHERE r.night_id = %s AND r.number = %s AND t.number = %s"
    )
    if connection.features.has_select_for_update_of:
        sql += " FOR UPDATE OF t"
    row = _fetch_one(sql, [night_id, round_number, table_number])
    if row is None:
        return None
    width = len(_TABLE_COLUMNS)
    table = TableRound.from_db("default", _TABLE_COLUMNS, row[:width])
    table.round = _round_from_row(row[width:])
    if table.status != TableRound.Status.PLAYING and table.round.status == Round.Status.PLAYING:
        # A stale round: the tap waited for this table's lock while the bell's transaction held it,
        # and PostgreSQL hands over the table's row as the bell left it (finishing) but the joined
        # round's as the statement first saw it (playing). The bell commits both together: read
        # the round again, as committed (a tap at a finishing table is taken, not refused as late).
        fresh = _fetch_one(f"SELECT {', '.join(_ROUND_COLUMNS)} FROM {_ROUND} WHERE id = %s", [table.round_id])
        assert fresh is not None  # the table's row, locked, keeps its round
        table.round = _round_from_row(fresh)
    return table


def _round_from_row(values: tuple[Any, ...]) -> Round:
    return Round.from_db("default", _ROUND_COLUMNS, [_from_db_datetime(value) if name.endswith("_at") else value
                                                     for name, value in zip(_ROUND_COLUMNS, values, strict=True)])


def insert_tally(values: dict[str, Any]) -> int | None:
    """Insert a tally; its id, or None when its key is already taken in the night (a retried tap)."""
    columns = list(values)
    placeholders = ", ".join(["%s"] * len(columns))
    sql = (
        f"INSERT INTO {_TALLY} ({', '.join(columns)}) VALUES ({placeholders}) "
        "ON CONFLICT (night_id, key) DO NOTHING RETURNING id"
    )
    row = _fetch_one(sql, [_to_db(value) for value in values.values()])
    return row[0] if row else None


_TOTALS_SELECT = table_totals_sql()  # a, b, ra, rb: the table's totals (games.night.models)
# On PostgreSQL the totals before the tap plus the new tally, where it counts toward each (the
# same conditions as _TOTALS_SELECT: games.night.models.tally_counts_sql).
_TOTALS_WITH_NEW = ", ".join(
    f"before.{column} + CASE WHEN {tally_counts_sql(column, tally='new.')} THEN new.points ELSE 0 END AS {column}"
    for column in TOTALS
)


@dataclass(frozen=True)
class RecordedTally:
    """A tally just inserted, the table's totals with it, and the event that tells the phones."""

    tally_id: int
    totals: dict[str, int]  # main play, {"A": …, "B": …}
    roll_off_totals: dict[str, int] | None  # the roll-off under way, when the table is in one
    event: Event


def insert_tally_and_event(
    values: dict[str, Any], *, channel: str, round_number: int, table_number: int, table_roll_off: int,
    in_roll_off: bool,
) -> RecordedTally | None:
    """Insert a tally (under its table's lock), derive the table's totals and log the "tally"
    event that carries them; None when the tally's key is already taken (a retried tap).

    On PostgreSQL one statement does all three: a tap is then one round trip between the table's
    lock and the commit, not three. (Its sub-statements share one snapshot, which does not hold
    the new row: the totals add it. The lock was taken by an earlier statement, so the snapshot
    holds every tally committed before it.) SQLite has no INSERT in a WITH: the tally, then the
    totals and the event in one INSERT … SELECT.
    """
    created_at = values["created_at"]
    roll_off = values["roll_off"]
    data: dict[str, Any] = {"round": round_number, "table": table_number, "roll_off": table_roll_off}
    if connection.vendor != "postgresql":
        tally_id = insert_tally(values)
        if tally_id is None:
            return None
        # The totals and the event in one statement, which now sees the new row: SQLite gives up
        # the GIL in every statement, and under load the writer holding the database's lock waits
        # for it again between statements while the other writers sleep.
        row = _fetch_one(
            f"INSERT INTO {_EVENT} (channel, kind, data, created_at) "
            "SELECT %(channel)s, 'tally', json_patch(%(event_data)s, CASE WHEN %(in_roll_off)s "
            "THEN json_object('a', a, 'b', b, 'ra', ra, 'rb', rb) ELSE json_object('a', a, 'b', b) END), "
            f"%(created_at)s FROM ({_TOTALS_SELECT}) RETURNING id, data",
            {"channel": channel, "event_data": json.dumps(data), "in_roll_off": in_roll_off,
             "created_at": _to_db(created_at), "roll_off": roll_off, "table_round_id": values["table_round_id"]},
        )
        assert row is not None  # an INSERT … SELECT of an aggregate inserts its one row
        event_id, stored = row
        data = json.loads(stored)
        totals = {"A": data["a"], "B": data["b"]}
        roll_off_totals = {"A": data["ra"], "B": data["rb"]} if in_roll_off else None
        event = Event(id=event_id, channel=channel, kind="tally", data=data, created_at=created_at)
        return RecordedTally(tally_id, totals, roll_off_totals, event)

    # Named parameters: the tally's own columns, then what the event needs.
    sql = f"""
        WITH new AS (
            INSERT INTO {_TALLY} ({", ".join(values)}) VALUES ({", ".join(f"%({name})s" for name in values)})
            ON CONFLICT (night_id, key) DO NOTHING
            RETURNING id, team, points, roll_off
        ), before AS (
            {_TOTALS_SELECT}
        ), after AS (
            SELECT new.id, {_TOTALS_WITH_NEW}
            FROM new, before
        ), event AS (
            INSERT INTO {_EVENT} (channel, kind, data, created_at)
            SELECT %(channel)s, 'tally', CAST(%(event_data)s AS jsonb) || CASE WHEN %(in_roll_off)s
                THEN jsonb_build_object('a', after.a, 'b', after.b, 'ra', after.ra, 'rb', after.rb)
                ELSE jsonb_build_object('a', after.a, 'b', after.b) END, %(created_at)s
            FROM after
            RETURNING id
        )
        SELECT after.id, after.a, after.b, after.ra, after.rb, event.id FROM after, event
    """
    params = {
        **{name: _to_db(value) for name, value in values.items()},
        "channel": channel, "event_data": json.dumps(data), "in_roll_off": in_roll_off,
    }
    row = _fetch_one(sql, params)
    if row is None:
        return None
    tally_id, a, b, ra, rb, event_id = row
    totals = {"A": int(a), "B": int(b)}
    roll_off_totals = {"A": int(ra), "B": int(rb)} if in_roll_off else None
    data.update(_totals_data(totals, roll_off_totals))
    event = Event(id=event_id, channel=channel, kind="tally", data=data, created_at=created_at)
    return RecordedTally(tally_id, totals, roll_off_totals, event)


def _totals_data(totals: dict[str, int], roll_off_totals: dict[str, int] | None) -> dict[str, int]:
    """The totals as the "tally" event carries them (games.night.renderers renders them)."""
    data = {"a": totals["A"], "b": totals["B"]}
    if roll_off_totals is not None:
        data.update(ra=roll_off_totals["A"], rb=roll_off_totals["B"])
    return data


def _fetch_one(sql: str, params: list[Any] | dict[str, Any]) -> tuple[Any, ...] | None:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def _to_db(value: Any) -> Any:
    if isinstance(value, datetime):
        return connection.ops.adapt_datetimefield_value(value)
    return value


def _from_db_datetime(value: Any) -> Any:
    """SQLite hands datetimes back as text through a raw cursor; the ORM would have parsed them."""
    if isinstance(value, str):
        from django.utils.dateparse import parse_datetime

        parsed = parse_datetime(value)
        if parsed is not None and parsed.tzinfo is None:
            from datetime import UTC

            parsed = parsed.replace(tzinfo=UTC)
        return parsed
    return value
