"""`manage.py simulate_night` (docs/CONTRACT.md): a whole Bunco night played by bots through the real
actions, its JSON read back from the database.

Whole nights are the slow part (every scoring roll is a real `record_tally`), so the 12- and
13-player nights are played once for the module and their JSON shared by the tests below.
"""

from __future__ import annotations

import io
import json
import random
import threading
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import transaction
from django.test import override_settings

from bunco_club.models import Party
from games.management.commands.simulate_night import summary
from games.night import actions
from games.night.models import Night
from games.rules import bunco, prizes
from live.models import Event
from tests.builders import is_sqlite

pytestmark = pytest.mark.django_db

SEED = 2024


def simulate(players: int, seed: int = SEED, *options: str) -> dict[str, Any]:
    out = io.StringIO()
    call_command(
        "simulate_night", "--players", str(players), "--seed", str(seed), "--json", *options, stdout=out
    )
    return json.loads(out.getvalue())


def names(players: int) -> list[str]:
    width = len(str(players))
    return [f"Player {number:0{width}d}" for number in range(1, players + 1)]


def forget_nights_after(night_id: int) -> None:
    """Module fixtures commit their nights; take them away again."""
    nights = Night.objects.filter(id__gt=night_id)
    Event.objects.filter(channel__in=[night.channel for night in nights]).delete()
    nights.delete()


def last_night_id() -> int:
    return Night.objects.order_by("-id").values_list("id", flat=True).first() or 0


@pytest.fixture(scope="module")
def twelve(django_db_setup, django_db_blocker) -> Iterator[dict[str, Any]]:
    with django_db_blocker.unblock():
        before = last_night_id()
        # One transaction for the night (each action's own becomes a savepoint), as inside a
        # test: on PostgreSQL a commit per tap would wait for the disk some 1,500 times.
        with transaction.atomic():
            report = simulate(12)
        yield report
        forget_nights_after(before)


@pytest.fixture(scope="module")
def thirteen(django_db_setup, django_db_blocker) -> Iterator[tuple[dict[str, Any], set[str]]]:
    """The 13-player night's JSON, and the names of its ghosts as the database has them."""
    with django_db_blocker.unblock():
        before = last_night_id()
        with transaction.atomic():
            report = simulate(13)
        night = Night.objects.get(id__gt=before)
        ghosts = set(night.players.filter(is_ghost=True).values_list("name", flat=True))
        yield report, ghosts
        forget_nights_after(before)


def test_twelve_players_play_24_rounds_at_three_tables(twelve):
    assert (twelve["players"], twelve["tables"], twelve["rounds"]) == (12, 3, 24)
    assert [sheet["name"] for sheet in twelve["sheets"]] == names(12)
    assert isinstance(twelve["elapsed_s"], float) and twelve["elapsed_s"] > 0


def test_every_real_player_has_24_results(twelve):
    assert {sheet["wins"] + sheet["losses"] for sheet in twelve["sheets"]} == {24}


def test_the_prizes_pay_out_the_whole_pot_of_twelve_buy_ins(twelve):
    assert twelve["pot"] == 12 * 500
    assert sum(award["amount"] for award in twelve["prizes"]) == twelve["pot"]
    assert {award["name"] for award in twelve["prizes"]} <= set(names(12))


def test_each_prize_given_is_awarded_exactly_once(twelve):
    given = Counter(award["prize"] for award in twelve["prizes"])
    assert set(given) <= set(prizes.PRIZES)
    assert set(given.values()) == {1}
    assert {"most_wins", "most_losses", "draw"} <= set(given)


def test_the_traveler_has_rolled_at_least_one_bunco(twelve):
    sheets = {sheet["name"]: sheet for sheet in twelve["sheets"]}
    assert twelve["traveler"] in sheets
    assert sheets[twelve["traveler"]]["buncos"] >= 1
    traveling = [award for award in twelve["prizes"] if award["prize"] == "traveling"]
    assert [award["name"] for award in traveling] == [twelve["traveler"]]


def test_the_database_figures_are_the_pure_rules_night_with_the_same_seed(twelve):
    """The bots roll in the pure simulator's lock-step order, so the actions, movement and
    derived figures must give exactly the night `bunco.simulate_night` plays from the seed."""
    assert_it_is_the_pure_rules_night(twelve, 12, SEED)


def assert_it_is_the_pure_rules_night(report: dict[str, Any], players: int, seed: int) -> None:
    """The command's JSON is the night `bunco.simulate_night` plays from the seed: the sheets, the
    traveler and the prizes (their roll-offs drawn after the night from the same generator)."""
    rng = random.Random(seed)
    night = bunco.simulate_night(names(players), rng)
    assert report["sheets"] == [
        {"name": sheet.name, "wins": sheet.wins, "losses": sheet.losses, "buncos": sheet.buncos}
        for sheet in night.sheets
    ]
    assert report["traveler"] == night.traveler
    awards = prizes.allocate(night.prize_sheets(), pot=report["pot"], traveler=night.traveler, rng=rng)
    assert report["prizes"] == [{"prize": a.prize, "name": a.name, "amount": a.amount} for a in awards]


@pytest.mark.django_db(transaction=True)
def test_tables_that_post_at_once_still_play_the_pure_rules_night(monkeypatch):
    """On PostgreSQL the bots' tables post their taps at once, on threads of their own (commits
    that share the disk's flushes): the night must still be the one the seed plays, the traveler
    included, which goes to the last Bunco rolled. On SQLite they post one by one."""
    threads: set[str] = set()
    record_tally = actions.record_tally

    def noting_the_thread(**arguments: Any) -> Any:
        threads.add(threading.current_thread().name)
        return record_tally(**arguments)

    monkeypatch.setattr(actions, "record_tally", noting_the_thread)
    assert_it_is_the_pure_rules_night(simulate(24, 11), 24, 11)
    if is_sqlite():
        assert threads == {"MainThread"}
    else:
        assert len({name for name in threads if name.startswith("bot-table")}) > 1


def test_the_same_seed_plays_the_same_night_again_with_the_buy_in_given():
    before = Night.objects.count()
    first, again = simulate(3, 7, "--buy-in", "250"), simulate(3, 7, "--buy-in", "250")
    first.pop("elapsed_s"), again.pop("elapsed_s")
    assert first == again
    assert Night.objects.count() == before + 2  # two nights, played alike
    assert (first["players"], first["tables"], first["pot"]) == (3, 1, 750)
    assert sum(award["amount"] for award in first["prizes"]) == 750


def test_thirteen_players_sit_at_four_tables_with_three_ghosts_who_have_no_sheet(thirteen):
    report, ghosts = thirteen
    assert (report["players"], report["tables"]) == (13, 4)
    assert len(ghosts) == 3
    sheet_names = [sheet["name"] for sheet in report["sheets"]]
    assert sheet_names == names(13)
    assert not ghosts & set(sheet_names)
    assert not ghosts & {award["name"] for award in report["prizes"]}
    assert {sheet["wins"] + sheet["losses"] for sheet in report["sheets"]} == {24}
    assert sum(award["amount"] for award in report["prizes"]) == report["pot"] == 13 * 500


@pytest.mark.parametrize("players", [2, 1, 0])
def test_a_number_of_players_that_cannot_be_seated_is_an_error_and_plays_nothing(players):
    before = Night.objects.count()
    with pytest.raises(CommandError, match="players"):
        simulate(players)
    assert Night.objects.count() == before


def test_a_negative_buy_in_is_an_error():
    with pytest.raises(CommandError, match="buy-in"):
        simulate(4, SEED, "--buy-in", "-1")


def test_a_party_whose_night_exists_is_a_one_line_error_and_plays_nothing(tmp_path):
    """Issue 29, C9: the demo's party has its night (load_demo starts it); simulating that party
    ended in start_night's traceback."""
    with override_settings(SECRET_FILE=tmp_path / ".bunco-secret.json"):
        call_command("load_demo", stdout=io.StringIO())
    party = Party.objects.get(club__slug="maple-street", nights__isnull=False)
    before = Night.objects.count()

    with pytest.raises(CommandError, match=f"Party {party.pk} cannot be simulated: .*started already") as refused:
        call_command("simulate_night", "--party", str(party.pk), "--seed", "1", stdout=io.StringIO())

    assert "\n" not in str(refused.value)
    assert Night.objects.count() == before


def test_without_json_it_prints_a_short_summary(twelve):
    text = summary(twelve)
    assert text.startswith("12 players at 3 tables, 24 rounds in ")
    assert f"traveler: {twelve['traveler']}." in text
    assert "Pot 60.00:" in text
    for award in twelve["prizes"]:
        assert f"{award['prize']:<12} {award['name']}" in text
