"""A migrated SQLite test database kept between runs: each pytest-xdist worker copies it (a few
milliseconds) instead of migrating a fresh database of its own.

Migrating took about 4 s of a core per worker on the quiet 2-core machine (3 of the 4 s of a browser
worker's first setup), and `make test` starts five workers in its two passes, beside whatever else
the cores are doing. The template is made the usual way, by pytest-django in the first worker that
finds none (the others wait for it), and kept under a key of everything that can change what the
migrations make: Django's version, the installed apps, the caches (their tables), and every source
file of the project's apps (the migrations and the modules they import). A change to any of them
makes a new template; the old ones are removed.

The copy is then set up as pytest-django sets up a kept database (`--reuse-db`): Django's `migrate`
runs over it (finding nothing to apply, it still sends post_migrate) and `createcachetable` too.
PostgreSQL (`make test-services`) is left to pytest-django: each worker makes its own test_ copy.
"""

from __future__ import annotations

import fcntl
import hashlib
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import IO

import django
from django.conf import settings

ROOT = Path(__file__).resolve().parent.parent
# Per checkout, beside the code whose migrations made it (.gitignore; `make clean` removes it).
TEMPLATES = ROOT / ".test-databases"
APP_PACKAGES = ("bunco_club", "games", "live", "tournaments")


def template_key() -> str:
    """What the migrated schema and rows depend on, as a short digest."""
    digest = hashlib.sha256(repr((django.__version__, settings.INSTALLED_APPS, settings.CACHES)).encode())
    for package in APP_PACKAGES:
        for source in sorted((ROOT / package).rglob("*.py")):
            digest.update(str(source.relative_to(ROOT)).encode())
            digest.update(source.read_bytes())
    return digest.hexdigest()[:20]


class MigratedTemplate:
    """The template of one key. `copy_to` gives a worker its database when the template exists;
    otherwise the worker migrates its own while holding the template's lock (the other workers
    wait for it rather than migrate too), and `save_from` keeps that database as the template."""

    def __init__(self, folder: Path = TEMPLATES, key: str | None = None) -> None:
        self.folder = folder
        self.key = key or template_key()
        self.path = folder / f"{self.key}.sqlite3"
        self._held: IO[bytes] | None = None

    def copy_to(self, database: Path) -> bool:
        """Copies the template to `database` (True), or, when there is none yet, returns False
        holding its lock until `save_from`."""
        self.folder.mkdir(exist_ok=True)
        lock = (self.folder / f"{self.key}.lock").open("ab")
        fcntl.flock(lock, fcntl.LOCK_EX)  # a worker making it holds it for the seconds that takes
        if self.path.exists():
            shutil.copyfile(self.path, database)
            database.chmod(0o600)  # its owner's alone, as the site makes its databases
            lock.close()
            return True
        self._held = lock
        return False

    def save_from(self, database: Path) -> None:
        """Keeps a database just migrated by pytest-django as the template (when this worker was the
        one to make it), then lets the waiting workers copy it."""
        if self._held is None:
            return
        partial = self.path.with_suffix(".partial")
        with closing(sqlite3.connect(database)) as source, closing(sqlite3.connect(partial)) as copy:
            source.backup(copy)  # committed pages, the WAL's too
            # A single file (no -wal beside it): the workers' connections turn WAL on when they open it.
            copy.execute("PRAGMA journal_mode=DELETE")
        partial.chmod(0o600)
        partial.replace(self.path)
        self._held.close()
        self._held = None
        self._remove_others()

    def _remove_others(self) -> None:
        """Templates of other keys (code since changed), unless a worker is copying one right now."""
        for other in self.folder.glob("*.sqlite3"):
            if other == self.path:
                continue
            with other.with_suffix(".lock").open("ab") as lock:
                try:
                    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue
                other.unlink(missing_ok=True)
                other.with_suffix(".lock").unlink(missing_ok=True)
