"""The two baselines the later targets are ratios of (docs/DESIGN.md §7):

1. the same server's trivial-view throughput (`/alive/`, the default middleware, no database);
2. event fan-out: one POST on a connection check room's page, delivered to N open streams; the
   latency of each stream from the POST being sent to the event arriving, none missed; and the
   server's memory per open stream.

Run alone: `.venv/bin/python bench/bench_baselines.py` (or all benchmarks: `make bench`).
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import (  # noqa: E402
    first_group,
    machine_line,
    open_phones,
    percentile,
    raise_open_file_limit,
    rss_kib,
    scaled_site,
    summary_ms,
    uvicorn_site,
    wrk,
    wrk_available,
)

PINGS_PER_RUN = 5


def trivial_view_throughput() -> str:
    if not wrk_available():
        return "Trivial view: wrk is not installed (apt-get install -y wrk); not measured.\n"
    rows = []
    with uvicorn_site() as site:
        wrk(site.url + "/alive/", connections=16, seconds=2)  # warm-up
        result = wrk(site.url + "/alive/", connections=32, seconds=8)
        rows.append(("1 uvicorn process (embedded default), default middleware", result))
    lines = ["| Server | req/s | p50 | p99 | errors |", "|---|---|---|---|---|"]
    for label, result in rows:
        lines.append(f"| {label} | **{result.requests_per_second:.0f}** | {result.p50_ms:.1f} ms | "
                     f"{result.p99_ms:.1f} ms | {result.errors} |")
    return "\n".join(lines) + "\n"


async def fan_out(url: str, count: int, pid: int | None) -> dict[str, object]:
    """Open a check room, `count` streams on it, send PINGS_PER_RUN pings, time each arrival on
    each stream."""
    with httpx.Client(base_url=url, timeout=30) as opener:
        page = opener.get("/check/", follow_redirects=True)  # a fresh room: /check/<room>/
        page.raise_for_status()
        room = page.url.path
    before = rss_kib(pid) if pid else 0
    phones = await open_phones(url, "/events" + room, count, marker=b"ping-list")
    await asyncio.sleep(1.0)
    after = rss_kib(pid) if pid else 0
    latencies: list[float] = []
    missed = 0
    with httpx.Client(base_url=url, timeout=30) as sender:
        page = sender.get(room)
        page.raise_for_status()
        token = first_group(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
        for number in range(PINGS_PER_RUN):
            marker = f"Bench{count}x{number}z".encode()
            waits = [asyncio.create_task(phone.wait_for(marker, timeout=20)) for phone in phones]
            await asyncio.sleep(0.2)
            sent_at = time.perf_counter()
            response = await asyncio.to_thread(
                sender.post, room + "ping/", data={"name": marker.decode(), "csrfmiddlewaretoken": token},
                headers={"HX-Request": "true"},
            )
            response.raise_for_status()
            for arrived in await asyncio.gather(*waits, return_exceptions=True):
                if isinstance(arrived, BaseException):
                    missed += 1
                else:
                    latencies.append(arrived - sent_at)
            await asyncio.sleep(0.3)
    for phone in phones:
        phone.close()
    return {
        "latencies": latencies,
        "missed": missed,
        "kib_per_stream": (after - before) / count if pid else None,
    }


def fan_out_section() -> str:
    raise_open_file_limit()
    lines = [
        "| Layout | open streams | deliveries | missed | latency from the POST | p99 | memory per stream |",
        "|---|---|---|---|---|---|---|",
    ]
    for count in (500, 1000):
        with uvicorn_site() as site:
            result = asyncio.run(fan_out(site.url, count, site.pid))
        lines.append(_fan_out_row("embedded: 1 uvicorn, in-process broadcaster, SQLite", count, result))
    with scaled_site(streams=2) as site:
        result = asyncio.run(fan_out(site.url, 1000, None))
    lines.append(_fan_out_row("scaled: nginx → 2 uvicorn (streams) + gunicorn (POST), Redis, PostgreSQL",
                              1000, result))
    return "\n".join(lines) + "\n"


def _fan_out_row(label: str, count: int, result: dict[str, object]) -> str:
    latencies: list[float] = result["latencies"]  # type: ignore[assignment]
    memory = result["kib_per_stream"]
    memory_text = f"{memory:.0f} KiB" if memory is not None else "—"
    return (f"| {label} | {count} | {len(latencies)} | {result['missed']} | {summary_ms(latencies)} | "
            f"**{percentile(latencies, 0.99) * 1000:.0f} ms** | {memory_text} |")


def run() -> str:
    return (
        "## Baselines\n\n"
        f"Measured {machine_line()}; client and server share the machine's cores.\n"
        "Command: `.venv/bin/python bench/bench_baselines.py` (part of `make bench`).\n\n"
        "### Trivial view throughput\n\n"
        "`wrk -c32 -d8s` against `/alive/` (plain text, the full default middleware, no database).\n"
        "Later throughput targets are ratios of this figure.\n\n"
        + trivial_view_throughput()
        + "\n### Event fan-out\n\n"
        f"N streams open on one connection check room's channel (a lean raw-socket client), then "
        f"{PINGS_PER_RUN} pings POSTed one after another; each delivery's latency runs from the POST "
        "being sent (so it includes saving the event) to the event arriving on that stream. "
        "Memory per stream is the server's resident memory growth divided by N.\n"
        "Targets (docs/DESIGN.md §7, for the bell): 500 phones p99 ≤ 100 ms; 0 missed; ≤ 100 KiB per stream.\n\n"
        + fan_out_section()
    )


if __name__ == "__main__":
    print(run())
