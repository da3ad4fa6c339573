"""Backups of the site's database and uploaded files, and putting one back (docs/CONTRACT.md, issue 48).

`take_backup()` writes one dated file, `bunco-backup-YYYYMMDDTHHMMSSZ.tar.gz`, into settings.BACKUP_DIR:
a tar holding `manifest.json` (the format version, the database's kind, the migrations applied,
when it was made, the sha256 and size of every other part) and the parts: `database.sqlite3`, a
consistent copy made through SQLite's online backup API while the site writes (one step, so a write
made meanwhile is either wholly in it or not at all), or `database.sql`, PostgreSQL's `pg_dump`
(plain SQL, in one snapshot), and the uploaded files under `media/` when MEDIA_ROOT holds any (the
site keeps none today: the manifest says so). Then only the newest settings.BACKUP_KEEP such files
are kept; a file of the folder with another name is never touched.

`backup_when_due(now)` takes one when the newest is settings.BACKUP_EVERY_HOURS old (or there is
none): the in-process clock of the embedded default asks it every minute (`backup_when_due_tick`),
Celery beat every hour when scaled (`backup_when_due_task`), so a restart never makes an extra one.

`restore(path)` checks a backup (its manifest, every part's checksum, `PRAGMA integrity_check` on a
SQLite copy) before anything changes, then puts it in place of the database (SQLite's backup API
into the database file; for PostgreSQL the dump replays in one transaction, `psql --single-transaction`,
after the schema is emptied) and of the uploaded files. It refuses while the site serves: every
serving process holds a shared lock on `serving_lock_path()` (`hold_serving_lock()`: the ASGI
lifespan and the WSGI application), and restore takes it exclusively, or refuses.
"""

from __future__ import annotations

import fcntl
import hashlib
import io
import json
import logging
import os
import re
import shutil
import sqlite3
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from glob import glob
from pathlib import Path
from typing import IO, Any

from celery import shared_task
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.recorder import MigrationRecorder
from django.utils.translation import gettext as _

from live.refusals import BadInput, NotNow
from live.sweeps import AtMostOnceEvery

FORMAT = 1
NAME = re.compile(r"^bunco-backup-(\d{8}T\d{6}Z)\.tar\.gz$")
STAMP = "%Y%m%dT%H%M%SZ"
MANIFEST = "manifest.json"
SQLITE_PART = "database.sqlite3"
POSTGRES_PART = "database.sql"
MEDIA = "media/"
logger = logging.getLogger("bunco_club.site.backups")
NO_UPLOADS = "none: the site keeps no uploaded files (MEDIA_ROOT is not set)"


# A file restore will not take (not a backup, altered since it was made, for another database), and
# restore while a process serves the site: live's refusals, in this module's words.
NotABackup = BadInput
SiteServing = NotNow


@dataclass(frozen=True)
class Backup:
    file: Path
    bytes: int
    database: str

    def as_json(self) -> dict[str, Any]:
        return {"file": str(self.file), "bytes": self.bytes, "database": self.database}


def database_kind(alias: str = DEFAULT_DB_ALIAS) -> str:
    return "sqlite" if connections[alias].vendor == "sqlite" else "postgresql"


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as source:
        for block in iter(lambda: source.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# --- Taking a backup ------------------------------------------------------------------------------


def take_backup(to: Path | None = None, now: datetime | None = None) -> Backup:
    """One backup file in `to` (settings.BACKUP_DIR), then the older ones past BACKUP_KEEP deleted."""
    folder = Path(to or settings.BACKUP_DIR)
    folder.mkdir(parents=True, exist_ok=True)
    made = (now or datetime.now(UTC)).astimezone(UTC)
    kind = database_kind()
    with tempfile.TemporaryDirectory(dir=folder, prefix=".making-") as work:
        parts = Path(work)
        copy_database(parts, kind)
        uploads = copy_uploads(parts)
        manifest = manifest_of(parts, kind, made, uploads)
        target = folder / f"bunco-backup-{made.strftime(STAMP)}.tar.gz"
        partial = parts / "backup.tar.gz"
        write_archive(partial, parts, manifest)
        os.chmod(partial, 0o600)  # the database holds emails, phones and password hashes
        os.replace(partial, target)
    keep_newest(folder, settings.BACKUP_KEEP)
    return Backup(target, target.stat().st_size, kind)


def copy_database(parts: Path, kind: str) -> None:
    settings_dict = connections[DEFAULT_DB_ALIAS].settings_dict
    if kind == "sqlite":
        source = sqlite3.connect(settings_dict["NAME"], timeout=20)
        target = sqlite3.connect(parts / SQLITE_PART)
        try:
            source.backup(target)  # pages=-1: the whole database in one step, one consistent snapshot
        finally:
            target.close()
            source.close()
        return
    with (parts / POSTGRES_PART).open("wb") as out:
        run_postgres("pg_dump", ["--format=plain", "--no-owner", "--no-privileges"], settings_dict, stdout=out)


def copy_uploads(parts: Path) -> str:
    root = Path(settings.MEDIA_ROOT) if getattr(settings, "MEDIA_ROOT", "") else None
    if root is None:
        return NO_UPLOADS
    if not root.is_dir():
        return f"none: MEDIA_ROOT ({root}) holds no files"
    shutil.copytree(root, parts / MEDIA.rstrip("/"))
    return str(root)


def manifest_of(parts: Path, kind: str, made: datetime, uploads: str) -> dict[str, Any]:
    files = sorted(path for path in parts.rglob("*") if path.is_file())
    return {
        "format": FORMAT,
        "database": kind,
        "created_at": made.isoformat(),
        "migrations": applied_migrations(),
        "uploads": uploads,
        "parts": {path.relative_to(parts).as_posix(): {"sha256": sha256_of(path), "bytes": path.stat().st_size}
                  for path in files},
    }


def applied_migrations() -> list[str]:
    recorder = MigrationRecorder(connections[DEFAULT_DB_ALIAS])
    return sorted(f"{app}.{name}" for app, name in recorder.applied_migrations())


def write_archive(target: Path, parts: Path, manifest: dict[str, Any]) -> None:
    body = json.dumps(manifest, indent=2).encode()
    with tarfile.open(target, "w:gz") as archive:
        info = tarfile.TarInfo(MANIFEST)
        info.size, info.mtime = len(body), int(datetime.now(UTC).timestamp())
        archive.addfile(info, io.BytesIO(body))
        for name in manifest["parts"]:
            archive.add(parts / name, arcname=name, recursive=False)


def backups_in(folder: Path) -> list[Path]:
    """The backup files this code made in `folder`, oldest first (by the time in their names)."""
    if not folder.is_dir():
        return []
    return sorted((path for path in folder.iterdir() if NAME.match(path.name)), key=lambda path: path.name)


def keep_newest(folder: Path, keep: int) -> list[Path]:
    """Delete all but the newest `keep` backups of `folder`; returns those deleted."""
    old = backups_in(folder)[:-keep] if keep > 0 else []
    for path in old:
        path.unlink(missing_ok=True)
    return old


# --- Every day, by itself -------------------------------------------------------------------------


def made_at(path: Path) -> datetime:
    match = NAME.match(path.name)
    assert match is not None
    return datetime.strptime(match.group(1), STAMP).replace(tzinfo=UTC)


def backup_when_due(now: datetime | None = None) -> Backup | None:
    """A backup when the newest in BACKUP_DIR is BACKUP_EVERY_HOURS old, or there is none (0: never)."""
    hours = settings.BACKUP_EVERY_HOURS
    if hours <= 0:
        return None
    now = now or datetime.now(UTC)
    made = backups_in(Path(settings.BACKUP_DIR))
    if made and now - made_at(made[-1]) < timedelta(hours=hours):
        return None
    backup = take_backup(now=now)
    logger.info("Backed up the database to %s (%d bytes)", backup.file, backup.bytes)
    return backup


CHECK = AtMostOnceEvery(lambda: 60)


def backup_when_due_tick() -> None:
    """The in-process clock's ticker: looks at the folder at most once a minute."""
    if CHECK.due():
        backup_when_due()


@shared_task(ignore_result=True)
def backup_when_due_task() -> None:
    """Celery beat's, when scaled (hourly: the backup is taken when the newest is a day old)."""
    backup_when_due()


# --- Knowing the site serves ------------------------------------------------------------------------


def serving_lock_path() -> Path:
    """The file every serving process holds a shared lock on: in BACKUP_DIR, named after the database
    (restore and the site read the same settings, so they agree on it)."""
    name = Path(str(connections[DEFAULT_DB_ALIAS].settings_dict["NAME"])).name
    return Path(settings.BACKUP_DIR) / f".serving-{name}"


def hold_serving_lock() -> IO[bytes] | None:
    """Held (shared, with every other serving process) until the returned file is closed or the
    process ends. Waits while a restore runs. None when the file cannot be made (a read-only place)."""
    path = serving_lock_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        held = path.open("ab")
    except OSError:
        return None
    fcntl.flock(held, fcntl.LOCK_SH)
    return held


def refuse_while_serving() -> IO[bytes]:
    """The serving lock, held exclusively (nothing can start serving until it is closed), or SiteServing."""
    path = serving_lock_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    held = path.open("ab")
    try:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        held.close()
        raise SiteServing(_(
            "The site is running: a process serving it holds %(path)s. Stop the site first (Ctrl-C where "
            "`make run` runs, or `systemctl stop` its services), then run restore again."
        ) % {"path": path}) from None
    return held


# --- Putting one back -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Checked:
    """A backup whose parts are unpacked in `folder` and match its manifest."""

    folder: Path
    manifest: dict[str, Any]

    def summary(self) -> dict[str, Any]:
        media = [name for name in self.manifest["parts"] if name.startswith(MEDIA)]
        return {"database": self.manifest["database"], "created_at": self.manifest["created_at"],
                "migrations": len(self.manifest["migrations"]), "uploaded_files": len(media)}

    def migrations_missing(self) -> list[str]:
        """The migrations of this version of the code the backup's database has not had."""
        from django.db.migrations.loader import MigrationLoader

        known = {f"{app}.{name}" for app, name in MigrationLoader(None, ignore_no_migrations=True).disk_migrations}
        return sorted(known - set(self.manifest["migrations"]))


def check_backup(path: Path, into: Path) -> Checked:
    """Unpack `path` into `into` and check it; NotABackup (the message says why) if anything is off."""
    manifest = unpack(path, into)
    if (manifest.get("format") != FORMAT or manifest.get("database") not in {"sqlite", "postgresql"}
            or not isinstance(manifest.get("created_at"), str) or not isinstance(manifest.get("migrations"), list)):
        raise NotABackup(_("%(file)s is not a backup this version of Bunco Club can read.") % {"file": path})
    if manifest["database"] != database_kind():
        raise NotABackup(_("%(file)s is a backup of a %(kind)s database; this site uses %(ours)s.")
                         % {"file": path, "kind": manifest["database"], "ours": database_kind()})
    database_part = SQLITE_PART if manifest["database"] == "sqlite" else POSTGRES_PART
    if database_part not in manifest["parts"]:  # a backup without its database would put an empty one back
        raise NotABackup(_("%(file)s is not a Bunco Club backup (or it is damaged).") % {"file": path})
    for name, part in manifest["parts"].items():
        if not isinstance(part, dict) or sha256_of(into / name) != part.get("sha256"):
            raise NotABackup(_("%(file)s has been altered since it was made: %(part)s does not match its checksum.")
                             % {"file": path, "part": name})
    if manifest["database"] == "sqlite":
        check_sqlite(into / SQLITE_PART, path)
    return Checked(into, manifest)


def unpack(path: Path, into: Path) -> dict[str, Any]:
    broken = NotABackup(_("%(file)s is not a Bunco Club backup (or it is damaged).") % {"file": path})
    try:
        with tarfile.open(path, "r:gz") as archive:
            manifest = json.load(archive.extractfile(MANIFEST) or io.BytesIO())
            parts = manifest["parts"]
            names = {member.name for member in archive.getmembers() if member.isfile()} - {MANIFEST}
            if not isinstance(parts, dict) or names != set(parts):
                raise broken
            archive.extractall(into, members=[archive.getmember(name) for name in parts], filter="data")
    except (OSError, EOFError, KeyError, TypeError, ValueError, tarfile.TarError):
        raise broken from None
    return manifest


def check_sqlite(copy: Path, path: Path) -> None:
    try:
        with sqlite3.connect(f"file:{copy}?mode=ro", uri=True) as database:  # never made if missing
            verdict = database.execute("PRAGMA integrity_check").fetchall()
        database.close()
    except sqlite3.DatabaseError as error:
        verdict = [(str(error),)]
    if verdict != [("ok",)]:
        raise NotABackup(_("%(file)s holds a damaged database (%(what)s).") % {"file": path, "what": verdict[0][0]})


def put_back(checked: Checked) -> None:
    """Replace the database and the uploaded files with the checked backup's. Django's connections
    are closed first (they would hold the old database's pages or plans)."""
    connection = connections[DEFAULT_DB_ALIAS]
    connection.close()
    if hasattr(connection, "close_pool"):
        connection.close_pool()
    if checked.manifest["database"] == "sqlite":
        put_back_sqlite(checked.folder / SQLITE_PART, connection.settings_dict["NAME"])
    else:
        put_back_postgres(checked.folder / POSTGRES_PART, connection.settings_dict)
    put_back_uploads(checked)


def put_back_sqlite(copy: Path, name: str) -> None:
    """Through the backup API into the database itself: its -wal and -shm stay right (a file moved
    over the database would leave them describing the old one)."""
    source = sqlite3.connect(copy)
    target = sqlite3.connect(name, timeout=20)
    try:
        source.backup(target)
        target.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        target.close()
        source.close()


def put_back_postgres(dump: Path, settings_dict: dict[str, Any]) -> None:
    """The dump replayed in one transaction after the schema is emptied: if any statement fails,
    nothing has changed."""
    empty = "SET client_min_messages = warning; DROP SCHEMA public CASCADE; CREATE SCHEMA public;"
    run_postgres("psql", ["--quiet", "--no-psqlrc", "-v", "ON_ERROR_STOP=1", "--single-transaction",
                          "-c", empty, "-f", str(dump)], settings_dict, stdout=subprocess.DEVNULL)


def put_back_uploads(checked: Checked) -> None:
    media = checked.folder / MEDIA.rstrip("/")
    root = Path(settings.MEDIA_ROOT) if getattr(settings, "MEDIA_ROOT", "") else None
    if root is None or not media.is_dir():
        return
    if root.exists():
        shutil.rmtree(root)
    shutil.copytree(media, root)


# --- PostgreSQL's programs ----------------------------------------------------------------------------


def postgres_program(name: str) -> str:
    """`name` (pg_dump, psql) on PATH, or the newest under /usr/lib/postgresql/*/bin (Debian's)."""
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob(f"/usr/lib/postgresql/*/bin/{name}"), key=lambda path: int(path.split("/")[4]))
    if not candidates:
        raise NotNow(_("%(name)s was not found: install PostgreSQL's client programs (Debian: postgresql-client).")
                     % {"name": name})
    return candidates[-1]


def run_postgres(name: str, arguments: list[str], settings_dict: dict[str, Any], stdout: Any) -> None:
    environ = dict(os.environ)
    for key, variable in (("HOST", "PGHOST"), ("PORT", "PGPORT"), ("USER", "PGUSER"), ("PASSWORD", "PGPASSWORD")):
        if settings_dict.get(key):
            environ[variable] = str(settings_dict[key])
    environ["PGDATABASE"] = settings_dict["NAME"]
    done = subprocess.run([postgres_program(name), *arguments], env=environ, stdout=stdout,
                          stderr=subprocess.PIPE, check=False)
    if done.returncode != 0:
        raise NotNow(_("%(name)s failed, and nothing was changed: %(error)s") % {"name": name, "error": done.stderr.decode(errors="replace").strip()})
