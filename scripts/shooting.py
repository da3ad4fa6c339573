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

ROOT = Path(__file__).resolve().parent.parent


def shoot(description: str, *, name: str, take: Callable[[str, Path, Path | None], None]) -> int:
    """Parse --out and --keep, start the site on its own database, and call `take`."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--keep", action="store_true",
                        help="keep the temporary directory: database, server log, full-page pictures")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix=f"bunco-screenshots-{name}-"))
    os.environ.update({
        "DJANGO_SETTINGS_MODULE": "bunco_club.settings",
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

    server = start_server(workdir, extra_env={"EVENTS_STREAM_MAX_SECONDS": "300"})
    try:
        take(server.url, args.out, workdir if args.keep else None)
    finally:
        server.stop()
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            print(f"kept {workdir}")
    return 0
