"""The SQLite database and its -wal and -shm files are readable by their owner only (mode 600), as
the secret file beside them: they hold members' emails and phones, password hashes and sessions
(issue 21: they were made 644, so any account on the machine could read them)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tests.bunco_club.site_process import manage, run_python

# What a process of the site does to its database: writes a row and, its connection still open (so
# the -wal and -shm files are there), says each file's mode.
WRITE_AND_LOOK = """
import os
from django.contrib.auth.models import Group
from django.conf import settings
Group.objects.create(name="hosts")
path = settings.DATABASES["default"]["NAME"]
for suffix in ("", "-wal", "-shm"):
    print(suffix or "db", oct(os.stat(path + suffix).st_mode & 0o777))
"""


def modes(tmp_path: Path) -> dict[str, str]:
    done = run_python(WRITE_AND_LOOK, tmp_path)
    assert done.returncode == 0, done.stderr
    return dict(line.split() for line in done.stdout.splitlines())


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_database_the_site_makes_and_its_wal_and_shm_are_its_owners_alone(tmp_path):
    was = os.umask(0o022)  # the usual one, which gave 644 (the site's processes inherit it)
    try:
        assert manage(tmp_path, "migrate", "--noinput", "-v0").returncode == 0
    finally:
        os.umask(was)
    assert mode_of(tmp_path / "db.sqlite3") == 0o600

    was = os.umask(0o022)
    try:
        assert modes(tmp_path) == {"db": "0o600", "-wal": "0o600", "-shm": "0o600"}
    finally:
        os.umask(was)


def test_a_database_an_older_version_left_readable_by_all_is_made_its_owners_alone(tmp_path):
    assert manage(tmp_path, "migrate", "--noinput", "-v0").returncode == 0
    for suffix in ("", "-wal", "-shm"):
        path = tmp_path / f"db.sqlite3{suffix}"
        path.touch()
        path.chmod(0o644)

    assert modes(tmp_path) == {"db": "0o600", "-wal": "0o600", "-shm": "0o600"}
