"""Season standings: derived from the nights' records, the sums of their sheets; a night marked as
not counting leaves them."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse

from bunco_club import actions
from bunco_club.standings import Line, season_standings
from tests.builders import REGULARS, soon

pytestmark = pytest.mark.django_db


def test_standings_sum_each_players_lines_and_count_their_nights():
    table = season_standings([
        Line(night=1, name="Ada", wins=14, losses=10, buncos=2, prize_cents=2000),
        Line(night=1, name="Bea", wins=10, losses=14, buncos=0),
        Line(night=2, name="Ada", wins=11, losses=13, buncos=1, prize_cents=500),
    ])
    assert [(row.name, row.nights, row.wins, row.losses, row.buncos, row.prize_cents) for row in table] == [
        ("Ada", 2, 25, 23, 3, 2500), ("Bea", 1, 10, 14, 0, 0)]


def test_ties_on_wins_go_to_the_most_buncos_then_by_name():
    table = season_standings([Line(1, "Cal", 5, 5, 0), Line(1, "Bea", 5, 5, 1), Line(1, "Ada", 5, 5, 0)])
    assert [row.name for row in table] == ["Bea", "Ada", "Cal"]


def test_no_nights_no_standings():
    assert season_standings([]) == []


def sheets(rng: random.Random) -> list[dict]:
    return [{"name": name, "wins": (wins := rng.randint(0, 24)), "losses": 24 - wins, "buncos": rng.randint(0, 3),
             "prize_cents": rng.choice([0, 0, 500, 1000])} for name in REGULARS]


def test_season_standings_after_two_nights_equal_the_sums_of_their_sheets(host_client, club):
    season = actions.create_season(club, name="This year", starts=[soon(-60), soon(-30), soon(30)])
    first, second, _ = season.parties.order_by("starts_at")
    rng = random.Random(10)
    one, two = sheets(rng), sheets(rng)
    actions.record_night_results(first, one)
    actions.record_night_results(second, two)
    response = host_client.get(reverse("clubs:standings", args=[club.slug, season.pk]))
    table = {row.name: row for row in response.context["table"]}
    for a, b in zip(one, two, strict=True):
        row = table[a["name"]]
        assert (row.nights, row.wins, row.losses, row.buncos, row.prize_cents) == (
            2, a["wins"] + b["wins"], a["losses"] + b["losses"], a["buncos"] + b["buncos"],
            a["prize_cents"] + b["prize_cents"])


def test_a_night_marked_as_not_counting_leaves_the_standings(host_client, club):
    season = actions.create_season(club, name="This year", starts=[soon(-60), soon(-30)])
    first, second = season.parties.order_by("starts_at")
    actions.record_night_results(first, [{"name": "Ada", "wins": 10, "losses": 14, "buncos": 1}])
    actions.record_night_results(second, [{"name": "Ada", "wins": 20, "losses": 4, "buncos": 0}])
    response = host_client.post(reverse("clubs:party_counts", args=[club.slug, first.pk]), {"counts": "0"})
    assert response.status_code == 302
    response = host_client.get(reverse("clubs:standings", args=[club.slug, season.pk]))
    [ada] = response.context["table"]
    assert (ada.nights, ada.wins) == (1, 20)


def test_a_renamed_member_keeps_one_line(host_client, club):
    season = actions.create_season(club, name="This year", starts=[soon(-60), soon(-30)])
    first, second = season.parties.order_by("starts_at")
    actions.record_night_results(first, [{"name": "Ada", "wins": 10, "losses": 14, "buncos": 1}])
    actions.edit_member(club.members.get(name="Ada"), name="Ada Lovelace")
    actions.record_night_results(second, [{"name": "Ada Lovelace", "wins": 20, "losses": 4, "buncos": 0}])
    response = host_client.get(reverse("clubs:standings", args=[club.slug, season.pk]))
    assert [(row.name, row.wins) for row in response.context["table"]] == [("Ada Lovelace", 30)]
