"""The scaled layout's wiring (scripts/run_scaled.py): nginx lets go of an idle connection to a
backend before the backend would close it, so a POST is never sent on a connection the backend is
closing (answered 502 by nginx, which does not send a POST twice: seen twice in the soak)."""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

import pytest

from scripts.run_scaled import backend_commands, nginx_config


def option(command: list[str], name: str) -> int:
    return int(command[command.index(name) + 1])


def test_nginx_lets_go_of_an_idle_backend_connection_before_the_backend_does(tmp_path: Path):
    config = nginx_config(tmp_path, 8000, 8001, [8002, 8003], body_max_bytes=1024)
    web, *streams = backend_commands("python", 8001, [8002, 8003], web_workers=2)

    upstreams = re.findall(r"upstream \w+ \{(.*?)\}", config, flags=re.S)
    assert len(upstreams) == 2
    idle = [int(re.search(r"keepalive_timeout (\d+)s;", block).group(1)) for block in upstreams]  # type: ignore[union-attr]

    assert "gunicorn" in web and max(idle) < option(web, "--keep-alive")
    assert len(streams) == 2
    for stream in streams:
        assert "uvicorn" in stream and max(idle) < option(stream, "--timeout-keep-alive")


def test_the_start_names_the_server_it_still_waits_for_when_its_bound_is_over(capsys):
    from scripts.run_scaled import free_ports, wait_until_ready

    nobody = f"http://127.0.0.1:{free_ports()}/health/"  # no server there: it never answers
    with pytest.raises(RuntimeError, match=r"uvicorn :\d+ did not answer within 0 s"):
        wait_until_ready({f"uvicorn :{nobody.split(':')[2].split('/')[0]}": nobody}, {}, within=0.0)


def test_a_child_that_exits_while_starting_fails_the_start_at_once_with_its_name_and_status(tmp_path: Path):
    from scripts.run_scaled import Child, free_ports, wait_until_ready

    child = Child("celery worker", [sys.executable, "-c", "raise SystemExit(3)"], dict(os.environ), cwd=tmp_path)
    child.start()
    child.process.wait()
    with pytest.raises(RuntimeError, match="celery worker exited with status 3 while starting"):
        wait_until_ready({"gunicorn": f"http://127.0.0.1:{free_ports()}/health/"}, {child.name: child.process})


def test_a_dead_child_is_started_again_after_a_pause_that_doubles_while_it_keeps_dying(tmp_path: Path, capsys):
    from scripts.run_scaled import Child

    child = Child("celery beat", [sys.executable, "-c", "raise SystemExit(1)"], dict(os.environ), cwd=tmp_path)
    child.start()
    pauses = []
    for _ in range(3):
        first = child.process.pid
        child.process.wait()
        child.watch()  # notices the death: schedules the start
        assert child.restart_at is not None
        pauses.append(round(child.restart_at - time.monotonic()))
        child.restart_at = time.monotonic()  # the pause is over
        child.watch()
        assert child.process.pid != first
    child.process.wait()
    said = capsys.readouterr().out
    assert pauses == [1, 2, 4]
    assert "celery beat (pid" in said and "exited with status 1; starting it again in 2 s" in said


def test_nginx_never_takes_a_backend_for_dead_so_a_restarted_one_is_used_at_once(tmp_path: Path):
    """nginx's default (one failure, then the backend is skipped for 10 s) left the soak's 400 phones
    with "no live upstreams" for a minute after a stream process was killed and started again."""
    config = nginx_config(tmp_path, 8000, 8001, [8002, 8003], body_max_bytes=1024)
    servers = re.findall(r"^\s*server 127\.0\.0\.1:\d+([^;]*);", config, flags=re.M)
    assert len(servers) == 3 and all("max_fails=0" in options for options in servers)


def test_the_log_tells_each_process_in_the_order_it_first_started_with_its_latest_pid():
    from scripts.run_scaled import started_pids

    log = ("[run_scaled 14:02:10] gunicorn :8001 started (pid 4121)\n"
           "[run_scaled 14:02:10] uvicorn :8002 started (pid 4122)\n"
           "[run_scaled 14:02:11] gunicorn :8001 (pid 4121) exited with signal SIGKILL; starting it again in 1 s\n"
           "[run_scaled 14:02:12] gunicorn :8001 started (pid 4188)\n")
    assert list(started_pids(log).items()) == [("gunicorn :8001", 4188), ("uvicorn :8002", 4122)]
