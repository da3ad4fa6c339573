"""Issue 42, wording: what the director reads of final places and of play-offs says it once, and
says it all."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

from django.test import Client
from django.urls import reverse

from tests.builders import element_text, groups_of, make_tournament
from tournaments import actions, deciding
from tournaments.models import Tournament


def finished_with_a_shared_third_place(director) -> Tournament:
    """Four players; Ann 3 and Ann 4 tie when they are eliminated, so they share 3rd."""
    tournament = make_tournament(director, 4)
    round_ = actions.start_round(tournament)
    scores = {"Ann 1": 1500, "Ann 2": 1600, "Ann 3": 1350, "Ann 4": 1350}
    for player in groups_of(tournament)[0].players():
        actions.record_turn(group=groups_of(tournament)[0], entrant=player, points=scores[player.name])
    deciding.close_round_if_due(round_.ends_at + timedelta(minutes=3))
    face_off = actions.start_round(tournament)
    final = groups_of(tournament)[0]
    actions.record_turn(group=final, entrant=final.players()[0], points=500)
    deciding.close_round_if_due(face_off.ends_at + timedelta(minutes=3))
    return tournament


def test_the_dashboards_final_places_say_a_shared_place_is_tied_without_naming_the_place_twice(
    db, director, director_client
):
    tournament = finished_with_a_shared_third_place(director)
    page = director_client.get(reverse("tournaments:dashboard", args=[tournament.code])).content.decode()
    places = element_text(page, **{"class": "places"})
    assert "Ann 3 (tied)" in places and "Ann 4 (tied)" in places
    assert "3rd" not in places and "((" not in places and "))" not in places  # not "Ann 3 (3rd (tied))"
    assert page.count('<li value="3">') == 2  # the list numbers the place itself


def results(client: Client, tournament: Tournament) -> list[list[str]]:
    response = client.get(reverse("tournaments:results_csv", args=[tournament.code]))
    return list(csv.reader(io.StringIO(response.content.decode())))[1:]


def test_the_csv_says_what_each_play_off_did_to_its_players(db, director, director_client):
    tournament = make_tournament(director, 3)  # two of three go through; ties play off
    round_ = actions.start_round(tournament)
    deciding.close_round_if_due(round_.ends_at + timedelta(minutes=3))  # nobody scored: all three tied
    first = round_.groups.get(play_off=1)
    by_name = {entrant.name: entrant for entrant in first.players()}
    for name, points in (("Ann 1", 500), ("Ann 2", 0), ("Ann 3", 0)):
        actions.record_turn(group=first, entrant=by_name[name], points=points)
    second = round_.groups.get(play_off=2)  # Ann 2 and Ann 3 tied again for the last place
    assert sorted(entrant.name for entrant in second.players()) == ["Ann 2", "Ann 3"]
    actions.record_turn(group=second, entrant=by_name["Ann 2"], points=300)
    actions.record_turn(group=second, entrant=by_name["Ann 3"], points=0)

    rows = {(row[2], row[3]): row[5] for row in results(director_client, tournament)}
    assert [rows[("Table 1", name)] for name in ("Ann 1", "Ann 2", "Ann 3")] == ["through", "through", "eliminated"]
    assert rows[("Play-off 1", "Ann 1")] == "through"
    assert rows[("Play-off 1", "Ann 2")] == rows[("Play-off 1", "Ann 3")] == "tied again"
    assert rows[("Play-off 2", "Ann 2")] == "through"
    assert rows[("Play-off 2", "Ann 3")] == "eliminated"
    assert all(result for result in rows.values())  # no row without its result
