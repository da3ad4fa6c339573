"""A team's points in a round never go below 0: a host correction (or an undo) that would take
more off than the team has is refused with the reason, and nothing is recorded (issue 9, fault 3)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games.night import actions
from games.night.actions import BadTally
from games.night.models import Tally
from tests.builders import add, night_host_browser, seated, started_night, table, tally

pytestmark = pytest.mark.django_db


def test_a_correction_can_take_a_team_down_to_zero_but_not_below():
    night = started_night()
    add(night, 2, "A", 3)
    with pytest.raises(BadTally, match="only 3 points"):
        actions.correct_tally(night=night, table_number=2, team="A", points=-4)
    assert table(night, 2).totals() == {"A": 3, "B": 0}
    assert not Tally.objects.filter(night=night, kind=Tally.Kind.CORRECTION).exists()
    actions.correct_tally(night=night, table_number=2, team="A", points=-3)
    assert table(night, 2).totals() == {"A": 0, "B": 0}


def test_a_correction_below_zero_in_a_roll_off_counts_the_roll_off_points_only():
    night = started_night()
    add(night, 2, "A", 4)
    add(night, 2, "B", 4)
    add(night, 1, "A", 21)
    actions.finish_turn(night=night, table_number=2)  # 4-4: roll-off 1
    tally(night, 2, "A", 2)
    with pytest.raises(BadTally, match="only 2 points"):
        actions.correct_tally(night=night, table_number=2, team="A", points=-3)
    assert table(night, 2).totals(1) == {"A": 2, "B": 0}


def test_the_host_page_refuses_a_correction_below_zero_with_a_4xx_and_records_nothing():
    night = started_night()
    add(night, 3, "B", 2)
    host = night_host_browser(night)
    response = host.post(reverse("games:host_correct", args=[night.code]),
                         {"table": "3", "team": "B", "points": "-5"}, headers={"HX-Request": "true"})
    assert response.status_code == 400
    assert "only 2 points" in response.text
    assert table(night, 3).totals() == {"A": 0, "B": 2}
    assert not Tally.objects.filter(night=night, by_host=True).exists()


def test_an_undo_that_would_leave_a_team_below_zero_is_refused():
    night = started_night()
    dot = seated(night, 2, 0)
    tally(night, 2, "A", 5, entered_by=dot)
    actions.correct_tally(night=night, table_number=2, team="A", points=-4)  # 1 left
    with pytest.raises(BadTally, match="below 0"):
        actions.undo_tally(night=night, table_number=2, entered_by=dot)
    assert table(night, 2).totals() == {"A": 1, "B": 0}
