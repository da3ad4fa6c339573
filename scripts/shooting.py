"""What the screenshot scripts share: a fresh SQLite database in a temporary directory, migrated;
one uvicorn process on a free port, as `make run` serves the site; and the folder kept on request
for review. Each script seeds its pages and takes its pictures in `take(url, out, review)`."""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page, Playwright

    from tests.conftest import ServerProcess

ROOT = Path(__file__).resolve().parent.parent


def site_on_its_own_database(workdir: Path, name: str) -> ServerProcess:
    """Django set up on a fresh SQLite database in `workdir`, migrated, and the site served from it
    by one uvicorn process (`make run`'s layout), its streams as long as in production."""
    os.environ.update({
        "DJANGO_SETTINGS_MODULE": "bunco_club.site.settings",
        "SQLITE_PATH": str(workdir / f"{name}.sqlite3"),
        "DATABASE_URL": "",
        "REDIS_URL": "",
        # Playwright's sync API runs an event loop in this thread; the ORM calls beside it are sync.
        "DJANGO_ALLOW_ASYNC_UNSAFE": "true",
    })
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from tests.conftest import start_server

    return start_server(workdir, extra_env={"EVENTS_STREAM_MAX_SECONDS": "300"})


def shoot(description: str, *, name: str, take: Callable[[str, Path, Path | None], None]) -> int:
    """Parse --out and --keep, start the site on its own database, and call `take`."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--keep", action="store_true",
                        help="keep the temporary directory: database, server log, full-page pictures")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix=f"bunco-screenshots-{name}-"))
    server = site_on_its_own_database(workdir, name)
    try:
        take(server.url, args.out, workdir if args.keep else None)
    finally:
        server.stop()
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            print(f"kept {workdir}")
    return 0


# --- In the browser ---------------------------------------------------------------------------

CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1, EXCLUDE localhost",
]


def launch_chromium(playwright: Playwright) -> Browser:
    """Debian's Chromium (never a downloaded browser), with the flags docs/STACK_NOTES.md gives."""
    from tests.conftest import CHROMIUM

    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


def picture(page: Page, out: Path, name: str, *, full_page: bool = False) -> None:
    """Save the page as `out/name` and say how big the file is."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / name
    page.screenshot(path=str(path), full_page=full_page)
    print(f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: {path.stat().st_size // 1024} KB")


def warn_if_too_wide(page: Page, what: str) -> None:
    scroll, client = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    if scroll > client:
        print(f"WARNING: {what} is {scroll} px wide on a {client} px screen")
