"""Shared fixtures: personas (made with the builders in tests/builders.py) and a real server for
browser tests.

The suite runs on the embedded default (SQLite) with `make test`, and against the machine's
PostgreSQL and Redis with `make test-services` (DATABASE_URL / REDIS_URL set).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import httpx
import pytest
from django.conf import settings
from django.db import connection
from django.test import Client
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from live.broadcasters import reset_broadcaster
from live.streams import open_streams
from scripts.run_scaled import free_ports
from tests.builders import (  # the account builders are also imported from here
    PLAYERS_ALL_NIGHT,
    is_sqlite,
    joined_phone,
    make_club,
    make_member,  # noqa: F401
    make_night,
    make_user,
    night_host_browser,
    played_night,
    seated,
)
from tests.migrated_template import MigratedTemplate

# No wall-clock deadline for any rule test: a busy machine (CI, two suites at once) makes an example
# slow, never wrong. Examples are still bounded by their count, and pytest-timeout bounds a test.
hypothesis_settings.register_profile(
    "bunco", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
hypothesis_settings.load_profile("bunco")

ROOT = Path(__file__).resolve().parent.parent
FAST_PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Debian's Chromium headless shell (package chromium-headless-shell, the same Chromium 156 build as
# the `chromium` package: Blink and V8 alike, without the windowing and browser UI layers), which is
# also what Playwright itself runs for a headless browser. The browser pass measured 3 min 56 s with
# it against 5 min 22 s with the full browser on the quiet 2-core machine, whose cores the full
# browser's compositing kept busy (docs/PERFORMANCE.md, "The suite's time"). CHROMIUM_PATH=/usr/bin/chromium
# runs the suite in the full browser.
CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium-headless-shell")

# Sync Playwright runs an event loop in the test thread; the ORM calls the tests make beside it
# are still synchronous and safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def worker_redis_url(url: str, worker: str) -> str:
    """The Redis database a pytest-xdist worker uses: the URL's own number plus the worker's
    (gw0 keeps it, gw1 takes the next). Each test clears the cache (a FLUSHDB on Redis) and the
    clock tests start Celery workers on the broker's queue: two workers sharing one database
    would wipe each other's keys and take each other's tasks."""
    index = int(worker.removeprefix("gw"))
    base, _, number = url.rstrip("/").rpartition("/")
    if not base.startswith("redis") or not number.isdigit():  # no database number: the URL's host
        base, number = url.rstrip("/"), "0"
    return f"{base}/{(int(number) + index) % 16}"


def use_this_workers_redis() -> None:
    """On a pytest-xdist worker with REDIS_URL set, point the settings, and every process a test
    starts (through os.environ), at the worker's own Redis database. Django's settings are read
    before this module is imported; nothing has connected to Redis yet."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    url = os.environ.get("REDIS_URL")
    if not worker or not url:
        return
    own = worker_redis_url(url, worker)
    os.environ["REDIS_URL"] = own
    settings.REDIS_URL = own
    settings.CELERY_BROKER_URL = own
    settings.CACHES["default"]["LOCATION"] = own


use_this_workers_redis()


def services_enabled() -> bool:
    return bool(os.environ.get("REDIS_URL"))


@pytest.fixture(scope="session")
def django_db_modify_db_settings(
    django_db_modify_db_settings_parallel_suffix: None, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """On SQLite the test database is a file, so that a server in another process can share it."""
    if is_sqlite():
        path = tmp_path_factory.mktemp("db") / "test.sqlite3"
        settings.DATABASES["default"]["TEST"]["NAME"] = str(path)


@pytest.fixture(scope="session")
def migrated_template(django_db_createdb: bool) -> MigratedTemplate | None:
    """On SQLite, the migrated database the workers copy (tests/migrated_template.py); None on
    PostgreSQL, or when --create-db asks for a database migrated afresh."""
    if not is_sqlite() or django_db_createdb:
        return None
    return MigratedTemplate()


@pytest.fixture(scope="session")
def django_db_keepdb(
    request: pytest.FixtureRequest, django_db_modify_db_settings: None, migrated_template: MigratedTemplate | None
) -> bool:
    """pytest-django's --reuse-db, and on SQLite a worker's database copied from the template: then
    pytest-django sets it up as a kept one (migrate finds nothing to apply) instead of migrating."""
    reuse = bool(request.config.getvalue("reuse_db"))
    if reuse or migrated_template is None:
        return reuse
    return migrated_template.copy_to(Path(settings.DATABASES["default"]["TEST"]["NAME"]))


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup: None, migrated_template: MigratedTemplate | None) -> None:
    """pytest-django's set-up; then, in the worker that found no template, its database just
    migrated becomes the template."""
    if migrated_template is not None:
        migrated_template.save_from(Path(settings.DATABASES["default"]["NAME"]))


@pytest.fixture(scope="session", autouse=True)
def uploads_in_the_tests_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Uploaded files (a receipt's photo) go to the run's temporary folder, never the project's."""
    from django.test import override_settings

    with override_settings(MEDIA_ROOT=tmp_path_factory.getbasetemp() / "media"):
        yield


@pytest.fixture(autouse=True)
def fresh_rate_limits(settings: Any) -> Iterator[None]:
    """Each test starts with no knocks counted (the rate limits live in the cache), and every limit
    counts over a day rather than its minute or hour: django-ratelimit's windows are fixed, so a
    test whose knocks straddled a window's edge would see its count start again (a test that sets
    its own limit writes it per day too)."""
    from django.core.cache import cache

    cache.clear()
    settings.RATE_LIMITS = day_long(settings.RATE_LIMITS)
    yield


@pytest.fixture(autouse=True)
def site_language_after_each_test() -> Iterator[None]:
    """Each test ends in the site's language: a request the test client made in Spanish leaves its
    thread in Spanish (the language middleware activates a language and nothing puts it back, which a
    server's next request does), and the next test would read its messages in it."""
    from django.utils import translation

    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def fast_password_hashing(settings: Any) -> None:
    """Accounts made by a test hash their passwords the fast way (the servers a test starts accept
    them: start_server sets TESTS_FAST_PASSWORD_HASHING); the suite makes hundreds of them."""
    settings.PASSWORD_HASHERS = FAST_PASSWORD_HASHERS


def day_long(limits: dict[str, str]) -> dict[str, str]:
    """The same counts, each over a day ("3/m" -> "3/d")."""
    return {door: rate.split("/")[0] + "/d" for door, rate in limits.items()}


# --- Personas ---------------------------------------------------------------------------------


@pytest.fixture
def fresh_streams() -> Iterator[None]:
    """No broadcaster nor open stream left by another test: a test's client may open streams it
    never reads (never closed), and the per-address count must start afresh."""
    reset_broadcaster()
    open_streams.clear()
    yield
    open_streams.clear()
    reset_broadcaster()


@pytest.fixture
def host(db):
    """A club host with an account, hosting the Maple Street club."""
    user = make_user("host")
    make_club(hosts=[user])
    return user


@pytest.fixture
def outsider(db):
    """Someone with an account and no club."""
    return make_user("outsider")


@pytest.fixture
def host_client(client, host):
    client.force_login(host)
    return client


# --- Night personas (the builders are in tests/builders.py) ----------------------------------


@pytest.fixture
def night(db):
    """A seated 12-player night (3 tables, no ghost), round 1 ready: the head table has not
    started it. Players are tests.builders.NAMES[:12], drawn with seed 1."""
    return make_night()


@pytest.fixture
def night_host_client(night):
    """The browser that created `night`: its session holds the night's host key (no account)."""
    return night_host_browser(night)


@pytest.fixture
def player_client(night):
    """A phone that joined `night` and plays as the real player in seat 1 of table 2;
    `player_client.player` is that player."""
    player = seated(night, 2, 0)
    phone = joined_phone(night, player)
    vars(phone)["player"] = player  # (an attribute Client does not declare, so not `phone.player =`)
    return phone


@pytest.fixture
def outsider_client():
    """A phone that never scanned a night's code."""
    return Client()


@pytest.fixture
def finished_night(db):
    """A whole 24-round night of 6 players (2 tables, 2 ghosts, who movement sometimes brings
    to the same table), played through the actions."""
    return played_night(PLAYERS_ALL_NIGHT, seed=7)


# --- A real server in another process (streams need ASGI; live_server is WSGI) ----------------


def free_port() -> int:
    return free_ports()


def database_env() -> dict[str, str]:
    """Environment that points a server process at the test database this process uses."""
    db = settings.DATABASES["default"]
    if connection.vendor == "sqlite":
        return {"SQLITE_PATH": str(db["NAME"]), "DATABASE_URL": ""}
    user = db.get("USER") or "postgres"
    host = db.get("HOST") or "127.0.0.1"
    port = db.get("PORT") or 5432
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    # The suite's session options (make test-services: no wait for each commit's flush), the servers' too.
    options = db.get("OPTIONS", {}).get("options")
    query = f"?{urlencode({'options': options}, quote_via=quote)}" if options else ""
    return {"DATABASE_URL": f"postgres://{user}{password}@{host}:{port}/{db['NAME']}{query}"}


@dataclass
class ServerProcess:
    """One server process started by a test: uvicorn (ASGI) or gunicorn (WSGI)."""

    url: str
    process: subprocess.Popen[bytes]
    log_path: Path
    command: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    log_from: int = 0  # where the current test's part of the log begins (a shared server's)

    def log(self) -> str:
        with self.log_path.open("rb") as log:
            log.seek(self.log_from)
            return log.read().decode(errors="replace")

    def mark_log(self) -> None:
        self.log_from = self.log_path.stat().st_size

    def between_tests(self, door: str) -> int:
        """Knock on a shared server's `quiet` or `fresh` door (bunco_club/site/between_tests.py); the
        number of event streams it still has open."""
        answer = httpx.post(f"{self.url}/between-tests/{door}/", timeout=60)
        answer.raise_for_status()
        return int(answer.json()["open_streams"])

    def stop(self, *, kill: bool = False) -> None:
        if self.process.poll() is None:
            if kill:
                self.process.kill()
            else:
                self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)

    def restart(self) -> None:
        self.stop()
        self.process = _spawn(self.command, self.env, self.log_path)
        wait_until_up(self)


def _spawn(command: list[str], env: dict[str, str], log_path: Path) -> subprocess.Popen[bytes]:
    log = log_path.open("ab")
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)


def wait_until_up(server: ServerProcess, timeout: float = 120) -> None:
    """Until the server answers /health/. The bound only ends a run whose server never comes up:
    a busy machine (suites on pytest-xdist workers beside other suites) makes a start slow."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"server exited with {server.process.returncode}:\n{server.log()}")
        try:
            if httpx.get(server.url + "/health/", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"server did not come up at {server.url}:\n{server.log()}")


def start_server(
    tmp_path: Path,
    *,
    kind: str = "uvicorn",
    extra_env: dict[str, str] | None = None,
    workers: int = 1,
) -> ServerProcess:
    """A server on a free port. Another suite (or pytest-xdist worker) may bind the port between
    free_port's check and the server's bind: then it is started again on another port."""
    for _ in range(5):
        server = _start_server_once(tmp_path, kind=kind, extra_env=extra_env, workers=workers)
        try:
            wait_until_up(server)
        except RuntimeError:
            # A server that never came up is stopped, not left behind holding its port and its
            # database connections (the test database could not be dropped at the end of the run).
            server.stop(kill=True)
            if not lost_its_port(server.log()):
                raise
            continue
        return server
    raise RuntimeError(f"no free port held long enough for a server:\n{server.log()}")


def lost_its_port(log: str) -> bool:
    return "address already in use" in log.lower() or "connection in use" in log.lower()


def _start_server_once(
    tmp_path: Path, *, kind: str, extra_env: dict[str, str] | None, workers: int
) -> ServerProcess:
    port = free_port()
    env = {
        **os.environ,
        **database_env(),
        "DJANGO_SETTINGS_MODULE": "bunco_club.site.settings",
        "PYTHONUNBUFFERED": "1",
        # This process's key (its secret file is beside another database): its join links and logins work there.
        "SECRET_KEY": settings.SECRET_KEY,
        # Short streams: a browser test sees reconnects with Last-Event-ID within seconds.
        "EVENTS_HEARTBEAT_SECONDS": "2",
        "EVENTS_STREAM_MAX_SECONDS": "3",
        "TESTS_FAST_PASSWORD_HASHING": "1",
        # No daily backup of a test's database; the serving lock of PostgreSQL's in the test's folder.
        "BACKUP_EVERY_HOURS": "0",
        "BACKUP_DIR": str(tmp_path / "backups"),
        **(extra_env or {}),
    }
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    if kind == "uvicorn":
        command = [
            sys.executable, "-m", "uvicorn", "bunco_club.site.asgi:application",
            # The access log stays on: it is what a failing browser test shows of the server.
            "--host", "127.0.0.1", "--port", str(port),
            "--timeout-graceful-shutdown", "2", "--workers", str(workers),
        ]
    else:
        command = [
            sys.executable, "-m", "gunicorn", "bunco_club.site.wsgi:application",
            "--bind", f"127.0.0.1:{port}", "--workers", str(workers), "--threads", "4",
        ]
    log_path = tmp_path / f"{kind}-{port}.log"
    return ServerProcess(
        url=f"http://127.0.0.1:{port}", process=_spawn(command, env, log_path), log_path=log_path,
        command=command, env=env,
    )


# The live pages' safety-net poll (settings.PHONE_POLL_SECONDS), an hour apart: effectively off.
# A browser module that must prove news came by the stream, not by the poll, sets STREAM_ONLY = True:
# its servers run with this, so whatever reaches a page at all came by its stream, and the test
# waits for it with the suite's patient timeout instead of racing the poll against a clock.
POLL_OFF_SECONDS = 3600


def poll_env(request: pytest.FixtureRequest) -> dict[str, str]:
    """The server's poll setting for the requesting test's module (see POLL_OFF_SECONDS)."""
    if getattr(request.module, "STREAM_ONLY", False):
        return {"PHONE_POLL_SECONDS": str(POLL_OFF_SECONDS)}
    return {}


class ServerPool:
    """A pytest-xdist worker's servers, one a configuration, serving the worker's browser tests one
    after another: starting a server costs seconds (about 1 s of a core until it answers, 0.9 s with
    the site's compiled modules kept; 3 s of wall time at a load of 6 and 18 to 26 s measured on a
    busy 2-core machine), a test's cleaning up a fraction of one. Between two tests a server is quieted (its
    clock held, so nothing writes while the test database is emptied) and then, when its
    configuration's next test comes, wiped of what it keeps in memory.

    On SQLite a worker keeps a server for each configuration it has met (five in all: the pages'
    poll on or off, short or long streams, the tables' quick bots): the tests are handed out longest
    first, one at a time, so a worker's next test often wants another configuration than its last,
    and each such change stopped one server to start another (23 to 46 s of a test's setup on a
    busy machine). A quiet
    server does nothing (its clock held, its pages closed). On PostgreSQL a worker keeps one at a
    time: each holds a pool of database connections, and PostgreSQL allows 100 in all."""

    # How long the streams of a finished test's closed pages may take to end before the server is
    # replaced by a new one instead (it decides nothing: either way the next test starts clean).
    STREAMS_PATIENCE_SECONDS = 30

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.servers: dict[tuple[tuple[str, str], ...], ServerProcess] = {}

    def serve(self, extra_env: dict[str, str]) -> ServerProcess:
        """The server of this configuration, wiped clean for a new test."""
        key = tuple(sorted(extra_env.items()))
        if not is_sqlite():  # one server at a time: see the class's docstring
            for other in [other for other in self.servers if other != key]:
                self.servers.pop(other).stop()
        server = self.servers.get(key)
        if server is not None and server.process.poll() is None and self._made_fresh(server):
            return server
        if server is not None:
            server.stop(kill=True)
        server = start_server(self.folder, extra_env={**extra_env, "TESTS_BETWEEN_TESTS_HOOKS": "1"})
        server.between_tests("fresh")
        self.servers[key] = server
        return server

    def _made_fresh(self, server: ServerProcess) -> bool:
        """Wiped, once the last test's streams have ended; False for a server to replace."""
        give_up = time.monotonic() + self.STREAMS_PATIENCE_SECONDS
        try:
            while server.between_tests("fresh"):
                if time.monotonic() > give_up:
                    return False
                time.sleep(0.05)
        except httpx.HTTPError:
            return False
        return True

    def close(self) -> None:
        for server in self.servers.values():
            server.stop()


@pytest.fixture(scope="session")
def server_pool(django_db_setup: None, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerPool]:
    pool = ServerPool(tmp_path_factory.mktemp("servers"))
    yield pool
    pool.close()


@contextmanager
def shared_server(pool: ServerPool, extra_env: dict[str, str], request: pytest.FixtureRequest) -> Iterator[ServerProcess]:
    """One test's turn on the pool's server of this configuration. The test's fixture must depend on
    transactional_db: this turn ends (the clock held) before the test's database is emptied."""
    server = pool.serve(extra_env)
    server.mark_log()
    request.node.stash.setdefault(SERVERS, []).append(server)
    yield server
    try:
        server.between_tests("quiet")
    except httpx.HTTPError:
        server.stop(kill=True)  # the pool replaces it for the next test
    # A 500 is a bug, whatever the page made of it (a phone retries a refresh that got one).
    crashes = server_errors(server.log(), after=INTERNAL_SERVER_ERROR)
    assert not crashes, f"the server answered a request with a 500 during this test:\n{crashes}"


@pytest.fixture
def live_site(transactional_db: None, server_pool: ServerPool, request: pytest.FixtureRequest) -> Iterator[ServerProcess]:
    """The embedded default, as `make run` serves it: one uvicorn process, in-process events."""
    with shared_server(server_pool, {"REDIS_URL": "", **poll_env(request)}, request) as server:
        yield server


@pytest.fixture
def night_site(transactional_db: None, server_pool: ServerPool, request: pytest.FixtureRequest) -> Iterator[ServerProcess]:
    """One uvicorn process, in-process events, streams as long-lived as in production."""
    with shared_server(
        server_pool, {"REDIS_URL": "", "EVENTS_STREAM_MAX_SECONDS": "300", **poll_env(request)}, request
    ) as server:
        yield server


# --- Browser (Playwright driving Debian's chromium, never a downloaded browser) ---------------


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any]) -> dict[str, Any]:
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1, EXCLUDE localhost",
        ],
    }


# A page-level wait returns as soon as the page shows what it waits for: its bound only decides how
# long a broken page takes to fail, so it is far beyond an honest wait. A correct test never fails
# for being slow: with the machine busy (loads of 15 to 20 on its 2 cores, other suites beside this
# one) every process waits for a core many times over, and a page's second becomes ten. The same
# bound for an action (a click waits for its button to be enabled): Playwright's own is 30 s, which
# a phone's hand, waiting for its turn's cards with `make test` run twice at once, once overran.
PATIENT_MS = 60_000


PHONE = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 3,
    "is_mobile": True,
    "has_touch": True,
}


@pytest.fixture
def new_phone(browser, request: pytest.FixtureRequest):
    """Makes phone-sized browser contexts (each one person's phone); closes them afterwards.

    What each phone's browser reported (console, every request and answer, failures) is kept, and shown
    with the server's log when the test fails: a browser failure on CI is otherwise a guess.
    """
    contexts = []
    notes: list[str] = request.node.stash.setdefault(BROWSER_NOTES, [])

    def make(**overrides: Any):
        context = browser.new_context(**{**PHONE, **overrides})
        context.set_default_timeout(PATIENT_MS)
        contexts.append(context)
        page = context.new_page()
        phone = f"phone {len(contexts)}"
        started = time.monotonic()

        def note(text: str) -> None:
            notes.append(f"{time.monotonic() - started:7.3f}s {phone}: {text}")

        page.on("console", lambda message: note(f"console {message.type}: {message.text}"))
        page.on("requestfailed", lambda failed: note(f"request failed {failed.method} {failed.url}: {failed.failure}"))
        page.on("request", lambda sent: note(f"request {sent.method} {sent.url}"))
        page.on("response", lambda answer: note(f"answer {answer.status} {answer.url}"))
        return page

    yield make
    for context in contexts:
        context.close()


BROWSER_NOTES = pytest.StashKey[list[str]]()
SERVERS = pytest.StashKey[list[ServerProcess]]()


def server_errors(log: str, most: int = 3, *, after: str = "") -> str:
    """The first `most` tracebacks in a server's log (those right after a line containing `after`,
    if given), each from the line before it to its exception."""
    blocks: list[str] = []
    lines = log.splitlines()
    for start, line in enumerate(lines):
        if len(blocks) == most:
            break
        if line.startswith("Traceback (most recent call last)") and (not after or after in lines[start - 1]):
            end = start + 1
            while end < len(lines) and (lines[end].startswith((" ", "\t")) or not lines[end].strip()):
                end += 1
            blocks.append("\n".join(lines[max(0, start - 1):end + 1]))
    return "\n\n".join(blocks)


# How Django logs an unhandled exception in a view (the answer was a 500): settings.LOGGING.
INTERNAL_SERVER_ERROR = "ERROR django.request: Internal Server Error"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    report = yield
    if report.failed and call.when in ("call", "teardown"):  # teardown: a 500 the page got past
        notes = item.stash.get(BROWSER_NOTES, [])
        servers = item.stash.get(SERVERS, [])
        # What explains a failure comes first: a long report may be cut, and a 500's traceback was
        # once lost in the middle of a server's log.
        for server in servers:
            errors = server_errors(server.log())
            if errors:
                report.sections.append((f"errors in the log of {server.url}", errors))
        refused = [note for note in notes if re.search(r"answer [45]\d\d ", note)]
        if refused:
            report.sections.append(("answers the browsers got that were errors", "\n".join(refused[-50:])))
        if notes:
            report.sections.append(("what the browsers saw", "\n".join(notes[-200:])))
        for server in servers:
            report.sections.append((f"log of {server.url}", server.log()[-20000:]))
    return report


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Browser tests run last: Playwright's event loop stays in the main thread once started, and
    Django's sync test client refuses to run beside a running loop.

    Without Chromium the run stops before the first test with the one command that fixes it,
    instead of a wall of browser errors (`make test` installs it first when it can)."""
    for item in items:
        if "/e2e/" in str(item.path):
            item.add_marker(pytest.mark.e2e)
    items.sort(key=run_order)
    if any(item.get_closest_marker("e2e") for item in items) and not os.access(CHROMIUM, os.X_OK):
        raise pytest.UsageError(
            f"The browser tests need Chromium at {CHROMIUM}. Install it (apt-get install -y chromium-headless-shell) "
            "or point CHROMIUM_PATH at it; `make test` installs it by itself when run as root."
        )


# The browser modules whose tests take longest (a whole night on a dozen phones takes minutes), in
# that order, run first: pytest-xdist hands tests out in this order, so the others fill the second
# worker meanwhile instead of one worker finishing a long night alone at the end.
LONGEST_BROWSER_MODULES = ("test_whole_nights.py", "test_bunco_night.py", "test_tournament_digital.py",
                           "test_tournament.py", "test_kismet_table.py", "test_game_table.py",
                           "test_ninety_nine_table.py")


def run_order(item: pytest.Item) -> tuple[bool, int]:
    """Tests without a browser first, then the longest browser modules, then the others (a stable
    sort: the order within each stays the collection's)."""
    if item.get_closest_marker("e2e") is None:
        return (False, 0)
    name = item.path.name
    longest = LONGEST_BROWSER_MODULES
    return (True, longest.index(name) if name in longest else len(longest))


_browser_tests_run = [0]  # counted on the controller: pytest-xdist forwards every report to it


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "call" and not report.skipped and "e2e" in report.keywords:
        _browser_tests_run[0] += 1


def pytest_unconfigure(config: pytest.Config) -> None:
    """A run in which no browser test ran says so in its last line: the phone pages were not tested."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    is_worker = hasattr(config, "workerinput")  # pytest-xdist workers report to the controller
    if reporter is None or is_worker or config.option.collectonly or _browser_tests_run[0]:
        return
    if config.option.markexpr == "not e2e":
        reporter.write_line("Browser tests: left out of this pass (-m 'not e2e'); `make test` runs them next.")
        return
    reporter.write_line("Browser tests: none ran in this run (the phone pages were not tested in a browser).")


@pytest.fixture(scope="session", autouse=True)
def close_connection_pools(django_db_setup, django_db_blocker) -> Iterator[None]:
    """PostgreSQL's psycopg pool keeps idle connections open (the stream's log reads run on pool
    threads); close them before the test database is dropped, or the drop finds it in use."""
    yield
    from django.db import connections

    with django_db_blocker.unblock():
        for connection in connections.all(initialized_only=True):
            close_pool = getattr(connection, "close_pool", None)
            if close_pool is not None and connection.settings_dict.get("OPTIONS", {}).get("pool"):
                close_pool()
