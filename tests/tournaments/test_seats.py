"""Issue 29, D2: a round played on phones never stalls on a seat nobody holds without the director
knowing. The director's dashboard shows, per table, whose move it waits on and for how long, flags
each seat nobody holds (no phone, no bot) and hands it to a bot in one tap; a round on phones
started from the dashboard waits, its clock held, until the director starts the clock, which a
seat nobody holds stops unless the director chose that bots take such seats."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.urls import reverse

from games.table import actions as table_actions
from games.table.models import Table
from tests.builders import START, alert_of, element_text, groups_of, make_tournament, phones_round
from tournaments.models import Group, Tournament, TournamentRound

pytestmark = pytest.mark.django_db


def dashboard(client: Client, tournament: Tournament) -> str:
    return client.get(reverse("tournaments:dashboard", args=[tournament.code])).content.decode()


def table_of(group: Group) -> Table:
    assert group.table_id is not None
    return Table.objects.get(pk=group.table_id)


def claim_all_but(tournament: Tournament, unheld: set[str]) -> None:
    """Every player's phone takes its seat, except those named."""
    for group in groups_of(tournament):
        table = table_of(group)
        for seat in table.seats.all():
            if seat.name not in unheld:
                table_actions.claim_seat(table=table, number=seat.number, phone=f"phone-of-{seat.name}")


def start(client: Client, tournament: Tournament, **boxes: str) -> None:
    response = client.post(reverse("tournaments:start", args=[tournament.code]), boxes)
    assert response.status_code == 302


def start_clock(client: Client, tournament: Tournament, number: int = 1):
    return client.post(reverse("tournaments:start_clock", args=[tournament.code]), {"round": str(number)},
                       HTTP_HX_REQUEST="true")


def test_a_round_on_phones_waits_for_its_seats_and_a_seat_nobody_holds_stops_the_clock(director, director_client):
    tournament = make_tournament(director, 7)
    start(director_client, tournament, on_phones="1")
    round_ = TournamentRound.objects.get(tournament=tournament)
    assert round_.seating and round_.paused_at is not None  # the clock waits
    page = dashboard(director_client, tournament)
    assert "0 of 7 seats held" in page and "Start the clock" in page
    claim_all_but(tournament, {"Ann 3"})
    assert "6 of 7 seats held" in dashboard(director_client, tournament)

    refused = start_clock(director_client, tournament)
    assert refused.status_code == 409
    holder = next(group for group in groups_of(tournament) if "Ann 3" in [p.name for p in group.players()])
    assert "Nobody holds Ann 3's seat at " + str(holder) in alert_of(refused)
    round_.refresh_from_db()
    assert round_.seating and round_.paused_at is not None

    # One tap on the dashboard: a bot plays Ann 3; then the clock starts, the round's time whole.
    page = dashboard(director_client, tournament)
    assert "Nobody holds Ann 3's seat" in page and "Hand Ann 3 to a bot" in page
    seat = table_of(holder).seats.get(name="Ann 3")
    tapped = director_client.post(reverse("tournaments:seat_to_bot", args=[tournament.code, holder.pk]),
                                  {"seat": str(seat.number)}, HTTP_HX_REQUEST="true")
    assert tapped.status_code == 200 and "Nobody holds" not in tapped.content.decode()
    seat.refresh_from_db()
    assert seat.is_bot
    length = round_.ends_at - round_.started_at
    assert start_clock(director_client, tournament).status_code == 200
    round_.refresh_from_db()
    assert not round_.seating and round_.paused_at is None
    assert round_.ends_at - round_.started_at >= length  # the seating time did not count
    assert not any(table_of(group).clock_paused for group in groups_of(tournament))


def test_a_refused_start_of_the_clock_shows_on_the_dashboard_beside_the_seats_it_names_and_their_bots(
    director, director_client
):
    """Issue 42, T1: the refusal came back as the message alone, which replaced the dashboard."""
    tournament = make_tournament(director, 7)
    start(director_client, tournament, on_phones="1")
    claim_all_but(tournament, {"Ann 3", "Ann 6"})

    refused = start_clock(director_client, tournament)
    html = refused.content.decode()
    assert refused.status_code == 409
    assert html.lstrip().startswith('<section id="dashboard-state"')  # what the button swaps, whole
    assert "5 of 7 seats held" in html and "Start the clock" in html
    box = element_text(html, id="dashboard-refusal")
    assert "Nobody holds Ann 3's seat at" in box and "Ann 6's seat at" in box
    assert "Hand Ann 3 to a bot" in box and "Hand Ann 6 to a bot" in box
    # The box's buttons are the seats' own: one hands its seat to a bot, and the message goes.
    holder = next(group for group in groups_of(tournament) if "Ann 3" in [p.name for p in group.players()])
    seat = table_of(holder).seats.get(name="Ann 3")
    assert (f'action="{reverse("tournaments:seat_to_bot", args=[tournament.code, holder.pk])}"' in html
            and f'name="seat" value="{seat.number}"' in html)
    tapped = director_client.post(reverse("tournaments:seat_to_bot", args=[tournament.code, holder.pk]),
                                  {"seat": str(seat.number)}, HTTP_HX_REQUEST="true")
    assert tapped.status_code == 200 and 'id="dashboard-refusal"' not in tapped.content.decode()


def test_a_refused_start_of_the_clock_from_a_plain_form_shows_the_whole_dashboard_with_the_seat_and_its_bot(
    director, director_client
):
    """A button pressed before the page's script is ready is a plain form: the refusal came back as
    a bare notice on the dashboard, away from the seat it named and its bot (issue 42's CI run)."""
    tournament = make_tournament(director, 4)
    start(director_client, tournament, on_phones="1")
    claim_all_but(tournament, {"Ann 2"})

    refused = director_client.post(reverse("tournaments:start_clock", args=[tournament.code]), {"round": "1"})
    html = refused.content.decode()
    assert refused.status_code == 409 and "<html" in html
    box = element_text(html, id="dashboard-refusal")
    assert "Nobody holds Ann 2's seat at" in box and "Hand Ann 2 to a bot" in box
    assert "3 of 4 seats held" in html


def test_bots_take_the_seats_nobody_holds_when_the_director_chose_so(director, director_client):
    tournament = make_tournament(director, 4)
    start(director_client, tournament, on_phones="1", bots_take_unheld="1")
    claim_all_but(tournament, {"Ann 2", "Ann 4"})
    assert "bots then take the seats nobody holds" in dashboard(director_client, tournament)
    assert start_clock(director_client, tournament).status_code == 200
    table = table_of(groups_of(tournament)[0])
    assert {seat.name: seat.is_bot for seat in table.seats.all()} == {
        "Ann 1": False, "Ann 2": True, "Ann 3": False, "Ann 4": True}
    assert TournamentRound.objects.get(tournament=tournament).paused_at is None


def test_the_dashboard_says_whose_move_a_table_waits_on_for_how_long_and_flags_a_seat_nobody_holds(
    director, director_client
):
    tournament = make_tournament(director, 3)
    with time_machine.travel(START, tick=False):
        phones_round(tournament)
    group = groups_of(tournament)[0]
    table = table_of(group)
    first = table.loaded().to_move()[0]
    name = table.seats.get(number=first).name
    with time_machine.travel(START + timedelta(minutes=3, seconds=5), tick=False):
        page = dashboard(director_client, tournament)
    assert f"Waiting on <strong>{name}</strong> · 3 min" in page
    assert 'class="table-watch is-stalled"' in page  # nobody holds the seat it waits on
    assert page.count("Nobody holds") == 3
    with time_machine.travel(START + timedelta(minutes=3, seconds=10), tick=False):
        director_client.post(reverse("tournaments:seat_to_bot", args=[tournament.code, group.pk]),
                             {"seat": str(first)}, HTTP_HX_REQUEST="true")
        page = dashboard(director_client, tournament)
    assert page.count("Nobody holds") == 2
    assert f"Waiting on <strong>{name}</strong> · 3 min <span class=\"muted\">(a bot)</span>" in page
    table.refresh_from_db()
    assert first in table.bot_seats and table.bot_due_at is not None  # the bot plays on
