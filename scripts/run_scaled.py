#!/usr/bin/env python
"""Runs the scaled layout of docs/OPERATIONS.md on this machine (`make run-scaled`).

    nginx :PORT ─┬─ /events/ ─→ uvicorn × STREAMS   (ASGI: the long-lived event streams)
                 └─ the rest ─→ gunicorn × WORKERS  (WSGI: pages and POSTs)
    Celery worker + one celery beat, PostgreSQL (DATABASE_URL), Redis (REDIS_URL) between them.

Every process is a child of this one, which watches them: one that dies is started again, after a
pause that doubles while it keeps dying at once (1 s, 2 s, ... up to 30 s), and the log says so. A
party's night goes on through a crashed process; production does the same with its service
manager (docs/OPERATIONS.md, "Processes that die come back"). Ctrl-C (or SIGTERM) stops them all.
The start waits for every server to answer as long as the machine needs (READY_WITHIN_SECONDS,
600), saying every 10 s what it still waits for; only a process that exits while starting, a
mistake no wait mends, fails it at once.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import re
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent
# settings.REQUEST_BODY_MAX_BYTES's default (the settings say why): nginx refuses a larger body
# with 413 before it reaches a backend, and the backends are given the same figure.
REQUEST_BODY_MAX_BYTES = 1024 * 1024
# The one form that carries a photo (a supply's receipt, issue 45) takes settings.RECEIPT_MAX_BYTES's
# default and its few fields, as the site's own limit does (bunco_club/site/asgi.py `body_limit`).
RECEIPT_FORM = r"^/clubs/[^/]+/treasury/entries/$"
RECEIPT_BODY_MAX_BYTES = 5 * 1024 * 1024 + 64 * 1024
# nginx keeps idle connections to the backends open for reuse. A backend that closes one first
# (gunicorn's default keep-alive is 2 s, uvicorn's 5 s) races nginx's next request on it, and a
# POST that loses is answered 502 (nginx does not send a POST again: it may have been taken). The
# soak saw two such 502s on taps in 11,000. So nginx lets go of an idle connection well before the
# backends would.
UPSTREAM_IDLE_SECONDS = 60
BACKEND_KEEP_ALIVE_SECONDS = 75
# A dead child is started again after FIRST_RESTART_SECONDS, doubled for each death in a row that
# came before the child had run STEADY_SECONDS, up to LAST_RESTART_SECONDS: a process that cannot
# start (its database gone) is not started in a tight loop, one that crashed once is back at once.
FIRST_RESTART_SECONDS = 1.0
LAST_RESTART_SECONDS = 30.0
STEADY_SECONDS = 60.0
# How long the start waits for the servers to answer: a bound for a start that hangs, far beyond a
# busy machine's slowest (56 s was seen).
READY_WITHIN_SECONDS = float(os.environ.get("READY_WITHIN_SECONDS") or 600)
# Each phone's stream is two connections in nginx (the phone's, and the one to its uvicorn): 5,000
# phones on 4 stream workers (issue 34) need 10,000, and a descriptor each: more than the 8,192
# connections this layout gave nginx before and the usual 1,024 open files of a process. A
# worker_rlimit_nofile above the hard limit of a non-root nginx is ignored, with a line in its log.
NGINX_WORKER_CONNECTIONS = 16384
NGINX_OPEN_FILES = 2 * NGINX_WORKER_CONNECTIONS



def free_ports(count: int = 1) -> int:
    """The first of `count` consecutive free ports, below the kernel's ephemeral range (32768+),
    so that client sockets opened meanwhile (a benchmark's thousand phones) cannot take one
    before the servers bind them. Tests and benchmarks pick their servers' ports here."""
    while True:
        first = random.randrange(20000, 32000 - count)
        try:
            for port in range(first, first + count):
                with socket.socket() as sock:
                    sock.bind(("127.0.0.1", port))
        except OSError:
            continue
        return first


def nginx_config(workdir: Path, port: int, web_port: int, stream_ports: list[int],
                 body_max_bytes: int = REQUEST_BODY_MAX_BYTES,
                 receipt_body_max_bytes: int = RECEIPT_BODY_MAX_BYTES) -> str:
    # max_fails=0: nginx never takes a backend for dead. Its default (one failure, then none for
    # 10 s) turned a stream process's restart into "no live upstreams" for every phone: 400 phones
    # reconnecting at once through the one left marked it failed too (SOAK_KILLS, bench/soak.py).
    # A backend that is down refuses at once, and nginx tries the next.
    streams = "\n".join(f"    server 127.0.0.1:{stream_port} max_fails=0;" for stream_port in stream_ports)
    temp = {name: workdir / name for name in ("body", "proxy", "fastcgi", "uwsgi", "scgi")}
    for path in temp.values():
        path.mkdir(exist_ok=True)
    return f"""
worker_processes 1;
daemon off;
worker_rlimit_nofile {NGINX_OPEN_FILES};
pid {workdir}/nginx.pid;
error_log {workdir}/nginx-error.log warn;
events {{ worker_connections {NGINX_WORKER_CONNECTIONS}; }}
http {{
  access_log off;
  client_max_body_size {body_max_bytes};
  client_body_temp_path {temp["body"]};
  proxy_temp_path {temp["proxy"]};
  fastcgi_temp_path {temp["fastcgi"]};
  uwsgi_temp_path {temp["uwsgi"]};
  scgi_temp_path {temp["scgi"]};
  upstream web {{
    server 127.0.0.1:{web_port} max_fails=0;
    keepalive 32;
    keepalive_timeout {UPSTREAM_IDLE_SECONDS}s;
  }}
  upstream streams {{
{streams}
    keepalive 32;
    keepalive_timeout {UPSTREAM_IDLE_SECONDS}s;
  }}
  server {{
    listen 127.0.0.1:{port};
    proxy_http_version 1.1;
    proxy_set_header Connection "";
    proxy_set_header Host $http_host;
    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
    proxy_set_header X-Real-IP $remote_addr;
    proxy_set_header X-Forwarded-Proto $scheme;
    location /events/ {{
      proxy_pass http://streams;
      # Each event must reach the phone as it happens, not when a buffer fills.
      proxy_buffering off;
      proxy_cache off;
      proxy_read_timeout 1h;
    }}
    location ~ {RECEIPT_FORM} {{
      client_max_body_size {max(body_max_bytes, receipt_body_max_bytes)};
      proxy_pass http://web;
    }}
    location / {{
      proxy_pass http://web;
    }}
  }}
}}
"""


def backend_commands(python: str, web_port: int, stream_ports: list[int], web_workers: int) -> list[list[str]]:
    """gunicorn for the pages and POSTs, one uvicorn per stream port; each keeps an idle
    connection from nginx open longer than nginx does (UPSTREAM_IDLE_SECONDS)."""
    keep_alive = str(BACKEND_KEEP_ALIVE_SECONDS)
    return [
        [python, "-m", "gunicorn", "bunco_club.site.wsgi:application", "--bind", f"127.0.0.1:{web_port}",
         "--workers", str(web_workers), "--threads", "4", "--keep-alive", keep_alive],
        *[
            [python, "-m", "uvicorn", "bunco_club.site.asgi:application", "--host", "127.0.0.1",
             "--port", str(stream_port), "--no-access-log", "--timeout-graceful-shutdown", "3",
             "--timeout-keep-alive", keep_alive]
            for stream_port in stream_ports
        ],
    ]


def celery_commands(celery: str, workdir: Path) -> dict[str, list[str]]:
    """The layout's Celery worker (two processes) and its one beat."""
    return {
        "celery worker": [celery, "-A", "bunco_club.site", "worker", "--loglevel", "warning", "--concurrency", "2"],
        "celery beat": [celery, "-A", "bunco_club.site", "beat", "--loglevel", "warning",
                        "--schedule", str(workdir / "celerybeat-schedule")],
    }


def raise_open_file_limit() -> None:
    """This process's soft limit on open files up to its hard one: the servers it starts inherit
    it, and a stream worker holds a descriptor a phone."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def say(text: str) -> None:
    print(f"[run_scaled {time.strftime('%H:%M:%S')}] {text}", flush=True)


@dataclass
class Child:
    """One process of the layout, started again whenever it dies (`watch`)."""

    name: str
    command: list[str]
    env: dict[str, str]
    cwd: Path = ROOT
    process: subprocess.Popen[bytes] = field(init=False)
    started_at: float = 0.0
    quick_deaths: int = 0  # deaths in a row, each before the child had run STEADY_SECONDS
    restart_at: float | None = None  # when it is started again, once found dead

    def start(self) -> None:
        # A process group of its own: a dead child's own children (gunicorn's and Celery's workers,
        # nginx's) would otherwise live on as orphans, holding its port or its tasks.
        self.process = subprocess.Popen(self.command, cwd=self.cwd, env=self.env, process_group=0)
        self.started_at, self.restart_at = time.monotonic(), None
        say(f"{self.name} started (pid {self.process.pid})")  # read back by `started_pids`

    def watch(self) -> None:
        """Notices a death and schedules the restart, or makes the restart that is due."""
        if self.process.poll() is None:
            return
        now = time.monotonic()
        if self.restart_at is None:
            self.end_orphans()
            self.quick_deaths = self.quick_deaths + 1 if now - self.started_at < STEADY_SECONDS else 1
            pause = min(LAST_RESTART_SECONDS, FIRST_RESTART_SECONDS * 2 ** (self.quick_deaths - 1))
            say(f"{self.name} (pid {self.process.pid}) exited with {exit_reason(self.process.returncode)}; "
                f"starting it again in {pause:g} s")
            self.restart_at = now + pause
        elif now >= self.restart_at:
            self.start()

    def end_orphans(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)


STARTED = re.compile(r"\] (.+) started \(pid (\d+)\)$", flags=re.M)


def started_pids(log: str) -> dict[str, int]:
    """What this script's log (`log`, its text) says of its children: each one's name, in the order
    they first started, and the pid of its latest start (a fault test or the soak kills it)."""
    pids: dict[str, int] = {}
    for name, pid in STARTED.findall(log):
        pids[name] = int(pid)
    return pids


def stop_children(children: list[Child]) -> None:
    """nginx (the last started) first: no new request reaches a stopping server; then whatever
    their own workers left."""
    stop_all([child.process for child in reversed(children)])
    for child in children:
        child.end_orphans()


def exit_reason(returncode: int) -> str:
    if returncode < 0:
        try:
            return f"signal {signal.Signals(-returncode).name}"
        except ValueError:
            return f"signal {-returncode}"
    return f"status {returncode}"


def wait_until_ready(urls: dict[str, str], processes: dict[str, subprocess.Popen[bytes]],
                     within: float = READY_WITHIN_SECONDS) -> None:
    """Waits until every URL answers 200 (each a server's /health/, by the name of its process),
    saying every 10 s which it still waits for. Fails when one of `processes` (by name) exits
    meanwhile, or after `within` seconds."""
    started = last_said = time.monotonic()
    waiting = dict(urls)
    while waiting:
        for name, process in processes.items():
            if process.poll() is not None:
                raise RuntimeError(f"{name} exited with {exit_reason(process.returncode)} while starting")
        for name, url in list(waiting.items()):
            try:
                with urllib.request.urlopen(url, timeout=2) as response:
                    if response.status == 200:
                        del waiting[name]
            except OSError:
                pass
        now = time.monotonic()
        if waiting and now - started > within:
            raise RuntimeError(f"{', '.join(waiting)} did not answer within {within:.0f} s")
        if waiting and now - last_said >= 10:
            say(f"still waiting for {', '.join(waiting)} to answer ({now - started:.0f} s so far)")
            last_said = now
        time.sleep(0.2)


def stop_all(processes: list[subprocess.Popen[bytes]], timeout: float = 10) -> None:
    """Ask every process still running to stop, wait for each, kill the stubborn ones."""
    for process in processes:
        if process.poll() is None:
            process.terminate()
    for process in processes:
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()


def find_nginx() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
    if not found:
        sys.exit("nginx is not installed: apt-get install -y nginx-light")
    return found


def wait_for(url: str, processes: list[subprocess.Popen[bytes]], timeout: float = 60) -> None:
    """`wait_until_ready` for one URL and processes known by their pids (the benchmarks' servers)."""
    wait_until_ready({url: url}, {f"pid {process.pid}": process for process in processes}, within=timeout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument("--streams", type=int, default=2, help="uvicorn processes for event streams")
    parser.add_argument("--no-celery", action="store_true", help="skip the Celery worker and beat")
    parser.add_argument("--skip-migrate", action="store_true")
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args()

    if not os.environ.get("DATABASE_URL") or not os.environ.get("REDIS_URL"):
        sys.exit("The scaled layout needs DATABASE_URL and REDIS_URL (see docs/OPERATIONS.md).")
    raise_open_file_limit()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bunco-scaled-"))
    workdir.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ, "DJANGO_SETTINGS_MODULE": "bunco_club.site.settings", "PYTHONUNBUFFERED": "1",
        # The backends listen on 127.0.0.1 behind nginx alone: its X-Real-IP is the client.
        "TRUST_X_REAL_IP": "1",
        "REQUEST_BODY_MAX_BYTES": os.environ.get("REQUEST_BODY_MAX_BYTES") or str(REQUEST_BODY_MAX_BYTES),
    }
    python = sys.executable

    if not args.skip_migrate:
        subprocess.run([python, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)

    nginx_binary = find_nginx()  # before any child starts: a missing nginx leaves none running
    web_port = args.port + 1
    stream_ports = [args.port + 2 + index for index in range(args.streams)]
    (workdir / "nginx.conf").write_text(nginx_config(
        workdir, args.port, web_port, stream_ports, int(env["REQUEST_BODY_MAX_BYTES"])))

    web, *streams = backend_commands(python, web_port, stream_ports, args.web_workers)
    children = [Child(f"gunicorn :{web_port}", web, env)]
    children += [Child(f"uvicorn :{port}", command, env) for port, command in zip(stream_ports, streams, strict=True)]
    if not args.no_celery:
        children += [Child(name, command, env)
                     for name, command in celery_commands(str(VENV_BIN / "celery"), workdir).items()]

    def stop_while_starting(signum: int, _frame: object) -> None:
        # The children have process groups of their own: a signal to this one's group reaches
        # none of them, so this process stops them (below) before it exits.
        raise RuntimeError(f"stopped by {signal.Signals(signum).name} while starting")

    signal.signal(signal.SIGTERM, stop_while_starting)
    signal.signal(signal.SIGINT, stop_while_starting)
    try:
        for child in children:
            child.start()
        wait_until_ready({child.name: f"http://127.0.0.1:{port}/health/"
                          for child, port in zip(children, [web_port, *stream_ports], strict=False)},
                         {child.name: child.process for child in children})
        nginx = Child(f"nginx :{args.port}", [nginx_binary, "-c", str(workdir / "nginx.conf")], env, cwd=workdir)
        nginx.start()
        children.append(nginx)
        wait_until_ready({nginx.name: f"http://127.0.0.1:{args.port}/health/"},
                         {child.name: child.process for child in children})
    except RuntimeError as error:
        stop_children([child for child in children if hasattr(child, "process")])  # those started
        sys.exit(f"The scaled layout did not start: {error}")
    print(
        f"Scaled layout up: http://127.0.0.1:{args.port}/ (pages on gunicorn :{web_port}, "
        f"streams on uvicorn {', '.join(f':{p}' for p in stream_ports)}; workdir {workdir})",
        flush=True,
    )

    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        while not stopping:
            for child in children:
                child.watch()
            time.sleep(0.2)
    finally:
        stop_children(children)


if __name__ == "__main__":
    main()
