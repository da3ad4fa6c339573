"""What every browser test shares (the site and the phones are in tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

PATIENT_MS = 10_000


@pytest.fixture(autouse=True)
def patient_expect(request: pytest.FixtureRequest) -> Iterator[None]:
    """Page-level waits get 10 s instead of Playwright's 5 (a module may ask for more with
    EXPECT_TIMEOUT_MS): on a 2-core machine shared with other suites, a server and a dozen pages
    can fall behind, and events a test's own actions log reach the streams at their heartbeat.
    Deadlines that matter (the bell's) are measured separately, never by these waits."""
    previous = expect._timeout
    expect.set_options(timeout=getattr(request.module, "EXPECT_TIMEOUT_MS", PATIENT_MS))
    yield
    expect.set_options(timeout=previous)
