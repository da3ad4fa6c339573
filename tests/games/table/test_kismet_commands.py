"""`simulate_table --game kismet` and `verify_table` on a Kismet table, as docs/CONTRACT.md words them."""

from __future__ import annotations

import hashlib

import pytest

from games.rules import kismet
from tests.games.table.test_commands import simulate, verify_table

pytestmark = pytest.mark.django_db


def test_simulate_table_plays_kismet_to_fifteen_boxes_a_sheet_and_its_turns_add_up_by_the_contract() -> None:
    game = simulate("--game", "kismet", "--players", "3", "--seed", "7")
    assert game["game"] == "kismet" and game["players"] == 3 and len(game["names"]) == 3
    assert hashlib.sha256(game["seed"].encode()).hexdigest() == game["commitment"]
    sheets = {name: dict.fromkeys(kismet.BOXES) for name in game["names"]}
    for turn in game["turns"]:
        assert 1 <= len(turn["rolls"]) <= 3 and all(len(roll) == 5 for roll in turn["rolls"])
        assert turn["score"] == kismet.options(turn["rolls"][-1]).get(turn["box"], 0)
        sheets[turn["player"]][turn["box"]] = turn["score"]
        for penalty in turn.get("penalties", []):
            sheets[penalty["player"]][penalty["box"]] = 0
    for name, sheet in game["sheets"].items():
        assert sheet["boxes"] == sheets[name]
        basic = sum(sheet["boxes"][box] for box in kismet.BASIC_BOXES)
        assert sheet["bonus"] == kismet.basic_bonus(basic)
        assert sheet["total"] == sum(sheet["boxes"].values()) + sheet["bonus"]
    best = max(sheet["total"] for sheet in game["sheets"].values())
    winners = game["winner"] if isinstance(game["winner"], list) else [game["winner"]]
    assert sorted(winners) == sorted(name for name, sheet in game["sheets"].items() if sheet["total"] == best)


def test_the_same_server_seed_at_two_kismet_tables_plays_two_games_and_verify_table_confirms_each() -> None:
    first = simulate("--game", "kismet", "--players", "2", "--seed", "3")
    second = simulate("--game", "kismet", "--players", "2", "--seed", "3")
    assert first["seed"] == second["seed"] and first["turns"] != second["turns"]
    for game in (first, second):
        code, said = verify_table(game["code"])
        assert code == 0 and said.startswith("verified")


def test_solo_kismet_is_simulated_too() -> None:
    game = simulate("--game", "kismet", "--players", "1", "--seed", "1", "--level", "strong")
    assert len(game["turns"]) == 15 and game["winner"] == "Bot 1"
