"""Production settings pass Django's deployment checks with nothing to silence, the headers say
what the browser may do, and every environment variable is written down."""

from __future__ import annotations

import json
import re
import secrets
from wsgiref.util import setup_testing_defaults

import pytest
from asgiref.sync import async_to_sync
from django.test import AsyncClient
from django.urls import reverse

from tests.bunco_club.site_process import run_python
from tests.conftest import ROOT

POLICY = "camera=(), microphone=(), geolocation=(), payment=()"


def production_env() -> dict[str, str]:
    return {
        "SECRET_KEY": secrets.token_urlsafe(50),
        "DEBUG": "0",
        "HTTPS": "1",
        "ALLOWED_HOSTS": "bunco.example.org",
        "EMAIL_HOST": "smtp.example.org",
    }


def test_the_deployment_checks_pass_with_production_settings_without_an_error_or_a_warning(tmp_path):
    done = run_python(
        "import sys\nfrom django.core.management import call_command\n"
        "try:\n    call_command('check', '--deploy', '--fail-level', 'WARNING')\n"
        "except Exception as error:\n    print(error)\n    sys.exit(1)\n",
        tmp_path, **production_env(),
    )

    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "WARNINGS" not in output and "ERRORS" not in output, output


def test_behind_https_plain_http_is_redirected_browsers_are_told_to_stay_on_https_and_probes_still_work(tmp_path):
    done = run_python(
        "import json\nfrom django.test import Client\n"
        "client = Client(HTTP_HOST='bunco.example.org')\n"
        "page = client.get('/')\n"
        "secure = client.get('/alive/', HTTP_X_FORWARDED_PROTO='https')\n"
        "print(json.dumps({'page': [page.status_code, page.get('Location')],\n"
        "    'alive': client.get('/alive/').status_code, 'health': client.get('/health/').status_code,\n"
        "    'hsts': secure.get('Strict-Transport-Security')}))\n",
        tmp_path, **production_env(),
    )

    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["page"] == [301, "https://bunco.example.org/"]
    assert seen["alive"] == 200 and seen["health"] == 200  # the load balancer speaks plain HTTP to the app
    assert seen["hsts"] == "max-age=31536000; includeSubDomains"


def test_every_page_says_which_browser_features_it_never_uses(client):
    assert client.get(reverse("alive"))["Permissions-Policy"] == POLICY


def test_pages_served_through_asgi_say_it_too():
    response = async_to_sync(AsyncClient().get)(reverse("alive"))

    assert response["Permissions-Policy"] == POLICY


@pytest.mark.django_db
def test_host_pages_are_never_kept_in_a_cache(night, night_host_client):
    for url in (reverse("games:night_host", args=[night.code]), reverse("games:night_codes", args=[night.code]),
                reverse("games:night_table", args=[night.code, 1])):
        response = night_host_client.get(url)
        assert response.status_code == 200, url
        assert "no-store" in response["Cache-Control"], url


def test_static_files_tell_the_browser_not_to_guess_their_type():
    from bunco_club.site.wsgi import application

    environ = {"PATH_INFO": "/static/js/site.js", "REQUEST_METHOD": "GET"}
    setup_testing_defaults(environ)
    answer: dict[str, object] = {}

    def start_response(status: str, headers: list[tuple[str, str]], exc_info: object = None) -> None:
        answer.update(status=status, headers=dict(headers))

    body = application(environ, start_response)
    if hasattr(body, "close"):
        body.close()
    assert answer["status"] == "200 OK"
    assert answer["headers"]["X-Content-Type-Options"] == "nosniff"  # type: ignore[index]


def test_sqlite_commits_with_normal_sync_unless_full_is_asked_for(tmp_path):
    read = (
        "from django.db import connection\n"
        "with connection.cursor() as cursor:\n"
        "    print(cursor.execute('PRAGMA synchronous').fetchone()[0])\n"
    )
    default, full, lower_case = (run_python(read, tmp_path), run_python(read, tmp_path, SQLITE_SYNCHRONOUS="FULL"),
                                 run_python(read, tmp_path, SQLITE_SYNCHRONOUS="full"))

    assert [default.stdout.strip(), full.stdout.strip(), lower_case.stdout.strip()] == ["1", "2", "2"], (
        default.stderr + full.stderr + lower_case.stderr  # 1 NORMAL, 2 FULL
    )


def test_a_mistyped_sqlite_synchronous_stops_the_start(tmp_path):
    done = run_python("", tmp_path, SQLITE_SYNCHRONOUS="OFF")

    assert done.returncode != 0
    assert "SQLITE_SYNCHRONOUS must be NORMAL or FULL" in done.stderr


def test_the_operations_guide_names_every_environment_variable_the_settings_read():
    source = (ROOT / "bunco_club" / "site" / "settings.py").read_text()
    guide = (ROOT / "docs" / "OPERATIONS.md").read_text()
    names = set(re.findall(r"""(?:env_bool|env_list|os\.environ\.get|os\.environ\[)\(?\s*["']([A-Z][A-Z0-9_]+)["']""",
                           source))

    assert {"SECRET_KEY", "BUNCO_SECRET_FILE", "SQLITE_SYNCHRONOUS", "HTTPS"} <= names
    assert sorted(name for name in names if f"`{name}`" not in guide) == []


def test_the_operations_guide_says_what_a_power_cut_may_cost():
    guide = (ROOT / "docs" / "OPERATIONS.md").read_text()

    assert "`synchronous=NORMAL`" in guide and "never corrupts the database" in guide
    assert "`SQLITE_SYNCHRONOUS=FULL`" in guide


def test_the_checks_find_no_fixed_time_default_at_the_clubs_usual_hour():
    """Django's check warns of a fixed time default (fields.W161) when run within ten seconds of it:
    the deploy check above failed at 19:00 UTC while a club's usual time defaulted to time(19, 0)."""
    import datetime

    import time_machine

    from bunco_club.models import Club

    with time_machine.travel(datetime.datetime(2026, 12, 7, 19, 0, 5), tick=False):
        assert [warning.id for warning in Club._meta.get_field("usual_time").check()] == []
        assert Club().usual_time == datetime.time(19, 0)
