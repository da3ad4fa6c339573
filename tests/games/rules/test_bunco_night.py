"""A whole simulated Bunco night (docs/RULES.md §4.1–§4.5): 24 rounds across all tables, movement,
sheets and the traveler, and enough record to replay the night."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules.bunco import (
    ROUNDS,
    IllegalSeating,
    Rules,
    draw_seating,
    next_seating_with,
    places,
    simulate_night,
    target_for_round,
)
from games.rules.prizes import allocate

HOUSE = Rules(
    baby_bunco_ends_turn=True, wipeout=True, head_losers_to_last_table=True, tie_break="sudden_death"
)
player_counts = st.integers(min_value=3, max_value=44).filter(lambda n: n != 5)


def names(count: int) -> list[str]:
    return [f"P{i}" for i in range(count)]


@given(players=player_counts, seed=st.integers(min_value=0, max_value=2**32), house=st.booleans())
@settings(max_examples=25, deadline=None)
def test_after_24_rounds_every_real_player_has_w_plus_l_24_and_ghosts_have_no_sheet(players, seed, house):
    night = simulate_night(names(players), random.Random(seed), HOUSE if house else Rules())
    assert [sheet.name for sheet in night.sheets] == names(players)
    assert all(sheet.wins + sheet.losses == ROUNDS for sheet in night.sheets)
    assert not {sheet.name for sheet in night.sheets} & set(night.ghosts)
    assert len(night.rounds) == ROUNDS


@given(players=player_counts, seed=st.integers(min_value=0, max_value=2**32), house=st.booleans())
@settings(max_examples=25, deadline=None)
def test_a_simulated_night_can_be_replayed_from_its_record(players, seed, house):
    rules = HOUSE if house else Rules()
    night = simulate_night(names(players), random.Random(seed), rules)
    assert night.rounds[0].seating == night.draw.seating()
    buncos: Counter[str] = Counter()
    marks: dict[str, str] = dict.fromkeys(names(players), "")
    bunco_order = []
    for record in night.rounds:
        assert record.target == target_for_round(record.number)
        where = places(record.seating)
        for t, result in enumerate(record.tables):
            # the tallies add up to the table's points, and more points won
            for team, points in zip("AB", result.points, strict=True):
                assert sum(tally.points for tally in result.tallies if tally.team == team) == points
            assert result.points[0] != result.points[1]
            assert result.winner == ("A" if result.points[0] > result.points[1] else "B")
            for tally in result.tallies:
                assert tally.roller not in night.ghosts
                assert where[tally.roller].table == t
                if tally.bunco:
                    buncos[tally.roller] += 1
                    bunco_order.append((record.number, tally.roll_number, t, tally.roller))
        for name in marks:
            marks[name] += "W" if where[name].team == record.winners[where[name].table] else "L"
        if record.number < ROUNDS:
            expected = next_seating_with(record.seating, record.winners, rules, ghosts=night.ghosts)
            assert night.rounds[record.number].seating == expected
    assert {sheet.name: sheet.buncos for sheet in night.sheets} == {n: buncos[n] for n in names(players)}
    assert {sheet.name: sheet.marks for sheet in night.sheets} == marks
    assert night.traveler == (max(bunco_order)[3] if bunco_order else None)


def test_the_head_table_ends_every_round_with_a_team_at_21_or_more():
    night = simulate_night(names(40), random.Random(11))
    for record in night.rounds:
        head = record.tables[0]
        assert max(head.points) >= 21
        assert not head.rolled_off


def test_a_night_replays_exactly_from_the_same_seed():
    first = simulate_night(names(23), random.Random(5))
    assert simulate_night(names(23), random.Random(5)) == first
    assert simulate_night(names(23), random.Random(6)) != first


def test_a_night_can_start_from_a_given_draw():
    draw = draw_seating(names(10), random.Random(1))
    night = simulate_night(names(10), random.Random(2), draw=draw)
    assert night.draw == draw and night.rounds[0].seating == draw.seating()


def test_a_given_draw_must_seat_exactly_the_players():
    draw = draw_seating(names(10), random.Random(1))
    with pytest.raises(IllegalSeating, match="exactly these players"):
        simulate_night(names(11), random.Random(2), draw=draw)


@given(players=player_counts, seed=st.integers(min_value=0, max_value=2**32))
@settings(max_examples=10, deadline=None)
def test_ghosts_never_win_a_prize(players, seed):
    rng = random.Random(seed)
    night = simulate_night(names(players), rng)
    awards = allocate(night.prize_sheets(), pot=500 * players, traveler=night.traveler, rng=rng)
    assert not {award.name for award in awards} & set(night.ghosts)
    assert sum(award.amount for award in awards) == 500 * players
