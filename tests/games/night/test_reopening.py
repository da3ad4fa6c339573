"""Reopening the last round: the unstarted next round goes, the last one is decided again and
reseated from the corrected record; a finished night gives back its prizes and round 24."""

from __future__ import annotations

import random

import pytest

from games.night import actions
from games.night.actions import NotNow
from games.night.models import Night, PrizeAward, Round, Seat, TableRound, Tally
from games.rules import bunco
from tests.builders import PLAYERS_ALL_NIGHT, add, figures, fresh, seating_of, started_night, table, tally

pytestmark = pytest.mark.django_db


def test_reopening_removes_the_unstarted_next_round_and_lets_the_last_one_be_decided_again():
    night = started_night()
    add(night, 2, "A", 5)
    add(night, 2, "B", 2)
    add(night, 3, "B", 4)
    add(night, 1, "A", 21)
    actions.finish_turn(night=night, table_number=2)
    actions.finish_turn(night=night, table_number=3)
    assert fresh(night).current_round == 2
    seating = seating_of(night, 1)

    reopened = actions.reopen_last_round(night)
    assert reopened.number == 1
    night = fresh(night)
    assert (night.current_round, night.status) == (1, Night.Status.PLAYING)
    assert not Round.objects.filter(night=night, number=2).exists()
    assert not Seat.objects.filter(round__night=night, round__number=2).exists()
    assert Round.objects.get(night=night, number=1).status == Round.Status.BELL
    assert (table(night, 1).status, table(night, 1).winner) == (TableRound.Status.DONE, "A")
    assert [(table(night, n).status, table(night, n).winner) for n in (2, 3)] == [
        (TableRound.Status.FINISHING, "")
    ] * 2

    tally(night, 2, "B", 5)  # the turn that was not finished after all: B 7 – A 5
    actions.finish_turn(night=night, table_number=2)
    actions.finish_turn(night=night, table_number=3)
    assert [table(night, n).winner for n in (1, 2, 3)] == ["A", "B", "B"]
    assert fresh(night).current_round == 2
    assert seating_of(night, 2) == bunco.next_seating_with(seating, ["A", "B", "B"])


def test_reopening_a_single_table_round_reseats_it_from_the_corrected_record_and_play_goes_on():
    night = started_night(4)
    add(night, 1, "A", 21)  # the bell decides the only table; round 2 is seated at once
    seating = seating_of(night, 1)
    assert seating_of(night, 2) == bunco.next_seating_with(seating, ["A"])
    actions.correct_tally(night=night, table_number=1, team="B", points=30, round_number=1)
    assert table(night, 1).winner == "B"

    actions.reopen_last_round(night)
    night = fresh(night)
    assert Round.objects.get(night=night, number=1).status == Round.Status.CLOSED
    assert (night.current_round, night.status) == (2, Night.Status.PLAYING)
    assert seating_of(night, 2) == bunco.next_seating_with(seating, ["B"])
    assert actions.start_round(night).number == 2


def test_only_a_round_that_has_not_started_can_be_reopened_back_to_the_last():
    night = started_night()
    with pytest.raises(NotNow):
        actions.reopen_last_round(night)  # round 1 has no round before it
    add(night, 2, "A", 1)
    add(night, 3, "B", 1)
    add(night, 1, "A", 21)
    actions.finish_turn(night=night, table_number=2)
    actions.finish_turn(night=night, table_number=3)
    actions.start_round(night)
    tally(night, 2, "A", 1)
    with pytest.raises(NotNow, match="not started"):
        actions.reopen_last_round(night)
    assert Round.objects.filter(night=night).count() == 2
    assert Tally.objects.filter(table_round__round__number=2).count() == 1


def test_reopening_a_finished_night_takes_back_the_prizes_and_lets_round_24_be_decided_again(finished_night):
    night = finished_night
    actions.award_prizes(night, rng=random.Random(3))
    actions.reopen_last_round(night)
    night = fresh(night)
    assert (night.status, night.current_round, night.finished_at) == (Night.Status.PLAYING, 24, None)
    assert not PrizeAward.objects.filter(night=night).exists()
    with pytest.raises(NotNow, match="end of the night"):
        actions.award_prizes(night, rng=random.Random(3))
    count = table(night, 1, 24).round.tables.count()
    assert [table(night, n, 24).status for n in range(2, count + 1)] == [TableRound.Status.FINISHING] * (count - 1)
    for number in range(2, count + 1):
        tally(night, number, "A", 5)
        decided = actions.finish_turn(night=night, table_number=number)
        while decided.status == TableRound.Status.ROLL_OFF:
            tally(night, number, "B", 1)
            decided = actions.finish_roll_off(night=night, table_number=number)
    assert fresh(night).status == Night.Status.FINISHED
    assert not Round.objects.filter(night=night, number=25).exists()
    assert all(player.wins + player.losses == 24 for player in figures(night).values())
    assert sum(award.amount_cents for award in actions.award_prizes(night, rng=random.Random(3))) == 500 * PLAYERS_ALL_NIGHT
