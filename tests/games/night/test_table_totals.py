"""A table's points in one place (issue 30): the pages' `with_totals`, `team_totals` and a tap's
statement are all built on games.night.models.table_totals_sql and tally_counts_sql, so they
cannot disagree; here they agree with the plain sum of the tallies over a whole night."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from games.night.models import TableRound, Tally
from tests.builders import played_night

pytestmark = pytest.mark.django_db

GAMES = Path(__file__).resolve().parents[3] / "games"


def _by_hand(table_round_id: int, roll_off: int) -> dict[str, int]:
    totals = {"A": 0, "B": 0}
    for team, points in Tally.objects.filter(table_round_id=table_round_id, roll_off=roll_off).values_list(
        "team", "points"
    ):
        totals[team] += points
    return totals


def test_every_reader_of_a_tables_points_gives_the_sum_of_its_tallies():
    night = played_night(12, seed=3)
    tables = TableRound.objects.filter(round__night=night).with_totals()
    assert len(tables) == 24 * 3
    for row in tables:
        assert {"A": row.points_a, "B": row.points_b} == _by_hand(row.pk, 0) == row.totals()
        for cycle in range(1, row.roll_off + 1):
            assert row.totals(cycle) == _by_hand(row.pk, cycle)
    assert Tally.objects.filter(night=night, roll_off__gt=0).exists()  # this seed's night has roll-offs


def test_with_totals_names_its_row_inside_a_subquery_too():
    night = played_night(8, seed=4)
    # (a dict: django-stubs cannot see an annotation's name in filter)
    winning = TableRound.objects.with_totals().filter(**{"points_a__gt": 0}).values("pk")
    expected = {row.pk for row in TableRound.objects.filter(round__night=night) if row.totals()["A"] > 0}
    assert set(TableRound.objects.filter(round__night=night, pk__in=winning).values_list("pk", flat=True)) == expected


def test_which_tallies_count_toward_a_total_is_written_once():
    """The team-and-cycle condition lives in games/night/models.py (tally_counts_sql) alone."""
    condition = re.compile(r"team\s*=\s*'|tallies__team|tallies__points")
    places = [
        path.relative_to(GAMES.parent).as_posix()
        for path in GAMES.rglob("*.py")
        if "migrations" not in path.parts and condition.search(path.read_text())
    ]
    assert places == ["games/night/models.py"]
