"""Tallies: +1, +2 and +5 for team A or team B at a table of the round under way, a Bunco's 21
points credited to its roller (a ghost's to its partner), what is refused before the start, after
the bell or when the round is over, the same key counted once, and totals derived from the tallies."""

from __future__ import annotations

import pytest

from games.night import actions
from games.night.actions import BadTally, NotNow, RoundClosed
from games.night.models import Seat, TableRound, Tally
from tests.builders import add, figures, fresh, make_night, real_seat, seated, started_night, table, tally

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("points", [1, 2, 5])
def test_a_phone_adds_one_two_or_five_points(points):
    night = started_night()
    tally(night, 2, "B", points)
    assert table(night, 2).totals() == {"A": 0, "B": points}


@pytest.mark.parametrize("points", [3, 0, -1, "x", 21])
def test_a_phone_cannot_add_any_other_number_of_points(points):
    night = started_night()
    with pytest.raises(BadTally, match=r"\+1, \+2, \+5 or a Bunco"):
        tally(night, 2, "A", points)
    assert not Tally.objects.exists()


@pytest.mark.parametrize("team", ["C", "a", "", None])
def test_a_tally_is_for_team_a_or_team_b(team):
    night = started_night()
    with pytest.raises(BadTally, match="team A or team B"):
        tally(night, 2, team, 1)
    assert not Tally.objects.exists()


def test_a_tally_at_a_table_that_does_not_exist_is_refused():
    night = started_night()
    with pytest.raises(BadTally, match="no table 4"):
        tally(night, 4, "A", 1)


def test_a_bunco_scores_21_for_the_team_and_credits_the_roller():
    night = started_night()
    roller = seated(night, 2, 1)
    entry = tally(night, 2, "B", 1, bunco_player=roller)
    assert (entry.kind, entry.points, entry.buncos, entry.bunco_player) == (Tally.Kind.BUNCO, 21, 1, roller)
    assert table(night, 2).totals() == {"A": 0, "B": 21}
    assert figures(night)[roller.name].bunco_count == 1
    assert sum(player.bunco_count for player in figures(night).values()) == 1
    assert night.traveler() == roller


def test_a_bunco_by_someone_not_on_that_team_at_that_table_is_refused():
    night = started_night()
    with pytest.raises(BadTally, match="isn't on that team"):
        tally(night, 2, "A", 1, bunco_player=seated(night, 2, 1))  # seat 1 is team B
    with pytest.raises(BadTally, match="isn't on that team"):
        tally(night, 2, "A", 1, bunco_player=seated(night, 3, 0))
    assert not Tally.objects.exists()


def test_a_ghosts_bunco_is_credited_to_its_partner_who_takes_the_traveler():
    night = started_night(7, seed=3)  # 2 tables, 1 ghost
    ghost_seat = Seat.objects.get(round__number=1, round__night=night, player__is_ghost=True)
    number, position = ghost_seat.table_round.number, ghost_seat.position
    assert (number, position) == (2, 1)  # seed 3 seats the ghost at table 2, team B
    partner = seated(night, number, (position + 2) % 4)
    tally(night, 1, "A", 1, bunco_player=real_seat(night, 1, "A"))  # a Bunco elsewhere first: the traveler moves
    entry = tally(night, number, ghost_seat.team, 1, bunco_player=ghost_seat.player)
    assert entry.bunco_player == partner and entry.points == 21
    assert table(night, number).totals()[ghost_seat.team] == 21
    assert fresh(night).traveler() == partner
    assert figures(night)[partner.name].bunco_count == 1
    assert not Tally.objects.filter(bunco_player__is_ghost=True).exists()


def test_a_tally_before_the_head_table_starts_the_round_is_refused():
    night = make_night()
    with pytest.raises(RoundClosed, match="hasn't started"):
        tally(night, 2, "A", 1)
    with pytest.raises(RoundClosed, match="hasn't started"):
        tally(night, 1, "A", 1)
    assert not Tally.objects.exists()


def test_a_round_can_only_be_started_once():
    night = started_night()
    with pytest.raises(NotNow, match="already started"):
        actions.start_round(night)


def test_the_head_table_takes_no_tally_after_the_bell():
    night = started_night()
    add(night, 1, "A", 21)
    with pytest.raises(RoundClosed, match="bell has rung"):
        tally(night, 1, "B", 5)
    with pytest.raises(RoundClosed):
        tally(night, 1, "B", 1, bunco_player=seated(night, 1, 1))
    assert table(night, 1).totals() == {"A": 21, "B": 0}


def test_a_secondary_table_still_takes_tallies_while_finishing_its_turn():
    night = started_night()
    tally(night, 2, "A", 2)
    add(night, 1, "B", 21)
    assert table(night, 2).status == TableRound.Status.FINISHING
    entry = tally(night, 2, "A", 5)
    assert entry.roll_off == 0
    assert table(night, 2).totals() == {"A": 7, "B": 0}


def test_a_tally_at_a_table_whose_round_is_over_is_refused():
    night = started_night()
    add(night, 2, "A", 1)
    add(night, 1, "B", 21)
    actions.finish_turn(night=night, table_number=2)
    with pytest.raises(RoundClosed, match="over at table 2"):
        tally(night, 2, "A", 1, round_number=1)


def test_the_same_key_twice_makes_one_tally_and_returns_it():
    night = started_night()
    first = tally(night, 2, "A", 5, key="tap-1")
    again = tally(night, 2, "A", 5, key="tap-1")
    assert again.pk == first.pk
    assert Tally.objects.count() == 1
    assert table(night, 2).totals() == {"A": 5, "B": 0}
    other = tally(night, 2, "A", 5, key="tap-2")
    assert other.pk != first.pk and table(night, 2).totals() == {"A": 10, "B": 0}


def test_team_totals_are_derived_from_the_tallies():
    night = started_night()
    add(night, 2, "A", 8)
    add(night, 2, "B", 3)
    tally(night, 3, "B", 1, bunco_player=seated(night, 3, 3))
    mine = tally(night, 3, "A", 2, entered_by=seated(night, 3, 0))
    actions.undo_tally(night=night, table_number=3, entered_by=seated(night, 3, 0))
    totals = {row.number: (row.points_a, row.points_b) for row in TableRound.objects.with_totals()}
    assert totals == {1: (0, 0), 2: (8, 3), 3: (0, 21)}
    assert table(night, 2).totals() == {"A": 8, "B": 3}
    assert table(night, 3).totals() == {"A": 0, "B": 21}
    assert Tally.objects.filter(undoes=mine).exists()
