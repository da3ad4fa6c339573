"""Re-opening the last round re-opens only the table the host picks: the other tables keep their
winners and the roll-offs that decided them (issue 9, fault 5)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from games.night import actions
from games.night.actions import StepAlreadyEnded
from games.night.models import Night, Round, TableRound
from tests.builders import add, fresh, night_host_browser, seating_of, started_night, table, tally

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def round_one_with_two_roll_offs(night: Night) -> None:
    """Tables 2 and 3 tie and are decided by roll-offs (table 2 for B, table 3 for A)."""
    add(night, 2, "A", 3)
    add(night, 2, "B", 3)
    add(night, 3, "A", 2)
    add(night, 3, "B", 2)
    add(night, 1, "A", 21)
    for number, winner in ((2, "B"), (3, "A")):
        actions.finish_turn(night=night, table_number=number)
        tally(night, number, winner, 5)
        actions.finish_roll_off(night=night, table_number=number)
    assert fresh(night).current_round == 2


def test_reopening_one_table_leaves_the_other_tables_roll_offs_decided():
    night = started_night()
    round_one_with_two_roll_offs(night)
    actions.reopen_last_round(night, table_number=3, round_number=1)
    night = fresh(night)
    assert (night.current_round, Round.objects.get(night=night, number=1).status) == (1, Round.Status.BELL)
    assert (table(night, 2).status, table(night, 2).winner) == (TableRound.Status.DONE, "B")
    assert (table(night, 3).status, table(night, 3).winner) == (TableRound.Status.FINISHING, "")
    assert (table(night, 1).status, table(night, 1).winner) == (TableRound.Status.DONE, "A")

    tally(night, 3, "B", 5)  # the turn that was not over after all: B 7 - A 2
    actions.finish_turn(night=night, table_number=3)
    assert [table(night, n).winner for n in (1, 2, 3)] == ["A", "B", "B"]
    assert fresh(night).current_round == 2


def test_the_host_page_reopens_the_table_picked_and_a_second_tap_changes_nothing():
    night = started_night()
    round_one_with_two_roll_offs(night)
    host = night_host_browser(night)
    page = host.get(reverse("games:night_host", args=[night.code])).text
    assert '<select id="reopen-table" name="table">' in page  # the host picks the table
    answers = [host.post(reverse("games:host_reopen", args=[night.code]), {"table": "2", "round": "1"},
                         headers=HTMX) for _ in range(2)]
    assert [answer.status_code for answer in answers] == [200, 200]
    assert "notice-error" not in answers[1].text
    assert (table(night, 2).status, table(night, 3).status) == (TableRound.Status.FINISHING, TableRound.Status.DONE)
    assert table(night, 3).winner == "A"


def test_a_reopen_that_names_no_table_is_refused_and_changes_nothing():
    night = started_night()
    round_one_with_two_roll_offs(night)
    host = night_host_browser(night)
    response = host.post(reverse("games:host_reopen", args=[night.code]), {"round": "1"}, headers=HTMX)
    assert response.status_code == 400
    assert fresh(night).current_round == 2


def test_reopening_the_head_table_reseats_the_next_round_from_the_corrected_record():
    night = started_night()
    round_one_with_two_roll_offs(night)
    seating = seating_of(night, 1)
    actions.correct_tally(night=night, table_number=1, team="B", points=30, round_number=1)
    actions.reopen_last_round(night, table_number=1, round_number=1)
    night = fresh(night)
    assert night.current_round == 2
    assert [table(night, n).winner for n in (1, 2, 3)] == ["B", "B", "A"]
    from games.rules import bunco

    assert seating_of(night, 2) == bunco.next_seating_with(seating, ["B", "B", "A"])


def test_a_second_reopen_of_the_same_round_changes_nothing():
    night = started_night()
    round_one_with_two_roll_offs(night)
    actions.reopen_last_round(night, table_number=3, round_number=1)
    with pytest.raises(StepAlreadyEnded):
        actions.reopen_last_round(fresh(night), table_number=2, round_number=1)
    assert table(night, 2).status == TableRound.Status.DONE
