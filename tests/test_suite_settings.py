"""The suite's own settings, which keep it from failing on a busy machine."""

import pytest
from django.contrib.auth.hashers import make_password
from hypothesis import settings


def test_no_hypothesis_test_has_a_wall_clock_deadline() -> None:
    # tests/conftest.py loads the profile; a test's own @settings inherits from it.
    assert settings.default is not None
    assert settings.default.deadline is None


@pytest.mark.django_db
def test_accounts_made_by_tests_hash_their_passwords_the_fast_way() -> None:
    assert make_password("bunco-night").startswith("md5$")


def test_a_real_site_keeps_djangos_slow_password_hashing() -> None:
    from bunco_club import settings as site_settings

    # Unless TESTS_FAST_PASSWORD_HASHING is set (only start_server sets it), Django's own list stands.
    assert "PASSWORD_HASHERS" not in vars(site_settings)
