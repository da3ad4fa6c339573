"""What idle streams' heartbeats cost the server's CPU (issue 47): N streams opened on a connection
check room through the site's ASGI app in this process (SQLite), nothing published, and the
process's CPU time (every thread) over a number of heartbeats, per heartbeat.

`--per-stream` measures as before issue 47, each stream reading the log at its heartbeat (the
process's look never starts, so no stream is covered by it); without it, the process's one look a
heartbeat (live/streams.py LogWatch). Run each in its own process, alternately:

    .venv/bin/python bench/profile_heartbeat.py --streams 1000 --per-stream
    .venv/bin/python bench/profile_heartbeat.py --streams 1000
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import in_process_database, raise_open_file_limit  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--heartbeat", type=float, default=1.0, help="EVENTS_HEARTBEAT_SECONDS")
    parser.add_argument("--beats", type=int, default=10, help="heartbeats measured")
    parser.add_argument("--per-stream", action="store_true", help="each stream reads the log itself (before)")
    options = parser.parse_args()
    raise_open_file_limit()
    with in_process_database(postgres=False):
        os.environ["EVENTS_HEARTBEAT_SECONDS"] = str(options.heartbeat)
        os.environ["EVENTS_STREAM_MAX_SECONDS"] = "3600"
        from django.core.management import call_command

        import bunco_club.site.asgi  # noqa: F401  (sets Django up)

        call_command("migrate", verbosity=0)
        cpu_ms = asyncio.run(measure(options.streams, options.heartbeat, options.beats, options.per_stream))
    mode = "each stream reads for itself" if options.per_stream else "one look a process"
    print(f"{options.streams} idle streams, heartbeat {options.heartbeat:g} s, {mode}: "
          f"{cpu_ms:.1f} ms of CPU a heartbeat ({cpu_ms / options.heartbeat:.1f} ms a second)")


async def measure(streams: int, heartbeat: float, beats: int, per_stream: bool) -> float:
    from asgiref.sync import sync_to_async

    import live.streams
    from bunco_club.site.asgi import application
    from live.actions import open_room
    from tests.builders import http_scope

    if per_stream:
        live.streams.LogWatch.start = lambda self: None  # type: ignore[method-assign]
    room = await sync_to_async(open_room)()
    path = f"/events/check/{room.token}/"
    gone = asyncio.Event()
    snapshots = 0
    heartbeats = 0

    async def open_stream() -> None:
        asked = False

        async def receive() -> dict[str, Any]:
            nonlocal asked
            if not asked:
                asked = True
                return {"type": "http.request", "body": b"", "more_body": False}
            await gone.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            nonlocal snapshots, heartbeats
            body = message.get("body", b"")
            snapshots += b"ping-list" in body
            heartbeats += body.count(b": heartbeat")

        await application(http_scope("GET", path, {"host": "testserver", "accept": "text/event-stream"}),
                          receive, send)

    tasks = [asyncio.create_task(open_stream()) for _ in range(streams)]
    while snapshots < streams:
        await asyncio.sleep(0.1)
    await asyncio.sleep(3 * heartbeat)  # the first streams' reads of their own, before the first look, done
    started_cpu, started_beats = time.process_time(), heartbeats
    await asyncio.sleep(beats * heartbeat)
    cpu = time.process_time() - started_cpu
    print(f"{heartbeats - started_beats} heartbeat comments sent over {beats} heartbeats")
    gone.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return cpu * 1000 / beats


if __name__ == "__main__":
    main()
