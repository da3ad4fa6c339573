"""Helpers shared by the benchmarks: servers on loopback, a lean SSE client, load with wrk.

Benchmarks are not tests: they print figures. Every server they start listens on 127.0.0.1 and
every load they make is bounded in count and time.
"""

from __future__ import annotations

import asyncio
import os
import re
import resource
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
sys.path.insert(0, str(ROOT))

from scripts.run_scaled import free_ports, stop_all, wait_for  # noqa: E402  (the layout's own helpers)


def raise_open_file_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def cpu_seconds(pids: list[int] | None = None, command: str | None = None) -> float:
    """CPU time (user + system) used so far by the processes `pids`, or by every process whose
    command name starts with `command` (e.g. "postgres": the server and all its backends)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or (pids is not None and int(entry.name) not in pids):
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # the process has ended
            continue
        name, fields = stat[stat.index("(") + 1:stat.rindex(")")], stat[stat.rindex(")") + 2:].split()
        if command is None or name.startswith(command):
            total += int(fields[11]) + int(fields[12])
    return total / tick


def rss_kib(pid: int) -> int:
    """Resident memory of a process and its children (uvicorn --workers forks), in KiB."""
    total = 0
    for candidate in [pid, *children(pid)]:
        try:
            status = Path(f"/proc/{candidate}/status").read_text()
        except FileNotFoundError:
            continue
        match = re.search(r"VmRSS:\s+(\d+) kB", status)
        total += int(match.group(1)) if match else 0
    return total


def children(pid: int) -> list[int]:
    try:
        found = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except FileNotFoundError:
        return []
    result = [int(child) for child in found]
    for child in list(result):
        result.extend(children(child))
    return result


@dataclass
class Site:
    """A server (or a whole layout) started for a benchmark, with its own fresh database."""

    url: str
    processes: list[subprocess.Popen[bytes]]
    env: dict[str, str]
    workdir: Path

    @property
    def pid(self) -> int:
        return self.processes[0].pid

    def manage(self, *args: str) -> str:
        return subprocess.run(
            [PYTHON, "manage.py", *args], cwd=ROOT, env=self.env, check=True, capture_output=True, text=True
        ).stdout


def bench_env(workdir: Path, *, postgres: bool, redis: bool) -> dict[str, str]:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "bunco_club.site.settings", "PYTHONUNBUFFERED": "1"}
    env.pop("DEBUG", None)
    # Hundreds of phones join from one address here, faster than any hall's worth of people: the
    # per-address limits (names claimed, nights started, pings, streams open) are not what these
    # benchmarks measure. A thousand phones' streams from 127.0.0.1 would pass the stream cap.
    env["RATE_LIMIT_CLAIM"] = env["RATE_LIMIT_PING"] = "100000/m"
    env["RATE_LIMIT_NIGHT_NEW"] = env["RATE_LIMIT_NIGHT_NEW_HOST"] = "100000/h"
    env["EVENTS_MAX_STREAMS_PER_ADDRESS"] = "100000"
    if postgres:
        name = f"bunco_bench_{os.getpid()}_{secrets.token_hex(3)}"  # two sites may run side by side
        subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-qc", f"DROP DATABASE IF EXISTS {name}"],
                       check=True, capture_output=True)
        subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-qc", f"CREATE DATABASE {name}"],
                       check=True, capture_output=True)
        env["DATABASE_URL"] = f"postgres://postgres@127.0.0.1:5432/{name}"
    else:
        env["DATABASE_URL"] = ""
        env["SQLITE_PATH"] = str(workdir / "bench.sqlite3")
    env["REDIS_URL"] = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/0") if redis else ""
    return env


@contextmanager
def in_process_database(*, postgres: bool) -> Iterator[None]:
    """A fresh database (SQLite file or PostgreSQL) for Django set up in this process (the
    profiles: bench/profile_tap.py, bench/profile_move.py), dropped afterwards."""
    workdir = Path(tempfile.mkdtemp(prefix="bunco-profile-"))
    env = bench_env(workdir, postgres=postgres, redis=False)
    os.environ.update(env)
    os.environ.pop("DEBUG", None)
    try:
        yield
    finally:
        from django.db import connections

        connections.close_all()
        drop_bench_database(env)
        shutil.rmtree(workdir, ignore_errors=True)


@contextmanager
def uvicorn_site(*, workers: int = 1, postgres: bool = False, redis: bool = False,
                 extra_env: dict[str, str] | None = None, minimal: bool = False) -> Iterator[Site]:
    """`make run`'s server (or N uvicorn workers on one port) on a fresh database; `minimal`: the
    minimal Django site of bench/minimal_site/ served the same way instead (issue 22's baseline)."""
    workdir = Path(tempfile.mkdtemp(prefix="bunco-bench-"))
    env = {**bench_env(workdir, postgres=postgres, redis=redis), **(extra_env or {})}
    application = "bunco_club.site.asgi:application"
    if minimal:
        env["DJANGO_SETTINGS_MODULE"] = "bench.minimal_site.settings"
        application = "bench.minimal_site.asgi:application"
    subprocess.run([PYTHON, "manage.py", "migrate", "--noinput", "-v0", *(["--run-syncdb"] if minimal else [])],
                   cwd=ROOT, env=env, check=True)
    port = free_ports()
    command = [PYTHON, "-m", "uvicorn", application, "--host", "127.0.0.1",
               "--port", str(port), "--no-access-log", "--log-level", "warning", "--workers", str(workers),
               "--timeout-graceful-shutdown", "2", "--backlog", "4096"]
    process = subprocess.Popen(command, cwd=ROOT, env=env)
    site = Site(url=f"http://127.0.0.1:{port}", processes=[process], env=env, workdir=workdir)
    try:
        wait_for(site.url + "/health/", site.processes)
        yield site
    finally:
        _stop(site.processes)
        drop_bench_database(env)
        shutil.rmtree(workdir, ignore_errors=True)


@contextmanager
def scaled_site(*, streams: int = 2, web_workers: int = 2) -> Iterator[Site]:
    """The scaled layout (scripts/run_scaled.py without Celery) on a fresh PostgreSQL database."""
    workdir = Path(tempfile.mkdtemp(prefix="bunco-bench-scaled-"))
    env = bench_env(workdir, postgres=True, redis=True)
    port = free_ports(streams + 2)  # nginx, gunicorn, the uvicorn processes
    process = subprocess.Popen(
        [PYTHON, "scripts/run_scaled.py", "--port", str(port), "--streams", str(streams),
         "--web-workers", str(web_workers), "--no-celery", "--workdir", str(workdir / "layout")],
        cwd=ROOT, env=env, start_new_session=True, stdout=(workdir / "layout.log").open("wb"), stderr=subprocess.STDOUT,
    )
    site = Site(url=f"http://127.0.0.1:{port}", processes=[process], env=env, workdir=workdir)
    try:
        wait_for(site.url + "/health/", site.processes, timeout=90)
        yield site
    finally:
        _stop(site.processes, group=True)
        drop_bench_database(env)
        shutil.rmtree(workdir, ignore_errors=True)


def _stop(processes: list[subprocess.Popen[bytes]], group: bool = False) -> None:
    """Stop a benchmark's servers; `group` signals each one's whole process group first
    (scripts/run_scaled.py and every process it started)."""
    import signal

    if group:
        for process in processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
    stop_all(processes, timeout=20)


def drop_bench_database(env: dict[str, str]) -> None:
    """Drop the PostgreSQL database `bench_env` made for `env` (nothing for SQLite)."""
    url = env.get("DATABASE_URL", "")
    if url.startswith("postgres"):
        name = url.rsplit("/", 1)[1]
        subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-qc", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"],
                       capture_output=True)


# --- wrk --------------------------------------------------------------------------------------


def wrk_available() -> bool:
    return shutil.which("wrk") is not None


@dataclass
class LoadResult:
    requests_per_second: float
    p50_ms: float
    p99_ms: float
    errors: int


WRK_REPORT = """
done = function(summary, latency, requests)
  io.write(string.format("RESULT %f %f %f %d\\n", summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout))
end
"""


def wrk(url: str, *, connections: int = 32, seconds: int = 5, threads: int = 1, script: str = "",
        rate: int | None = None) -> LoadResult:
    """Load `url` with wrk; `script` is extra Lua (e.g. a request() function for POSTs)."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as lua:
        lua.write(script + WRK_REPORT)
    command = ["wrk", "-t", str(threads), "-c", str(connections), "-d", f"{seconds}s", "-s", lua.name, url]
    output = subprocess.run(command, capture_output=True, text=True, check=True, timeout=seconds + 60).stdout
    os.unlink(lua.name)
    match = re.search(r"RESULT (\S+) (\S+) (\S+) (\d+)", output)
    if not match:
        raise RuntimeError(f"wrk printed no result:\n{output}")
    return LoadResult(float(match.group(1)), float(match.group(2)), float(match.group(3)), int(match.group(4)))


# --- A lean SSE client: raw sockets, no HTTP library, so the client costs little CPU ----------------


class Phone:
    """One open event stream, read with plain asyncio sockets."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self.unread = b""  # what came after the last marker found (the next wait starts there)
        self.head = b""  # the response's status line and headers

    @classmethod
    async def connect(cls, url: str, path: str, headers: dict[str, str] | None = None) -> Phone:
        host, port = url.removeprefix("http://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        extra = "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
        writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: text/event-stream\r\n{extra}\r\n".encode())
        await writer.drain()
        phone = cls(reader, writer)
        # The headers, and not a byte more: the first messages stay in the reader for wait_for.
        phone.head = await reader.readuntil(b"\r\n\r\n")
        return phone

    async def wait_for(self, marker: bytes, timeout: float = 30) -> float:
        """Read until `marker` arrives; returns the perf_counter time it arrived."""
        buffer = self.unread
        async with asyncio.timeout(timeout):
            while marker not in buffer:
                chunk = await self.reader.read(65536)
                if not chunk:
                    raise ConnectionError("stream closed")
                buffer = buffer[-len(marker):] + chunk if len(buffer) > 65536 else buffer + chunk
        self.unread = buffer[buffer.index(marker) + len(marker):]
        return time.perf_counter()

    def close(self) -> None:
        self.writer.close()


async def open_phones(url: str, path: str, count: int, marker: bytes, batch: int = 100) -> list[Phone]:
    """Open `count` streams, `batch` at a time, each read up to `marker` (its snapshot)."""
    phones: list[Phone] = []
    for start in range(0, count, batch):
        opened = await asyncio.gather(*(Phone.connect(url, path) for _ in range(min(batch, count - start))))
        await asyncio.gather(*(phone.wait_for(marker) for phone in opened))
        phones.extend(opened)
    return phones


def time_ms(work: Callable[[], object], repeats: int) -> list[float]:
    """Milliseconds of each of `repeats` runs of `work`, after one warm-up run."""
    work()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        work()
        times.append((time.perf_counter() - start) * 1000)
    return times


def first_group(pattern: str | re.Pattern[str], text: str) -> str:
    """The first group of `pattern`'s first match in `text`; a page without one is an error."""
    found = re.search(pattern, text)
    if found is None:
        raise ValueError(f"Nothing matches {pattern if isinstance(pattern, str) else pattern.pattern!r} in the page.")
    return found.group(1)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def summary_ms(latencies: list[float]) -> str:
    return (f"p50 {percentile(latencies, 0.5) * 1000:.1f} ms · p99 {percentile(latencies, 0.99) * 1000:.1f} ms · "
            f"max {max(latencies) * 1000:.1f} ms · mean {statistics.fmean(latencies) * 1000:.1f} ms")


def machine_line() -> str:
    return f"{os.cpu_count()} cores, Python {sys.version.split()[0]}, {time.strftime('%Y-%m-%d')}"
