"""The hosting rotation (docs/CONTRACT.md "bunco_club/rotation.py"): worked examples, the errors,
and the fairness invariant at every date under hypothesis."""

from __future__ import annotations

import datetime
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bunco_club.rotation import RotationError, plan_rotation

D = datetime.date


SEASON_START = D(2027, 1, 15)


def fridays(count: int, start: datetime.date = SEASON_START) -> list[datetime.date]:
    return [start + datetime.timedelta(weeks=4 * index) for index in range(count)]


def assert_fair(members, dates, plan, blackouts, hosted_before) -> None:
    """The contract's fairness, checked from scratch at every date."""
    assert len(plan) == len(dates)
    counts = {name: hosted_before.get(name, 0) for name in members}
    for day, host in zip(dates, plan, strict=True):
        available = [name for name in members if day not in blackouts.get(name, ())]
        if not available:
            assert host is None, f"{day}: nobody is available, yet {host} hosts"
            continue
        assert host is not None, f"{day}: someone is available, yet nobody hosts"
        assert host in available, f"{day}: {host} is blacked out"
        fewest = min(counts[name] for name in available)
        assert counts[host] == fewest, f"{day}: {host} has hosted {counts[host]} times, someone available {fewest}"
        counts[host] += 1


# --- Worked examples --------------------------------------------------------------------------


def test_it_goes_round_the_roster_in_order_when_nobody_is_away():
    assert plan_rotation(["Ada", "Bea", "Cal"], fridays(7)) == ["Ada", "Bea", "Cal", "Ada", "Bea", "Cal", "Ada"]


def test_it_gives_an_empty_plan_for_a_season_without_dates():
    assert plan_rotation(["Ada"], []) == []


def test_it_skips_a_member_on_a_date_they_are_away():
    dates = fridays(3)
    assert plan_rotation(["Ada", "Bea", "Cal"], dates, blackouts={"Ada": {dates[0]}}) == ["Bea", "Ada", "Cal"]


def test_it_leaves_a_date_without_a_host_only_when_everyone_is_away():
    dates = fridays(3)
    away = {"Ada": {dates[1]}, "Bea": {dates[1]}}
    assert plan_rotation(["Ada", "Bea"], dates, blackouts=away) == ["Ada", None, "Bea"]


def test_members_who_hosted_more_last_season_wait_their_turn():
    plan = plan_rotation(["Ada", "Bea", "Cal"], fridays(3), hosted_before={"Ada": 2, "Bea": 1})
    assert plan == ["Cal", "Bea", "Cal"]


def test_a_member_with_few_free_dates_hosts_on_one_of_them():
    dates = fridays(4)
    # Dot can only host on the second date; Ada, Bea and Cal can host any time.
    dot_away = {dates[0], dates[2], dates[3]}
    plan = plan_rotation(["Ada", "Bea", "Cal", "Dot"], dates, blackouts={"Dot": dot_away})
    assert plan[1] == "Dot"
    assert sorted(host for host in plan if host) == ["Ada", "Bea", "Cal", "Dot"]


def test_it_ignores_names_that_are_not_members():
    dates = fridays(2)
    plan = plan_rotation(
        ["Ada", "Bea"], dates, blackouts={"Zed": set(dates)}, hosted_before={"Zed": 9}
    )
    assert plan == ["Ada", "Bea"]


def test_it_gives_the_same_plan_for_the_same_input():
    dates = fridays(12)
    away = {"Bea": {dates[2], dates[5]}, "Cal": set(dates[:6])}
    first = plan_rotation(["Ada", "Bea", "Cal", "Dot"], dates, blackouts=away, hosted_before={"Dot": 1})
    again = plan_rotation(["Ada", "Bea", "Cal", "Dot"], dates, blackouts=away, hosted_before={"Dot": 1})
    assert first == again


def test_it_does_not_change_its_arguments():
    dates = fridays(3)
    away = {"Ada": {dates[0]}}
    before = {"Bea": 1}
    plan_rotation(["Ada", "Bea"], dates, blackouts=away, hosted_before=before)
    assert away == {"Ada": {dates[0]}} and before == {"Bea": 1}


def test_a_year_of_twelve_dates_shares_out_evenly_among_six_members():
    plan = plan_rotation(["Ada", "Bea", "Cal", "Dot", "Eve", "Fay"], fridays(12))
    assert set(Counter(plan).values()) == {2}


def test_it_takes_any_ordered_dates_not_only_monthly_ones():
    dates = [D(2027, 1, 1), D(2027, 1, 2), D(2028, 6, 30)]
    assert plan_rotation(["Ada"], dates) == ["Ada", "Ada", "Ada"]


# --- Errors -----------------------------------------------------------------------------------


def test_it_refuses_dates_out_of_order():
    with pytest.raises(ValueError, match="in order"):
        plan_rotation(["Ada"], [D(2027, 2, 1), D(2027, 1, 1)])


def test_it_refuses_a_date_given_twice():
    with pytest.raises(ValueError, match="2027-01-01"):
        plan_rotation(["Ada"], [D(2027, 1, 1), D(2027, 1, 1)])


def test_it_refuses_an_empty_roster():
    with pytest.raises(ValueError, match="at least one member"):
        plan_rotation([], fridays(2))


def test_it_refuses_an_empty_roster_even_without_dates():
    with pytest.raises(ValueError):
        plan_rotation([], [])


def test_it_refuses_two_members_with_the_same_name():
    with pytest.raises(ValueError, match="'Ada'"):
        plan_rotation(["Ada", "Bea", "Ada"], fridays(2))


def test_its_errors_are_its_own_value_errors():
    with pytest.raises(RotationError):
        plan_rotation(["Ada", "Ada"], [])
    assert issubclass(RotationError, ValueError)


def test_it_refuses_something_that_is_not_a_date():
    with pytest.raises(ValueError, match="not a date"):
        plan_rotation(["Ada"], ["2027-01-01"])  # type: ignore[list-item]


def test_it_refuses_a_single_string_as_the_roster():
    with pytest.raises(ValueError, match="list of names"):
        plan_rotation("Ada", fridays(1))


# --- Properties -------------------------------------------------------------------------------

names = st.lists(st.text(alphabet="abcdefghij", min_size=1, max_size=4), min_size=2, max_size=40, unique=True)
dates = st.lists(st.dates(D(2026, 1, 1), D(2030, 12, 31)), min_size=1, max_size=24, unique=True).map(sorted)


@st.composite
def seasons(draw: st.DrawFn):
    members = draw(names)
    days = draw(dates)
    blackouts = {
        name: set(draw(st.lists(st.sampled_from(days), max_size=len(days))))
        for name in draw(st.lists(st.sampled_from(members), unique=True))
    }
    # Sometimes a date with everybody away.
    if draw(st.booleans()) and len(days) > 1:
        everyone_away = draw(st.sampled_from(days))
        for name in members:
            blackouts.setdefault(name, set()).add(everyone_away)
    hosted_before = {name: draw(st.integers(0, 6)) for name in draw(st.lists(st.sampled_from(members), unique=True))}
    # Names that are not members, which the plan ignores.
    blackouts["not-a-member!"] = set(days)
    hosted_before["not-a-member!"] = -3
    return members, days, blackouts, hosted_before


@settings(max_examples=300, deadline=None)
@given(seasons())
def test_every_date_goes_to_an_available_member_who_has_hosted_least(season):
    members, days, blackouts, hosted_before = season
    plan = plan_rotation(members, days, blackouts=blackouts, hosted_before=hosted_before)
    assert_fair(members, days, plan, blackouts, hosted_before)


@settings(max_examples=100, deadline=None)
@given(seasons())
def test_the_plan_is_the_same_every_time(season):
    members, days, blackouts, hosted_before = season
    plan = plan_rotation(members, days, blackouts=blackouts, hosted_before=hosted_before)
    assert plan == plan_rotation(list(members), tuple(days), blackouts=dict(blackouts), hosted_before=dict(hosted_before))


@settings(max_examples=100, deadline=None)
@given(names, dates)
def test_without_blackouts_or_history_hostings_differ_by_at_most_one(members, days):
    plan = plan_rotation(members, days)
    counts = Counter(plan)
    hosting = [counts.get(name, 0) for name in members]
    assert max(hosting) - min(hosting) <= 1
    assert None not in plan


@settings(max_examples=100, deadline=None)
@given(names, dates, st.data())
def test_dates_out_of_order_are_refused(members, days, data):
    if len(days) < 2:
        days = [days[0], days[0]]
    else:
        index = data.draw(st.integers(1, len(days) - 1))
        days = [*days[:index], days[index - 1], *days[index:]]  # a repeat, or a step back
        days[index], days[index - 1] = days[index - 1], days[index]
    with pytest.raises(ValueError):
        plan_rotation(members, days)


# --- Dates from a rule ------------------------------------------------------------------------


def test_the_third_friday_of_every_month_for_a_year():
    from bunco_club.rotation import monthly_dates

    days = monthly_dates(D(2027, 1, 1), 12, nth=3, weekday=4)
    assert days[:3] == [D(2027, 1, 15), D(2027, 2, 19), D(2027, 3, 19)]
    assert days[-1] == D(2027, 12, 17)
    assert all(day.weekday() == 4 and 15 <= day.day <= 21 for day in days)


def test_the_last_tuesday_of_the_month_crosses_the_year_end():
    from bunco_club.rotation import monthly_dates

    assert monthly_dates(D(2027, 11, 20), 3, nth=-1, weekday=1) == [D(2027, 11, 30), D(2027, 12, 28), D(2028, 1, 25)]


def test_a_rule_outside_the_month_is_refused():
    from bunco_club.rotation import monthly_dates

    with pytest.raises(ValueError, match="first, second"):
        monthly_dates(D(2027, 1, 1), 12, nth=5, weekday=4)
