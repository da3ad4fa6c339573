"""What a phone downloads to open its table page (docs/DESIGN.md §7: ≤ 60 KB transferred, htmx
included, one request for the page plus one stream), measured in Debian's Chromium with the
static files as `make run` serves them (collected, compressed).

Run alone: `.venv/bin/python bench/bench_page_weight.py` (or `make bench`).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_night_live import claim_phones, host_post, start_night  # noqa: E402
from bench.common import PYTHON, ROOT, machine_line, uvicorn_site  # noqa: E402

CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
]


class Transfer(TypedDict):
    """One request of the page: what it fetched, its resource type, and the bytes transferred."""

    url: str
    bytes: int
    type: str


def measure() -> list[Transfer]:
    from playwright.sync_api import Response, sync_playwright

    static_root = tempfile.mkdtemp(prefix="bunco-static-")
    env = {"STATIC_COLLECTED": "1", "STATIC_ROOT": static_root}
    subprocess.run([PYTHON, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=ROOT,
                   env={**__import__("os").environ, **env}, check=True)
    with uvicorn_site(extra_env=env) as site:
        host, code, join, _ = start_night(site, 12)
        host_post(host, f"/n/{code}/host/start/", round=1)
        phone = claim_phones(site, code, join, 1)[0]
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
            context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
            context.add_cookies([
                {"name": "sessionid", "value": phone.cookie.split("sessionid=")[1].split(";")[0], "url": site.url},
                {"name": "csrftoken", "value": phone.csrf, "url": site.url},
            ])
            page = context.new_page()
            rows: list[Transfer] = []

            def record(response: Response) -> None:
                if "/events/" in response.url:  # still open: its size is only known when it ends
                    rows.append({"url": response.url.replace(site.url, ""), "bytes": 0, "type": "event stream (open)"})
                    return
                sizes = response.request.sizes()
                rows.append({"url": response.url.replace(site.url, ""), "bytes": sizes["responseBodySize"]
                             + sizes["responseHeadersSize"], "type": response.request.resource_type})

            page.on("response", record)
            page.goto(f"{site.url}/n/{code}/play/", wait_until="load")
            page.wait_for_timeout(1500)
            browser.close()
    return rows


def run() -> str:
    rows = measure()
    total = sum(int(row["bytes"]) for row in rows)
    lines = [
        "## The phone's table page: weight\n",
        f"Measured {machine_line()} in Chromium (390×844), static files collected and compressed as",
        "`make run` serves them. Bytes are as transferred (headers + compressed body; the event",
        "stream is open, so its bytes are not counted). Target (docs/DESIGN.md §7): ≤ 60 KB, one request",
        "for the page + one stream.",
        "Command: `.venv/bin/python bench/bench_page_weight.py` (part of `make bench`).\n",
        "| Request | type | bytes |",
        "|---|---|---|",
        *[f"| `{row['url']}` | {row['type']} | {row['bytes']:,} |" for row in rows],
        f"| **total** | {len(rows)} requests | **{total:,} bytes ({total / 1024:.1f} KiB)** |",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(run())
