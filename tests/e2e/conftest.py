"""What every browser test shares (the site and the phones are in tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserType, expect

from tests.conftest import PATIENT_MS, ServerPool, ServerProcess, shared_server


@pytest.fixture(autouse=True)
def patient_expect(request: pytest.FixtureRequest) -> Iterator[None]:
    """Page-level waits get a minute instead of Playwright's 5 s (a module may ask for more with
    EXPECT_TIMEOUT_MS, never for less): on a 2-core machine shared with other suites, a server and
    a dozen pages can fall behind, and events a test's own actions log reach the streams at their
    heartbeat. Deadlines that matter (the bell's) are measured separately, never by these waits."""
    previous = expect._timeout
    expect.set_options(timeout=max(getattr(request.module, "EXPECT_TIMEOUT_MS", PATIENT_MS), PATIENT_MS))
    yield
    expect.set_options(timeout=previous)


@pytest.fixture(autouse=True)
def every_page_closed_afterwards(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test's pages all close when it ends, those it opened in contexts of its own (a host's desk,
    a projector) too: the servers serve one test after another, and a page left open would keep
    its stream and its polls going into the next test."""
    yield
    if "browser" in request.fixturenames:
        for context in list(request.getfixturevalue("browser").contexts):
            context.close()


@pytest.fixture
def table_site(transactional_db: None, server_pool: ServerPool, request: pytest.FixtureRequest) -> Iterator[ServerProcess]:
    """The game tables' server: one uvicorn process, in-process events and clock, long streams,
    bots that hardly pause (and a clock that looks for them five times a second)."""
    with shared_server(server_pool, {
        "REDIS_URL": "", "EVENTS_STREAM_MAX_SECONDS": "300", "TABLE_BOT_PAUSE_SECONDS": "0.05",
        "CLOCK_INTERVAL_SECONDS": "0.2",
    }, request) as server:
        yield server


# --- Plain HTTP at a name that is not localhost: a living room's Wi-Fi --------------------------------

PARTY = "party.test"  # a name for this machine that Chromium does not count as secure, as a LAN address


@pytest.fixture
def party_site(transactional_db: None, server_pool: ServerPool, request: pytest.FixtureRequest) -> Iterator[str]:
    """The night's server as a living room reaches it: http://party.test:PORT (plain HTTP). A module's
    PARTY_POLL_SECONDS sets how often the pages refresh themselves (the site's default otherwise)."""
    env = {"REDIS_URL": "", "EVENTS_STREAM_MAX_SECONDS": "300", "ALLOWED_HOSTS": f"127.0.0.1,localhost,{PARTY}"}
    poll = getattr(request.module, "PARTY_POLL_SECONDS", None)
    if poll is not None:
        env["PHONE_POLL_SECONDS"] = str(poll)
    with shared_server(server_pool, env, request) as server:
        yield server.url.replace("127.0.0.1", PARTY)


@pytest.fixture
def party_browser(browser_type: BrowserType, browser_type_launch_args: dict[str, Any]) -> Iterator[Browser]:
    """A browser that finds party.test at this machine (and nothing else beyond it)."""
    args = [arg for arg in browser_type_launch_args["args"] if not arg.startswith("--host-resolver-rules")]
    rules = f"--host-resolver-rules=MAP {PARTY} 127.0.0.1, MAP * ~NOTFOUND , EXCLUDE 127.0.0.1, EXCLUDE localhost"
    browser = browser_type.launch(**{**browser_type_launch_args, "args": [*args, rules]})
    yield browser
    browser.close()
