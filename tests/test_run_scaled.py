"""The scaled layout's wiring (scripts/run_scaled.py): nginx lets go of an idle connection to a
backend before the backend would close it, so a POST is never sent on a connection the backend is
closing (answered 502 by nginx, which does not send a POST twice: seen twice in the soak)."""

from __future__ import annotations

import re
from pathlib import Path

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
