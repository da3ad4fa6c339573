"""Bunco seating (docs/RULES.md §4.1, §4.4, §4.5): the draw, movement between rounds, ghosts, and
telling each person where to go next."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules.bunco import (
    Draw,
    IllegalSeating,
    Rules,
    draw_seating,
    ghost_names,
    next_seating,
    next_seating_with,
    night_shape,
    places,
    separate_ghosts,
)

HOUSE_MOVEMENT = Rules(head_losers_to_last_table=True)


def numbered_seating(tables: int) -> list[list[str]]:
    return [[f"T{t}S{s}" for s in range(4)] for t in range(tables)]


def teams_of(table: list[str]) -> set[frozenset[str]]:
    return {frozenset((table[0], table[2])), frozenset((table[1], table[3]))}


def partners(seating: list[list[str]]) -> dict[str, str]:
    return {name: place.partner for name, place in places(seating).items()}


def official_table(table: int, won: bool, tables: int) -> int:
    """§4.4: head winners stay, other winners go up one; losers go down one, last-table losers stay."""
    return max(table - 1, 0) if won else min(table + 1, tables - 1)


def house_table(table: int, won: bool, tables: int) -> int:
    """Head-table losers go to the last table; winners go up one; other losers stay."""
    if won:
        return max(table - 1, 0)
    return tables - 1 if table == 0 else table


def won_last_round(seating: list[list[str]], winners: list[str]) -> dict[str, tuple[int, bool]]:
    return {
        name: (place.table, place.team == winners[place.table]) for name, place in places(seating).items()
    }


# --- movement: examples ---


def test_winners_move_up_losers_move_down_and_every_pair_splits():
    seating = [["a1", "b1", "a2", "b2"], ["c1", "d1", "c2", "d2"], ["e1", "f1", "e2", "f2"]]
    moved = next_seating(seating, ["A", "B", "A"])
    # head: A won and stays, table 2's winners (B: d) come up; table 2: head losers and table 3's
    # winners; last table: table 2's losers come down, the last table's losers stay.
    assert [set(table) for table in moved] == [
        {"a1", "a2", "d1", "d2"},
        {"b1", "b2", "e1", "e2"},
        {"c1", "c2", "f1", "f2"},
    ]
    # Each table is seated [p1, p2, q1, q2]: the pairs split into teams {p1, q1} and {p2, q2}.
    assert moved == [["a1", "a2", "d1", "d2"], ["b1", "b2", "e1", "e2"], ["c1", "c2", "f1", "f2"]]
    assert teams_of(moved[0]) == {frozenset({"a1", "d1"}), frozenset({"a2", "d2"})}
    for table in moved:
        assert all(len(team) == 2 for team in teams_of(table))
        assert not teams_of(table) & {frozenset(p) for p in (("a1", "a2"), ("b1", "b2"), ("c1", "c2"))}


def test_with_a_single_table_everyone_stays_and_partners_change():
    moved = next_seating([["Ann", "Bob", "Cat", "Dan"]], ["B"])
    assert set(moved[0]) == {"Ann", "Bob", "Cat", "Dan"}
    assert frozenset({"Ann", "Cat"}) not in teams_of(moved[0])
    assert frozenset({"Bob", "Dan"}) not in teams_of(moved[0])


def test_with_two_tables_the_head_losers_and_the_last_table_losers_meet_at_table_2():
    moved = next_seating(numbered_seating(2), ["A", "A"])
    assert set(moved[0]) == {"T0S0", "T0S2", "T1S0", "T1S2"}
    assert set(moved[1]) == {"T0S1", "T0S3", "T1S1", "T1S3"}


def test_the_house_rule_sends_head_table_losers_to_the_last_table_and_other_losers_stay():
    moved = next_seating_with(numbered_seating(4), ["A", "A", "A", "A"], HOUSE_MOVEMENT)
    assert [set(table) for table in moved] == [
        {"T0S0", "T0S2", "T1S0", "T1S2"},
        {"T1S1", "T1S3", "T2S0", "T2S2"},
        {"T2S1", "T2S3", "T3S0", "T3S2"},
        {"T3S1", "T3S3", "T0S1", "T0S3"},
    ]


def test_names_are_opaque_to_movement():
    numbers: Any = [[0, 1, 2, 3], [4, 5, 6, 7]]  # not names at all, on purpose: no str here
    moved = next_seating(numbers, ["A", "B"])
    assert [set(table) for table in moved] == [{0, 2, 5, 7}, {1, 3, 4, 6}]


def test_movement_accepts_tuples_and_returns_new_lists():
    seating = (("a", "b", "c", "d"),)
    moved = next_seating(seating, ("A",))
    assert isinstance(moved, list) and isinstance(moved[0], list)
    assert seating == (("a", "b", "c", "d"),)


# --- movement: properties ---


@st.composite
def seatings_and_winners(draw: st.DrawFn) -> tuple[list[list[str]], list[str]]:
    tables = draw(st.integers(min_value=1, max_value=30))
    winners = draw(st.lists(st.sampled_from("AB"), min_size=tables, max_size=tables))
    names = draw(st.permutations([f"P{i}" for i in range(4 * tables)]))
    return [list(names[4 * t : 4 * t + 4]) for t in range(tables)], winners


@given(seatings_and_winners())
def test_movement_keeps_exactly_four_people_a_table_and_nobody_keeps_a_partner(case):
    seating, winners = case
    moved = next_seating(seating, winners)
    assert len(moved) == len(seating)
    assert all(len(table) == 4 for table in moved)
    assert sorted(name for table in moved for name in table) == sorted(n for t in seating for n in t)
    before, after = partners(seating), partners(moved)
    assert all(after[name] != before[name] for name in before)


@given(seatings_and_winners())
def test_everybody_moves_by_the_official_table_rule(case):
    seating, winners = case
    where = places(next_seating(seating, winners))
    for name, (table, won) in won_last_round(seating, winners).items():
        assert where[name].table == official_table(table, won, len(seating)), name


@given(seatings_and_winners())
def test_the_house_movement_keeps_four_a_table_new_partners_and_its_table_rule(case):
    seating, winners = case
    moved = next_seating_with(seating, winners, HOUSE_MOVEMENT)
    assert all(len(table) == 4 for table in moved)
    before, where = partners(seating), places(moved)
    for name, (table, won) in won_last_round(seating, winners).items():
        assert where[name].table == house_table(table, won, len(seating)), name
        assert where[name].partner != before[name]


# --- movement: bad input ---


@pytest.mark.parametrize(
    ("seating", "winners", "message"),
    [
        ([], [], "at least one table"),
        ([["a", "b", "c"]], ["A"], "exactly 4 names"),
        ([["a", "b", "c", "d", "e"]], ["A"], "exactly 4 names"),
        (["abcd"], ["A"], "exactly 4 names"),
        ("abcd", ["A"], "list of tables"),
        ([["a", "b", "c", "a"]], ["A"], "two seats"),
        ([["a", "b", "c", "d"], ["e", "f", "g", "a"]], ["A", "B"], "two seats"),
        ([["a", "b", "c", None]], ["A"], "not a name"),
        ([["a", "b", "c", ""]], ["A"], "not a name"),
        ([["a", "b", "c", ["d"]]], ["A"], "not a name"),
        ([["a", "b", "c", "d"]], ["A", "B"], "1 tables but 2 winners"),
        ([["a", "b", "c", "d"], ["e", "f", "g", "h"]], ["A"], "2 tables but 1 winners"),
        ([["a", "b", "c", "d"]], ["a"], '"A" or "B"'),
        ([["a", "b", "c", "d"]], ["C"], '"A" or "B"'),
        ([["a", "b", "c", "d"]], [None], '"A" or "B"'),
        ([["a", "b", "c", "d"]], [0], '"A" or "B"'),
        ([["a", "b", "c", "d"]], "A", "list of"),
    ],
)
def test_a_seating_or_winners_of_the_wrong_shape_is_refused(seating, winners, message):
    with pytest.raises(IllegalSeating, match=message):
        next_seating(seating, winners)


def test_a_seating_error_is_a_value_error():
    assert issubclass(IllegalSeating, ValueError)


# --- the seating draw ---


@pytest.mark.parametrize(
    ("players", "tables", "ghosts"),
    [(3, 1, 1), (4, 1, 0), (6, 2, 2), (7, 2, 1), (9, 3, 3), (12, 3, 0), (399, 100, 1)],
)
def test_a_night_has_ceil_players_over_four_tables_and_ghosts_in_the_empty_seats(players, tables, ghosts):
    assert night_shape(players) == (tables, ghosts)


@pytest.mark.parametrize("players", [1, 2])
def test_fewer_than_three_players_are_refused(players):
    with pytest.raises(IllegalSeating, match="at least 3 players"):
        draw_seating([f"P{i}" for i in range(players)], random.Random(0))


@pytest.mark.parametrize("players", [0, -4, 4.0, None])
def test_a_night_needs_a_number_of_players(players):
    with pytest.raises(IllegalSeating, match="needs players"):
        night_shape(players)


def test_for_twelve_players_the_four_star_holders_are_the_head_table():
    names = [f"P{i}" for i in range(1, 13)]
    draw = draw_seating(names, random.Random(7))
    assert draw.ghosts == ()
    assert len(draw.stars) == 4 and set(draw.stars) == set(draw.tables[0])
    assert sorted(n for table in draw.tables for n in table) == sorted(names)


def test_the_same_seed_draws_the_same_seating():
    names = [f"P{i}" for i in range(30)]
    assert draw_seating(names, random.Random(3)) == draw_seating(names, random.Random(3))


def test_the_draw_is_random():
    names = [f"P{i}" for i in range(30)]
    assert len({draw_seating(names, random.Random(seed)).tables for seed in range(5)}) == 5


def test_ghost_names_never_collide_with_a_real_name():
    assert ghost_names(["Ann", "Ghost 1", "ghost 3"], 2) == ("Ghost 2", "Ghost 4")
    draw = draw_seating(["Ghost 1", "Ghost 2", "Cat", "Dan", "Eve", "Fay", "Gus"], random.Random(1))
    assert draw.ghosts == ("Ghost 3",)


@pytest.mark.parametrize(
    ("names", "message"),
    [(["Ann", "Bob", "Ann", "Dan"], "twice"), (["Ann", "", "Cat"], "needs a name"), ("Ann", "list of names")],
)
def test_the_draw_refuses_duplicate_or_empty_names(names, message):
    with pytest.raises(IllegalSeating, match=message):
        draw_seating(names, random.Random(0))


@given(
    players=st.integers(min_value=3, max_value=400),
    seed=st.integers(min_value=0, max_value=2**32),
)
@settings(max_examples=60)
def test_the_draw_seats_everyone_once_with_at_most_one_ghost_a_table_but_for_five_and_no_ghost_partners(
    players, seed
):
    names = [f"P{i}" for i in range(players)]
    draw = draw_seating(names, random.Random(seed))
    tables, ghosts = night_shape(players)
    assert len(draw.tables) == tables and len(draw.ghosts) == ghosts
    assert all(len(table) == 4 for table in draw.tables)
    assert sorted(n for table in draw.tables for n in table) == sorted(names + list(draw.ghosts))
    for table in draw.tables:  # five players: 3 ghosts at 2 tables, so two at one of them
        assert sum(name in draw.ghosts for name in table) <= (2 if players == 5 else 1)
    where = places(draw.seating())
    assert all(where[ghost].partner not in draw.ghosts for ghost in draw.ghosts)


# --- ghosts through movement ---


def test_two_ghosts_arriving_as_partners_are_split_without_repeating_a_partnership():
    # Ghost 1 partnered Ann at the head table, Ghost 2 partnered Bob at table 2; both pairs meet.
    previous = [["Ghost 1", "x1", "Ann", "x2"], ["Ghost 2", "y1", "Bob", "y2"]]
    moved = [["Ghost 1", "Ann", "Ghost 2", "Bob"], ["x1", "x2", "y1", "y2"]]
    fixed = separate_ghosts(moved, ["Ghost 1", "Ghost 2"], previous=previous)
    assert teams_of(fixed[0]) == {frozenset({"Ghost 1", "Bob"}), frozenset({"Ghost 2", "Ann"})}
    assert fixed[1] == moved[1]


def test_a_seating_without_ghost_partners_is_left_as_it_is():
    seating = [["Ghost 1", "Ann", "Bob", "Ghost 2"]]
    assert separate_ghosts(seating, ["Ghost 1", "Ghost 2"]) == seating


def test_three_ghosts_at_one_table_cannot_be_kept_apart():
    with pytest.raises(IllegalSeating, match="3 ghosts"):
        separate_ghosts([["G1", "G2", "G3", "Ann"]], ["G1", "G2", "G3"])


@given(
    players=st.integers(min_value=3, max_value=120).filter(lambda n: n % 4),
    seed=st.integers(min_value=0, max_value=2**32),
    house=st.booleans(),
    data=st.data(),
)
@settings(max_examples=60)
def test_with_ghosts_movement_never_partners_two_ghosts_and_still_follows_the_table_rule(
    players, seed, house, data
):
    draw = draw_seating([f"P{i}" for i in range(players)], random.Random(seed))
    rules = HOUSE_MOVEMENT if house else Rules()
    rule = house_table if house else official_table
    seating = draw.seating()
    for _ in range(6):
        winners = data.draw(st.lists(st.sampled_from("AB"), min_size=len(seating), max_size=len(seating)))
        moved = next_seating_with(seating, winners, rules, ghosts=draw.ghosts)
        before, where = partners(seating), places(moved)
        for name, (table, won) in won_last_round(seating, winners).items():
            assert where[name].table == rule(table, won, len(seating))
            assert where[name].partner != before[name]
        assert all(where[ghost].partner not in draw.ghosts for ghost in draw.ghosts)
        seating = moved


# --- where to go next ---


def test_everyone_is_told_their_next_table_seat_and_partner():
    seating = next_seating(
        [["Ann", "Bob", "Cat", "Dana"], ["Eve", "Finn", "Gus", "Hal"]],
        ["A", "B"],  # Ann & Cat win the head table; Finn & Hal win table 2 and come up
    )
    where = places(seating)
    assert where["Bob"].table_number == 2 and where["Dana"].table_number == 2
    bob = where["Bob"]
    # Table 2 is seated [Bob, Dana, Eve, Gus] (the head table's losers, then table 2's): Bob and Eve split
    # the pairs and partner each other in seats 1 and 3.
    assert seating[1] == ["Bob", "Dana", "Eve", "Gus"]
    assert (bob.table_number, bob.seat, bob.partner) == (2, 0, "Eve")
    assert seating[bob.table][bob.seat] == "Bob"
    assert bob.team == ("A" if bob.seat % 2 == 0 else "B")
    assert set(bob.opponents) == set(seating[bob.table]) - {"Bob", bob.partner}


def test_a_draw_lists_each_table_as_tuples_and_copies_to_a_seating():
    draw = Draw(tables=(("a", "b", "c", "Ghost 1"),), ghosts=("Ghost 1",))
    assert draw.seating() == [["a", "b", "c", "Ghost 1"]]
    assert draw.stars == ("a", "b", "c")
