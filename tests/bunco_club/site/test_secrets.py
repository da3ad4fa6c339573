"""No usable default secret: the site makes its own key on first start (kept in a file outside
git), takes SECRET_KEY from the environment, and refuses to start on a public name without one."""

from __future__ import annotations

import json
import stat
import subprocess

import pytest
from django.conf import settings
from django.core import signing
from django.test import Client
from django.urls import reverse

from bunco_club.site import secrets_file
from games.links import SALT, join_token
from tests.bunco_club.site_process import manage, run_python
from tests.conftest import ROOT

PRINT_KEY = "from django.conf import settings; print(settings.SECRET_KEY)"

# Keys anyone can read: the one this repository used to ship, and the shapes of Django's
# `startproject` keys that get copied into repositories.
PUBLISHED_KEYS = [
    "bunco-club-embedded-default-key-change-me-in-production",
    "django-insecure-change-me",
    "django-insecure-0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdef",
]


def test_without_a_secret_key_the_first_start_makes_one_and_keeps_it_beside_the_database(tmp_path):
    first = run_python(PRINT_KEY, tmp_path)
    again = run_python(PRINT_KEY, tmp_path)

    assert first.returncode == 0, first.stderr
    key = first.stdout.strip()
    secret_file = tmp_path / ".bunco-secret.json"
    assert json.loads(secret_file.read_text())["secret_key"] == key
    assert again.stdout.strip() == key  # a restart keeps everyone's sessions and join links
    assert len(key) >= 50 and key not in PUBLISHED_KEYS and not key.startswith("django-insecure")
    assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600  # its owner alone reads it


def test_each_install_makes_its_own_key(tmp_path):
    one = run_python(PRINT_KEY, tmp_path / "one")
    other = run_python(PRINT_KEY, tmp_path / "other")

    assert one.returncode == 0 and other.returncode == 0, one.stderr + other.stderr
    assert one.stdout.strip() != other.stdout.strip()


def test_a_secret_key_from_the_environment_wins_over_the_file(tmp_path):
    generated = run_python(PRINT_KEY, tmp_path)
    from_the_environment = "k" * 10 + "from-the-environment" + "x" * 30
    chosen = run_python(PRINT_KEY, tmp_path, SECRET_KEY=from_the_environment)

    assert json.loads((tmp_path / ".bunco-secret.json").read_text())["secret_key"] == generated.stdout.strip()
    assert chosen.stdout.strip() == from_the_environment, chosen.stderr


def test_the_secret_file_can_be_put_elsewhere(tmp_path):
    done = run_python(PRINT_KEY, tmp_path, BUNCO_SECRET_FILE=str(tmp_path / "keys" / "bunco.json"))

    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "keys" / "bunco.json").read_text())["secret_key"] == done.stdout.strip()


@pytest.mark.parametrize("served", [{"ALLOWED_HOSTS": "example.org"}, {"ALLOWED_HOSTS": "*"},
                                    {"HTTPS": "1"}, {"ALLOWED_HOSTS": "93.184.216.34"}])
def test_a_site_served_beyond_the_home_network_without_a_secret_key_refuses_to_start_and_says_what_to_set(
    tmp_path, served
):
    done = run_python(PRINT_KEY, tmp_path, DEBUG="0", **served)
    with_a_key = run_python(PRINT_KEY, tmp_path, DEBUG="0", SECRET_KEY="s" * 60, **served)

    assert done.returncode != 0
    assert "ImproperlyConfigured" in done.stderr
    assert "Set the SECRET_KEY environment variable" in done.stderr
    assert with_a_key.stdout.strip() == "s" * 60, with_a_key.stderr
    assert not (tmp_path / ".bunco-secret.json").exists()


def test_manage_py_on_a_public_name_without_a_secret_key_stops_with_the_same_sentence(tmp_path):
    done = manage(tmp_path, "check", DEBUG="0", ALLOWED_HOSTS="example.org")

    assert done.returncode != 0
    assert "SECRET_KEY is not set" in done.stderr and "Set the SECRET_KEY environment variable" in done.stderr


def test_a_laptop_serving_the_living_room_wifi_starts_with_its_own_generated_key(tmp_path):
    done = run_python(PRINT_KEY, tmp_path, DEBUG="0", ALLOWED_HOSTS="192.168.1.20,bunco.local,localhost")

    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / ".bunco-secret.json").read_text())["secret_key"] == done.stdout.strip()


def test_public_hosts_are_the_names_beyond_this_machine_and_its_home_network():
    hosts = ["127.0.0.1", "localhost", "[::1]", "testserver", "10.0.0.5", "192.168.1.20", "fe80::1",
             "bunco.local", "laptop.lan", "bunco.home.arpa", "example.org", ".example.org", "*", "8.8.8.8"]

    assert secrets_file.public_hosts(hosts) == ["example.org", ".example.org", "*", "8.8.8.8"]


@pytest.mark.django_db
def test_a_join_link_signed_with_a_key_anyone_can_read_is_refused(night):
    assert settings.SECRET_KEY not in PUBLISHED_KEYS
    genuine = join_token(night.code)
    assert Client().get(reverse("games:join", args=[genuine])).status_code == 200
    payload = signing.loads(genuine, salt=SALT)  # what the site signs, signed again with another key

    for key in PUBLISHED_KEYS:
        forged = signing.dumps(payload, key=key, salt=SALT, compress=True)
        response = Client().get(reverse("games:join", args=[forged]))
        assert response.status_code == 403, key
        assert b"This join link isn" in response.content


def test_the_secret_file_stays_out_of_git():
    done = subprocess.run(["git", "check-ignore", "-q", ".bunco-secret.json"], cwd=ROOT, capture_output=True)

    assert done.returncode == 0, "add .bunco-secret.json to .gitignore"
