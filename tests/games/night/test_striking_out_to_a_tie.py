"""Striking out the entries of a decided table until it is tied (issue 16, N9): the table's
result follows the record (undecided again while its round is at the bell), or the host is told
plainly what happened and what to do; the old winner never stays on 0-0 silently."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games.night import actions
from games.night.models import Round, TableRound
from tests.builders import add, fresh, night_host_browser, started_night, table, tally

pytestmark = pytest.mark.django_db


def test_a_table_struck_out_to_a_tie_while_its_round_is_at_the_bell_rolls_off_the_tie():
    night = started_night()  # 12 players, 3 tables
    five = tally(night, 2, "A", 5)
    add(night, 1, "A", 21)  # the bell
    actions.finish_turn(night=night, table_number=2)  # table 2: A wins 5-0; table 3 still finishing
    assert (table(night, 2).status, table(night, 2).winner) == (TableRound.Status.DONE, "A")
    host = night_host_browser(night)

    page = host.post(reverse("games:host_undo", args=[night.code, five.pk]), follow=True)

    assert (table(night, 2).status, table(night, 2).winner) == (TableRound.Status.ROLL_OFF, "")
    assert "Table 2 of round 1 is tied 0–0 now: it is undecided again and rolls off the tie." in page.text
    tally(night, 2, "B", 2)
    actions.finish_roll_off(night=night, table_number=2)
    assert table(night, 2).winner == "B"


def test_a_table_struck_out_to_a_tie_after_its_round_tells_the_host_what_happened():
    night = started_night()
    five = tally(night, 2, "A", 5)
    add(night, 1, "A", 21)
    actions.finish_turn(night=night, table_number=2)
    actions.finish_turn(night=night, table_number=3)  # 0-0: a roll-off
    tally(night, 3, "A", 1)
    actions.finish_roll_off(night=night, table_number=3)
    assert Round.objects.get(night=night, number=1).status == Round.Status.CLOSED
    host = night_host_browser(night)

    page = host.post(reverse("games:host_undo", args=[night.code, five.pk]), follow=True)

    assert table(night, 2).totals() == {"A": 0, "B": 0}
    assert "Table 2 of round 1 is tied 0–0 now, and no roll-off decided it: team A keeps the win" in page.text
    assert "re-open round 1 at table 2" in page.text
    assert fresh(night).current_round == 2


def test_a_correction_to_a_tie_says_before_it_is_applied_that_the_table_rolls_off_and_then_it_does():
    night = started_night()
    tally(night, 2, "A", 5)
    add(night, 1, "A", 21)
    actions.finish_turn(night=night, table_number=2)
    host = night_host_browser(night)
    data = {"round": 1, "table": 2, "team": "A", "points": -5}

    check = host.post(reverse("games:host_correct_check", args=[night.code]), data, headers={"HX-Request": "true"})
    assert "it is undecided again and rolls off the tie" in check.text
    applied = host.post(reverse("games:host_correct", args=[night.code]), {**data, "key": "c1"},
                        headers={"HX-Request": "true"})

    assert applied.status_code == 200
    assert "Table 2 of round 1 is tied 0–0 now: it is undecided again and rolls off the tie." in applied.text
    assert (table(night, 2).status, table(night, 2).winner) == (TableRound.Status.ROLL_OFF, "")
