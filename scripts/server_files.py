"""The files a club's server runs on, rendered for one domain (issue 48, scripts/install_server.sh).

    python3 scripts/server_files.py --domain bunco.example.org [--root DIR]

writes, under DIR (default /, the server itself):

- etc/bunco/bunco.env (mode 600): the site's environment. SECRET_KEY is made once and kept on every
  later render; the variables this script does not set (EMAIL_*, say) are kept as the host wrote them.
- etc/systemd/system/bunco-{pages,streams,worker,beat}.service and bunco.target: the scaled layout
  of scripts/run_scaled.py (gunicorn for pages and POSTs, uvicorn for /events/ streams, one Celery
  worker, one beat), each restarted on failure, run as the system user with the environment file.
- etc/caddy/Caddyfile: automatic HTTPS for the domain (Let's Encrypt, renewed by Caddy itself),
  /events/ to the streams unbuffered (flush_interval -1), everything else to the pages.

Standard library only, and Python 3.11 (Debian 12's python3): it runs before the site's virtualenv
exists. Tests render into a temporary folder (tests/bunco_club/site/test_install_server.py).
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
from dataclasses import dataclass
from pathlib import Path

# Ports on 127.0.0.1 behind Caddy: pages (gunicorn) and streams (uvicorn).
PAGES_PORT = 8001
STREAMS_PORT = 8002
# A request body over this is refused by Caddy as by the site (settings.REQUEST_BODY_MAX_BYTES).
BODY_MAX_BYTES = 1024 * 1024
# Save the one form that carries a photo (a supply's receipt, issue 45): settings.RECEIPT_MAX_BYTES's
# default and its few fields, as the site's own limit (bunco_club/site/asgi.py `body_limit`).
RECEIPT_FORM = r"^/clubs/[^/]+/treasury/entries/$"
RECEIPT_BODY_MAX_BYTES = 5 * 1024 * 1024 + 64 * 1024
# The backends keep an idle connection from the proxy longer than it does (scripts/run_scaled.py).
BACKEND_KEEP_ALIVE_SECONDS = 75
UNITS = ("bunco-pages", "bunco-streams", "bunco-worker", "bunco-beat")


@dataclass(frozen=True)
class Layout:
    """Where everything of one server lives."""

    domain: str
    app_dir: Path = Path("/opt/bunco/app")  # the code (a copy of the checkout the installer ran from)
    venv: Path = Path("/opt/bunco/venv")
    state_dir: Path = Path("/var/lib/bunco")  # the system user's home: static files, backups, beat's schedule
    env_file: Path = Path("/etc/bunco/bunco.env")
    user: str = "bunco"
    pages_port: int = PAGES_PORT
    streams_port: int = STREAMS_PORT
    web_workers: int = 4
    stream_workers: int = 2

    @property
    def bin(self) -> Path:
        return self.venv / "bin"


def read_env(text: str) -> dict[str, str]:
    """KEY=value lines (comments and blank lines skipped), as systemd's EnvironmentFile reads them."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#") and "=" in line:
            key, _, value = line.partition("=")
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
                value = value[1:-1]  # systemd takes a quoted value whole, without its quotes
            values[key.strip()] = value
    return values


def run_with_env(env_file: Path, command: list[str]) -> None:
    """Run `command` with the environment file's variables, read as systemd reads them: the shell
    must not source the file (a sender's `Name <address>` or a `$` in a password means something
    else to it), so the installer's commands and bunco-manage start through here."""
    os.environ.update(read_env(env_file.read_text()))
    os.execvp(command[0], command)


def managed_env(layout: Layout, secret_key: str) -> dict[str, str]:
    """The variables the installer sets (docs/OPERATIONS.md, "Every environment variable")."""
    return {
        "SECRET_KEY": secret_key,
        # PostgreSQL through its socket, as the system user of the same name (peer authentication).
        "DATABASE_URL": f"postgres://{layout.user}@%2Fvar%2Frun%2Fpostgresql/{layout.user}",
        "REDIS_URL": "redis://127.0.0.1:6379/0",
        "ALLOWED_HOSTS": layout.domain,
        "CSRF_TRUSTED_ORIGINS": f"https://{layout.domain}",
        "SITE_URL": f"https://{layout.domain}",
        "HTTPS": "1",
        # Caddy answers plain HTTP with its own redirect; the backends listen on 127.0.0.1 behind it alone.
        "TRUST_X_REAL_IP": "1",
        "STATIC_COLLECTED": "1",
        "STATIC_ROOT": str(layout.state_dir / "static"),
        "BACKUP_DIR": str(layout.state_dir / "backups"),
        "BUNCO_SECRET_FILE": str(layout.state_dir / "bunco-secret.json"),
        "REQUEST_BODY_MAX_BYTES": str(BODY_MAX_BYTES),
        "DJANGO_SETTINGS_MODULE": "bunco_club.site.settings",
        "PYTHONUNBUFFERED": "1",
    }


def render_env(layout: Layout, existing: str = "") -> str:
    """The environment file; `existing` is the file as it is now (its SECRET_KEY and the host's own
    variables are kept)."""
    kept = read_env(existing)
    managed = managed_env(layout, kept.get("SECRET_KEY") or secrets.token_urlsafe(50))
    lines = [
        "# Bunco Club's environment (scripts/install_server.sh). Re-running the installer rewrites the",
        "# variables above the line and keeps SECRET_KEY; your own variables go below it and are kept.",
        *(f"{key}={value}" for key, value in managed.items()),
        "# --- your own variables (EMAIL_HOST, EMAIL_PORT, DEFAULT_FROM_EMAIL, ...: docs/OPERATIONS.md) ---",
        *(f"{key}={value}" for key, value in kept.items() if key not in managed),
    ]
    return "\n".join(lines) + "\n"


def unit(layout: Layout, description: str, command: str) -> str:
    """A service of the site: its user, code, environment, and a restart whenever it fails."""
    return f"""[Unit]
Description=Bunco Club: {description}
After=network-online.target postgresql.service redis-server.service
Wants=network-online.target
PartOf=bunco.target
StartLimitIntervalSec=60
StartLimitBurst=5

[Service]
User={layout.user}
Group={layout.user}
WorkingDirectory={layout.app_dir}
EnvironmentFile={layout.env_file}
ExecStart={command}
Restart=on-failure
RestartSec=1
KillMode=control-group
LimitNOFILE=65536

[Install]
WantedBy=bunco.target
"""


def units(layout: Layout) -> dict[str, str]:
    """The four services of run_scaled.py's layout and the target that starts them together."""
    keep_alive = BACKEND_KEEP_ALIVE_SECONDS
    pages = (f"{layout.bin}/gunicorn bunco_club.site.wsgi:application --bind 127.0.0.1:{layout.pages_port} "
             f"--workers {layout.web_workers} --threads 4 --keep-alive {keep_alive}")
    streams = (f"{layout.bin}/uvicorn bunco_club.site.asgi:application --host 127.0.0.1 "
               f"--port {layout.streams_port} --workers {layout.stream_workers} --no-access-log "
               f"--timeout-graceful-shutdown 3 --timeout-keep-alive {keep_alive}")
    celery = f"{layout.bin}/celery -A bunco_club.site"
    return {
        "bunco-pages.service": unit(layout, "pages and POSTs (gunicorn)", pages),
        "bunco-streams.service": unit(layout, "live event streams (uvicorn)", streams),
        "bunco-worker.service": unit(layout, "background jobs (Celery worker)",
                                     f"{celery} worker --loglevel warning --concurrency 2"),
        "bunco-beat.service": unit(layout, "the clock's sweeps and the daily backup (Celery beat)",
                                   f"{celery} beat --loglevel warning --schedule {layout.state_dir}/celerybeat-schedule"),
        "bunco.target": ("[Unit]\nDescription=Bunco Club: every process of the site\n"
                         f"Wants={' '.join(f'{name}.service' for name in UNITS)}\n\n"
                         "[Install]\nWantedBy=multi-user.target\n"),
    }


def caddyfile(layout: Layout, *, site: str = "", tls_internal: bool = False,
              http_port: int = 0, https_port: int = 0) -> str:
    """Caddy in front of the site: `site` is the address it serves (the domain by default, whose
    certificate Caddy gets from Let's Encrypt and renews); the tests give 127.0.0.1 with Caddy's own
    internal CA (`tls_internal`) and ports of their own."""
    options = ["admin off", "skip_install_trust"] if tls_internal else []
    options += [f"http_port {http_port}"] if http_port else []
    options += [f"https_port {https_port}"] if https_port else []
    globals_block = "{\n" + "".join(f"\t{option}\n" for option in options) + "}\n\n" if options else ""
    proxy_headers = "\t\theader_up X-Real-IP {remote_host}\n"
    return f"""# Bunco Club (scripts/install_server.sh): HTTPS for {layout.domain}, the streams unbuffered.
{globals_block}{site or layout.domain} {{
{"	tls internal" + chr(10) if tls_internal else ""}	@receipt path_regexp {RECEIPT_FORM}
	@other not path_regexp {RECEIPT_FORM}
	request_body @other {{
		max_size {BODY_MAX_BYTES}
	}}
	request_body @receipt {{
		max_size {RECEIPT_BODY_MAX_BYTES}
	}}
	handle /events/* {{
		reverse_proxy 127.0.0.1:{layout.streams_port} {{
			# Each event reaches the phone as it happens, not when a buffer fills.
			flush_interval -1
	{proxy_headers}		}}
	}}
	handle {{
		reverse_proxy 127.0.0.1:{layout.pages_port} {{
	{proxy_headers}		}}
	}}
}}
"""


def write(path: Path, text: str, mode: int = 0o644) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
    with os.fdopen(fd, "w") as file:
        file.write(text)
    os.chmod(path, mode)
    return path


def under(root: Path, path: Path) -> Path:
    return root / path.relative_to("/")


def write_all(root: Path, layout: Layout) -> list[Path]:
    """Every file, under `root`; returns their paths."""
    env_path = under(root, layout.env_file)
    existing = env_path.read_text() if env_path.exists() else ""
    written = [write(env_path, render_env(layout, existing), 0o600)]
    os.chmod(env_path.parent, 0o700)
    systemd = under(root, Path("/etc/systemd/system"))
    written += [write(systemd / name, text) for name, text in units(layout).items()]
    written.append(write(under(root, Path("/etc/caddy/Caddyfile")), caddyfile(layout)))
    return written


def main(argv: list[str] | None = None) -> None:
    arguments = sys.argv[1:] if argv is None else argv
    if arguments[:1] == ["with-env"] and "--" in arguments:  # with-env FILE -- COMMAND ...
        split = arguments.index("--")
        run_with_env(Path(arguments[1]), arguments[split + 1:])
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--domain", required=True)
    parser.add_argument("--root", type=Path, default=Path("/"), help="write under this folder (default /)")
    parser.add_argument("--app-dir", type=Path, default=Layout.app_dir)
    parser.add_argument("--venv", type=Path, default=Layout.venv)
    parser.add_argument("--state-dir", type=Path, default=Layout.state_dir)
    parser.add_argument("--user", default=Layout.user)
    args = parser.parse_args(arguments)
    layout = Layout(args.domain, app_dir=args.app_dir, venv=args.venv, state_dir=args.state_dir, user=args.user)
    for path in write_all(args.root, layout):
        print(f"  wrote {path}")


if __name__ == "__main__":
    main()
