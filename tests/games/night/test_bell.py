"""The bell: a head team reaching 21 or rolling a Bunco rings it exactly once, a secondary table
never does; after it the head table has its winner and the others finish their turn; with a single
table the bell decides the round and seats the next."""

from __future__ import annotations

import pytest

from games.night import actions
from games.night.actions import RoundClosed
from games.night.models import Round, TableRound
from games.rules import bunco
from live.models import Event
from tests.builders import (
    add,
    bells,
    figures,
    fresh,
    partners,
    seated,
    seating_of,
    started_night,
    table,
    tally,
)

pytestmark = pytest.mark.django_db


def test_it_rings_the_bell_once_when_a_head_team_reaches_21():
    night = started_night()
    add(night, 1, "B", 3)
    add(night, 1, "A", 20)
    assert Round.objects.get(night=night, number=1).status == Round.Status.PLAYING
    assert bells(night) == 0
    tally(night, 1, "A", 2)  # 22
    round_ = Round.objects.get(night=night, number=1)
    assert round_.status == Round.Status.BELL and round_.bell_rung_at is not None
    assert bells(night) == 1
    bell = Event.objects.on(night.channel).get(kind="bell")
    assert bell.data["team"] == "A"
    assert sorted(bell.data["winners"]) == sorted([seated(night, 1, 0).name, seated(night, 1, 2).name])
    # Nothing after it rings it again: not a refused phone, not the host, not another table.
    with pytest.raises(RoundClosed):
        tally(night, 1, "B", 5)
    actions.correct_tally(night=night, table_number=1, team="B", points=30)
    add(night, 2, "A", 25)
    assert bells(night) == 1


def test_a_head_table_bunco_rings_the_bell():
    night = started_night()
    add(night, 1, "A", 12)
    roller = seated(night, 1, 1)
    tally(night, 1, "B", 1, bunco_player=roller)
    assert Round.objects.get(night=night, number=1).status == Round.Status.BELL
    assert bells(night) == 1
    head = table(night, 1)
    assert (head.status, head.winner) == (TableRound.Status.DONE, "B")
    assert figures(night)[roller.name].bunco_count == 1


def test_a_secondary_table_at_30_does_not_ring_the_bell():
    night = started_night()
    add(night, 2, "A", 30)
    tally(night, 3, "B", 1, bunco_player=seated(night, 3, 1))
    add(night, 3, "B", 9)
    assert bells(night) == 0
    assert Round.objects.get(night=night, number=1).status == Round.Status.PLAYING
    assert set(TableRound.objects.values_list("status", flat=True)) == {TableRound.Status.PLAYING}
    assert table(night, 2).totals()["A"] == 30


def test_after_the_bell_the_head_table_has_its_winner_and_the_others_finish_their_turn():
    night = started_night(16)
    add(night, 1, "A", 17)
    add(night, 1, "B", 20)
    add(night, 3, "A", 9)
    tally(night, 1, "B", 1)
    head = table(night, 1)
    assert (head.status, head.winner) == (TableRound.Status.DONE, "B")
    assert [table(night, n).status for n in (2, 3, 4)] == [TableRound.Status.FINISHING] * 3
    assert all(table(night, n).winner == "" for n in (2, 3, 4))
    assert Event.objects.on(night.channel).filter(kind="bell").count() == 1


def test_with_a_single_table_the_bell_decides_the_round_and_seats_the_next():
    night = started_night(4)
    add(night, 1, "B", 21)
    assert Round.objects.get(night=night, number=1).status == Round.Status.CLOSED
    before = seating_of(night, 1)
    assert seating_of(night, 2) == bunco.next_seating_with(before, ["B"])
    assert fresh(night).current_round == 2
    after = partners(seating_of(night, 2))
    assert all(after[name] != partner for name, partner in partners(before).items())
