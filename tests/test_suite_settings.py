"""The suite's own settings, which keep it from failing on a busy machine."""

from hypothesis import settings


def test_no_hypothesis_test_has_a_wall_clock_deadline() -> None:
    # tests/conftest.py loads the profile; a test's own @settings inherits from it.
    assert settings.default.deadline is None
