"""Five players can play a night (issue 9, fault 15; docs/RULES.md §4.1): two tables and three ghosts,
one table holding two ghosts, one in each team, never partners; the movement keeps at most two a
table and the seat swap keeps them from partnering. Through the pure engine, the start action, the
start form, `manage.py simulate_night --players 5` and a whole night through the actions."""

from __future__ import annotations

import io
import json
import random

import pytest
from django.core.management import call_command
from django.urls import reverse

from games.night.models import Night, Round
from games.rules import bunco
from tests.builders import NAMES, figures, fresh, ghosts_of, make_night, play_rounds, seating_of

pytestmark = pytest.mark.django_db


def ghosts_kept_apart(seating: list[list[str]], ghosts: set[str]) -> bool:
    """At most two ghosts a table, and no two ghosts partners."""
    for seats in seating:
        if sum(name in ghosts for name in seats) > bunco.MAX_GHOSTS_A_TABLE:
            return False
        if any(seats[seat] in ghosts and seats[bunco.partner_seat(seat)] in ghosts for seat in range(bunco.SEATS)):
            return False
    return True


def test_five_players_sit_at_two_tables_with_three_ghosts():
    assert bunco.night_shape(5) == (2, 3)


@pytest.mark.parametrize("seed", range(30))
def test_the_draw_for_five_puts_two_ghosts_at_one_table_one_in_each_team(seed):
    draw = bunco.draw_seating(NAMES[:5], random.Random(seed))
    ghosts = set(draw.ghosts)
    assert sorted(sum(name in ghosts for name in table) for table in draw.tables) == [1, 2]
    assert ghosts_kept_apart(draw.seating(), ghosts)
    assert sorted(name for table in draw.tables for name in table if name not in ghosts) == sorted(NAMES[:5])


@pytest.mark.parametrize("seed", range(20))
def test_a_pure_night_of_five_keeps_the_ghosts_apart_every_round(seed):
    night = bunco.simulate_night(NAMES[:5], random.Random(seed))
    ghosts = set(night.ghosts)
    for record in night.rounds:
        assert ghosts_kept_apart([list(table.seats) for table in record.tables], ghosts), record.number
    assert all(len(sheet.marks) == bunco.ROUNDS for sheet in night.sheets)


def test_fewer_than_three_players_is_still_no_night():
    for players in (1, 2):
        with pytest.raises(bunco.IllegalSeating, match="at least 3 players"):
            bunco.night_shape(players)


def test_the_start_form_starts_a_night_of_five(client):
    response = client.post(reverse("games:night_new"), {"names": "\n".join(NAMES[:5]), "buy_in": "5"})
    assert response.status_code == 302
    night = Night.objects.get()
    assert (night.players.real().count(), night.players.filter(is_ghost=True).count()) == (5, 3)
    assert night.round_obj(1).tables.count() == 2


def test_a_whole_night_of_five_through_the_actions_keeps_the_ghosts_apart_and_pays_the_pot():
    from games.night import actions

    night = make_night(5, seed=11)
    play_rounds(night, random.Random(11), bunco.ROUNDS)
    night = fresh(night)
    assert night.status == Night.Status.FINISHED
    ghosts = ghosts_of(night)
    assert len(ghosts) == 3
    for number in range(1, bunco.ROUNDS + 1):
        assert ghosts_kept_apart(seating_of(night, number), ghosts), number
        assert Round.objects.get(night=night, number=number).status == Round.Status.CLOSED
    sheets = figures(night)
    assert set(sheets) == set(NAMES[:5])
    assert {sheet.wins + sheet.losses for sheet in sheets.values()} == {bunco.ROUNDS}
    awards = actions.award_prizes(night, rng=random.Random(11))
    assert sum(award.amount_cents for award in awards) == 5 * night.buy_in_cents
    assert not {award.player.name for award in awards} & ghosts


def test_simulate_night_plays_five_players_like_the_pure_engine():
    out = io.StringIO()
    call_command("simulate_night", "--players", "5", "--seed", "5", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert (report["players"], report["tables"], report["rounds"]) == (5, 2, bunco.ROUNDS)
    assert {sheet["wins"] + sheet["losses"] for sheet in report["sheets"]} == {bunco.ROUNDS}
    assert sum(award["amount"] for award in report["prizes"]) == report["pot"] == 5 * 500
    names = [sheet["name"] for sheet in report["sheets"]]
    pure = bunco.simulate_night(names, random.Random(5))
    assert report["sheets"] == [
        {"name": sheet.name, "wins": sheet.wins, "losses": sheet.losses, "buncos": sheet.buncos}
        for sheet in pure.sheets
    ]
