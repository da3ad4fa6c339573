"""`simulate_table` and `verify_table`, as docs/CONTRACT.md words them."""

from __future__ import annotations

import hashlib
import io
import json

import pytest
from django.core.management import call_command

from games.rules import fill_or_bust
from games.table.models import Table
from tests.builders import make_table

pytestmark = pytest.mark.django_db


def simulate(*args: str) -> dict:
    out = io.StringIO()
    call_command("simulate_table", *args, "--json", stdout=out)
    return json.loads(out.getvalue())


def verify_table(code: str, *args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(SystemExit) as exited:
        call_command("verify_table", code, *args, stdout=out, stderr=err)
    return int(exited.value.code or 0), out.getvalue() + err.getvalue()


def test_simulate_table_plays_fill_or_bust_to_the_goal_and_its_turns_replay_by_the_contract() -> None:
    game = simulate("--game", "fill_or_bust", "--players", "3", "--seed", "7")
    assert game["game"] == "fill_or_bust" and game["players"] == 3 and game["goal"] == 5000
    assert hashlib.sha256(game["seed"].encode()).hexdigest() == game["commitment"]
    scores = dict.fromkeys(game["names"], 0)
    for turn in game["turns"]:
        scores = fill_or_bust.play_turn(scores, turn["player"], [tuple(s) for s in turn["steps"]])
        assert scores == turn["scores"]
    assert scores == game["scores"]
    assert game["scores"][game["winner"]] >= 5000


def test_the_same_server_seed_at_two_tables_plays_two_games_each_bound_to_its_tables_code() -> None:
    # docs/FAIRNESS.md v2: every step's stream names the table's code, so a seed cannot be reused to
    # replay one table's luck at another.
    first = simulate("--game", "fill_or_bust", "--players", "2", "--seed", "3", "--goal", "2000")
    second = simulate("--game", "fill_or_bust", "--players", "2", "--seed", "3", "--goal", "2000")
    assert first["seed"] == second["seed"] and first["code"] != second["code"]
    assert first["version"] == second["version"] == 2
    assert first["turns"] != second["turns"]
    for game in (first, second):
        code, said = verify_table(game["code"])
        assert code == 0 and said.startswith("verified")


def test_verify_table_confirms_a_simulated_game_and_fails_on_an_altered_score() -> None:
    game = simulate("--game", "fill_or_bust", "--players", "2", "--seed", "11", "--goal", "2000")
    code, said = verify_table(game["code"])
    assert code == 0 and said.startswith("verified")
    move = Table.objects.get(code=game["code"]).moves.order_by("-number").first()
    assert move is not None
    move.scores = [score + 50 for score in move.scores]
    move.save()
    code, said = verify_table(game["code"], "--json")
    assert code == 1 and json.loads(said)["verified"] is False


def test_verify_table_refuses_a_game_still_being_played() -> None:
    table = make_table()
    code, said = verify_table(table.code)
    assert code == 2 and "still being played" in said
