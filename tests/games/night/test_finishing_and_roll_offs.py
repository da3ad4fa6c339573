"""Finishing the turn after the bell and roll-offs: the winner by points, a tie rolled off in
cycles whose tallies do not count to the main totals, and what is refused out of turn."""

from __future__ import annotations

import pytest

from games.night import actions
from games.night.actions import NotNow
from games.night.models import Round, TableRound
from tests.builders import add, started_night, table, tally

pytestmark = pytest.mark.django_db


def test_finishing_the_turn_before_the_bell_is_refused():
    night = started_night()
    with pytest.raises(NotNow, match="hasn't rung"):
        actions.finish_turn(night=night, table_number=2)


def test_finishing_the_turn_decides_the_winner_by_points():
    night = started_night()
    add(night, 2, "A", 7)
    add(night, 2, "B", 9)
    add(night, 3, "A", 4)
    add(night, 1, "A", 21)
    decided = actions.finish_turn(night=night, table_number=2)
    assert (decided.status, decided.winner) == (TableRound.Status.DONE, "B")
    assert (table(night, 2).status, table(night, 2).winner) == (TableRound.Status.DONE, "B")
    with pytest.raises(NotNow, match="already finished"):
        actions.finish_turn(night=night, table_number=2)
    actions.finish_turn(night=night, table_number=3)
    assert table(night, 3).winner == "A"


def test_a_tie_when_the_turn_is_finished_goes_to_a_roll_off():
    night = started_night()
    add(night, 2, "A", 6)
    add(night, 2, "B", 6)
    add(night, 1, "A", 21)
    decided = actions.finish_turn(night=night, table_number=2)
    assert (decided.status, decided.roll_off, decided.winner) == (TableRound.Status.ROLL_OFF, 1, "")
    assert Round.objects.get(night=night, number=1).status == Round.Status.BELL


def test_roll_off_tallies_belong_to_the_cycle_and_do_not_count_to_the_main_totals():
    night = started_night()
    add(night, 2, "A", 6)
    add(night, 2, "B", 6)
    add(night, 1, "A", 21)
    actions.finish_turn(night=night, table_number=2)
    entries = [tally(night, 2, "A", 2), tally(night, 2, "B", 1), tally(night, 2, "A", 1)]
    assert [entry.roll_off for entry in entries] == [1, 1, 1]
    tied = table(night, 2)
    assert tied.totals() == {"A": 6, "B": 6}
    assert tied.totals(1) == {"A": 3, "B": 1}
    assert TableRound.objects.with_totals().get(pk=tied.pk).points_a == 6
    decided = actions.finish_roll_off(night=night, table_number=2)
    assert (decided.status, decided.winner) == (TableRound.Status.DONE, "A")


def test_a_roll_off_still_tied_rolls_another_cycle():
    night = started_night()
    add(night, 3, "B", 2)
    add(night, 3, "A", 2)
    add(night, 1, "B", 21)
    actions.finish_turn(night=night, table_number=3)
    tally(night, 3, "A", 5)
    tally(night, 3, "B", 5)
    again = actions.finish_roll_off(night=night, table_number=3)
    assert (again.status, again.roll_off, again.winner) == (TableRound.Status.ROLL_OFF, 2, "")
    entry = tally(night, 3, "B", 1)
    assert entry.roll_off == 2
    assert table(night, 3).totals(2) == {"A": 0, "B": 1}
    decided = actions.finish_roll_off(night=night, table_number=3)
    assert (decided.status, decided.winner) == (TableRound.Status.DONE, "B")


def test_a_roll_off_with_no_tally_is_still_tied():
    night = started_night()
    add(night, 1, "B", 21)
    actions.finish_turn(night=night, table_number=2)  # 0-0
    assert actions.finish_roll_off(night=night, table_number=2).roll_off == 2


def test_finishing_a_roll_off_at_a_table_that_is_not_rolling_off_is_refused():
    night = started_night()
    add(night, 2, "A", 1)
    add(night, 1, "B", 21)
    with pytest.raises(NotNow, match="not rolling off"):
        actions.finish_roll_off(night=night, table_number=2)
    actions.finish_turn(night=night, table_number=2)
    with pytest.raises(NotNow, match="not rolling off"):
        actions.finish_roll_off(night=night, table_number=2)
