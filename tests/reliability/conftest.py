"""Fixtures of the fault tests: real server processes on free ports, and private services (a Redis,
a PostgreSQL cluster) that a test may stop and start without touching the machine's own. Every
process a fixture starts is stopped by its own handle when the test ends, however it ends."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import redis
from django.conf import settings

from games.night.models import Night, Player
from live.models import Event
from scripts.run_scaled import free_ports
from tests.conftest import ROOT, SERVERS, ServerProcess, database_env, start_server
from tests.reliability.phones import Phone, Stream, wait_for


@pytest.fixture
def embedded_site(transactional_db: None, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[ServerProcess]:
    """`make run`'s layout on the suite's test database: one uvicorn process, in-process events and
    clock (on PostgreSQL when the suite runs with DATABASE_URL)."""
    server = start_server(tmp_path, extra_env={"REDIS_URL": "", "EVENTS_STREAM_MAX_SECONDS": "300"})
    request.node.stash.setdefault(SERVERS, []).append(server)
    yield server
    server.stop()


class PrivateRedis:
    """A redis-server of the test's own on a free port, with nothing saved to disk: stopped and
    started again on the same port by the test, never the machine's Redis."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_ports()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        log = (self.folder / f"redis-{self.port}.log").open("ab")
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--daemonize", "no", "--dir", str(self.folder)],
            stdout=log, stderr=subprocess.STDOUT)
        wait_for("the private Redis to answer", self.answers, timeout=30)

    def answers(self) -> bool:
        assert self.process is not None and self.process.poll() is None, "the private Redis exited"
        try:
            with redis.Redis(port=self.port, socket_connect_timeout=0.5) as client:
                return bool(client.ping())
        except redis.RedisError:
            return False

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port, socket_connect_timeout=0.5, socket_timeout=2)

    def patterns(self) -> int:
        """How many pattern subscriptions it holds (a site's relay takes one per process)."""
        with self.client() as client:
            return int(client.pubsub_numpat())

    def kill(self) -> None:
        """SIGKILL: gone at once, as a crashed Redis."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed (apt-get install -y redis-server)")
    folder = tmp_path / "redis"
    folder.mkdir()
    server = PrivateRedis(folder)
    server.start()
    yield server
    server.kill()


class CeleryProcesses:
    """The Celery processes a test starts (worker, beat) on the test database, each logging to its
    own file; all stopped at the end. Their broker is the suite's Redis database for this worker
    (tests/conftest.py) unless the test gives its own (`broker`: a private Redis it stops)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.processes: list[subprocess.Popen[bytes]] = []

    def start(self, name: str, *args: str, broker: str = "", **extra_env: str) -> tuple[subprocess.Popen[bytes], Path]:
        env = {**os.environ, **database_env(), "REDIS_URL": broker or settings.REDIS_URL,
               "SECRET_KEY": settings.SECRET_KEY, "DJANGO_SETTINGS_MODULE": "bunco_club.site.settings",
               "PYTHONUNBUFFERED": "1", **extra_env}
        env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        log = self.folder / f"{name}.log"
        process = subprocess.Popen([sys.executable, "-m", "celery", "-A", "bunco_club.site", *args, "--loglevel=info"],
                                   cwd=ROOT, env=env, stdout=log.open("ab"), stderr=subprocess.STDOUT)
        self.processes.append(process)
        return process, log

    def worker(self, name: str, *options: str, broker: str = "", **extra_env: str) -> tuple[subprocess.Popen[bytes], Path]:
        """A worker, ready: one process (solo pool) unless `options` say otherwise."""
        process, log = self.start(name, "worker", *(options or ("--pool=solo", "--concurrency=1")),
                                  "--without-gossip", "--without-mingle", broker=broker, **extra_env)
        wait_for(f"{name} to be ready", lambda: process.poll() is None and "ready." in log.read_text(errors="replace"))
        return process, log

    def stop_all(self) -> None:
        """Killed: the test is over, and a worker's warm shutdown takes seconds."""
        for process in self.processes:  # only the processes this test started, by their own handles
            if process.poll() is None:
                process.kill()
        for process in self.processes:
            process.wait(timeout=10)


@pytest.fixture
def celery(tmp_path: Path) -> Iterator[CeleryProcesses]:
    processes = CeleryProcesses(tmp_path)
    yield processes
    processes.stop_all()


def postgres_bin(name: str) -> str:
    """A PostgreSQL server program (initdb, pg_ctl) of the newest version installed."""
    found = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), key=lambda path: int(path.parts[-3]))
    if found:
        return str(found[-1])
    on_path = shutil.which(name)
    if on_path is None:
        pytest.skip(f"PostgreSQL's {name} is not installed (apt-get install -y postgresql)")
    return on_path


class PrivatePostgres:
    """A PostgreSQL cluster of the test's own (trust, user postgres) on a free port, its files and
    socket in a folder of its own: stopped and started by the test, never the machine's PostgreSQL.
    As root, the server programs run as the `postgres` user (PostgreSQL refuses root)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.data = folder / "data"
        self.port = free_ports()
        self.as_owner = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/bunco_club"

    def run(self, *command: str) -> None:
        subprocess.run([*self.as_owner, *command], check=True, capture_output=True, timeout=120)

    def create(self) -> None:
        # fsync off: a test's cluster need not survive a power cut (a restart loses nothing).
        self.run(postgres_bin("initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres", "--no-sync")
        self.start()
        self.run(postgres_bin("createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "bunco_club")

    def start(self) -> None:
        self.run(postgres_bin("pg_ctl"), "-D", str(self.data), "-l", str(self.folder / "postgres.log"), "-w",
                 "-o", f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off", "start")

    def stop(self) -> None:
        """`pg_ctl stop -m fast`: open transactions rolled back, every connection cut."""
        self.run(postgres_bin("pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def copy_database(self, source: Mapping[str, Any]) -> None:
        """Fill its database with a copy of `source` (a Django database's settings): the suite's test
        database, migrated by pytest-django, copied in a second where migrating takes ten."""
        dump = subprocess.run(
            [postgres_bin("pg_dump"), "--no-owner", "--no-privileges", "-h", str(source.get("HOST") or "127.0.0.1"),
             "-p", str(source.get("PORT") or 5432), "-U", str(source.get("USER") or "postgres"), str(source["NAME"])],
            check=True, capture_output=True, timeout=120,
            env={**os.environ, "PGPASSWORD": str(source.get("PASSWORD") or "")})
        subprocess.run([postgres_bin("psql"), "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", str(self.port),
                        "-U", "postgres", "bunco_club"], input=dump.stdout, check=True, capture_output=True, timeout=120)

    def is_running(self) -> bool:
        return (self.data / "postmaster.pid").exists()

    def query(self, sql: str, *params: object) -> list[tuple[object, ...]]:
        import psycopg

        with psycopg.connect(host="127.0.0.1", port=self.port, user="postgres", dbname="bunco_club") as db:
            return db.execute(sql, params).fetchall()


@pytest.fixture
def private_postgres() -> Iterator[PrivatePostgres]:
    # Not under pytest's tmp_path: its parents are closed to the postgres user the server runs as.
    folder = Path(tempfile.mkdtemp(prefix="bunco-faults-postgres-"))
    os.chmod(folder, 0o700)
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    cluster = PrivatePostgres(folder)
    try:
        cluster.create()
        yield cluster
    finally:
        if cluster.is_running():
            subprocess.run([*cluster.as_owner, postgres_bin("pg_ctl"), "-D", str(cluster.data), "-m", "immediate",
                            "-w", "stop"], capture_output=True, timeout=60)
        shutil.rmtree(folder, ignore_errors=True)


# --- What a phone's stream owes it ----------------------------------------------------------


def missed_ids(phone: Phone, after: int) -> list[int]:
    """The ids a phone's stream owes it after `after`: its night's channel and its own, in order."""
    night = Night.objects.get(code=phone.code)
    player = Player.objects.get(pk=phone.player_id)
    return list(Event.objects.on(night.channel, player.private_channel).after(after).values_list("id", flat=True))


def received_all(stream: Stream, phone: Phone, after: int) -> bool:
    return stream.ids[-1:] == missed_ids(phone, after)[-1:] and set(missed_ids(phone, after)) <= set(stream.ids)
