"""The suite's own settings, which keep it from failing on a busy machine."""

import os
from urllib.parse import parse_qs, urlsplit

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.hashers import make_password
from django.db import connection
from hypothesis import settings

from bunco_club.site import celery_app
from tests.conftest import database_env, is_sqlite, worker_redis_url


def test_no_hypothesis_test_has_a_wall_clock_deadline() -> None:
    # tests/conftest.py loads the profile; a test's own @settings inherits from it.
    loaded = settings.default
    assert loaded is not None and loaded.deadline is None


@pytest.mark.django_db
def test_accounts_made_by_tests_hash_their_passwords_the_fast_way() -> None:
    assert make_password("bunco-night").startswith("md5$")


def test_a_real_site_keeps_djangos_slow_password_hashing() -> None:
    from bunco_club.site import settings as site_settings

    # Unless TESTS_FAST_PASSWORD_HASHING is set (only start_server sets it), Django's own list stands.
    assert "PASSWORD_HASHERS" not in vars(site_settings)


@pytest.mark.django_db
def test_a_server_a_test_starts_uses_this_workers_own_test_database() -> None:
    # pytest-xdist runs the suite on several workers at once, each with its own test database.
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    name = connection.settings_dict["NAME"]
    env = database_env()
    if is_sqlite():
        assert env["SQLITE_PATH"] == name
        assert not worker or f"popen-{worker}" in name  # the worker's own temporary directory
    else:
        assert urlsplit(env["DATABASE_URL"]).path == f"/{name}"
        options = connection.settings_dict.get("OPTIONS", {}).get("options")  # make test-services': no flush wait
        assert parse_qs(urlsplit(env["DATABASE_URL"]).query).get("options") == ([options] if options else None)
        assert name.startswith("test_") and (not worker or name.endswith(f"_{worker}"))


def test_each_worker_takes_its_own_redis_database() -> None:
    assert worker_redis_url("redis://127.0.0.1:6379/0", "gw0") == "redis://127.0.0.1:6379/0"
    assert worker_redis_url("redis://127.0.0.1:6379/7", "gw1") == "redis://127.0.0.1:6379/8"
    assert worker_redis_url("redis://127.0.0.1:6379", "gw1") == "redis://127.0.0.1:6379/1"


def test_this_worker_and_the_servers_it_starts_use_its_redis_database() -> None:
    if not django_settings.REDIS_URL:
        pytest.skip("no Redis in this run (make test-services has it)")
    assert os.environ["REDIS_URL"] == django_settings.REDIS_URL  # what a started server inherits
    assert django_settings.CACHES["default"]["LOCATION"] == django_settings.REDIS_URL
    assert django_settings.CELERY_BROKER_URL == django_settings.REDIS_URL
    assert celery_app.conf.broker_url == django_settings.REDIS_URL  # read lazily, after the switch


def test_a_number_setting_that_is_not_a_number_stops_the_start_naming_its_variable(monkeypatch) -> None:
    from django.core.exceptions import ImproperlyConfigured

    from bunco_club.site.settings import env_float, env_int

    monkeypatch.setenv("NIGHT_MAX_PLAYERS", "four hundred")
    with pytest.raises(ImproperlyConfigured, match="NIGHT_MAX_PLAYERS must be a whole number"):
        env_int("NIGHT_MAX_PLAYERS", 400)
    monkeypatch.setenv("NIGHT_MAX_PLAYERS", " 12 ")
    assert env_int("NIGHT_MAX_PLAYERS", 400) == 12
    monkeypatch.setenv("NIGHT_MAX_PLAYERS", "")
    assert env_int("NIGHT_MAX_PLAYERS", 400) == 400
    monkeypatch.setenv("TABLE_BOT_PAUSE_SECONDS", "0,8")
    with pytest.raises(ImproperlyConfigured, match="TABLE_BOT_PAUSE_SECONDS must be a number"):
        env_float("TABLE_BOT_PAUSE_SECONDS", 0.8)
