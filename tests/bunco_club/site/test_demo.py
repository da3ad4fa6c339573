"""The demo that `make run` loads is safe to leave running: its host is a plain host of the demo
club with a password of its own install, and `make run` serves this machine alone."""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client, override_settings

from bunco_club.models import Club
from tests.builders import make_night, make_user
from tests.conftest import ROOT

pytestmark = pytest.mark.django_db

PUBLISHED_PASSWORD = "bunco-night"  # what every install's demo host had, and the repository shows


@pytest.fixture
def secret_file(tmp_path: Path):
    path = tmp_path / ".bunco-secret.json"
    with override_settings(SECRET_FILE=path):
        yield path


def load_demo() -> str:
    out = io.StringIO()
    call_command("load_demo", stdout=out)
    return out.getvalue()


def printed_password(output: str) -> str:
    found = re.search(r"Demo host login: host / (\S+)", output)
    assert found, output
    return found.group(1)


def demo_host_client(secret_file: Path) -> Client:
    password = printed_password(load_demo())
    client = Client()
    assert client.login(username="host", password=password)
    return client


def test_the_demo_host_is_a_plain_host_of_the_demo_club(secret_file):
    load_demo()

    host = get_user_model().objects.get(username="host")
    assert not host.is_staff and not host.is_superuser
    assert Club.objects.get(slug="maple-street").hosts.filter(pk=host.pk).exists()


def test_the_demo_club_has_a_years_season_with_a_host_for_every_party_made_once(secret_file):
    load_demo()
    load_demo()

    club = Club.objects.get(slug="maple-street")
    (season,) = club.seasons.all()
    parties = list(season.parties.all())
    assert len(parties) == 12
    assert all(party.host is not None for party in parties)
    hostings = sorted(Counter(party.host_id for party in parties).values())
    assert hostings[-1] - hostings[0] <= 1  # 12 dates shared fairly among the regulars


def test_the_demo_password_is_random_per_install_kept_in_the_secret_file_and_printed_again(secret_file, tmp_path):
    first = printed_password(load_demo())
    again = printed_password(load_demo())

    assert first == again == json.loads(secret_file.read_text())["demo_password"]
    assert first != PUBLISHED_PASSWORD and len(first) >= 12
    assert get_user_model().objects.get(username="host").check_password(first)
    with override_settings(SECRET_FILE=tmp_path / "another-install" / ".bunco-secret.json"):
        get_user_model().objects.filter(username="host").delete()
        assert printed_password(load_demo()) != first


def test_an_earlier_installs_demo_host_loses_the_published_password_and_its_staff_powers(secret_file):
    make_user("host", password=PUBLISHED_PASSWORD, is_staff=True, is_superuser=True)

    password = printed_password(load_demo())

    host = get_user_model().objects.get(username="host")
    assert not host.check_password(PUBLISHED_PASSWORD) and host.check_password(password)
    assert not host.is_staff and not host.is_superuser


def test_a_demo_host_who_chose_a_password_keeps_it_and_it_is_not_printed(secret_file):
    make_user("host", password="our own club's password")

    output = load_demo()

    assert get_user_model().objects.get(username="host").check_password("our own club's password")
    assert "Demo host login: host, with the password you gave it." in output


def test_the_demo_host_is_sent_to_the_admin_login_and_never_sees_the_admin(secret_file):
    client = demo_host_client(secret_file)

    response = client.get("/admin/")

    assert response.status_code == 302
    assert response["Location"] == "/admin/login/?next=/admin/"
    users = client.get("/admin/auth/user/")
    assert users.status_code == 302
    assert users["Location"] == "/admin/login/?next=/admin/auth/user/"


def test_the_demo_host_cannot_run_another_hosts_night(secret_file):
    client = demo_host_client(secret_file)
    someone_else = make_user("someone-else")
    night = make_night(host_user=someone_else)

    assert client.get(f"/n/{night.code}/host/").status_code == 403


def test_staff_status_does_not_make_anyone_host_of_every_night():
    staff = make_user("staff", is_staff=True)
    night = make_night(host_user=make_user("the-host"))
    client = Client()
    client.force_login(staff)

    assert client.get(f"/n/{night.code}/host/").status_code == 403


def test_no_password_is_written_in_the_readme_or_the_makefile():
    for name in ("README.md", "Makefile"):
        assert PUBLISHED_PASSWORD not in (ROOT / name).read_text(), name


def test_make_run_serves_this_machine_alone_and_the_readme_says_how_to_serve_the_wifi():
    makefile = (ROOT / "Makefile").read_text()
    readme = (ROOT / "README.md").read_text()

    assert re.search(r"^HOST \?= 127\.0\.0\.1$", makefile, re.MULTILINE)
    assert "make run HOST=0.0.0.0 ALLOWED_HOSTS=" in readme
    assert "Anyone on that Wi-Fi can reach the site" in readme
    assert ".bunco-secret.json" in readme


def test_the_demo_club_lives_in_a_real_zone_and_its_party_is_at_seven_there(secret_file):
    """Issue 29, S6: the demo club lived in UTC, so a newcomer's first calendar was in UTC."""
    output = load_demo()

    club = Club.objects.get(slug="maple-street")
    assert club.time_zone == "America/Chicago"
    party = club.parties.filter(season__isnull=True).get()
    assert (party.local_start.hour, party.local_start.minute) == (19, 0)
    assert {(p.local_start.hour, p.local_start.minute) for p in club.parties.filter(season__isnull=False)} == {(19, 0)}
    assert "19:00 (America/Chicago)" in output
