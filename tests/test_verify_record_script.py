"""scripts/verify_record.py, the check anyone can run on a game's record (issue 31): one file of the
standard library that re-derives docs/FAIRNESS.md version 2 on its own. It reproduces the page's test
vectors, passes an honest record, and names the first step of a record with one die, one card, one
contribution or the seed altered."""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import json
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from games.rules import dice
from games.rules.dice import ChanceStream

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "verify_record.py"
SEED = hashlib.sha256(b"bunco").hexdigest()
PHONE_A, PHONE_B = "a" * 32, "b" * 32


def the_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("verify_record", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def a_fill_or_bust_record() -> dict[str, Any]:
    """A record made by the site's own derivation (games/rules/dice.py): the setup's shuffle and
    start roll, a toss, a card turned, and a last step that runs the pile dry and reshuffles."""
    deck = the_script().FILL_OR_BUST_DECK
    setup = ChanceStream(SEED, "TEST", 0, f"{PHONE_A},,{PHONE_B}")
    shuffled = dice.shuffled(setup, deck)
    steps: list[dict[str, Any]] = [{"number": 0, "move": {"kind": "setup"}, "client": f"{PHONE_A},,{PHONE_B}",
                                    "chance": [{"shuffle": {"before": deck, "after": shuffled}},
                                               {"dice": dice.roll(setup, 3)}]}]
    toss = ChanceStream(SEED, "TEST", 1, "0123456789abcdef0123456789abcdef")
    steps.append({"number": 1, "seat": 0, "move": {"kind": "toss"}, "client": "0123456789abcdef0123456789abcdef",
                  "chance": [{"draw": {"card": shuffled[0]}}, {"dice": dice.roll(toss, 6)}]})
    last = ChanceStream(SEED, "TEST", 2, "")
    reshuffled = dice.shuffled(last, shuffled)  # the 54 cards turned, in the order they were turned
    steps.append({"number": 2, "seat": 1, "move": {"kind": "draw"}, "client": "",
                  "chance": [*({"draw": {"card": card}} for card in shuffled[1:]),
                             {"shuffle": {"before": shuffled, "after": reshuffled}},
                             {"draw": {"card": reshuffled[0]}}, {"dice": dice.roll(last, 2)}]})
    return {"version": 2, "game": "fill_or_bust", "code": "TEST", "seed": SEED,
            "commitment": dice.commitment_of(SEED), "options": {"goal": 2000},
            "seats": [{"name": "Ann", "bot": False, "contribution": PHONE_A},
                      {"name": "Bot", "bot": True, "contribution": ""},
                      {"name": "Cy", "bot": False, "contribution": PHONE_B}],
            "steps": steps}


def test_the_script_reproduces_the_test_vectors_of_fairness_md() -> None:
    stream_class = the_script().Stream
    step_1 = stream_class(SEED, "TEST", 1, "0123456789abcdef0123456789abcdef")
    assert [step_1.die() for _ in range(12)] == [4, 5, 2, 2, 2, 5, 5, 5, 6, 4, 6, 5]
    step_2 = stream_class(SEED, "TEST", 2, "")
    assert [step_2.below(k) for k in (6, 54, 52, 2, 1_000_000)] == [1, 18, 10, 1, 328628]
    step_0 = stream_class(SEED, "TEST", 0, f"{PHONE_A},,{PHONE_B}")
    assert step_0.shuffled(the_script().FILL_OR_BUST_DECK)[:3] == ["FILL 1000", "BONUS 400", "NO DICE"]
    assert [step_0.die() for _ in range(3)] == [3, 5, 2]


def test_an_honest_record_is_verified_by_the_script_run_as_anyone_would(tmp_path: Path) -> None:
    record = tmp_path / "record.json"
    record.write_text(json.dumps(a_fill_or_bust_record()))
    # The machine's own python3, outside the project's virtual environment: the standard library only.
    done = subprocess.run(["python3", str(SCRIPT), str(record)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("Verified: fill_or_bust at table TEST, 3 steps")


def altered(change: str) -> dict[str, Any]:
    record = copy.deepcopy(a_fill_or_bust_record())
    steps = record["steps"]
    if change == "a die":
        dice_item = steps[1]["chance"][1]
        dice_item["dice"][2] = dice_item["dice"][2] % 6 + 1
    elif change == "a card":
        steps[1]["chance"][0]["draw"]["card"] = next(card for card in record["steps"][0]["chance"][0]["shuffle"]
                                                     ["after"] if card != steps[1]["chance"][0]["draw"]["card"])
    elif change == "a contribution":
        record["seats"][2]["contribution"] = "c" * 32
    elif change == "a move's contribution":
        steps[1]["client"] = "f" * 32
    elif change == "step 0's client":
        steps[0]["client"] = f"{PHONE_A},,{'c' * 32}"
    elif change == "a move's seat":
        steps[1]["seat"] = 3
    elif change == "the seed":
        record["seed"] = hashlib.sha256(b"another").hexdigest()
    elif change == "the seed and its commitment":
        record["seed"] = hashlib.sha256(b"another").hexdigest()
        record["commitment"] = dice.commitment_of(record["seed"])
    return record


@pytest.mark.parametrize(("change", "named"), [
    ("a die", "step 1 differs: its chance item 2: the dice are"),
    ("a card", "step 1 differs: its chance item 1: drew"),
    ("a contribution", "step 0 differs: its chance item 1: the shuffle gives"),
    ("a move's contribution", "step 1 differs: its chance item 2: the dice are"),
    ("step 0's client", "step 0 differs: its client is not the seats' contributions in seat order"),
    ("a move's seat", "step 1 differs: its seat is not one of the table's"),
    ("the seed", "the seed is not the one committed to"),
    ("the seed and its commitment", "step 0 differs"),
])
def test_a_record_altered_in_one_place_is_refused_with_the_step_named(change: str, named: str) -> None:
    script = the_script()
    assert script.verify(a_fill_or_bust_record()) is None
    problem = script.verify(altered(change))
    assert problem is not None and problem.startswith(named), problem


def a_kismet_record() -> dict[str, Any]:
    """A Kismet record as the site makes it: a deal with no chance (step 0 draws nothing, yet its
    input is the seats' lobby parts) and a roll of five dice."""
    roll = ChanceStream(SEED, "KIS", 1, "0123456789abcdef0123456789abcdef")
    return {"version": 2, "game": "kismet", "code": "KIS", "seed": SEED, "commitment": dice.commitment_of(SEED),
            "options": {}, "seats": [{"name": "Ann", "bot": False, "contribution": PHONE_A},
                                     {"name": "Cy", "bot": False, "contribution": PHONE_B}],
            "steps": [{"number": 0, "move": {"kind": "setup"}, "client": f"{PHONE_A},{PHONE_B}", "chance": []},
                      {"number": 1, "seat": 0, "move": {"kind": "roll"}, "client": "0123456789abcdef0123456789abcdef",
                       "chance": [{"dice": dice.roll(roll, 5)}]}]}


def test_a_kismet_record_whose_seat_part_or_step_0_client_was_altered_is_refused_though_no_die_shows_it() -> None:
    """Issue 42 (G4, S5): Kismet's deal draws no chance, so an altered lobby part changes no die; the
    record still says, twice, what step 0 was made from, and an independent verifier compares them."""
    script = the_script()
    assert script.verify(a_kismet_record()) is None
    seat_part = a_kismet_record()
    seat_part["seats"][1]["contribution"] = "c" * 32
    client = a_kismet_record()
    client["steps"][0]["client"] = f"{PHONE_A},{'c' * 32}"
    for record in (seat_part, client):
        problem = script.verify(record)
        assert problem is not None and problem.startswith("step 0 differs: its client is not the seats'"), problem


def test_the_script_is_one_short_file_of_the_standard_library() -> None:
    source = SCRIPT.read_text()
    assert len(source.splitlines()) <= 170  # 150 before it checked the record's other fields (issue 42)
    imported = {line.split()[1].split(".")[0] for line in source.splitlines() if line.startswith(("import ", "from "))}
    assert imported <= {"hashlib", "hmac", "json", "sys", "urllib", "typing"}
