"""The plain-SQL statements of a tap (games/taps.py) agree with the ORM they stand in for."""

from __future__ import annotations

import pytest
from django.utils import timezone

from games.night import taps
from games.night.models import Night, Player, Seat, TableRound, Tally
from live.models import Event
from tests import builders

pytestmark = pytest.mark.django_db

NAMES = [f"Player {number}" for number in range(1, 14)]  # 13: four tables, three ghosts


def started_night() -> Night:
    return builders.started_night(names=NAMES, seed=3)


def test_it_finds_a_phones_player_and_current_table_in_one_statement(django_assert_num_queries):
    night = started_night()
    seat = Seat.objects.select_related("table_round", "player").filter(
        round__night=night, round__number=1, player__is_ghost=False).first()
    assert seat is not None
    Player.objects.filter(pk=seat.player_id).update(claimed_by="phone-1")
    with django_assert_num_queries(1):
        phone = taps.phone_seat(seat.player_id, night.code, "phone-1")
        assert phone is not None
        assert (phone.night.pk, phone.night.code, phone.night.current_round) == (night.pk, night.code, 1)
        assert (phone.player.pk, phone.player.name, phone.player.night) == (seat.player_id, seat.player.name, phone.night)
        assert phone.table_number == seat.table_round.number


def test_it_finds_no_phone_for_a_ghost_or_for_another_nights_code():
    night = started_night()
    other = started_night()
    ghost = Player.objects.filter(night=night, is_ghost=True).first()
    player = Player.objects.filter(night=night, is_ghost=False).first()
    assert ghost is not None
    assert player is not None
    Player.objects.filter(pk__in=[ghost.pk, player.pk]).update(claimed_by="phone-1")
    assert taps.phone_seat(ghost.pk, night.code, "phone-1") is None
    assert taps.phone_seat(player.pk, other.code, "phone-1") is None


def test_it_finds_no_phone_for_a_seat_another_phone_holds_or_nobody_does():
    night = started_night()
    player = Player.objects.filter(night=night, is_ghost=False).first()
    assert player is not None
    assert taps.phone_seat(player.pk, night.code, "phone-1") is None  # nobody holds it
    Player.objects.filter(pk=player.pk).update(claimed_by="phone-2")
    assert taps.phone_seat(player.pk, night.code, "phone-1") is None
    assert taps.phone_seat(player.pk, night.code, "phone-2") is not None


def test_a_player_not_seated_in_the_current_round_has_no_table():
    night = started_night()
    player = Player.objects.filter(night=night, is_ghost=False).first()
    assert player is not None
    Seat.objects.filter(player=player, round__number=1).delete()
    Player.objects.filter(pk=player.pk).update(claimed_by="phone-1")
    phone = taps.phone_seat(player.pk, night.code, "phone-1")
    assert phone is not None and phone.table_number is None


def tally_values(night: Night, table, team: str, points: int, key: str | None, roll_off: int = 0) -> dict:
    return {
        "night_id": night.pk, "table_round_id": table.pk, "kind": "points", "team": team, "points": points,
        "buncos": 0, "bunco_player_id": None, "roll_off": roll_off, "entered_by_id": None, "by_host": False,
        "undoes_id": None, "key": key, "created_at": timezone.now(),
    }


def record(night: Night, table, team: str, points: int, key: str | None, *, roll_off: int = 0):
    return taps.insert_tally_and_event(
        tally_values(night, table, team, points, key, roll_off), channel=night.channel, round_number=1,
        table_number=table.number, table_roll_off=roll_off, in_roll_off=roll_off > 0,
    )


def test_a_tally_comes_back_with_the_tables_totals_and_its_event_as_stored():
    night = started_night()
    table = TableRound.objects.get(round__night=night, round__number=1, number=2)
    record(night, table, "A", 5, "k1")
    record(night, table, "B", 2, "k2")
    recorded = record(night, table, "A", 1, "k3")
    assert recorded is not None
    assert recorded.totals == {"A": 6, "B": 2} == table.totals()
    assert recorded.roll_off_totals is None
    assert Tally.objects.get(pk=recorded.tally_id).key == "k3"
    stored = Event.objects.get(pk=recorded.event.pk)
    assert (stored.channel, stored.kind, stored.data) == (night.channel, "tally", recorded.event.data)
    assert recorded.event.data == {"round": 1, "table": 2, "roll_off": 0, "a": 6, "b": 2}


def test_a_roll_off_tally_counts_apart_from_the_main_play():
    night = started_night()
    table = TableRound.objects.get(round__night=night, round__number=1, number=3)
    record(night, table, "A", 5, "k1")
    record(night, table, "B", 5, "k2")
    recorded = record(night, table, "B", 2, "k3", roll_off=1)
    assert recorded is not None
    assert recorded.totals == {"A": 5, "B": 5}
    assert recorded.roll_off_totals == {"A": 0, "B": 2} == table.totals(1)
    assert recorded.event.data == {"round": 1, "table": 3, "roll_off": 1, "a": 5, "b": 5, "ra": 0, "rb": 2}


def test_a_taken_key_inserts_nothing_and_logs_no_event():
    night = started_night()
    table = TableRound.objects.get(round__night=night, round__number=1, number=2)
    assert record(night, table, "A", 2, "same") is not None
    events = Event.objects.count()
    assert record(night, table, "A", 2, "same") is None
    assert Tally.objects.filter(night=night).count() == 1
    assert Event.objects.count() == events
