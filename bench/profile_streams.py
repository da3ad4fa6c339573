"""What an open phone stream keeps in the server's memory (issue 22): `make run`'s server started in
this process under tracemalloc, N streams opened on a connection check room by a client in another
process, and the allocations still held, compared before and after, per stream.

    .venv/bin/python bench/profile_streams.py              # 300 streams, the top 25 sources
    .venv/bin/python bench/profile_streams.py --streams 500 --top 40 --group traceback
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import bench_env, free_ports, raise_open_file_limit, rss_kib  # noqa: E402

CLIENT = """
import asyncio, sys
sys.path.insert(0, {root!r})
from bench.common import open_phones, raise_open_file_limit
async def main():
    raise_open_file_limit()
    phones = await open_phones({url!r}, {path!r}, {count}, marker=b"ping-list")
    print("OPEN", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    for phone in phones:
        phone.close()
asyncio.run(main())
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=300)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--group", choices=["lineno", "filename", "traceback"], default="lineno")
    options = parser.parse_args()
    raise_open_file_limit()
    workdir = Path(tempfile.mkdtemp(prefix="bunco-profile-streams-"))
    os.environ.update(bench_env(workdir, postgres=False, redis=False))  # SQLite, the benchmarks' limits
    os.environ.pop("DEBUG", None)
    try:
        profile(options.streams, options.top, options.group)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def profile(streams: int, top: int, group: str) -> None:
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", "--noinput", verbosity=0)
    import uvicorn

    port = free_ports()
    server = uvicorn.Server(uvicorn.Config("bunco_club.site.asgi:application", host="127.0.0.1", port=port,
                                           log_level="warning", access_log=False, backlog=4096))
    thread = threading.Thread(target=server.run, daemon=True)
    tracemalloc.start(12 if group == "traceback" else 1)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    while not server.started:
        time.sleep(0.05)
    room = httpx.get(url + "/check/", follow_redirects=True).url.path

    def open_streams(count: int) -> subprocess.Popen[str]:
        client = subprocess.Popen([sys.executable, "-c", CLIENT.format(root=str(ROOT), url=url, path="/events" + room,
                                                                       count=count)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert client.stdout is not None
        if client.stdout.readline().strip() != "OPEN":
            raise SystemExit("the client could not open its streams")
        return client

    warm = open_streams(20)  # one-time costs (imports, caches, the first renderings) before counting
    gc.collect()
    before, rss_before, threads_before = tracemalloc.take_snapshot(), rss_kib(os.getpid()), threading.active_count()
    client = open_streams(streams)
    time.sleep(1)  # the streams' first heartbeat and snapshot sent
    gc.collect()
    after, rss_after, threads_after = tracemalloc.take_snapshot(), rss_kib(os.getpid()), threading.active_count()
    traced = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    print(f"{streams} streams: resident memory +{(rss_after - rss_before) / streams:.1f} KiB a stream "
          f"(tracemalloc on, which adds its own), Python objects still held +{traced / streams / 1024:.1f} KiB a stream")
    print(f"threads in the server: {threads_before} before, {threads_after} with the streams open")
    print(f"the top {top} sources of what a stream keeps (KiB a stream, allocations a stream):")
    for stat in after.compare_to(before, group)[:top]:
        where = stat.traceback.format()[-8:] if group == "traceback" else [str(stat.traceback)]
        print(f"  {stat.size_diff / streams / 1024:7.2f} KiB {stat.count_diff / streams:7.1f}  " + "\n      ".join(where))
    for process in (client, warm):
        assert process.stdin is not None
        process.stdin.write("\n")
        process.stdin.flush()
        process.wait(timeout=30)
    server.should_exit = True
    thread.join(timeout=20)


if __name__ == "__main__":
    main()
