"""The night moved to games/night/ without moving a row (issue 17, acceptance 1).

The app label stays `games` and every table keeps its name; no migration was added, so the
migration state of main before the move is the latest one. The test fills a database at that
state with a played night (its club party, its results reported to the club's season) and a
tournament round, runs `migrate` again, and reads every row back through today's model modules
(games.night.models for the night); `makemigrations --check` finds nothing to write.
"""

from __future__ import annotations

import datetime
from io import StringIO

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from bunco_club import actions as club_actions
from bunco_club.models import NightRecord, Season
from games.night import actions as night_actions
from games.night.models import Night, Player, PrizeAward, Round, Seat, TableRound, Tally
from live.models import Event
from tests.builders import make_club, make_user, played_night
from tournaments import actions as tournament_actions
from tournaments.models import Group, TournamentRound

pytestmark = pytest.mark.django_db

APPS = ("games", "bunco_club", "tournaments", "live")


def every_row() -> dict[str, list[dict[str, object]]]:
    """Every row of every model of the project's apps, by model, in id order."""
    return {
        model._meta.label: list(model._default_manager.order_by("pk").values())
        for label in APPS for model in apps.get_app_config(label).get_models()
    }


def fill_the_database() -> Night:
    host = make_user("host")
    club = make_club(hosts=[host])
    season = club_actions.create_season(club, name="Winter", starts=[
        datetime.datetime(2026, 12, 4, 19, 0, tzinfo=datetime.UTC),
        datetime.datetime(2027, 1, 8, 19, 0, tzinfo=datetime.UTC),
    ])
    night = played_night(club=club, party=season.parties.order_by("starts_at").first(), host_user=host)
    night_actions.award_prizes(night)  # the results reach the club's season

    director = make_user("director")
    tournament = tournament_actions.create_tournament(director=director, name="Autumn Open", seed=7)
    for number in range(1, 9):
        tournament_actions.register(tournament, f"Ann {number}", seed_rank=number, checked_in=True)
    tournament_actions.start_round(tournament)
    return night


def test_a_database_with_a_played_night_a_season_and_a_tournament_round_migrates_with_every_row() -> None:
    night = fill_the_database()
    before = every_row()
    assert before[Tally._meta.label] and before[PrizeAward._meta.label] and before[Event._meta.label]
    assert before[NightRecord._meta.label] and before[Season._meta.label]
    assert before[TournamentRound._meta.label] and before[Group._meta.label]
    # The night's models are the app's: label `games`, tables as they were.
    assert {model._meta.db_table for model in (Night, Player, Round, TableRound, Seat, Tally, PrizeAward)} == {
        "games_night", "games_player", "games_round", "games_tableround", "games_seat", "games_tally",
        "games_prizeaward"}

    call_command("migrate", interactive=False, verbosity=0)

    assert every_row() == before
    assert MigrationExecutor(connection).migration_plan(MigrationExecutor(connection).loader.graph.leaf_nodes()) == []
    # Readable through the new modules: the night as played, its prizes, its results.
    again = Night.objects.get(pk=night.pk)
    assert again.status == Night.Status.FINISHED and again.current_round == night.current_round
    assert [award.pk for award in again.awards.all()] == [award.pk for award in night.awards.all()]
    assert NightRecord.objects.filter(party=night.party).count() == again.players.real().count()


def test_the_move_needs_no_migration() -> None:
    out = StringIO()
    call_command("makemigrations", check=True, dry_run=True, stdout=out)  # SystemExit(1) if one is needed
    assert "No changes detected" in out.getvalue()
