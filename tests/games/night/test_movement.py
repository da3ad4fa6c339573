"""Movement: the next round seated by the official movement once every table has a winner, the
break after round 12, the end of the night after round 24, and ghosts over a whole night."""

from __future__ import annotations

import random

import pytest

from games.night import actions
from games.night.actions import NotNow, RoundClosed
from games.night.models import Night, Round, TableRound, Tally
from games.rules import bunco
from tests.builders import (
    PLAYERS_ALL_NIGHT,
    add,
    figures,
    fresh,
    ghosts_of,
    make_night,
    partners,
    play_round,
    play_rounds,
    seating_of,
    started_night,
    tally,
)

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("players", "seed"), [(12, 1), (7, 2), (10, 4), (16, 5)])
def test_when_every_table_is_decided_the_next_round_is_seated_by_the_official_movement(players, seed):
    night = make_night(players, seed=seed)
    rng = random.Random(seed)
    for number in (1, 2, 3):
        play_round(night, rng)
        before = seating_of(night, number)
        winners = list(Round.objects.get(night=night, number=number).tables.values_list("winner", flat=True))
        assert set(winners) <= {"A", "B"} and len(winners) == len(before)
        after = seating_of(night, number + 1)
        assert after == bunco.next_seating_with(before, winners, ghosts=ghosts_of(night))
        assert Round.objects.get(night=night, number=number + 1).status == Round.Status.READY
        assert fresh(night).current_round == number + 1
        old, new = partners(before), partners(after)
        assert all(new[name] != old[name] for name in old if name not in ghosts_of(night))


def test_the_round_stays_open_until_every_table_has_a_winner():
    night = started_night()
    add(night, 2, "A", 1)
    add(night, 3, "A", 1)
    add(night, 3, "B", 1)
    add(night, 1, "A", 21)
    actions.finish_turn(night=night, table_number=2)
    actions.finish_turn(night=night, table_number=3)  # a tie: rolling off
    assert Round.objects.get(night=night, number=1).status == Round.Status.BELL
    assert not Round.objects.filter(night=night, number=2).exists()
    tally(night, 3, "B", 2)
    actions.finish_roll_off(night=night, table_number=3)
    assert Round.objects.get(night=night, number=1).status == Round.Status.CLOSED
    assert Round.objects.filter(night=night, number=2).exists()


def test_after_round_twelve_the_night_takes_a_break_until_the_host_resumes():
    night = make_night(12, seed=11)
    rng = random.Random(11)
    play_rounds(night, rng, 11)
    assert fresh(night).status == Night.Status.PLAYING
    with pytest.raises(NotNow, match="not on a break"):
        actions.resume_after_break(night)
    play_round(night, rng)
    night = fresh(night)
    assert (night.status, night.current_round) == (Night.Status.BREAK, 13)
    assert Round.objects.get(night=night, number=13).status == Round.Status.READY
    with pytest.raises(NotNow, match="break"):
        actions.start_round(night)
    with pytest.raises(RoundClosed):
        tally(night, 1, "A", 1)
    actions.resume_after_break(night)
    assert fresh(night).status == Night.Status.PLAYING
    assert actions.start_round(night).number == 13
    assert bunco.target_for_round(13) == 1


def test_after_round_twenty_four_the_night_is_over_and_every_real_player_has_24_results(finished_night):
    night = finished_night
    assert (night.status, night.current_round) == (Night.Status.FINISHED, 24)
    assert night.finished_at is not None
    assert night.rounds.count() == 24
    assert set(night.rounds.values_list("status", flat=True)) == {Round.Status.CLOSED}
    sheets = figures(night)
    assert len(sheets) == PLAYERS_ALL_NIGHT
    assert all(player.wins + player.losses == 24 for player in sheets.values())
    total_wins = sum(player.wins for player in sheets.values())
    assert 0 < total_wins < 24 * PLAYERS_ALL_NIGHT
    # The seeded night went through the whole workflow: Buncos, and ties rolled off.
    assert Tally.objects.filter(night=night, kind=Tally.Kind.BUNCO).exists()
    assert TableRound.objects.filter(round__night=night, roll_off__gt=0, status=TableRound.Status.DONE).exists()
    with pytest.raises(NotNow, match="over"):
        actions.start_round(night)


def test_a_single_table_night_with_a_ghost_plays_all_24_rounds():
    night = make_night(3, seed=12)
    play_rounds(night, random.Random(12), bunco.ROUNDS)
    night = fresh(night)
    assert night.status == Night.Status.FINISHED
    assert [len(seating_of(night, number)) for number in (1, 13, 24)] == [1, 1, 1]
    assert all(player.wins + player.losses == 24 for player in figures(night).values())
    assert len(figures(night)) == 3


def test_ghosts_never_partner_a_ghost_and_nobody_keeps_a_partner_all_night(finished_night):
    night = finished_night
    ghosts = ghosts_of(night)
    assert len(ghosts) == 2
    met = [
        number for number in range(1, 25)
        if any(sum(name in ghosts for name in seats) == 2 for seats in seating_of(night, number))
    ]  # fmt: skip
    assert met, "in this seeded night the two ghosts should meet at a table"
    for number in range(1, 25):
        seating = seating_of(night, number)
        assert sorted(name for seats in seating for name in seats) == sorted(night.players.values_list("name", flat=True))
        pairs = partners(seating)
        assert not any(name in ghosts and pairs[name] in ghosts for name in pairs)
        if number > 1:
            previous = partners(seating_of(night, number - 1))
            assert all(pairs[name] != previous[name] for name in pairs if name not in ghosts)
