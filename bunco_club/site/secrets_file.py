"""The site's own secrets, made on first start and kept in a file outside git (wiring).

With no SECRET_KEY in the environment the embedded default makes a random key the first time it
starts and keeps it in a small JSON file beside the SQLite database (`.bunco-secret.json`, readable
by its owner only), so that sessions and join links survive a restart. The same file keeps the
demo host's password (`load_demo`), so `make run` prints the same one every time.

A site served beyond the machine or the home network (a public name in ALLOWED_HOSTS, or HTTPS)
with DEBUG off must set SECRET_KEY itself: the settings refuse to start without it (a key made on
one machine's disk is lost with the disk and differs between servers).
"""

from __future__ import annotations

import fcntl
import ipaddress
import json
import os
import secrets
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

FILE_NAME = ".bunco-secret.json"
SECRET_KEY = "secret_key"
DEMO_PASSWORD = "demo_password"

# What each secret is made of: a SECRET_KEY far past Django's 50 characters, and a password a
# person can type on a phone (12 characters, 72 random bits).
MAKERS: dict[str, Callable[[], str]] = {
    SECRET_KEY: lambda: secrets.token_urlsafe(64),
    DEMO_PASSWORD: lambda: secrets.token_urlsafe(9),
}

# Names that only this machine or its home network can reach (RFC 6761, RFC 6762, RFC 8375, and
# the private-use ".internal"); plus Django's test client.
LOCAL_NAMES = frozenset({"localhost", "testserver"})
LOCAL_SUFFIXES = (".localhost", ".local", ".lan", ".home.arpa", ".internal")


def beside(database_path: str | os.PathLike[str]) -> Path:
    """Where the secret file goes by default: in the directory of the SQLite database."""
    return Path(database_path).resolve().parent / FILE_NAME


def read(path: Path) -> dict[str, str]:
    """The secrets in the file, {} when there is no file yet."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return {}
    try:
        values = json.loads(text)
    except ValueError as error:
        raise ImproperlyConfigured(
            f"The secret file {path} is not valid JSON. Delete it to make a new one (everyone is "
            "logged out), or set SECRET_KEY."
        ) from error
    if not isinstance(values, dict):
        raise ImproperlyConfigured(f"The secret file {path} should hold a JSON object. Delete it to make a new one.")
    return {name: value for name, value in values.items() if isinstance(value, str) and value}


def secret(path: Path, name: str) -> str:
    """The named secret from the file; on first use it is made at random and saved (mode 600).

    Several processes starting at once (uvicorn workers) agree: the file is written under a lock
    and replaced whole, so a reader sees the old file or the new one, never half of one.
    """
    value = read(path).get(name)
    if value:
        return value
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with _locked(path.parent):
            values = read(path)
            if not values.get(name):
                values = {**{key: make() for key, make in MAKERS.items()}, **values}
                values.setdefault(name, secrets.token_urlsafe(32))
                _write(path, values)
    except OSError as error:
        raise ImproperlyConfigured(
            f"Could not write the secret file {path} ({error.strerror}). Set SECRET_KEY, or point "
            "BUNCO_SECRET_FILE at a file this user may write."
        ) from error
    return values[name]


SQLITE_COMPANIONS = ("", "-wal", "-shm", "-journal")


def owner_only(database_path: str | os.PathLike[str]) -> None:
    """Make the SQLite database readable by its owner only, as the secret file beside it: it holds
    members' emails and phones, password hashes and sessions. A new database file is created empty
    with mode 600 before SQLite opens it (SQLite then gives its -wal and -shm files the database's
    mode); one made by an older version with 644, and its companions, are set to 600."""
    path = Path(database_path)
    if str(database_path) == ":memory:" or str(database_path).startswith("file:") or not path.parent.is_dir():
        return  # an in-memory database, a URI SQLite parses itself, or a folder SQLite will complain of
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))  # an existing file is left as it is
        for suffix in SQLITE_COMPANIONS:
            companion = path.with_name(path.name + suffix)
            if companion.exists() and companion.stat().st_mode & 0o077:
                os.chmod(companion, 0o600)
    except OSError as error:
        raise ImproperlyConfigured(
            f"Could not make the database {path} readable by its owner only ({error.strerror}). Run the "
            "site as the user who owns it, or point SQLITE_PATH at a file this user may write."
        ) from error


def public_hosts(hosts: Iterable[str]) -> list[str]:
    """The ALLOWED_HOSTS entries that reach beyond this machine and its home network.

    Loopback and private addresses (a laptop on the living room's Wi-Fi) and local names are not
    public; "*", a domain name, or a public address is.
    """
    public = []
    for host in hosts:
        name = host.strip().lower().lstrip(".").rstrip(".")
        if name in LOCAL_NAMES or name.endswith(LOCAL_SUFFIXES):
            continue
        try:
            address = ipaddress.ip_address(name.removeprefix("[").removesuffix("]"))
        except ValueError:
            public.append(host)
            continue
        if not (address.is_loopback or address.is_private or address.is_link_local):
            public.append(host)
    return public


@contextmanager
def _locked(directory: Path) -> Iterator[None]:
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # closing releases the lock


def _write(path: Path, values: dict[str, str]) -> None:
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(descriptor, "w") as file:
            json.dump(values, file, indent=2)
            file.write("\n")
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, 0o600)  # O_CREAT's mode is only used for a new file
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
