"""docs/CONTRACT.md, Commands: on a database without the tables each command says in one line to run
`make run` (or migrate) first, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

COMMANDS = [
    ["simulate_night", "--players", "8", "--seed", "1", "--json"],
    ["simulate_tournament", "--players", "8", "--format", "single", "--seed", "1", "--json"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda command: command[0])
def test_a_command_on_a_database_without_tables_says_to_run_make_run_first(command: list[str], tmp_path: Path) -> None:
    env = {**os.environ, "SQLITE_PATH": str(tmp_path / "empty.sqlite3"), "DATABASE_URL": "", "REDIS_URL": "",
           "BUNCO_SECRET_FILE": str(tmp_path / "secret.json")}
    done = subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)

    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "CommandError: The database has no tables yet (or not all of them): run `make run` "
        "(or `python manage.py migrate`) first."
    ]
