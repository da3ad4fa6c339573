"""The event log: what changed, appended in the same transaction as the change (docs/DESIGN.md §4).

An action calls `log_event` inside its `transaction.atomic()` block; once the transaction commits,
the event is published to this process's broadcaster (`live.broadcasters`), which hands it to every
stream following its channel. A rolled-back action leaves neither a row nor a message.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from live.broadcasters import get_broadcaster
from live.models import Event


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



def log_events(said: Sequence[tuple[str, str, dict[str, Any]]]) -> list[Event]:
    """Append the events `said` ((channel, kind, data) each, in order) with one statement, for the
    caller to publish together (`publish_together`), as `log_event(..., publish=False)` each would."""
    return insert_events(said, timezone.now()) if said else []


def insert_event(channel: str, kind: str, data: dict[str, Any], created_at: datetime) -> Event:
    """Append to the event log with one plain statement; the returned Event is the row as stored."""
    return insert_events([(channel, kind, data)], created_at)[0]


def insert_events(said: Sequence[tuple[str, str, dict[str, Any]]], created_at: datetime) -> list[Event]:
    """Append the events `said` ((channel, kind, data) each) with one plain statement, in order
    (their ids ascending); the Events as stored."""
    json_value = "CAST(%s AS jsonb)" if connection.vendor == "postgresql" else "%s"
    when = connection.ops.adapt_datetimefield_value(created_at)
    params: list[Any] = []
    for channel, kind, data in said:
        params += [channel, kind, json.dumps(data), when]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {Event._meta.db_table} (channel, kind, data, created_at) VALUES "
            + ", ".join([f"(%s, %s, {json_value}, %s)"] * len(said)) + " RETURNING id",
            params,
        )
        ids = sorted(event_id for (event_id,) in cursor.fetchall())
    return [Event(id=event_id, channel=channel, kind=kind, data=data, created_at=created_at)
            for event_id, (channel, kind, data) in zip(ids, said, strict=True)]
