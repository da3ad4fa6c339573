"""The event log: what changed, appended in the same transaction as the change (docs/DESIGN.md §4).

An action calls `log_event` inside its `transaction.atomic()` block; once the transaction commits,
the event is published to this process's broadcaster (`live.broadcasters`), which hands it to every
stream following its channel. A rolled-back action leaves neither a row nor a message.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, overload

from django.db import connection, transaction
from django.utils import timezone
from psycopg.pq import TransactionStatus

from live.broadcasters import get_broadcaster
from live.models import Event

Said = tuple[str, str, dict[str, Any]]  # an event to log: (channel, kind, data)


def log_event(channel: str, kind: str, data: dict[str, Any] | None = None, *, publish: bool = True) -> Event:
    """Append an event to the log and publish it once the surrounding transaction commits.

    Call it inside the action's `transaction.atomic()` block: if the transaction rolls back, the
    event is neither stored nor published. `publish=False` leaves publishing to the caller, to
    send several events of one action together (`publish_together`).
    """
    # Plain SQL: every tap logs an event, and the ORM's insert costs ten times the statement.
    event = insert_event(channel, kind, data or {}, timezone.now())
    if publish:
        message = event.as_message()
        transaction.on_commit(lambda: get_broadcaster().publish(message))
    return event


def publish_together(events: list[Event]) -> None:
    """Publish events logged with `publish=False` as one delivery once the transaction commits.

    A tap that rings the bell logs its totals and the bell: sent together, each phone wakes once
    and gets both in one write, in the scaled layout too (one Redis message, not two).
    The list is read at commit: events appended to it after this call go too, and go before
    events published by anything registered later (the round's close after the bell), in order.
    """

    def publish() -> None:
        if events:
            get_broadcaster().publish_many([event.as_message() for event in events])

    transaction.on_commit(publish)



@dataclass
class Row:
    """A row an action writes with its events (a tally, a move), by the same statement on
    PostgreSQL: `sql` is an INSERT ... RETURNING id, which may insert nothing (ON CONFLICT DO
    NOTHING: then no event is inserted either), with its `params`. `id`: the row's, once written."""

    sql: str
    params: Sequence[Any]
    id: int | None = None


@overload
def log_events(said: Sequence[Said], *, row: None = None, together: list[Event] | None = None,
               created_at: datetime | None = None, commit: bool = False) -> list[Event]: ...
@overload
def log_events(said: Sequence[Said], *, row: Row, together: list[Event] | None = None,
               created_at: datetime | None = None, commit: bool = False) -> list[Event] | None: ...
def log_events(said: Sequence[Said], *, row: Row | None = None, together: list[Event] | None = None,
               created_at: datetime | None = None, commit: bool = False) -> list[Event] | None:
    """Append the events `said` ((channel, kind, data) each, in order) with one statement, after
    `row` when given (the change they tell of, in the same statement on PostgreSQL); the events as
    stored, or None with nothing inserted when `row` inserted nothing (a retry's key taken first).

    `together`: the action's list of events, published as one delivery at commit
    (`publish_together`): the events logged here join it, and the call that first puts events in
    it registers its publication. Without it the caller publishes (`publish_together`).
    `commit`: this insert is the last statement of the action's transaction (see insert_events)."""
    events = insert_events(said, created_at or timezone.now(), row=row, commit=commit)
    if events is not None and together is not None:
        first = not together
        together += events
        if first and together:
            publish_together(together)
    return events


def insert_event(channel: str, kind: str, data: dict[str, Any], created_at: datetime) -> Event:
    """Append to the event log with one plain statement; the returned Event is the row as stored."""
    return insert_events([(channel, kind, data)], created_at)[0]


@overload
def insert_events(said: Sequence[Said], created_at: datetime, *, row: None = None,
                  commit: bool = False) -> list[Event]: ...
@overload
def insert_events(said: Sequence[Said], created_at: datetime, *, row: Row | None,
                  commit: bool = False) -> list[Event] | None: ...
def insert_events(said: Sequence[Said], created_at: datetime, *, row: Row | None = None,
                  commit: bool = False) -> list[Event] | None:
    """The event log's one INSERT: the events `said` ((channel, kind, data) each) appended in order
    (their ids ascending), after `row` if given; the Events as stored, None when `row` inserted
    nothing. Plain SQL: every tap and move logs events, and the ORM's insert costs ten times the
    statement.

    On PostgreSQL `row` and the events are one statement (the action is one round trip between its
    read and the commit); SQLite has no INSERT in a WITH: the row, then the events.

    `commit`: the insert is the last statement of the caller's `atomic()` block: when that block is
    the outermost, on PostgreSQL, it goes with the COMMIT in one round trip (`commit_with`)."""
    when = connection.ops.adapt_datetimefield_value(created_at)
    if row is not None and (connection.vendor != "postgresql" or not said):
        with connection.cursor() as cursor:
            cursor.execute(row.sql, row.params)
            inserted = cursor.fetchone()
        if inserted is None:
            return None
        row.id = inserted[0]
        row = None
    if not said:
        return []
    params: list[Any] = [*row.params, when] if row is not None else []
    for channel, kind, data in said:
        params += [channel, kind, json.dumps(data)] if row is not None else [channel, kind, json.dumps(data), when]
    if row is None:
        json_value = "CAST(%s AS jsonb)" if connection.vendor == "postgresql" else "%s"
        sql = (f"INSERT INTO {Event._meta.db_table} (channel, kind, data, created_at) VALUES "
               + ", ".join([f"(%s, %s, {json_value}, %s)"] * len(said)) + " RETURNING id")
    else:
        sql = _WITH_ROW.format(row=row.sql, table=Event._meta.db_table, values=", ".join(["(%s, %s, %s)"] * len(said)))
    ids = commit_with(sql, params) if commit else _rows(sql, params)
    if row is not None:
        if not ids:
            return None
        row.id = ids[0][0]
    event_ids = sorted(found[-1] for found in ids)
    return [Event(id=event_id, channel=channel, kind=kind, data=data, created_at=created_at)
            for event_id, (channel, kind, data) in zip(event_ids, said, strict=True)]


# PostgreSQL: the row, then its events only if it was inserted, in one statement.
_WITH_ROW = """
    WITH new AS ({row}), said AS (
        INSERT INTO {table} (channel, kind, data, created_at)
        SELECT said.channel, said.kind, CAST(said.data AS jsonb), %s
        FROM new, (VALUES {values}) AS said(channel, kind, data)
        RETURNING id
    )
    SELECT new.id, said.id FROM new, said ORDER BY said.id
"""


def transaction_is_ours() -> bool:
    """Whether the running `atomic()` block is the outermost one, and will commit when it ends
    (PostgreSQL only: what a round trip saved is worth there). games/night/taps.py asks the same
    before sending a transaction's BEGIN with its first statement."""
    return (connection.vendor == "postgresql" and connection.in_atomic_block and len(connection.atomic_blocks) == 1
            and not connection.savepoint_ids and not connection.needs_rollback and connection.commit_on_exit)


def commit_with(sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    """The rows of `sql`, the last statement of the caller's `atomic()` block, sent with the
    transaction's COMMIT in one round trip when the block is the outermost (`transaction_is_ours`;
    else a plain statement, the block commits as ever). Issue 47: a tap that did not wait is two
    round trips (games/night/taps.py sends the BEGIN with the first).

    psycopg 3 waits for each command's answer before it sends the next, and Django's `atomic()`
    sends COMMIT on its own when its block ends. In psycopg's pipeline mode the statement and a
    COMMIT go out together and their answers come back together, when the pipeline ends (its one
    Sync). Django's commit at the block's end then finds the connection idle and sends nothing, and
    runs the block's on_commit callbacks as ever. It must be the block's last statement: an error
    raised after it would roll back nothing and Django would drop the callbacks (the events,
    committed, would reach the phones only when they catch up from the log). psycopg's autocommit
    flag, which the BEGIN sent with the first statement set, is put back as the block expects it."""
    if not transaction_is_ours():
        return _rows(sql, params)
    driver = connection.connection
    with connection.wrap_database_errors:
        with connection.cursor() as cursor:
            with driver.pipeline():
                cursor.execute(sql, params)
                driver.execute("COMMIT", prepare=False)
            rows = cursor.fetchall()
        assert driver.pgconn.transaction_status == TransactionStatus.IDLE  # committed
        driver.autocommit = False  # idle: no command sent; as Django's block expects it until its end
    return rows


def _rows(sql: str, params: Sequence[Any] | dict[str, Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()
