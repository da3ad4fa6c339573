"""`make run HOST=… PORT=…` tells the site its address (SITE_URL) for emails and calendars, but
never an address no phone can reach (0.0.0.0): then the address a host reached the site at is used
(tests/bunco_club/test_ical.py)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def served_with(*args: str) -> str:
    env = {key: value for key, value in os.environ.items() if key != "SITE_URL"}
    plan = subprocess.run(["make", "-n", "run", *args], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    line = next(line for line in plan.stdout.splitlines() if "uvicorn" in line)
    found = re.search(r'SITE_URL="([^"]*)"', line)
    assert found, line
    return found.group(1)


def test_make_run_on_an_address_tells_the_site_that_address():
    assert served_with("HOST=192.168.1.20", "PORT=9000") == "http://192.168.1.20:9000"


def test_make_run_on_every_address_leaves_the_address_to_the_hosts_browser():
    assert served_with("HOST=0.0.0.0", "PORT=9000") == ""


def test_a_site_url_given_to_make_run_wins():
    assert served_with("HOST=0.0.0.0", "SITE_URL=https://bunco.example.org") == "https://bunco.example.org"
