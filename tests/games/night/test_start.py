"""Starting a night: the seating draw (ceil(n/4) tables, at most one ghost a table and never two
ghosts as partners, team A in seats 0 and 2), every real player seated once, the same seed drawing
the same seating, and the nights it cannot seat refused with a readable message."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from games.night import actions
from games.night.actions import BadTally
from games.night.models import Night, Player, Round, Seat
from live.models import Event
from tests.builders import NAMES, ghosts_of, make_night, partners, seating_of

pytestmark = pytest.mark.django_db


def test_it_seats_twelve_players_at_three_tables_without_a_ghost():
    night = make_night(12)
    assert len(seating_of(night, 1)) == 3
    assert not ghosts_of(night)
    assert night.players.count() == 12
    assert list(night.rounds.values_list("number", "status")) == [(1, Round.Status.READY)]
    assert night.current_round == 1 and night.status == Night.Status.PLAYING


@pytest.mark.parametrize("players", [3, 4, 6, 7, 9, 10, 11, 13, 14, 15, 16])
def test_it_seats_ceil_n_over_4_tables_with_at_most_one_ghost_a_table(players):
    night = make_night(players, seed=players)
    seating = seating_of(night, 1)
    ghosts = ghosts_of(night)
    assert len(seating) == -(-players // 4)
    assert len(ghosts) == 4 * len(seating) - players
    assert all(len(seats) == 4 for seats in seating)
    assert all(sum(name in ghosts for name in seats) <= 1 for seats in seating)
    assert not any(name in ghosts and partner in ghosts for name, partner in partners(seating).items())


@pytest.mark.parametrize("players", [3, 7, 12, 15])
def test_every_real_player_sits_exactly_once_in_round_one(players):
    night = make_night(players, seed=players)
    names = [name for seats in seating_of(night, 1) for name in seats if name not in ghosts_of(night)]
    assert sorted(names) == sorted(NAMES[:players])
    assert Counter(names).most_common(1)[0][1] == 1


def test_seats_0_and_2_are_team_a_and_seats_1_and_3_team_b():
    night = make_night(12)
    assert {
        (position, team) for position, team in Seat.objects.filter(round__night=night).values_list("position", "team")
    } == {(0, "A"), (1, "B"), (2, "A"), (3, "B")}


def test_the_same_seed_draws_the_same_seating_and_another_seed_a_different_one():
    assert seating_of(make_night(12, seed=5), 1) == seating_of(make_night(12, seed=5), 1)
    assert seating_of(make_night(12, seed=5), 1) != seating_of(make_night(12, seed=6), 1)


@pytest.mark.parametrize(
    ("names", "message"),
    [
        ([], "needs players"),
        (["Ada"], "at least 3 players"),
        (["Ada", "Bea"], "at least 3 players"),
        (["Ada", "Bea", "Cal", "ada"], "twice"),
        (["Ada", "Bea", " Ada ", "Cal"], "twice"),
        (["  ", "", "\t"], "needs players"),
    ],
)
def test_it_refuses_a_night_it_cannot_seat_with_a_readable_message_and_creates_nothing(names, message):
    with pytest.raises(BadTally, match=message):
        actions.start_night(names=names, rng=random.Random(1))
    assert not Night.objects.exists()
    assert not Player.objects.exists()
    assert not Round.objects.exists()
    assert not Event.objects.exists()
