"""The director's desk (issue 46): every group of the round on one board, a table gone quiet
flagged after the minutes the director sets, and the board ringing for it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse

from tests.builders import START, groups_of, phones_round
from tournaments import actions
from tournaments.models import Tournament
from tournaments.views.contexts import desk_context

pytestmark = pytest.mark.django_db

MINUTE = timedelta(minutes=1)


def row_of(context: dict, number: int) -> dict:
    return next(row for row in context["rows"] if row["group"].number == number)


def test_the_board_shows_each_tables_players_turns_whose_turn_and_silence(tournament):
    actions.start_round(tournament, now=START)
    first, second = groups_of(tournament)
    actions.record_turn(group=first, entrant=first.players()[0], points=500, now=START + 2 * MINUTE)

    board = desk_context(tournament, START + 3 * MINUTE)

    one, two = row_of(board, first.number), row_of(board, second.number)
    assert [p["entrant"].name for p in one["players"]] == [p.name for p in first.players()]
    assert one["turns"] == 1 and one["next_player"] == first.players()[1]
    assert one["quiet"] == "1 min" and two["quiet"] == "3 min"
    assert two["next_player"] == second.players()[0]
    assert not one["flagged"] and not two["flagged"]


def test_the_board_knows_when_the_next_table_will_have_been_quiet_for_the_set_minutes(tournament):
    """The page asks for the board again at that moment (static/js/tournament.js): the flag needs no poll."""
    tournament = actions.set_alert_minutes(tournament, minutes=4)
    actions.start_round(tournament, now=START)
    first, second = groups_of(tournament)
    actions.record_turn(group=first, entrant=first.players()[0], points=500, now=START + 2 * MINUTE)

    assert desk_context(tournament, START + 3 * MINUTE)["flag_at"] == START + 4 * MINUTE  # table 2 first
    assert desk_context(tournament, START + 5 * MINUTE)["flag_at"] == START + 6 * MINUTE  # table 2 flagged: table 1
    assert desk_context(tournament, START + 7 * MINUTE)["flag_at"] is None  # both flagged: nothing to wait for


def test_a_table_quiet_for_the_set_minutes_is_flagged_and_the_board_rings_once_for_it(tournament):
    tournament = actions.set_alert_minutes(tournament, minutes=4)
    actions.start_round(tournament, now=START)
    first, second = groups_of(tournament)
    actions.record_turn(group=first, entrant=first.players()[0], points=500, now=START + 3 * MINUTE)

    board = desk_context(tournament, START + 5 * MINUTE)

    assert row_of(board, second.number)["flagged"] and not row_of(board, first.number)["flagged"]
    assert board["flagged"] == 1
    later = desk_context(tournament, START + 6 * MINUTE)
    assert row_of(later, second.number)["ring_key"] == row_of(board, second.number)["ring_key"]  # one ring
    actions.record_turn(group=second, entrant=second.players()[0], points=500, now=START + 6 * MINUTE)
    after = desk_context(tournament, START + 6 * MINUTE)
    assert not row_of(after, second.number)["flagged"]


def test_a_paused_clock_flags_no_table(tournament):
    actions.start_round(tournament, now=START)
    actions.pause_round(tournament, number=1, now=START + MINUTE)
    board = desk_context(tournament, START + 30 * MINUTE)
    assert board["flagged"] == 0


def test_a_table_on_phones_shows_its_waiting_seats(tournament):
    phones_round(tournament, seating=True)
    board = desk_context(tournament, START + MINUTE)
    watch = board["rows"][0]["watch"]
    assert watch is not None and watch["unheld"] and watch["held"] == 0


def test_the_alert_minutes_are_one_to_thirty(tournament):
    with pytest.raises(actions.BadEntry, match="1 to 30"):
        actions.set_alert_minutes(tournament, minutes=0)
    assert Tournament.objects.get(pk=tournament.pk).alert_minutes == 5


def test_the_desk_page_rings_for_a_flagged_table_and_opens_its_sheet_in_one_tap(tournament, director_client):
    actions.start_round(tournament, now=START)  # long ago: every table has been quiet since
    group = groups_of(tournament)[0]
    page = director_client.get(reverse("tournaments:desk", args=[tournament.code])).content.decode()
    assert "data-chime=" in page and "go and see" in page
    assert reverse("tournaments:director_group", args=[tournament.code, group.pk]) in page
    assert Client().get(reverse("tournaments:desk", args=[tournament.code])).status_code == 302


def test_the_director_sets_the_alert_minutes_on_the_desk(tournament, director_client):
    response = director_client.post(reverse("tournaments:alert", args=[tournament.code]), {"minutes": "8"})
    assert response.status_code == 302
    assert Tournament.objects.get(pk=tournament.pk).alert_minutes == 8
    refused = director_client.post(reverse("tournaments:alert", args=[tournament.code]), {"minutes": "99"},
                                   follow=True)
    assert "1 to 30" in refused.content.decode()
    assert Tournament.objects.get(pk=tournament.pk).alert_minutes == 8
