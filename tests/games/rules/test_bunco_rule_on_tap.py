"""A tap judged in one answer (`rule_on_tap`, issue 30): whether the table takes it now, the tally
it records, the table's totals with it and what it leads to."""

from __future__ import annotations

import pytest

from games.rules.bunco import (
    BUNCO_POINTS,
    OFFICIAL,
    Phase,
    RoundAtTap,
    RoundPhase,
    SeatAtTap,
    TableAtTap,
    TapAsked,
    next_seating_with,
    rule_on_tap,
)

SEATS = [SeatAtTap("Ann", "A", False), SeatAtTap("Bob", "B", False), SeatAtTap("Cat", "A", False),
         SeatAtTap("Dee", "B", False)]
WITH_A_GHOST = [SeatAtTap("Ann", "A", False), SeatAtTap("Bob", "B", False), SeatAtTap("Ghost 1", "A", True),
                SeatAtTap("Dee", "B", False)]
WIPEOUT = {"wipeout": True}
SUDDEN_DEATH = {"tie_break": "sudden_death"}


def table(number: int = 2, *, a: int = 0, b: int = 0, round_number: int = 2, round_phase: str = RoundPhase.PLAYING,
          phase: str = Phase.PLAYING, roll_off: int = 0, ra: int | None = None, rb: int | None = None,
          seats=SEATS, rules=None) -> TableAtTap:
    in_roll_off = phase == Phase.ROLL_OFF
    return TableAtTap(number=number, round_number=round_number, round_phase=round_phase, phase=phase,
                      roll_off=roll_off, seats=seats, totals={"A": a, "B": b},
                      roll_off_totals={"A": ra or 0, "B": rb or 0} if in_roll_off else {"A": a, "B": b},
                      rules=rules or {})


def test_points_count_in_main_play_and_lead_to_nothing_at_a_secondary_table():
    ruling = rule_on_tap(table(a=4, b=3), TapAsked(team="A", points=2), None)
    assert ruling.refusal is None
    assert (ruling.kind, ruling.points, ruling.roll_off, ruling.credited) == ("points", 2, 0, None)
    assert ruling.totals == {"A": 6, "B": 3} and ruling.roll_off_totals is None
    assert ruling.after is not None and not ruling.after.bell and ruling.after.winner is None


def test_a_bunco_at_the_head_table_rings_the_bell_and_names_the_winners():
    ruling = rule_on_tap(table(1, a=3, b=9), TapAsked(team="A", points=0, bunco_by="Cat"), None)
    assert (ruling.kind, ruling.points, ruling.credited) == ("bunco", BUNCO_POINTS, "Cat")
    assert ruling.after is not None and ruling.after.bell and ruling.after.winner == "A"
    assert ruling.after.bell_winners == ("Ann", "Cat")


def test_a_ghosts_bunco_is_credited_to_the_partner_who_rolled_it():
    ruling = rule_on_tap(table(seats=WITH_A_GHOST), TapAsked(team="A", points=0, bunco_by="Ghost 1"), None)
    assert ruling.credited == "Ann"


def test_a_bunco_by_someone_not_on_the_team_is_a_bad_tap():
    ruling = rule_on_tap(table(), TapAsked(team="A", points=0, bunco_by="Bob"), None)
    assert (ruling.refused_for, ruling.refusal) == ("bad", "Bob isn't on that team at table 2.")
    assert rule_on_tap(table(), TapAsked(team="A", points=0, bunco_by="Zed"), None).refused_for == "bad"


@pytest.mark.parametrize(("round_phase", "phase", "number", "by_host", "refused_for"), [
    (RoundPhase.READY, Phase.PLAYING, 1, False, "closed"),
    (RoundPhase.READY, Phase.PLAYING, 2, True, "not_now"),
    (RoundPhase.BELL, Phase.DONE, 1, False, "closed"),
    (RoundPhase.CLOSED, Phase.DONE, 2, False, "closed"),
])
def test_a_table_that_does_not_take_a_tally_now_refuses_it(round_phase, phase, number, by_host, refused_for):
    ruling = rule_on_tap(table(number, round_phase=round_phase, phase=phase),
                         TapAsked(team="A", points=1, by_host=by_host), None)
    assert ruling.refused_for == refused_for and ruling.refusal and ruling.after is None


def test_after_the_bell_a_secondary_table_finishes_its_turn_and_the_host_corrects_a_closed_round():
    finishing = table(round_phase=RoundPhase.BELL, phase=Phase.FINISHING)
    assert rule_on_tap(finishing, TapAsked(team="B", points=5), None).refusal is None
    closed = table(round_phase=RoundPhase.CLOSED, phase=Phase.DONE, a=9)
    assert rule_on_tap(closed, TapAsked(team="A", points=-2, by_host=True), None).kind == "correction"


def test_a_correction_never_takes_a_team_below_zero():
    ruling = rule_on_tap(table(a=3), TapAsked(team="A", points=-4, by_host=True), None)
    assert ruling.refused_for == "bad" and "has only 3 points" in (ruling.refusal or "")
    assert rule_on_tap(table(a=3), TapAsked(team="A", points=-3, by_host=True), None).totals == {"A": 0, "B": 0}


def test_a_wipeout_takes_the_team_back_to_zero_only_under_its_house_rule_and_when_ones_are_not_up():
    ruling = rule_on_tap(table(a=11, b=2, rules=WIPEOUT), TapAsked(team="A", points=0, wipeout=True), None)
    assert (ruling.kind, ruling.points, ruling.totals) == ("wipeout", -11, {"A": 0, "B": 2})
    assert rule_on_tap(table(a=11), TapAsked(team="A", points=0, wipeout=True), None).refused_for == "bad"
    ones_up = table(a=11, round_number=7, rules=WIPEOUT)
    assert rule_on_tap(ones_up, TapAsked(team="A", points=0, wipeout=True), None).refused_for == "not_now"


def test_a_tally_in_a_roll_off_counts_in_the_roll_off_and_under_sudden_death_decides_the_table():
    rolling = table(round_phase=RoundPhase.BELL, phase=Phase.ROLL_OFF, roll_off=1, a=9, b=9, ra=0, rb=0,
                    rules=SUDDEN_DEATH)
    ruling = rule_on_tap(rolling, TapAsked(team="B", points=1), None)
    assert ruling.roll_off == 1 and ruling.totals == {"A": 9, "B": 9} and ruling.roll_off_totals == {"A": 0, "B": 1}
    assert ruling.after is not None and ruling.after.winner == "B" and ruling.after.next_round is None


def test_the_tally_that_decides_the_rounds_last_table_seats_the_next_round():
    seating = [[seat.name for seat in SEATS], ["Eve", "Fay", "Gus", "Hal"]]
    closing = RoundAtTap(winners=["", "B"], seating=seating)
    ruling = rule_on_tap(table(1, a=20), TapAsked(team="A", points=1), closing)
    assert ruling.after is not None and ruling.after.winner == "A" and ruling.after.next_round is not None
    moved = [[name for name, _team in seats] for seats in ruling.after.next_round.seating]
    assert moved == next_seating_with(seating, ["A", "B"], OFFICIAL)
