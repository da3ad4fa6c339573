"""The event log moved from the games app to live without moving a row.

games 0003 removes Event from the games app's state and live 0001 adds it to live's, both without
touching the database: the table stays `games_event`, and a night played before the move keeps its
events (same ids, same data) and its tallies, and the log keeps counting after them.

The test migrates the test database back to before the move, plays a round with the historical
models, migrates forward to the latest migrations and reads everything back with today's models.
It always leaves the database fully migrated, so later tests see the schema they expect.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from games.night.models import Tally
from live.log import insert_event
from live.models import Event

GAMES_BEFORE_THE_MOVE = ("games", "0002_night_player_prizeaward_round_tableround_seat_tally_and_more")
LIVE_TAKES_OVER = ("live", "0001_initial")
GAMES_LETS_GO = ("games", "0003_move_event_to_live")

EVENT_FIELDS = ("id", "channel", "kind", "data", "created_at")
TALLY_FIELDS = (
    "id", "night_id", "table_round_id", "kind", "team", "points", "buncos", "bunco_player_id",
    "roll_off", "by_host", "entered_by_id", "key", "undoes_id", "created_at",
)


def latest() -> list[tuple[str, str]]:
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


def applied() -> set[tuple[str, str]]:
    return set(MigrationExecutor(connection).loader.applied_migrations)


@pytest.fixture
def before_the_move(transactional_db: None) -> Iterator[MigrationExecutor]:
    """The database as it was before the move: games at 0002, live not migrated at all.

    Whatever happens in the test, the database is migrated forward to the latest leaf nodes
    afterwards (before pytest-django flushes it: this fixture is torn down first)."""
    try:
        executor = MigrationExecutor(connection)
        executor.migrate([GAMES_BEFORE_THE_MOVE, ("live", None)])
        yield MigrationExecutor(connection)  # a fresh loader: it sees what is applied now
    finally:
        MigrationExecutor(connection).migrate(latest())


def play_a_round(apps) -> tuple[list[int], list[int]]:
    """A 4-player night whose first round was played to 21 at its only table, with the historical
    models; returns the ids of its events and of its tallies."""
    Night = apps.get_model("games", "Night")
    Player = apps.get_model("games", "Player")
    Round = apps.get_model("games", "Round")
    TableRound = apps.get_model("games", "TableRound")
    Seat = apps.get_model("games", "Seat")
    TallyThen = apps.get_model("games", "Tally")
    EventThen = apps.get_model("games", "Event")

    now = timezone.now()
    night = Night.objects.create(code="MOVE01", title="Before the move", host_key="k" * 40, screen_token="s" * 40)
    names = ["Ada", "Bea", "Cat", "Dot"]
    players = [Player.objects.create(night=night, name=name) for name in names]
    round_ = Round.objects.create(
        night=night, number=1, status="closed", started_at=now, bell_rung_at=now + timedelta(minutes=7),
        closed_at=now + timedelta(minutes=8),
    )
    table = TableRound.objects.create(round=round_, number=1, status="done", winner="A")
    for position, (player, team) in enumerate(zip(players, "ABAB", strict=True)):
        Seat.objects.create(table_round=table, round=round_, position=position, team=team, player=player)

    channel = f"night:{night.id}"
    events = [EventThen.objects.create(channel=channel, kind="state", data={"round": 1, "what": "started"})]
    tallies = []
    for kind, team, points, buncos, by, key in [
        ("points", "A", 5, 0, players[0], "tap-1"),
        ("points", "B", 3, 0, players[1], "tap-2"),
        ("bunco", "A", 21, 1, players[2], "tap-3"),
    ]:
        tally = TallyThen.objects.create(
            night=night, table_round=table, kind=kind, team=team, points=points, buncos=buncos,
            bunco_player=by if kind == "bunco" else None, entered_by=by, key=key,
        )
        tallies.append(tally)
        events.append(EventThen.objects.create(
            channel=channel, kind="tally", data={"round": 1, "table": 1, "team": team, "points": points},
        ))
    undo = TallyThen.objects.create(
        night=night, table_round=table, kind="undo", team="B", points=-3, entered_by=players[1],
        key="undo-1", undoes=tallies[1],
    )
    tallies.append(undo)
    events.append(EventThen.objects.create(
        channel=channel, kind="state", data={"round": 1, "what": "bell", "by": "Cat ✓", "scores": [26, 0]},
    ))
    # Another night's channel: the move keeps every channel, not only one.
    events.append(EventThen.objects.create(channel="night:elsewhere", kind="state", data={}))
    return [event.id for event in events], [tally.id for tally in tallies]


def test_events_and_tallies_logged_before_the_move_are_all_there_after_it(
    before_the_move: MigrationExecutor,
) -> None:
    assert GAMES_BEFORE_THE_MOVE in applied()
    assert LIVE_TAKES_OVER not in applied() and GAMES_LETS_GO not in applied()

    apps = before_the_move.loader.project_state([GAMES_BEFORE_THE_MOVE]).apps
    event_ids, tally_ids = play_a_round(apps)
    EventThen = apps.get_model("games", "Event")
    TallyThen = apps.get_model("games", "Tally")
    events_then = list(EventThen.objects.filter(id__in=event_ids).order_by("id").values(*EVENT_FIELDS))
    tallies_then = list(TallyThen.objects.filter(id__in=tally_ids).order_by("id").values(*TALLY_FIELDS))
    assert len(events_then) == 6 and len(tallies_then) == 4

    MigrationExecutor(connection).migrate(latest())
    assert {LIVE_TAKES_OVER, GAMES_LETS_GO} <= applied()

    # Today's models read the same rows: same ids, same channels, kinds, data and times.
    assert list(Event.objects.filter(id__in=event_ids).order_by("id").values(*EVENT_FIELDS)) == events_then
    assert list(Tally.objects.filter(id__in=tally_ids).order_by("id").values(*TALLY_FIELDS)) == tallies_then
    channel = events_then[0]["channel"]
    assert [event.id for event in Event.objects.on(channel).after(0)] == event_ids[:5]
    undo = Tally.objects.get(id=tally_ids[-1])
    assert undo.undoes_id == tally_ids[1] and undo.table_round.round.night.code == "MOVE01"

    # The log goes on counting after the events it kept.
    later = insert_event(channel, "state", {"round": 2, "what": "moved"}, timezone.now())
    assert later.id > max(event_ids)
    assert list(Event.objects.on(channel).after(max(event_ids))) == [later]
