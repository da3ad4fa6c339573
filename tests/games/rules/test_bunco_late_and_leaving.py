"""Arriving late and leaving early (games/rules/bunco.py): a late arrival takes a ghost's seat,
someone leaving leaves a ghost in theirs, and no two ghosts ever partner."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.rules import bunco
from games.rules.bunco import IllegalSeating, fresh_ghost_name, seat_ghost_for_leaver, seat_late_arrival

THIRTEEN = [
    ["Ann", "Bea", "Cat", "Dot"],
    ["Eve", "Fay", "Gus", "Ghost 1"],
    ["Hal", "Ivy", "Jo", "Ghost 2"],
    ["Kim", "Lou", "Mo", "Ghost 3"],
]
GHOSTS = {"Ghost 1", "Ghost 2", "Ghost 3"}


def partners_of(seating: list[list[str]]) -> dict[str, str]:
    return {name: place.partner for name, place in bunco.places(seating).items()}


def test_a_late_arrival_sits_in_the_ghosts_seat_and_nobody_else_moves() -> None:
    after = seat_late_arrival(THIRTEEN, GHOSTS, ghost="Ghost 2", newcomer="Nia")
    assert after[2] == ["Hal", "Ivy", "Jo", "Nia"]
    assert [table for t, table in enumerate(after) if t != 2] == [table for t, table in enumerate(THIRTEEN) if t != 2]


def test_a_late_arrival_needs_a_ghost_seat() -> None:
    with pytest.raises(IllegalSeating, match="ghost's seat"):
        seat_late_arrival(THIRTEEN, GHOSTS, ghost="Ann", newcomer="Nia")


def test_a_late_arrival_cannot_be_seated_twice() -> None:
    with pytest.raises(IllegalSeating, match="already seated"):
        seat_late_arrival(THIRTEEN, GHOSTS, ghost="Ghost 1", newcomer="Kim")


def test_a_leaver_leaves_a_ghost_in_their_seat() -> None:
    after = seat_ghost_for_leaver(THIRTEEN, GHOSTS, leaver="Bea", ghost="Ghost 4")
    assert after[0] == ["Ann", "Ghost 4", "Cat", "Dot"]


def test_a_leaver_whose_partner_is_a_ghost_has_their_table_paired_again_so_no_ghost_partners_a_ghost() -> None:
    # Fay's partner is Ghost 1 (seats 1 and 3): left alone, the two ghosts would be a team.
    after = seat_ghost_for_leaver(THIRTEEN, GHOSTS, leaver="Fay", ghost="Ghost 4")
    assert sorted(after[1]) == sorted(["Eve", "Ghost 4", "Gus", "Ghost 1"])
    partners = partners_of(after)
    assert partners["Ghost 4"] not in GHOSTS | {"Ghost 4"}
    assert partners["Ghost 1"] not in GHOSTS | {"Ghost 4"}


def test_a_table_left_with_one_player_is_refused() -> None:
    five = [["Ann", "Ghost 1", "Bea", "Ghost 2"], ["Cat", "Dot", "Eve", "Ghost 3"]]
    six_ghosts = {"Ghost 1", "Ghost 2", "Ghost 3"}
    with pytest.raises(IllegalSeating, match="three ghosts"):
        seat_ghost_for_leaver(five, six_ghosts, leaver="Ann", ghost="Ghost 4")


def test_the_night_needs_three_players_to_go_on() -> None:
    four = [["Ann", "Bea", "Cat", "Ghost 1"]]
    three_left = seat_ghost_for_leaver([["Ann", "Bea", "Cat", "Dot"]], set(), leaver="Dot", ghost="Ghost 1")
    assert three_left == [["Ann", "Bea", "Cat", "Ghost 1"]]
    with pytest.raises(IllegalSeating, match="at least 3 players"):
        seat_ghost_for_leaver(four, {"Ghost 1"}, leaver="Ann", ghost="Ghost 2")


def test_a_ghost_cannot_leave() -> None:
    with pytest.raises(IllegalSeating, match="not a player seated"):
        seat_ghost_for_leaver(THIRTEEN, GHOSTS, leaver="Ghost 1", ghost="Ghost 4")


def test_the_seating_after_a_leaver_still_moves_by_the_rules() -> None:
    after = seat_ghost_for_leaver(THIRTEEN, GHOSTS, leaver="Fay", ghost="Ghost 4")
    moved = bunco.next_seating_with(after, ["A", "B", "A", "B"], bunco.OFFICIAL, ghosts=GHOSTS | {"Ghost 4"})
    for seats in moved:
        assert sum(name in GHOSTS | {"Ghost 4"} for name in seats) <= bunco.MAX_GHOSTS_A_TABLE


def test_a_fresh_ghost_name_skips_every_name_the_night_has() -> None:
    assert fresh_ghost_name({"Ghost 1", "ghost 2", "Ann"}) == "Ghost 3"
    assert fresh_ghost_name(set()) == "Ghost 1"


def test_it_applies_a_rounds_arrivals_and_departures_again_to_a_seating_drawn_again():
    seating = [["Ada", "Bea", "Cal", "Dot"], ["Eve", "Fay", "Ghost 1", "Hal"], ["Ivy", "Jo", "Kit", "Ghost 2"]]
    changes = [bunco.SeatChange(kind="left", name="Bea", ghost="Ghost 3"),
               bunco.SeatChange(kind="arrived", name="Nia", ghost="Ghost 1")]
    again = bunco.seat_changes_again(seating, {"Ghost 1", "Ghost 2"}, changes)
    names = {name for seats in again for name in seats}
    assert "Bea" not in names and "Nia" in names and "Ghost 3" in names and "Ghost 1" not in names


def test_a_leaver_whose_table_would_keep_three_ghosts_changes_tables_before_her_ghost_takes_the_seat():
    seating = [["Ada", "Bea", "Cal", "Dot"], ["Ghost 1", "Fay", "Hal", "Ghost 2"], ["Ivy", "Jo", "Kit", "Lou"]]
    again = bunco.seat_changes_again(seating, {"Ghost 1", "Ghost 2"},
                                     [bunco.SeatChange(kind="left", name="Fay", ghost="Ghost 3")])
    ghosts = {"Ghost 1", "Ghost 2", "Ghost 3"}
    assert "Fay" not in {name for seats in again for name in seats}
    assert all(sum(name in ghosts for name in seats) <= 2 for seats in again)
    assert all(not (seats[0] in ghosts and seats[2] in ghosts) and not (seats[1] in ghosts and seats[3] in ghosts)
               for seats in again)


@given(
    players=st.integers(min_value=5, max_value=40),
    leavers=st.integers(min_value=1, max_value=3),
    seed=st.integers(min_value=0, max_value=2**32),
)
@settings(max_examples=80, deadline=None)
def test_a_seating_drawn_again_keeps_the_leavers_out_with_no_ghost_partners_and_no_table_of_three_ghosts(
    players, leavers, seed
):
    rng = random.Random(seed)
    names = [f"P{i}" for i in range(players)]
    draw = bunco.draw_seating(names, rng)
    ghosts = set(draw.ghosts)
    seating = [list(table) for table in draw.tables]
    changes = []
    for number in range(leavers):  # legal leaves, made one after another in the seated round
        leaver = rng.choice([name for seats in seating for name in seats if name not in ghosts])
        ghost = f"Leaver's ghost {number}"
        try:
            seating = bunco.seat_ghost_for_leaver(seating, ghosts, leaver=leaver, ghost=ghost)
        except IllegalSeating:
            continue
        ghosts.add(ghost)
        changes.append(bunco.SeatChange(kind="left", name=leaver, ghost=ghost))
    # The round is seated again by the movement from other winners: the leaves are applied again.
    winners = [rng.choice("AB") for _ in draw.tables]
    moved = bunco.next_seating_with([list(table) for table in draw.tables], winners, ghosts=set(draw.ghosts))
    again = bunco.seat_changes_again(moved, set(draw.ghosts) | {change.ghost for change in changes}, changes)
    seated = [name for seats in again for name in seats]
    assert sorted(seated) == sorted(name for seats in seating for name in seats)
    assert not {change.name for change in changes} & set(seated)
    for seats in again:
        assert sum(name in ghosts for name in seats) <= bunco.MAX_GHOSTS_A_TABLE
        assert not (seats[0] in ghosts and seats[2] in ghosts) and not (seats[1] in ghosts and seats[3] in ghosts)
