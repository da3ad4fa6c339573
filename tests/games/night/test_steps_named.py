"""A request that ends a step names the step it ends (the round, the roll-off), so a double tap,
a second phone or a late retry changes nothing: it is answered with the current state, without an
error (issue 9, fault 4: two quick taps on "Every seat has rolled off" skipped a roll-off)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from games.night import actions
from games.night.actions import StepAlreadyEnded
from games.night.models import Night, Round, TableRound
from tests.builders import (
    add,
    alert_of,
    fresh,
    joined_phone,
    make_night,
    night_host_browser,
    play_round,
    seated,
    started_night,
    table,
    tally,
)

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def tied_at_table_2(night: Night) -> None:
    """Round under way: table 2 ties 4-4 and rolls off once the head table rings the bell."""
    add(night, 2, "A", 4)
    add(night, 2, "B", 4)
    add(night, 3, "A", 1)
    add(night, 1, "A", 21)
    actions.finish_turn(night=night, table_number=2, round_number=1)


def round_one_to_the_bell(night: Night) -> None:
    """Tables 2 and 3 ahead one way or the other (no tie), then the head table's bell."""
    add(night, 2, "A", 3)
    add(night, 3, "B", 2)
    add(night, 1, "A", 21)


def post(client: Client, verb: str, night: Night, **data: object):
    return client.post(reverse(f"games:{verb}", args=[night.code]), data, headers=HTMX)


# --- The actions ------------------------------------------------------------------------------


def test_a_second_roll_off_done_for_the_same_roll_off_changes_nothing():
    night = started_night()
    tied_at_table_2(night)
    tally(night, 2, "A", 2)
    tally(night, 2, "B", 2)  # roll-off 1 tied too: roll-off 2 comes next
    assert actions.finish_roll_off(night=night, table_number=2, round_number=1, roll_off=1).roll_off == 2
    with pytest.raises(StepAlreadyEnded):
        actions.finish_roll_off(night=night, table_number=2, round_number=1, roll_off=1)
    assert (table(night, 2).status, table(night, 2).roll_off) == (TableRound.Status.ROLL_OFF, 2)


def test_a_late_turn_over_for_last_round_never_finishes_this_rounds_turn():
    night = started_night()
    round_one_to_the_bell(night)
    actions.finish_turn(night=night, table_number=2, round_number=1)
    actions.finish_turn(night=night, table_number=3, round_number=1)
    night = fresh(night)
    actions.start_round(night, round_number=2)
    add(night, 1, "B", 21)  # round 2's bell: table 2 is finishing its turn
    with pytest.raises(StepAlreadyEnded):
        actions.finish_turn(night=night, table_number=2, round_number=1)
    assert table(night, 2, round_number=2).status == TableRound.Status.FINISHING


def test_a_late_start_for_last_round_does_not_start_the_next_one():
    night = started_night()
    round_one_to_the_bell(night)
    actions.finish_turn(night=night, table_number=2, round_number=1)
    actions.finish_turn(night=night, table_number=3, round_number=1)
    with pytest.raises(StepAlreadyEnded):
        actions.start_round(fresh(night), round_number=1)
    assert Round.objects.get(night=night, number=2).status == Round.Status.READY


def test_ending_a_night_twice_changes_nothing_the_second_time():
    import random

    night = make_night()
    play_round(night, random.Random(3))
    actions.end_night(fresh(night), round_number=2)
    with pytest.raises(StepAlreadyEnded):
        actions.end_night(fresh(night), round_number=2)
    assert fresh(night).current_round == 1


# --- The phone's and the host's buttons ---------------------------------------------------------


def test_two_phones_tapping_every_seat_has_rolled_off_end_one_roll_off_and_see_no_error():
    night = started_night()
    tied_at_table_2(night)
    tally(night, 2, "A", 1)
    tally(night, 2, "B", 1)  # roll-off 1 tied: one tap starts roll-off 2, the second must not skip it
    first = joined_phone(night, seated(night, 2, 0))
    second = joined_phone(night, seated(night, 2, 1))
    answers = [post(phone, "table_roll_off_done", night, round="1", roll_off="1") for phone in (first, second, first)]
    assert [answer.status_code for answer in answers] == [200, 200, 200]
    assert all("notice-error" not in answer.text for answer in answers)
    assert "Roll-off 2" in answers[-1].text
    assert (table(night, 2).status, table(night, 2).roll_off) == (TableRound.Status.ROLL_OFF, 2)


def test_a_step_ending_button_that_names_no_round_is_refused_with_400_and_changes_nothing():
    night = started_night()
    tied_at_table_2(night)
    phone = joined_phone(night, seated(night, 2, 0))
    response = post(phone, "table_roll_off_done", night)
    assert response.status_code == 400
    assert alert_of(response) == "The round this button ends is missing. Reload the page and tap again."
    assert table(night, 2).roll_off == 1


def test_a_double_tap_on_our_turn_is_over_is_answered_with_the_state_not_an_error():
    night = started_night()
    add(night, 2, "A", 3)
    add(night, 1, "A", 21)
    phone = joined_phone(night, seated(night, 2, 0))
    answers = [post(phone, "table_turn_over", night, round="1") for _ in range(2)]
    assert [answer.status_code for answer in answers] == [200, 200]
    assert "notice-error" not in answers[1].text
    assert table(night, 2).status == TableRound.Status.DONE


def test_the_host_double_tapping_roll_off_done_ends_one_roll_off():
    night = started_night()
    tied_at_table_2(night)
    tally(night, 2, "B", 1)
    tally(night, 2, "A", 1)
    host = night_host_browser(night)
    answers = [post(host, "host_roll_off_done", night, table="2", round="1", roll_off="1") for _ in range(2)]
    assert [answer.status_code for answer in answers] == [200, 200]
    assert "notice-error" not in answers[1].text
    assert table(night, 2).roll_off == 2


def test_the_host_double_tapping_start_and_end_sees_no_error_and_nothing_more_happens():
    night = make_night()
    host = night_host_browser(night)
    answers = [post(host, "host_start", night, round="1") for _ in range(2)]
    assert [answer.status_code for answer in answers] == [200, 200]
    assert "notice-error" not in answers[1].text
    round_one_to_the_bell(night)
    for number in (2, 3):
        assert post(host, "host_turn_over", night, table=str(number), round="1").status_code == 200
    answers = [post(host, "host_end", night, round="2") for _ in range(2)]
    assert [answer.status_code for answer in answers] == [200, 200]
    assert "notice-error" not in answers[1].text
    assert (fresh(night).status, fresh(night).current_round) == (Night.Status.FINISHED, 1)


@pytest.mark.parametrize("bad", ["", "²", "9" * 5000, "-1", "0", "25", "1.0"])
@pytest.mark.parametrize("field", ["round", "roll_off"])
def test_a_bad_step_number_is_refused_with_400_and_a_message_and_changes_nothing(field, bad):
    night = started_night()
    tied_at_table_2(night)
    host = night_host_browser(night)
    data = {"table": "2", "round": "1", "roll_off": "1", field: bad}
    if bad == "25" and field == "roll_off":
        data[field] = "1000"  # 25 roll-offs is a lot, but a number of them
    response = post(host, "host_roll_off_done", night, **data)
    assert response.status_code == 400
    named = "round" if field == "round" else "roll-off"
    assert f"The {named} this button ends must be a whole number" in response.text
    assert (table(night, 2).status, table(night, 2).roll_off) == (TableRound.Status.ROLL_OFF, 1)
