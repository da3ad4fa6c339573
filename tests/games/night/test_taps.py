"""The plain-SQL statements of a tap (games/night/taps.py) agree with the ORM they stand in for."""

from __future__ import annotations

import pytest

from games.night import taps
from games.night.models import Night, Player, Round, Seat, TableRound, Tally
from games.rules import bunco
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


def record(night: Night, table: TableRound, team: bunco.Team, points: int, key: str | None) -> taps.WrittenTap | None:
    """A tap through the statements alone: read, the engine's ruling, write."""
    scene = taps.read_tap(night.pk, 1, table.number, key)
    assert scene is not None
    ruling = bunco.rule_on_tap(scene.at_tap, bunco.TapAsked(team=team, points=points), None)
    assert ruling.refusal is None, ruling.refusal
    return taps.write_tap(scene, ruling, night_id=night.pk, entered_by_id=None, by_host=False, key=key)


def test_a_tally_comes_back_with_the_tables_totals_and_its_event_as_stored():
    night = started_night()
    table = TableRound.objects.get(round__night=night, round__number=1, number=2)
    record(night, table, "A", 5, "k1")
    record(night, table, "B", 2, "k2")
    written = record(night, table, "A", 1, "k3")
    assert written is not None
    assert written.tally.table_totals == {"A": 6, "B": 2} == table.totals()
    assert Tally.objects.get(pk=written.tally.pk).key == "k3"
    [event] = written.events
    stored = Event.objects.get(pk=event.pk)
    assert (stored.channel, stored.kind, stored.data) == (night.channel, "tally", event.data)
    assert event.data == {"round": 1, "table": 2, "roll_off": 0, "a": 6, "b": 2}


def test_what_a_tap_reads_agrees_with_the_orm():
    night = started_night()
    table = TableRound.objects.get(round__night=night, round__number=1, number=2)
    record(night, table, "B", 5, "k1")
    scene = taps.read_tap(night.pk, 1, 2, "k1")
    assert scene is not None and scene.key_taken and not scene.may_close_the_round
    assert scene.at_tap.totals == table.totals() == {"A": 0, "B": 5}
    seated = list(table.seats.order_by("position").select_related("player"))
    assert [(seat.name, seat.team, seat.ghost) for seat in scene.at_tap.seats] == [
        (seat.player.name, seat.team, seat.player.is_ghost) for seat in seated]
    assert scene.player_ids == {seat.player.name: seat.player_id for seat in seated}
    assert scene.at_tap.rules == night.rules
    assert taps.read_tap(night.pk, 1, 9, None) is None  # no table 9


def test_a_roll_off_tally_counts_apart_from_the_main_play():
    night = started_night()
    table = TableRound.objects.get(round__night=night, round__number=1, number=3)
    record(night, table, "A", 5, "k1")
    record(night, table, "B", 5, "k2")
    Round.objects.filter(pk=table.round_id).update(status=Round.Status.BELL)
    TableRound.objects.filter(pk=table.pk).update(status=TableRound.Status.ROLL_OFF, roll_off=1)
    written = record(night, table, "B", 2, "k3")
    assert written is not None
    assert written.tally.roll_off == 1
    assert written.tally.table_totals == {"A": 5, "B": 5}
    assert table.totals(1) == {"A": 0, "B": 2}
    assert written.events[0].data == {"round": 1, "table": 3, "roll_off": 1, "a": 5, "b": 5, "ra": 0, "rb": 2}


def test_a_key_taken_between_the_read_and_the_write_inserts_nothing_and_logs_no_event():
    night = started_night()
    table = TableRound.objects.get(round__night=night, round__number=1, number=2)
    scene = taps.read_tap(night.pk, 1, 2, "same")
    assert scene is not None and not scene.key_taken
    assert record(night, table, "A", 2, "same") is not None  # a copy of the tap, first
    events = Event.objects.count()
    ruling = bunco.rule_on_tap(scene.at_tap, bunco.TapAsked(team="A", points=2), None)
    assert taps.write_tap(scene, ruling, night_id=night.pk, entered_by_id=None, by_host=False, key="same") is None
    assert Tally.objects.filter(night=night).count() == 1
    assert Event.objects.count() == events


def test_a_tallys_night_has_no_index_of_its_own_beside_those_that_lead_with_it():
    """The key's lookup (night, key) must be planned on the key's index: with an index on the night
    alone, PostgreSQL planned a tap's prepared read once per connection, while the night was young,
    on the night's index, and every later tap read all of the night's tallies (a 400-player bot
    night took 354 s instead of 38; docs/PERFORMANCE.md, issue 34)."""
    from django.db import connection

    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, Tally._meta.db_table)
    indexes = [details["columns"] for details in constraints.values() if details["index"] or details["unique"]]
    assert ["night_id"] not in indexes, indexes
    assert ["night_id", "key"] in indexes, indexes
