"""The night's taps: the statements every tap runs, in plain SQL.

A night of 400 players is some 55,000 taps, and a tap is a handful of statements that SQLite or
PostgreSQL answer in tens of microseconds each, while building the same statements through the
ORM costs about half a millisecond apiece on the development machine: a whole bot night through
the ORM took six times its one-minute budget. So the few statements every tap runs are written
out once here; what happens once a round (the bell, deciding tables, the round closed and the
next one seated) is written here too, through the ORM, so that the tap that leads to it is one
read, one write (the host's actions write a round's close and seats through the same functions).
The SQL is the common subset of SQLite and PostgreSQL; rows come back as ordinary
model instances (`Model.from_db`), so the callers cannot tell the difference.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from django.db import connection
from django.utils import timezone
from psycopg import IsolationLevel
from psycopg.pq import TransactionStatus

from games.night.models import (
    NIGHT_CHANNEL,
    Night,
    Player,
    Round,
    Seat,
    TableRound,
    Tally,
    table_totals_sql,
)
from games.rules import bunco
from live.log import Row, log_events
from live.models import Event

# Table names come from the models, so a renamed table cannot leave a statement behind.
_TALLY = Tally._meta.db_table
_TABLE = TableRound._meta.db_table
_ROUND = Round._meta.db_table
_NIGHT = Night._meta.db_table
_PLAYER = Player._meta.db_table
_SEAT = Seat._meta.db_table

_TABLE_COLUMNS = ("id", "round_id", "number", "status", "roll_off", "winner")
_ROUND_COLUMNS = ("id", "night_id", "number", "status", "started_at", "bell_rung_at", "closed_at")
_TALLY_COLUMNS = ("night_id", "table_round_id", "kind", "team", "points", "buncos", "bunco_player_id", "roll_off",
                  "entered_by_id", "by_host", "undoes_id", "key", "created_at")
_TOTALS_SELECT = table_totals_sql()  # a, b, ra, rb: the table's totals (games.night.models)


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


@dataclass(frozen=True)
class RoundRead:
    """A round read whole, as its close needs it: the engine's view of it (`bunco.RoundAtTap`) and
    the ids of the night's players by name (ghosts too), to seat the round after it."""

    round: bunco.RoundAtTap
    player_ids: dict[str, int]


@dataclass(frozen=True)
class TapScene:
    """What a tap finds at its table, read under the table's lock: the table (with its round), the
    engine's view of it, the ids of the seated players, whether the tap may close the round, and
    whether the tap's key is already taken in the night (a retried tap)."""

    table: TableRound
    at_tap: bunco.TableAtTap
    player_ids: dict[str, int]  # by name, the table's seated players (ghosts too)
    # Every other table of the round is decided and this one is not: a tally that decides it closes
    # the round, and the engine needs the round read whole (its seating).
    may_close_the_round: bool
    key_taken: bool
    closing: RoundRead | None = None  # the round read whole, when the tap may close it


def read_tap(night_id: int, round_number: int, table_number: int, key: str | None, *,
             begin: bool = False) -> TapScene | None:
    """The table a tap goes to, its row locked until the transaction ends, and all the engine needs
    to judge the tap, in one statement (`_lock_and_read`) when it proves it read everything
    committed before its lock; else, and in a roll-off (which locks the round's row too), the
    statements after the lock (`_lock_table`, `_read_at`). Three more when every other table of the
    round is decided: the round read whole (`read_round`), which the tally closes if it decides its
    table. None when the round has no such table. `begin`: this is the first statement of the
    caller's `atomic()` block: its BEGIN goes with it, in one round trip, when the block is the
    outermost (`_begin_with`).

    PostgreSQL locks only the table's row (`FOR UPDATE OF`): taps at other tables don't wait.
    SQLite has no row locks; its IMMEDIATE transactions already take turns, so the lock is the read.
    Under PostgreSQL's READ COMMITTED a statement sees what was committed when it began: a statement
    that waited for the lock would miss the tally of the tap it waited for, and so would one that
    did not wait but reached the row just after that tap committed. `_lock_and_read` tells.
    """
    found = _lock_and_read(night_id, round_number, table_number, key, begin=begin)
    if found is None:
        return None
    table, rows, current = found
    if not current:
        # The read may have missed a tap that held the lock: the table and its round again, then
        # the rest, each statement now after the lock (it is ours: nothing waits).
        again = _lock_table(night_id, round_number, table_number)
        assert again is not None  # a locked row stays
        table = again
    in_roll_off = table.status == TableRound.Status.ROLL_OFF
    if in_roll_off and connection.features.has_select_for_update:
        # A roll-off's tally may decide its table: the round's row too, as every action that decides
        # a table takes it (actions/rounds.py locked_table), so that of two tables deciding at once
        # the later sees the other decided below, and closes the round.
        _fetch_one(f"SELECT id FROM {_ROUND} WHERE id = %s FOR UPDATE", [table.round_id])
    if not current or (in_roll_off and connection.features.has_select_for_update):
        rows = _read_at(table, night_id, key)
    return _scene(table, rows, night_id, key)


# What a tap reads besides its table and round, one row per seat (one with NULL seat columns when
# the table has none): the seat, its player, the table's totals, how many other tables of the round
# are undecided, the night's rules, whether the tap's key is taken. `{table_round}`, `{round_id}`:
# SQL giving the table's and its round's ids; the totals' `{roll_off}` cycle likewise.
_READ_SELECT = (
    "s.position, s.team, p.id, p.name, p.is_ghost, totals.a, totals.b, totals.ra, totals.rb, "
    f"(SELECT COUNT(*) FROM {_TABLE} o WHERE o.round_id = {{round_id}} AND o.id <> {{table_round}} "
    "AND o.status <> %(done)s), "
    f"n.rules, (SELECT COUNT(*) FROM {_TALLY} k WHERE k.night_id = n.id AND k.key = %(key)s)"
)
_READ_FROM = (
    f"{_NIGHT} n CROSS JOIN ({{totals}}) totals "
    f"LEFT JOIN {_SEAT} s ON s.table_round_id = {{table_round}} "
    f"LEFT JOIN {_PLAYER} p ON p.id = s.player_id"
)


# The table's totals in `_lock_and_read`'s statement, its ids taken from the CTE `locked`.
_LOCKED_TOTALS = table_totals_sql(table_round="(SELECT t_id FROM locked)", roll_off="(SELECT read_roll_off FROM locked)")


def _read_at(table: TableRound, night_id: int, key: str | None) -> list[tuple[Any, ...]]:
    """What a tap reads at its table (`_READ_SELECT`), by a statement of its own after the lock."""
    sql = (f"SELECT {_READ_SELECT} FROM {_READ_FROM} WHERE n.id = %(night_id)s ORDER BY s.position"
           .format(round_id="%(round_id)s", table_round="%(table_round_id)s", totals=_TOTALS_SELECT))
    in_roll_off = table.status == TableRound.Status.ROLL_OFF
    params: dict[str, Any] = {"round_id": table.round_id, "table_round_id": table.pk, "done": TableRound.Status.DONE,
                              "key": key, "night_id": night_id, "roll_off": table.roll_off if in_roll_off else 0}
    return _fetch_all(sql, params)


def _lock_and_read_sql() -> str:
    """The table's row locked and everything a tap reads, in one statement: the lock in a CTE
    (`locked`: the table and its round), the read over it. Built once per database kind."""
    sql = _LOCK_AND_READ.get(connection.vendor)
    if sql is None:
        sql = _LOCK_AND_READ[connection.vendor] = _build_lock_and_read_sql(connection.vendor == "postgresql")
    return sql


_LOCK_AND_READ: dict[str, str] = {}


def _build_lock_and_read_sql(postgresql: bool) -> str:
    table_fields = ", ".join(f"t.{name} AS t_{name}" for name in _TABLE_COLUMNS)
    round_fields = ", ".join(f"r.{name} AS r_{name}" for name in _ROUND_COLUMNS)
    totals, read = _LOCKED_TOTALS, _READ_SELECT.format(round_id="locked.t_round_id", table_round="locked.t_id")
    # PostgreSQL: the statement's snapshot, one taken after the lock (the row's id ties the call to
    # the locked row, which the CTE hands over only once locked), and this transaction's id.
    proof = ", pg_current_snapshot()::text, bunco_snapshot_after(locked.t_id)::text, pg_current_xact_id()::text" \
        if postgresql else ""
    return (
        f"WITH locked AS {'MATERIALIZED ' if postgresql else ''}("
        f"SELECT {table_fields}, {round_fields}, "
        f"CASE WHEN t.status = %(roll_off_status)s THEN t.roll_off ELSE 0 END AS read_roll_off "
        f"FROM {_TABLE} t JOIN {_ROUND} r ON r.id = t.round_id "
        "WHERE r.night_id = %(night_id)s AND r.number = %(round_number)s AND t.number = %(table_number)s"
        f"{' FOR UPDATE OF t' if connection.features.has_select_for_update_of else ''}) "
        f"SELECT {', '.join(f't_{name}' for name in _TABLE_COLUMNS)}, "
        f"{', '.join(f'r_{name}' for name in _ROUND_COLUMNS)}, {read}{proof} "
        f"FROM locked CROSS JOIN {_READ_FROM.format(totals=totals, table_round='locked.t_id')} "
        "WHERE n.id = %(night_id)s ORDER BY s.position"
    )


def _lock_and_read(night_id: int, round_number: int, table_number: int, key: str | None, *,
                   begin: bool) -> tuple[TableRound, list[tuple[Any, ...]], bool] | None:
    """The table of a round locked, with its round attached, and what a tap reads at it
    (`_READ_SELECT`'s rows) in one statement; whether the read is proven to include everything
    committed before the lock. None when the round has no such table.

    Why the proof holds (PostgreSQL). Today's path reads by a statement after the lock, so its
    snapshot is taken after the lock is granted, and sees every transaction that held the lock
    before (a transaction ends, visibly to every later snapshot, before its locks go). Here, call L
    the moment this statement gets the lock and S its snapshot, taken when it began, before L: a
    holder of the lock that ended between S and L (the statement waited for it, or reached the row
    just after it committed) is unseen by S, and so are its tallies. F is a snapshot taken after L,
    by `bunco_snapshot_after`: a volatile PL/pgSQL function takes a fresh snapshot for each query it
    runs, and its argument, the locked row's id, comes out of the CTE only once the row is locked. A
    transaction is unseen by a snapshot when its id is at or past the snapshot's xmax or among its
    in-progress ids (xip). If every transaction unseen by S is unseen by F too (but ours, which
    takes its id at the lock and never counts itself in progress), no transaction ended between S
    and F: S sees what F sees, which is all that today's later statement would see. Otherwise (a
    transaction ended meanwhile, at this table or anywhere: the test is deliberately blunt) the
    read is not proven, and the caller reads again after the lock. EvalPlanQual, which hands the
    locked row over as last committed while the joined round stays as S saw it, only happens when
    a transaction that changed the row ended after S: not proven either. SQLite: the transaction
    took the database's write lock at BEGIN IMMEDIATE, so its every statement sees all committed.
    """
    params: dict[str, Any] = {"night_id": night_id, "round_number": round_number, "table_number": table_number,
                              "roll_off_status": TableRound.Status.ROLL_OFF, "done": TableRound.Status.DONE, "key": key}
    rows = _begin_with(_lock_and_read_sql(), params) if begin else _fetch_all(_lock_and_read_sql(), params)
    if not rows:
        return None
    first = rows[0]
    width, round_width = len(_TABLE_COLUMNS), len(_ROUND_COLUMNS)
    table = TableRound.from_db("default", _TABLE_COLUMNS, first[:width])
    table.round = _round_from_row(first[width:width + round_width])
    read_width = width + round_width + 12  # _READ_SELECT's columns
    current = True
    if connection.vendor == "postgresql":
        statement, after, ours = first[read_width:read_width + 3]
        current = snapshot_still_current(statement, after, int(ours))
    return table, [row[width + round_width:read_width] for row in rows], current


def snapshot_still_current(statement: str, after: str, ours: int) -> bool:
    """Whether every transaction unseen by the snapshot `statement` (PostgreSQL's text form,
    "xmin:xmax:xip,..."), but for `ours`, is unseen by the later snapshot `after` too: then nothing
    ended between the two, and `statement` saw all that `after` sees."""
    _xmin, s_xmax, s_xip = _snapshot(statement)
    _xmin, f_xmax, f_xip = _snapshot(after)
    unseen_then = s_xip | set(range(s_xmax, f_xmax))
    return unseen_then - {ours} <= f_xip


def _snapshot(text: str) -> tuple[int, int, set[int]]:
    xmin, xmax, xip = text.split(":")
    return int(xmin), int(xmax), {int(xid) for xid in xip.split(",") if xid}


def _scene(table: TableRound, rows: list[tuple[Any, ...]], night_id: int, key: str | None) -> TapScene:
    """The tap's scene from its table and what it read there (`_READ_SELECT`'s rows)."""
    *_seat, a, b, ra, rb, undecided, rules, taken = rows[0]  # the night's columns repeat on every row
    seated = [row for row in rows if row[2] is not None]
    at_tap = bunco.TableAtTap(
        number=table.number, round_number=table.round.number, round_phase=table.round.status, phase=table.status,
        roll_off=table.roll_off, seats=[bunco.SeatAtTap(name, team, bool(ghost))
                                        for _seat, team, _pk, name, ghost, *_rest in seated],
        totals={"A": int(a), "B": int(b)}, roll_off_totals={"A": int(ra), "B": int(rb)},
        rules=json.loads(rules) if isinstance(rules, str) else rules,
    )
    may_close = not undecided and table.status != TableRound.Status.DONE
    return TapScene(table=table, at_tap=at_tap, player_ids={name: pk for _s, _t, pk, name, *_rest in seated},
                    may_close_the_round=may_close, key_taken=bool(taken),
                    closing=read_round(night_id, table.round_id, table.round.number) if may_close and not taken else None)


def read_round(night_id: int, round_id: int, round_number: int) -> RoundRead:
    """The round as its close needs it, in three statements: its tables' winners and its seating,
    the night's players (which of them are ghosts), and the arrivals and departures the host already
    made in the round after it (a round seated again applies them again, `bunco.seat_changes_again`)."""
    sql = (
        f"SELECT t.number, t.winner, p.name FROM {_TABLE} t "
        f"LEFT JOIN {_SEAT} s ON s.table_round_id = t.id LEFT JOIN {_PLAYER} p ON p.id = s.player_id "
        "WHERE t.round_id = %s ORDER BY t.number, s.position"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [round_id])
        rows = cursor.fetchall()
        cursor.execute(f"SELECT id, name, is_ghost FROM {_PLAYER} WHERE night_id = %s", [night_id])
        players = cursor.fetchall()
    winners = {number: winner for number, winner, _name in rows}
    tables: dict[int, list[str]] = {}
    for number, _winner, name in rows:
        if name is not None:  # a table without seats is no table of the seating
            tables.setdefault(number, []).append(name)
    names = {pk: name for pk, name, _ghost in players}
    return RoundRead(
        round=bunco.RoundAtTap(winners=[winners[table] for table in sorted(winners)],
                               seating=[tables[table] for table in sorted(tables)],
                               ghosts={name for _pk, name, ghost in players if ghost},
                               seat_changes=_seat_changes_in(night_id, round_number + 1, names)),
        player_ids={name: pk for pk, name, _ghost in players},
    )


def _seat_changes_in(night_id: int, round_number: int, names: dict[int, str]) -> list[bunco.SeatChange]:
    """The arrivals and departures the host made in round `round_number` (their events), oldest
    first. `names`: the night's players' names by id."""
    events = Event.objects.filter(channel=NIGHT_CHANNEL.format(night_id), kind="state", data__round=round_number,
                                  data__what__in=("arrived", "left")).order_by("id").values_list("data", flat=True)
    changes: list[bunco.SeatChange] = []
    for data in events:
        name, ghost = names.get(data.get("player")), names.get(data.get("ghost"))
        if name is not None and ghost is not None:
            changes.append(bunco.SeatChange(kind=data["what"], name=name, ghost=ghost))
    return changes


def _lock_table(night_id: int, round_number: int, table_number: int) -> TableRound | None:
    """The table of a round, its row locked until the transaction ends, with its round attached."""
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


KINDS: Final = {"points": Tally.Kind.POINTS, "bunco": Tally.Kind.BUNCO, "wipeout": Tally.Kind.WIPEOUT,
                "correction": Tally.Kind.CORRECTION}


@dataclass(frozen=True)
class WrittenTap:
    """A tap written: its tally (with its table and totals attached) and its events, published
    together at commit (events added to the list before then go with them)."""

    tally: Tally
    events: list[Event]
    # The tally closed the round (it decided its last table): what follows, written here (the next
    # round seated, its event among `events`) but for the night over, which the caller ends.
    closed: bunco.NextRound | None = None


def write_tap(scene: TapScene, ruling: bunco.TapRuling, *, night_id: int, entered_by_id: int | None,
              by_host: bool, key: str | None, commit: bool = False) -> WrittenTap | None:
    """The tally the engine ruled (`ruling`), its events and what it leads to, written: the tally
    with its "tally" event (and a Bunco's), then, when it rings the bell or decides the table, the
    round's and tables' rows and their event (`_decide`), and the round's close when that decides
    its last table. None, with nothing written, when the tally's key is
    already taken (a copy of this tap recorded it first). `commit`: the caller's `atomic()`
    block ends with this tap: a tally that leads to nothing more is written with the COMMIT, in
    one round trip, when the block is the outermost (live/log.py `commit_with`)."""
    assert ruling.after is not None and ruling.totals is not None  # a ruling that records a tally
    table, round_ = scene.table, scene.table.round
    channel, now = NIGHT_CHANNEL.format(night_id), timezone.now()
    totals = {"a": ruling.totals["A"], "b": ruling.totals["B"]}
    if ruling.roll_off_totals is not None:
        totals.update(ra=ruling.roll_off_totals["A"], rb=ruling.roll_off_totals["B"])
    said: list[tuple[str, dict[str, Any]]] = [
        ("tally", {"round": round_.number, "table": table.number, "roll_off": table.roll_off, **totals})
    ]
    if ruling.kind == "bunco":
        said.append(("state", {"round": round_.number, "what": "bunco"}))
    tally = Tally(
        night_id=night_id, table_round=table, kind=KINDS[ruling.kind], team=ruling.team, points=ruling.points,
        buncos=1 if ruling.kind == "bunco" else 0,
        bunco_player_id=scene.player_ids[ruling.credited] if ruling.credited is not None else None,
        roll_off=ruling.roll_off, entered_by_id=entered_by_id, by_host=by_host, key=key, created_at=now,
    )
    events: list[Event] = []  # the tap's delivery at commit (the caller adds the round's close)
    row = _tally_row(tally)
    after = ruling.after
    if _log(channel, said, now, events, row, commit=commit and not after.bell and after.winner is None) is None:
        return None
    tally.pk = row.id
    tally._state.adding, tally._state.db = False, "default"
    tally.table_totals = dict(ruling.totals)
    if after.bell:
        # One conditional update: only the first phone rings it (the head table's lock already
        # makes its taps take turns).
        if not Round.objects.filter(pk=round_.pk, status=Round.Status.PLAYING).update(
            status=Round.Status.BELL, bell_rung_at=now
        ):
            return WrittenTap(tally, events)
        round_.status = Round.Status.BELL
    elif after.winner is None:  # nothing decided: the bell rings or a table is won
        return WrittenTap(tally, events)
    return WrittenTap(tally, events, closed=_decide(scene, after, night_id, now, events))


def _decide(scene: TapScene, after: bunco.AfterTally, night_id: int, now: datetime,
            events: list[Event]) -> bunco.NextRound | None:
    """The table decided by the tally (or rolling off its tie), the bell's or the table's event;
    when that decides the round's last table, the round closed and (unless the night is over) the
    next one seated, its event logged with the table's. What follows the round it closed, or None."""
    table, round_ = scene.table, scene.table.round
    said: list[tuple[str, dict[str, Any]]]
    if after.bell:
        # Every other table finishes the turn under way, then confirms.
        TableRound.objects.filter(round_id=round_.pk, status=TableRound.Status.PLAYING).exclude(pk=table.pk).update(
            status=TableRound.Status.FINISHING
        )
        said = [("bell", {"round": round_.number, "team": after.winner or "", "winners": list(after.bell_winners)})]
    else:
        said = [("state", {"round": round_.number, "table": table.number, "what": "roll_off"})]
    decide_table(table, after.winner)
    following = after.next_round if after.next_round is not None and close_round(round_.pk) else None
    if following is not None and not following.night_over:
        assert scene.closing is not None  # read when the tally could close the round
        seat_following(night_id, round_.number, following, scene.closing.player_ids)
        said.append(("state", {"round": round_.number + 1, "what": "moved"}))
    _log(NIGHT_CHANNEL.format(night_id), said, now, events)
    return following


def close_round(round_id: int) -> bool:
    """The round closed (every table decided), unless it is already: whether this closed it."""
    return bool(Round.objects.filter(pk=round_id).exclude(status=Round.Status.CLOSED).update(
        status=Round.Status.CLOSED, closed_at=timezone.now()
    ))


def seat_following(night_id: int, played: int, following: bunco.NextRound, player_ids: dict[str, int]) -> Round:
    """The round after `played` seated as the engine's answer says (`following`, not the night
    over), and the night on to it (or to the break before it). `player_ids`: the night's players'
    ids by name."""
    next_round = Round.objects.create(night_id=night_id, number=played + 1)
    seat_tables(next_round, [[name for name, _team in seats] for seats in following.seating], player_ids,
                [[team for _name, team in seats] for seats in following.seating])
    status = Night.Status.BREAK if following.break_follows else Night.Status.PLAYING
    Night.objects.filter(pk=night_id).update(current_round=next_round.number, status=status)
    return next_round


def seat_tables(round_: Round, seating: list[list[str]], player_ids: dict[str, int],
                teams: list[list[bunco.Team]]) -> None:
    """The round's tables and seats, from a seating of names (table 0 = head) and their seats'
    teams: the one write of a seated round (round 1's, the next round's, a round seated again)."""
    tables = TableRound.objects.bulk_create(
        [TableRound(round=round_, number=index + 1) for index in range(len(seating))]
    )
    Seat.objects.bulk_create(
        [
            Seat(table_round=table, round=round_, position=position, team=team, player_id=player_ids[name])
            for table, names, seat_teams in zip(tables, seating, teams, strict=True)
            for position, (name, team) in enumerate(zip(names, seat_teams, strict=True))
        ]
    )


def decide_table(table: TableRound, winner: bunco.Team | None) -> None:
    """The table won by `winner`, or rolling off a tie (None): the one write of a table's decision
    (a tap's, a turn finished, a roll-off ended)."""
    if winner is not None:
        table.winner = winner
        table.status = TableRound.Status.DONE
    else:
        table.status = TableRound.Status.ROLL_OFF
        table.roll_off += 1
    table.save(update_fields=["winner", "status", "roll_off"])


def _tally_row(tally: Tally) -> Row:
    """The tally's INSERT, which inserts nothing when its key is already taken in the night."""
    values = {name: _to_db(getattr(tally, name)) for name in _TALLY_COLUMNS}
    return Row(f"INSERT INTO {_TALLY} ({', '.join(values)}) VALUES ({', '.join(['%s'] * len(values))}) "
               "ON CONFLICT (night_id, key) DO NOTHING RETURNING id", list(values.values()))


def _log(channel: str, said: list[tuple[str, dict[str, Any]]], now: datetime, together: list[Event],
         row: Row | None = None, *, commit: bool = False) -> list[Event] | None:
    """The events `said` ((kind, data) each) on `channel`, after `row`, by the event log's one insert
    (live.log): one statement on PostgreSQL; the events join `together`, the tap's delivery at
    commit. None when `row` inserted nothing."""
    return log_events([(channel, kind, data) for kind, data in said], row=row, together=together, created_at=now,
                      commit=commit)


def _begin_with(sql: str, params: dict[str, Any]) -> list[tuple[Any, ...]]:
    """The rows of `sql`, the first statement of the caller's transaction, sent with its BEGIN in
    one round trip when the caller's `atomic()` block is the outermost (`_transaction_is_ours`;
    else a plain statement). Issue 47: a tap that did not wait is two round
    trips (the tally goes with the COMMIT: live/log.py `commit_with`).

    psycopg 3 sends BEGIN by itself before a transaction's first statement and waits for its
    answer, in pipeline mode too (it syncs after it). So the BEGIN is sent here, in one pipeline
    with the statement, psycopg's connection put in autocommit mode first, so that it sends no
    BEGIN of its own: the server is in the transaction all the same, and psycopg's commit and
    rollback (Django's, at the block's end) go by the server's state, not by that flag. A refusal
    raised later rolls back as before; `commit_with` puts the flag back."""
    connection.ensure_connection()
    driver = connection.connection
    if (not _transaction_is_ours() or driver.pgconn.transaction_status != TransactionStatus.IDLE
            or driver.read_only is not None or driver.deferrable is not None):
        return _fetch_all(sql, params)
    begin = "BEGIN"
    if driver.isolation_level is not None:
        begin += " ISOLATION LEVEL " + IsolationLevel(driver.isolation_level).name.replace("_", " ")
    with connection.wrap_database_errors:
        driver.autocommit = True  # idle: no command sent; from here psycopg sends no BEGIN of its own
        with connection.cursor() as cursor:
            with driver.pipeline():
                driver.execute(begin, prepare=False)
                cursor.execute(sql, params)
            return cursor.fetchall()


def _transaction_is_ours() -> bool:
    """live/log.py's `transaction_is_ours`, the same test, written here again: a call out to the
    event log from the tap's read would be one more step of the tap's walk (tests/games/night/
    test_tap_path.py)."""
    return (connection.vendor == "postgresql" and connection.in_atomic_block and len(connection.atomic_blocks) == 1
            and not connection.savepoint_ids and not connection.needs_rollback and connection.commit_on_exit)


def _fetch_all(sql: str, params: list[Any] | dict[str, Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


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
