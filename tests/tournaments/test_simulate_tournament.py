"""`manage.py simulate_tournament` (docs/CONTRACT.md): bots play whole tournaments through the actions,
on a simulated clock; the JSON is read back from the database and checked for every invariant."""

from __future__ import annotations

import io
import json
from datetime import timedelta
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from tournaments import brackets
from tournaments.models import Group, Tournament, TournamentRound, Turn

pytestmark = pytest.mark.django_db


def simulate(players: int, tournament_format: str = "single", seed: int = 11) -> dict[str, Any]:
    out = io.StringIO()
    call_command("simulate_tournament", "--players", str(players), "--format", tournament_format,
                 "--seed", str(seed), "--json", stdout=out)
    return json.loads(out.getvalue())


def names(players: int) -> list[str]:
    width = len(str(players))
    return [f"Player {number:0{width}d}" for number in range(1, players + 1)]


def check_invariants(result: dict[str, Any], players: int, tournament_format: str) -> None:
    assert set(result) == {"players", "format", "elapsed_s", "rounds", "face_off", "champion"}
    assert result["players"] == players
    assert result["format"] == tournament_format
    assert isinstance(result["elapsed_s"], float)
    rounds = result["rounds"]
    # Every round's groups are the pure split of its players.
    for entry in rounds:
        assert sum(entry["group_sizes"]) == entry["players"]
        assert entry["group_sizes"] == brackets.group_sizes(entry["players"])
    # Players still in after each round are exactly the next round's.
    for before, after in zip(rounds, rounds[1:], strict=False):
        assert after["players"] == before["players"] - len(before["eliminated"])
    # Every player but the champion is eliminated exactly once; the face-off is between the last two.
    eliminated = [name for entry in rounds for name in entry["eliminated"]]
    assert sorted(eliminated + [result["champion"]]) == names(players)
    assert rounds[-1]["players"] == 2 and rounds[-1]["group_sizes"] == [2]
    assert result["champion"] in result["face_off"] and len(set(result["face_off"])) == 2
    assert rounds[-1]["eliminated"] == [name for name in result["face_off"] if name != result["champion"]]
    # Every play-off was resolved and every group's scores are final.
    assert not TournamentRound.objects.exclude(status=TournamentRound.Status.DECIDED).exists()
    assert not Group.objects.filter(status=Group.Status.PLAYING).exists()
    # Each tied player played exactly one turn in each play-off; the last play-off of a round
    # untied the line (its round then records who went through, or the strikes).
    for play_off in Group.objects.filter(play_off__gt=0):
        turns = sorted(play_off.live_turns().values_list("entrant_id", flat=True))
        assert turns == sorted(play_off.seats.values_list("entrant_id", flat=True))
    for round_ in TournamentRound.objects.all():
        assert round_.outcome.get("tied", []) == []
        assert len(round_.outcome.get("play_offs", [])) == round_.groups.filter(play_off__gt=0).count()


def test_twelve_players_single_elimination_go_twelve_six_three_then_the_face_off():
    result = simulate(12)
    check_invariants(result, 12, "single")
    assert [entry["players"] for entry in result["rounds"]] == [12, 6, 3, 2] == brackets.single_elimination_sizes(12)


@pytest.mark.parametrize("players", [13, 7, 2])
def test_a_single_elimination_tournament_reaches_a_champion(players):
    result = simulate(players)
    check_invariants(result, players, "single")
    assert [entry["players"] for entry in result["rounds"]] == brackets.single_elimination_sizes(players)


def test_sixty_four_players_double_elimination_strike_twice_before_going_out():
    result = simulate(64, "double", seed=3)
    check_invariants(result, 64, "double")
    tournament = Tournament.objects.get()
    assert Group.objects.filter(play_off__gt=0).exists()  # this seed has ties at the line: played off
    decided = list(tournament.rounds.filter(kind=TournamentRound.Kind.ROUND).order_by("number"))
    assert decided[0].outcome["eliminated"] == []  # nobody has two strikes after one round
    for round_ in decided:
        struck = [name for name, count in round_.outcome["strikes"].items()
                  if count > round_.outcome["strikes_before"][name]]
        assert len(struck) == len(round_.outcome["strikes"]) // 2
        assert all(round_.outcome["strikes"][name] == 2 for name in round_.outcome["eliminated"])


def test_no_turn_was_entered_after_its_groups_grace_period_and_none_started_after_its_end():
    simulate(13)
    for group in Group.objects.filter(play_off=0).select_related("round__tournament"):
        assert group.ends_at is not None and group.final_at is not None
        late = Turn.objects.filter(group=group, created_at__gte=group.ends_at)
        assert late.count() <= 1
        assert not Turn.objects.filter(group=group, created_at__gte=group.final_at).exists()


def test_the_same_seed_plays_the_same_tournament():
    first = simulate(9, seed=4)
    Tournament.objects.all().delete()
    second = simulate(9, seed=4)
    assert {**first, "elapsed_s": 0} == {**second, "elapsed_s": 0}


def test_it_refuses_a_tournament_of_one():
    with pytest.raises(CommandError, match="at least 2"):
        simulate(1)


def test_it_plays_unharmed_beside_a_running_site_whose_real_clock_sweeps_between_every_turn(director, monkeypatch):
    """Issue 16 T4: beside `make run` on the same database, the site's real clock closed the
    simulation's tables (its simulated times are long past) and the simulation crashed. The real
    clock's sweep now runs before every simulated entry (both the in-process ticker and beat's
    task): the tournament is the one the same seed plays alone, and a real tournament under way
    beside it is closed by the real clock only, when it is due."""
    from tests.builders import make_tournament
    from tournaments import actions, deciding, tasks

    alone = simulate(9, "double", seed=4)
    check_invariants(alone, 9, "double")
    Tournament.objects.all().delete()

    real = make_tournament(director, 4)
    real_round = actions.start_round(real)
    record_turn = actions.record_turn
    sweeps = []

    def record_turn_while_the_site_runs(**kwargs: Any) -> Any:
        tasks.close_rounds_when_due()
        tasks.close_rounds()
        sweeps.append(kwargs["now"])
        return record_turn(**kwargs)

    monkeypatch.setattr(actions, "record_turn", record_turn_while_the_site_runs)
    beside = simulate(9, "double", seed=4)
    assert sweeps
    assert {**beside, "elapsed_s": 0} == {**alone, "elapsed_s": 0}
    # The real tournament's round is untouched by the simulation's clock, and the real clock
    # still closes it once it is due.
    real_round.refresh_from_db()
    assert real_round.status == TournamentRound.Status.PLAYING
    assert deciding.close_round_if_due(real_round.ends_at + timedelta(minutes=5)) > 0
    real_round.refresh_from_db()
    assert real_round.status != TournamentRound.Status.PLAYING
