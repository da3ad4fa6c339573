"""The plain-SQL statements of a tap (games/fast_sql.py) agree with the ORM they stand in for."""

from __future__ import annotations

import random

import pytest

from games import actions, fast_sql
from games.models import Night, Player, Seat

pytestmark = pytest.mark.django_db

NAMES = [f"Player {number}" for number in range(1, 14)]  # 13: four tables, three ghosts


def started_night() -> Night:
    night = actions.start_night(names=NAMES, rng=random.Random(3))
    actions.start_round(night)
    return Night.objects.get(pk=night.pk)


def test_it_finds_a_phones_player_and_current_table_in_one_statement(django_assert_num_queries):
    night = started_night()
    seat = Seat.objects.select_related("table_round", "player").filter(
        round__night=night, round__number=1, player__is_ghost=False).first()
    with django_assert_num_queries(1):
        phone = fast_sql.phone_seat(seat.player_id, night.code)
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
    assert fast_sql.phone_seat(ghost.pk, night.code) is None
    assert fast_sql.phone_seat(player.pk, other.code) is None


def test_a_player_not_seated_in_the_current_round_has_no_table():
    night = started_night()
    player = Player.objects.filter(night=night, is_ghost=False).first()
    Seat.objects.filter(player=player, round__number=1).delete()
    phone = fast_sql.phone_seat(player.pk, night.code)
    assert phone is not None and phone.table_number is None
