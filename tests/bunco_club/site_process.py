"""Starting the site's settings in a fresh process with an environment of the test's choosing: the
settings are read once per process, so what they do with a variable shows only in a new one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

# Variables a developer's shell might have set that would change what the settings do.
CLEARED = ("SECRET_KEY", "DEBUG", "ALLOWED_HOSTS", "HTTPS", "BUNCO_SECRET_FILE", "SQLITE_SYNCHRONOUS",
           "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS", "SECURE_HSTS_INCLUDE_SUBDOMAINS", "SECURE_HSTS_PRELOAD",
           "PERMISSIONS_POLICY", "EMAIL_HOST", "DJANGO_ALLOW_ASYNC_UNSAFE")


def site_env(tmp_path: Path, **env: str) -> dict[str, str]:
    """The embedded default on a database in tmp_path (its secret file beside it), plus `env`."""
    base = {name: value for name, value in os.environ.items() if name not in CLEARED}
    return {
        **base,
        "DJANGO_SETTINGS_MODULE": "bunco_club.site.settings",
        "DATABASE_URL": "",
        "REDIS_URL": "",
        "SQLITE_PATH": str(tmp_path / "db.sqlite3"),
        **env,
    }


def run_python(code: str, tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """`code` run after django.setup() in a new process."""
    return subprocess.run(
        [sys.executable, "-c", f"import django\ndjango.setup()\n{code}"],
        cwd=ROOT, env=site_env(tmp_path, **env), capture_output=True, text=True, timeout=120,
    )


def manage(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT, env=site_env(tmp_path, **env), capture_output=True, text=True, timeout=120,
    )
