"""Undo and corrections: a phone undoes its own entries (and only its roll-off ones during a
roll-off), the host undoes any entry by its id, and a host's undo or correction changes a decided
table's winner and the night's figures where the totals say so."""

from __future__ import annotations

import random

import pytest

from games.night import actions
from games.night.actions import BadTally, NotYourTable, RoundClosed
from games.night.models import TableRound, Tally
from tests.builders import add, figures, make_night, play_round, seated, started_night, table, tally

pytestmark = pytest.mark.django_db


def test_a_phone_undoes_its_own_last_entry_and_nobody_elses():
    night = started_night()
    dot, eve = seated(night, 2, 0), seated(night, 2, 1)
    tally(night, 2, "A", 2, entered_by=dot)
    tally(night, 2, "A", 5, entered_by=dot)
    theirs = tally(night, 2, "B", 1, entered_by=eve)
    undo = actions.undo_tally(night=night, table_number=2, entered_by=dot)
    assert undo.undoes is not None
    assert (undo.kind, undo.points, undo.undoes.points) == (Tally.Kind.UNDO, -5, 5)
    assert table(night, 2).totals() == {"A": 2, "B": 1}
    actions.undo_tally(night=night, table_number=2, entered_by=dot)
    assert table(night, 2).totals() == {"A": 0, "B": 1}
    with pytest.raises(BadTally, match="Nothing of yours"):
        actions.undo_tally(night=night, table_number=2, entered_by=dot)
    assert not Tally.objects.filter(undoes=theirs).exists()
    assert table(night, 2).totals() == {"A": 0, "B": 1}


def test_a_phone_cannot_undo_someone_elses_entry_by_its_id():
    night = started_night()
    theirs = tally(night, 2, "B", 5, entered_by=seated(night, 2, 1))
    with pytest.raises(NotYourTable):
        actions.undo_tally(night=night, table_number=2, entered_by=seated(night, 2, 0), tally_id=theirs.pk)
    assert table(night, 2).totals() == {"A": 0, "B": 5}


def test_undoing_a_bunco_takes_it_back_and_returns_the_traveler_to_the_previous_roller():
    night = started_night()
    first, second = seated(night, 2, 0), seated(night, 3, 1)
    tally(night, 2, "A", 1, bunco_player=first, entered_by=first)
    tally(night, 3, "B", 1, bunco_player=second, entered_by=second)
    assert night.traveler() == second
    undo = actions.undo_tally(night=night, table_number=3, entered_by=second)
    assert (undo.points, undo.buncos) == (-21, -1)
    assert night.traveler() == first
    sheets = figures(night)
    assert (sheets[first.name].bunco_count, sheets[second.name].bunco_count) == (1, 0)
    assert table(night, 3).totals() == {"A": 0, "B": 0}
    actions.undo_tally(night=night, table_number=2, entered_by=first)
    assert night.traveler() is None


def test_a_phone_undo_during_a_roll_off_takes_back_only_its_roll_off_entries():
    night = started_night()
    dot, eve = seated(night, 2, 0), seated(night, 2, 1)
    tally(night, 2, "A", 5, entered_by=dot)
    tally(night, 2, "A", 1, entered_by=dot)
    add(night, 2, "B", 6, entered_by=eve)
    add(night, 1, "A", 21)
    actions.finish_turn(night=night, table_number=2)  # 6-6: a roll-off
    with pytest.raises(BadTally, match="Nothing of yours"):
        actions.undo_tally(night=night, table_number=2, entered_by=dot)
    assert table(night, 2).totals() == {"A": 6, "B": 6}  # the tie that was rolled off stands
    tally(night, 2, "A", 2, entered_by=dot)
    tally(night, 2, "A", 5, entered_by=dot)
    undo = actions.undo_tally(night=night, table_number=2, entered_by=dot)
    assert (undo.points, undo.roll_off) == (-5, 1)
    assert table(night, 2).totals(1) == {"A": 2, "B": 0}
    assert table(night, 2).totals() == {"A": 6, "B": 6}


def test_the_host_can_undo_any_entry_by_its_id():
    night = started_night()
    phone = seated(night, 2, 0)
    early = tally(night, 2, "A", 5, entered_by=phone)
    tally(night, 2, "A", 2, entered_by=phone)
    actions.undo_tally(night=night, table_number=2, tally_id=early.pk, by_host=True)
    assert table(night, 2).totals() == {"A": 2, "B": 0}
    with pytest.raises(BadTally, match="already undone"):
        actions.undo_tally(night=night, table_number=2, tally_id=early.pk, by_host=True)
    with pytest.raises(BadTally, match="does not exist"):
        actions.undo_tally(night=night, table_number=2, tally_id=early.pk + 1000, by_host=True)
    # The phone's own undo skips the entry the host already took back.
    actions.undo_tally(night=night, table_number=2, entered_by=phone)
    assert table(night, 2).totals() == {"A": 0, "B": 0}


def test_a_phone_cannot_undo_at_the_head_table_after_the_bell():
    night = started_night()
    phone = seated(night, 1, 0)
    add(night, 1, "A", 21, entered_by=phone)
    with pytest.raises(RoundClosed):
        actions.undo_tally(night=night, table_number=1, entered_by=phone)
    assert table(night, 1).totals() == {"A": 21, "B": 0}


def test_a_host_correction_changes_a_decided_tables_winner_where_the_totals_say_so():
    night = started_night()
    add(night, 2, "A", 7)
    add(night, 2, "B", 3)
    add(night, 1, "A", 21)
    actions.finish_turn(night=night, table_number=2)
    assert table(night, 2).winner == "A"
    actions.correct_tally(night=night, table_number=2, team="B", points=3)  # 7-6: still A
    assert table(night, 2).winner == "A"
    actions.correct_tally(night=night, table_number=2, team="A", points=-2)  # 5-6
    assert (table(night, 2).status, table(night, 2).winner) == (TableRound.Status.DONE, "B")


def test_a_host_correction_in_a_closed_round_changes_the_night_figures():
    night = make_night(12, seed=8)
    play_round(night, random.Random(8))
    decided = table(night, 2)
    loser = "B" if decided.winner == "A" else "A"
    totals = decided.totals()
    losers = list(decided.seats.filter(team=loser).values_list("player__name", flat=True))
    before = {name: figures(night)[name].wins for name in losers}
    actions.correct_tally(
        night=night, table_number=2, team=loser, points=totals[decided.winner] - totals[loser] + 1, round_number=1
    )
    assert table(night, 2).winner == loser
    assert all(figures(night)[name].wins == before[name] + 1 for name in losers)


def test_a_host_undo_changes_a_decided_tables_winner_where_the_totals_say_so():
    night = started_night()
    add(night, 2, "A", 2)
    mistaken = tally(night, 2, "A", 5)
    add(night, 2, "B", 4)
    add(night, 1, "B", 21)
    actions.finish_turn(night=night, table_number=2)
    assert table(night, 2).winner == "A"
    actions.undo_tally(night=night, table_number=2, tally_id=mistaken.pk, by_host=True)
    assert table(night, 2).winner == "B"


def test_a_host_undo_of_the_bunco_that_rang_the_bell_gives_the_head_table_to_the_other_team():
    night = started_night()
    add(night, 1, "A", 8)
    mistaken = tally(night, 1, "B", 1, bunco_player=seated(night, 1, 1))
    assert table(night, 1).winner == "B"
    actions.undo_tally(night=night, table_number=1, tally_id=mistaken.pk, by_host=True)
    assert table(night, 1).winner == "A"
    assert night.traveler() is None
