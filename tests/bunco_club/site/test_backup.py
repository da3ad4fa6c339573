"""Backups and restore (issue 48, bunco_club/site/backups.py): a backup taken while a night's taps are
being written holds every tap acknowledged before it began and passes the database's integrity
check once restored; one is taken every day by itself and the newest BACKUP_KEEP are kept; restore
refuses while the site serves and refuses an altered file, changing nothing. On SQLite with `make
test`, on PostgreSQL (real pg_dump and psql) with `make test-services`."""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import subprocess
import tarfile
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings as django_settings
from django.core.management import call_command
from django.db import connection

from bunco_club.site import backups
from games.night.models import Night, Tally
from live.sweeps import AtMostOnceEvery
from tests.builders import is_sqlite, joined_phone, seat_of, someone_at, started_night, tap

pytestmark = pytest.mark.django_db(transaction=True)

T0 = datetime(2026, 3, 1, 3, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def backup_dir(settings, tmp_path: Path) -> Path:
    settings.BACKUP_DIR = tmp_path / "backups"
    settings.MEDIA_ROOT = tmp_path / "media"  # its own uploads' folder: none unless the test writes one
    return settings.BACKUP_DIR


def run(command: str, *arguments: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command(command, *arguments, stdout=out, stderr=err)
    except SystemExit as stopped:
        return int(stopped.code or 0), out.getvalue(), err.getvalue()
    return 0, out.getvalue(), err.getvalue()


def tapping_phone(night: Night):
    """A phone seated at table 2, and its tap through the page (True once acknowledged)."""
    name = someone_at(night, 2)
    phone = joined_phone(night, night.players.get(name=name))
    team = seat_of(night, name).team
    return lambda key: tap(phone, night, table=2, team=team, points=1, key=key).status_code == 200


def integrity_verdict() -> str:
    """The database's own check: SQLite's PRAGMA integrity_check; PostgreSQL's pg_amcheck (its
    B-tree indexes and tables' pages), `ok` when it finds nothing."""
    if is_sqlite():
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA integrity_check")
            return cursor.fetchone()[0]
    database = connection.settings_dict
    done = subprocess.run([backups.postgres_program("pg_amcheck"), "--install-missing", "-h", database["HOST"],
                           "-U", database["USER"], "-p", str(database["PORT"] or 5432), database["NAME"]],
                          capture_output=True, text=True, check=False)
    return "ok" if done.returncode == 0 else done.stdout + done.stderr


def test_a_backup_taken_while_taps_are_written_restores_every_tap_acknowledged_before_it_began() -> None:
    night = started_night(12, seed=48)
    tapped = tapping_phone(night)
    acknowledged: list[str] = []
    going, stop = threading.Event(), threading.Event()

    def writer() -> None:
        try:
            while not stop.is_set():
                key = f"tap-{len(acknowledged)}"
                if tapped(key):
                    acknowledged.append(key)
                if len(acknowledged) >= 5:
                    going.set()
        finally:
            going.set()
            connection.close()

    thread = threading.Thread(target=writer)
    thread.start()
    assert going.wait(30)
    before = list(acknowledged)
    made = backups.take_backup()
    during = len(acknowledged)
    while len(acknowledged) < during + 5 and thread.is_alive():
        stop.wait(0.01)
    stop.set()
    thread.join(30)
    assert len(acknowledged) > len(before)  # the taps went on while the backup was taken, and after

    code, out, err = run("restore", str(made.file), "--yes")
    assert (code, err) == (0, "")
    restored = set(Tally.objects.filter(night=night).values_list("key", flat=True))
    assert set(before) <= restored
    assert restored < set(acknowledged)  # the taps acknowledged after the backup are not in it
    assert integrity_verdict() == "ok"
    assert json.loads(out)["database"] == made.database


def test_the_backup_command_prints_the_file_it_wrote(backup_dir: Path) -> None:
    code, out, _ = run("backup")
    printed = json.loads(out)
    assert code == 0
    assert set(printed) == {"file", "bytes", "database"}
    assert Path(printed["file"]).parent == backup_dir
    assert Path(printed["file"]).stat().st_size == printed["bytes"]
    assert printed["database"] == ("sqlite" if is_sqlite() else "postgresql")
    with tarfile.open(printed["file"]) as archive:
        manifest = json.load(archive.extractfile("manifest.json"))  # type: ignore[arg-type]
    assert manifest["format"] == 1
    assert "bunco_club.0001_initial" in manifest["migrations"]
    assert manifest["uploads"].startswith("none")


def test_a_backup_that_cannot_be_written_says_why_in_a_sentence_not_a_traceback(tmp_path: Path) -> None:
    """The folder cannot be made (here a file stands where it should be; a full disk or a folder
    of another user's alike): exit 1, one sentence, and no file."""
    (tmp_path / "taken").write_text("a file, not a folder")
    code, out, err = run("backup", "--to", str(tmp_path / "taken" / "backups"))
    assert code == 1
    assert out == ""
    assert err.startswith("No backup was written: ") and "Traceback" not in err
    assert [path.name for path in tmp_path.iterdir()] == ["taken"]


def test_a_backup_is_taken_once_a_day_by_itself_and_the_newest_are_kept(settings, backup_dir: Path) -> None:
    settings.BACKUP_EVERY_HOURS, settings.BACKUP_KEEP = 24, 3
    backup_dir.mkdir()
    (backup_dir / "notes.txt").write_text("the host's own file")
    assert backups.backup_when_due(T0) is not None
    assert backups.backup_when_due(T0 + timedelta(hours=23, minutes=59)) is None
    for day in range(1, 5):
        assert backups.backup_when_due(T0 + timedelta(days=day)) is not None
        assert backups.backup_when_due(T0 + timedelta(days=day, hours=1)) is None
    kept = sorted(path.name for path in backup_dir.iterdir())
    assert kept == ["bunco-backup-20260303T030000Z.tar.gz", "bunco-backup-20260304T030000Z.tar.gz",
                    "bunco-backup-20260305T030000Z.tar.gz", "notes.txt"]


def test_the_daily_backup_runs_from_the_in_process_clock_and_from_celery_beat(monkeypatch, backup_dir: Path) -> None:
    if django_settings.IN_PROCESS_CLOCK:
        assert "bunco_club.site.backups.backup_when_due_tick" in django_settings.CLOCK_TICKERS
    monkeypatch.setattr(backups.CHECK, "last", None)
    backups.backup_when_due_tick()  # the clock's first tick after start-up: none yet, so one now
    backups.backup_when_due_tick()  # a second later: the folder is looked at once a minute at most
    assert len(backups.backups_in(backup_dir)) == 1
    assert isinstance(backups.CHECK, AtMostOnceEvery)
    beat = django_settings.CELERY_BEAT_SCHEDULE["backup-when-due"]
    assert beat["task"] == backups.backup_when_due_task.name
    assert beat["schedule"] <= 60 * 60


def tallies() -> int:
    return Tally.objects.count()


def test_restore_refuses_while_the_site_is_serving_and_changes_nothing() -> None:
    night = started_night(8, seed=1)
    made = backups.take_backup()
    tapping_phone(night)("after-the-backup")
    serving = backups.hold_serving_lock()
    try:
        code, _, err = run("restore", str(made.file), "--yes")
    finally:
        assert serving is not None
        serving.close()
    assert code == 2
    assert "The site is running" in err and "Stop the site first" in err
    assert tallies() == 1


def test_the_running_site_holds_the_serving_lock_from_start_up_to_shutdown(settings) -> None:
    """The ASGI application's lifespan, as uvicorn drives it (`make run`)."""
    from bunco_club.site.asgi import lifespan

    settings.IN_PROCESS_CLOCK = False
    made = backups.take_backup()

    async def serve_then_restore() -> list[int]:
        messages: asyncio.Queue[dict] = asyncio.Queue()
        started = asyncio.Event()

        async def send(message: dict) -> None:
            started.set()  # the lifespan answered startup: the site is serving

        site = asyncio.create_task(lifespan(messages.get, send))
        await messages.put({"type": "lifespan.startup"})
        await started.wait()
        while_serving = (await sync_to_async(run)("restore", str(made.file), "--yes"))[0]
        await messages.put({"type": "lifespan.shutdown"})
        await site
        return [while_serving, (await sync_to_async(run)("restore", str(made.file), "--yes"))[0]]

    assert asyncio.run(serve_then_restore()) == [2, 0]


def repacked(made: Path, into: Path, change: Callable[[str, bytes], bytes]) -> Path:
    """The backup with each part's body (the manifest's too) passed through `change(name, body)`."""
    copy = into / "repacked.tar.gz"
    with tarfile.open(made) as source, tarfile.open(copy, "w:gz") as target:
        for member in source.getmembers():
            body = change(member.name, source.extractfile(member).read())  # type: ignore[union-attr]
            member.size = len(body)
            target.addfile(member, io.BytesIO(body))
    return copy


def altered(made: Path, into: Path) -> Path:
    """The backup with one byte of its database changed, its manifest (and checksums) left as they were."""
    def one_byte(name: str, body: bytes) -> bytes:
        return body[:-10] + bytes([body[-10] ^ 1]) + body[-9:] if name.startswith("database") else body

    return repacked(made, into, one_byte)


def test_restoring_a_backup_older_than_the_code_says_to_migrate(tmp_path: Path) -> None:
    def without_a_migration(name: str, body: bytes) -> bytes:
        if name != "manifest.json":
            return body
        manifest = json.loads(body)
        manifest["migrations"].remove("bunco_club.0001_initial")
        return json.dumps(manifest).encode()

    older = repacked(backups.take_backup().file, tmp_path, without_a_migration)
    code, _, err = run("restore", str(older), "--yes")
    assert code == 0
    assert "made before 1 migration of this version: run `python manage.py migrate`" in err


def test_restore_refuses_an_altered_or_malformed_file_and_changes_nothing(tmp_path: Path) -> None:
    night = started_night(8, seed=2)
    made = backups.take_backup()
    tapping_phone(night)("after-the-backup")
    garbage = tmp_path / "garbage.tar.gz"
    garbage.write_bytes(b"not a backup at all")
    code, _, err = run("restore", str(altered(made.file, tmp_path)), "--yes")
    assert code == 2 and "has been altered since it was made" in err
    code, _, err = run("restore", str(garbage), "--yes")
    assert code == 2 and "is not a Bunco Club backup" in err
    assert tallies() == 1


def test_restore_refuses_a_backup_without_its_database_or_cut_short_and_changes_nothing(tmp_path: Path) -> None:
    """A manifest with no database part would have put an empty database in place of the site's; a
    file cut short (a copy that stopped halfway) is refused with a message, not a traceback."""
    night = started_night(8, seed=4)
    made = backups.take_backup()
    tapping_phone(night)("after-the-backup")
    manifest = json.loads(json.dumps({"format": backups.FORMAT, "database": backups.database_kind(),
                                      "created_at": "2026-12-07T00:00:00Z", "migrations": [], "parts": {}}))
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    hollow = tmp_path / "hollow.tar.gz"
    with tarfile.open(hollow, "w:gz") as archive:
        archive.add(tmp_path / "manifest.json", arcname="manifest.json")
    cut_short = tmp_path / "cut-short.tar.gz"
    cut_short.write_bytes(made.file.read_bytes()[: made.file.stat().st_size // 2])
    for refused in (hollow, cut_short):
        code, _, err = run("restore", str(refused), "--yes")
        assert code == 2 and "is not a Bunco Club backup" in err
    assert tallies() == 1


def test_restore_asks_first_and_without_a_yes_restores_nothing() -> None:
    night = started_night(8, seed=3)
    made = backups.take_backup()
    tapping_phone(night)("after-the-backup")
    code, _, err = run("restore", str(made.file))  # the test's stdin is no terminal: nobody to ask
    assert code == 2 and "--yes" in err
    assert tallies() == 1
    assert run("restore", str(made.file), "--yes")[0] == 0
    assert tallies() == 0


def test_the_uploaded_files_are_backed_up_and_put_back(settings, tmp_path: Path) -> None:
    settings.MEDIA_ROOT = tmp_path / "media"
    (settings.MEDIA_ROOT / "clubs").mkdir(parents=True)
    (settings.MEDIA_ROOT / "clubs" / "logo.png").write_bytes(b"the club's logo")
    made = backups.take_backup()
    (settings.MEDIA_ROOT / "clubs" / "logo.png").write_bytes(b"another logo")
    (settings.MEDIA_ROOT / "uploaded-later.txt").write_text("after the backup")
    code, out, _ = run("restore", str(made.file), "--yes")
    assert code == 0 and json.loads(out)["uploaded_files"] == 1
    assert sorted(path.name for path in settings.MEDIA_ROOT.rglob("*") if path.is_file()) == ["logo.png"]
    assert (settings.MEDIA_ROOT / "clubs" / "logo.png").read_bytes() == b"the club's logo"


@pytest.mark.skipif("not is_sqlite()")
def test_a_sqlite_backup_holding_a_damaged_database_is_refused(tmp_path: Path) -> None:
    made = backups.take_backup()
    with tarfile.open(made.file) as archive:
        archive.extractall(tmp_path / "parts", filter="data")
    damaged = tmp_path / "parts" / "database.sqlite3"
    body = bytearray(damaged.read_bytes())
    body[4096 * 3:4096 * 3 + 64] = bytes(64)  # a page's header zeroed
    damaged.write_bytes(bytes(body))
    manifest = json.loads((tmp_path / "parts" / "manifest.json").read_text())
    manifest["parts"]["database.sqlite3"]["sha256"] = backups.sha256_of(damaged)
    (tmp_path / "parts" / "manifest.json").write_text(json.dumps(manifest))
    repacked = tmp_path / "damaged.tar.gz"
    with tarfile.open(repacked, "w:gz") as archive:
        for name in ("manifest.json", "database.sqlite3"):
            archive.add(tmp_path / "parts" / name, arcname=name)
    code, _, err = run("restore", str(repacked), "--yes")
    assert code == 2 and "holds a damaged database" in err


@pytest.mark.skipif("is_sqlite()")
def test_a_postgresql_dump_that_fails_halfway_changes_nothing(tmp_path: Path) -> None:
    """Its checksums made to match: psql replays the dump in one transaction, so nothing is left half done."""
    night = started_night(8, seed=4)
    made = backups.take_backup()
    tapping_phone(night)("after-the-backup")
    with tarfile.open(made.file) as archive:
        dump = archive.extractfile("database.sql").read()  # type: ignore[union-attr]
    broken = dump[: len(dump) // 2] + b"\nTHIS IS NOT SQL;\n"

    def halfway(name: str, body: bytes) -> bytes:
        if name == "database.sql":
            return broken
        if name == "manifest.json":
            manifest = json.loads(body)
            manifest["parts"]["database.sql"]["sha256"] = hashlib.sha256(broken).hexdigest()
            return json.dumps(manifest).encode()
        return body

    code, _, err = run("restore", str(repacked(made.file, tmp_path, halfway)), "--yes")
    # The half may end inside a statement, a quoted string or a COPY's rows: whichever error psql
    # meets there, it stops, and the one transaction leaves the database as it was.
    assert code == 2 and "psql failed, and nothing was changed" in err and "ERROR" in err
    assert tallies() == 1

