"""On a machine without Chromium the suite stops at once with the one command that fixes it,
never a wall of browser errors or a silent skip; `make test` installs it first as root."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import ROOT


def run(command: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True, timeout=120)


def test_the_package_check_names_the_command_when_chromium_is_not_where_it_is_said_to_be():
    done = run(["scripts/ensure_packages.sh", "chromium"], CHROMIUM_PATH="/nowhere/chromium")

    assert done.returncode == 1
    assert "apt-get install -y chromium-headless-shell" in done.stderr


def test_the_browser_tests_without_chromium_stop_before_the_first_test_with_the_command():
    done = run([sys.executable, "-m", "pytest", "-q", "tests/e2e/test_undo_retry.py"],
               CHROMIUM_PATH="/nowhere/chromium", DATABASE_URL="", REDIS_URL="")

    assert done.returncode == 4  # pytest's usage error: no test ran, nothing half-failed
    assert "apt-get install -y chromium-headless-shell" in done.stderr
    assert "passed" not in done.stdout and "error" not in done.stdout.lower()


def test_a_run_without_browser_tests_says_so_in_its_last_line():
    done = run([sys.executable, "-m", "pytest", "-q", "tests/games/rules/test_ninety_nine.py"], DATABASE_URL="", REDIS_URL="")

    assert done.returncode == 0
    assert done.stdout.strip().splitlines()[-1].startswith("Browser tests: none ran")


def test_the_pass_without_browser_tests_says_they_run_in_their_own_pass():
    done = run([sys.executable, "-m", "pytest", "-q", "-m", "not e2e", "tests/games/rules/test_ninety_nine.py"],
               DATABASE_URL="", REDIS_URL="")

    assert done.returncode == 0
    assert done.stdout.strip().splitlines()[-1].startswith("Browser tests: left out of this pass")
