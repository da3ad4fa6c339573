"""The one-command server (issue 48, scripts/install_server.sh): the files it writes are checked by
the tools that will read them (systemd-analyze verify, caddy validate), its environment file keeps
its secret when run again, and Caddy with the written Caddyfile (its internal CA standing in for
Let's Encrypt) serves a page and a live stream over HTTPS on 127.0.0.1.

Not exercised here: Let's Encrypt itself, systemd as PID 1 starting the units, apt-get on a fresh
Debian 12 server (docs/OPERATIONS.md, "One command for a server")."""

from __future__ import annotations

import http.client
import os
import shutil
import ssl
import stat
import subprocess
import urllib.request
from dataclasses import replace
from pathlib import Path

import pytest

from live import actions
from scripts.run_scaled import free_ports
from scripts.server_files import Layout, caddyfile, read_env, units, write_all
from tests.bunco_club.site_process import run_python
from tests.conftest import ROOT, ServerProcess
from tests.reliability.phones import wait_for

SCRIPT = ROOT / "scripts" / "install_server.sh"
DOMAIN = "bunco.example.org"


def layout_here(tmp_path: Path, port: int = 0) -> Layout:
    """The server's layout with this checkout as its code and its .venv as the virtualenv: the
    commands the units name exist, as systemd-analyze verify requires. `port`: a test server's, for
    the pages and the streams alike."""
    layout = Layout(DOMAIN, app_dir=ROOT, venv=ROOT / ".venv", state_dir=tmp_path / "state")
    return replace(layout, pages_port=port, streams_port=port) if port else layout


def written(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    write_all(root, layout_here(tmp_path))
    return root


@pytest.mark.skipif(not shutil.which("systemd-analyze"), reason="systemd-analyze is not installed")
def test_the_four_units_and_their_target_pass_systemd_analyze_verify(tmp_path):
    folder = written(tmp_path) / "etc/systemd/system"
    names = sorted(path.name for path in folder.iterdir())
    assert names == ["bunco-beat.service", "bunco-pages.service", "bunco-streams.service",
                     "bunco-worker.service", "bunco.target"]
    checked = subprocess.run(["systemd-analyze", "verify", "--man=no", *names], cwd=folder,
                             capture_output=True, text=True, timeout=20)
    # verify exits 0 on a line it could not parse ("…, ignoring"): any word from it is a failure.
    assert (checked.returncode, checked.stdout + checked.stderr) == (0, "")


def test_every_process_runs_as_the_site_user_with_its_environment_and_comes_back_when_it_fails(tmp_path):
    for name, text in units(layout_here(tmp_path)).items():
        if name.endswith(".service"):
            assert "User=bunco\n" in text and "EnvironmentFile=/etc/bunco/bunco.env\n" in text
            assert "Restart=on-failure\n" in text and f"WorkingDirectory={ROOT}\n" in text
            assert "WantedBy=bunco.target" in text
    commands = "".join(units(layout_here(tmp_path)).values())
    assert "gunicorn bunco_club.site.wsgi:application --bind 127.0.0.1:8001" in commands
    assert "uvicorn bunco_club.site.asgi:application --host 127.0.0.1 --port 8002" in commands
    assert "celery -A bunco_club.site worker" in commands and "celery -A bunco_club.site beat" in commands


@pytest.mark.skipif(not shutil.which("caddy"), reason="caddy is not installed (apt-get install -y caddy)")
def test_the_caddyfile_passes_caddy_validate_and_sends_streams_unbuffered(tmp_path):
    path = written(tmp_path) / "etc/caddy/Caddyfile"
    text = path.read_text()
    streams = text[text.index("handle /events/*"):text.index("handle {")]
    assert "reverse_proxy 127.0.0.1:8002" in streams and "flush_interval -1" in streams
    assert text.startswith("# Bunco Club") and f"\n{DOMAIN} {{\n" in text and "tls internal" not in text
    checked = subprocess.run(["caddy", "validate", "--adapter", "caddyfile", "--config", str(path)],
                             capture_output=True, text=True, timeout=20, env=caddy_env(tmp_path))
    assert checked.returncode == 0, checked.stderr


def test_the_environment_file_is_the_owners_alone_and_keeps_its_secret_and_the_hosts_lines(tmp_path):
    root = written(tmp_path)
    env_path = root / "etc/bunco/bunco.env"
    first = read_env(env_path.read_text())
    assert stat.S_IMODE(env_path.stat().st_mode) == 0o600
    assert len(first["SECRET_KEY"]) > 50 and first["ALLOWED_HOSTS"] == DOMAIN
    assert first["SITE_URL"] == first["CSRF_TRUSTED_ORIGINS"] == f"https://{DOMAIN}"
    assert first["DATABASE_URL"] == "postgres://bunco@%2Fvar%2Frun%2Fpostgresql/bunco"
    env_path.write_text(env_path.read_text() + "EMAIL_HOST=smtp.example.org\n")

    write_all(root, layout_here(tmp_path))  # the installer run again: an upgrade

    second = read_env(env_path.read_text())
    assert second["SECRET_KEY"] == first["SECRET_KEY"]
    assert second["EMAIL_HOST"] == "smtp.example.org"
    assert stat.S_IMODE(env_path.stat().st_mode) == 0o600


def test_the_site_started_with_the_environment_file_and_an_smtp_server_passes_djangos_deployment_checks(tmp_path):
    # Without EMAIL_HOST the checks say mail would go to the console: the host adds their SMTP
    # server below the line (the installer prints so), and a later run keeps it.
    env_path = written(tmp_path) / "etc/bunco/bunco.env"
    env_path.write_text(env_path.read_text() + "EMAIL_HOST=smtp.example.org\n")
    write_all(tmp_path / "root", layout_here(tmp_path))
    env = read_env(env_path.read_text())
    done = run_python(
        "import sys\nfrom django.conf import settings\nfrom django.core.management import call_command\n"
        "print(settings.DATABASES['default']['HOST'], settings.EVENTS_BACKEND, settings.SECURE_SSL_REDIRECT)\n"
        "try:\n    call_command('check', '--deploy', '--fail-level', 'WARNING')\n"
        "except Exception as error:\n    print(error)\n    sys.exit(1)\n",
        tmp_path, **env,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "/var/run/postgresql redis True" in output and "WARNINGS" not in output, output


def test_the_installers_commands_read_the_environment_file_as_systemd_does_not_as_a_shell(tmp_path):
    """A sender written as the docs say (`Name <address>`), a password with `$` and a quoted value
    reach the command as systemd would give them to the services; a shell sourcing the file would
    fail on the first and change the second."""
    env_file = tmp_path / "bunco.env"
    env_file.write_text('DEFAULT_FROM_EMAIL=Bunco Club <club@example.org>\nEMAIL_HOST_PASSWORD=pa$$word`x`\n'
                        'QUOTED="two words"\n')
    shown = subprocess.run([str(ROOT / ".venv" / "bin" / "python"), str(ROOT / "scripts" / "server_files.py"),
                            "with-env", str(env_file), "--", "printenv", "DEFAULT_FROM_EMAIL", "EMAIL_HOST_PASSWORD",
                            "QUOTED"], capture_output=True, text=True, timeout=20)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines() == ["Bunco Club <club@example.org>", "pa$$word`x`", "two words"]
    assert read_env(env_file.read_text())["QUOTED"] == "two words"
    assert ". $ENV_FILE" not in SCRIPT.read_text() and '. "$ENV_FILE"' not in SCRIPT.read_text()


def test_the_installer_passes_bash_n_and_shellcheck_and_its_dry_run_writes_the_files_alone(tmp_path):
    assert subprocess.run(["bash", "-n", str(SCRIPT)], timeout=10).returncode == 0
    if shutil.which("shellcheck"):
        checked = subprocess.run(["shellcheck", str(SCRIPT)], capture_output=True, text=True, timeout=20)
        assert checked.returncode == 0, checked.stdout
    ran = subprocess.run([str(SCRIPT), "--root", str(tmp_path), DOMAIN], capture_output=True, text=True, timeout=20)
    assert ran.returncode == 0, ran.stderr
    assert "nothing installed, nothing started" in ran.stdout
    assert read_env((tmp_path / "etc/bunco/bunco.env").read_text())["ALLOWED_HOSTS"] == DOMAIN
    assert (tmp_path / "etc/caddy/Caddyfile").exists()
    refused = subprocess.run([str(SCRIPT), "--root", str(tmp_path), "bunco example"], capture_output=True,
                             text=True, timeout=10)
    assert refused.returncode == 1 and "is not a domain name" in refused.stderr


def caddy_env(tmp_path: Path) -> dict[str, str]:
    """Caddy's certificates and state in the test's folder, never the machine's."""
    return {**os.environ, "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"),
            "XDG_CONFIG_HOME": str(tmp_path / "config")}


def get(url: str, context: ssl.SSLContext) -> tuple[int, bytes]:
    with urllib.request.urlopen(url, timeout=10, context=context) as response:
        return response.status, response.read()


def stream_until(url: str, context: ssl.SSLContext, wanted: bytes) -> tuple[str, bytes]:
    """A stream's Content-Type and its first bytes, read as they come until `wanted` is among them
    (the stream never ends by itself: a buffering proxy would hold them back)."""
    with urllib.request.urlopen(url, timeout=10, context=context) as response:
        received = b""
        while wanted not in received:
            chunk = response.read1(4096)
            assert chunk, f"the stream ended before {wanted!r}: {received!r}"
            received += chunk
        return response.headers["Content-Type"], received


def redirect_of(port: int, path: str) -> tuple[int, str]:
    """What plain HTTP on `port` answers for `path`: Caddy's redirect to HTTPS."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.getheader("Location", "")
    finally:
        connection.close()


def wait_for_certificate(tmp_path: Path, caddy: subprocess.Popen[bytes]) -> ssl.SSLContext:
    """The internal CA's root, once Caddy has made it: what a phone would trust."""
    root_cert = tmp_path / "data/caddy/pki/authorities/local/root.crt"

    def made() -> bool:
        assert caddy.poll() is None, "caddy exited while starting"
        return root_cert.exists()

    wait_for("Caddy's internal CA", made)
    return ssl.create_default_context(cafile=str(root_cert))


def answered(url: str, context: ssl.SSLContext) -> tuple[int, bytes] | None:
    """The answer, or None while nothing listens there yet."""
    try:
        return get(url, context)
    except OSError:
        return None


@pytest.mark.skipif(not shutil.which("caddy"), reason="caddy is not installed (apt-get install -y caddy)")
def test_caddy_with_the_written_caddyfile_serves_a_page_and_a_live_stream_over_https(live_site: ServerProcess,
                                                                                       tmp_path):
    site_port = int(live_site.url.rsplit(":", 1)[1])
    https_port = free_ports(2)
    layout = layout_here(tmp_path, site_port)
    config = tmp_path / "Caddyfile"
    config.write_text(caddyfile(layout, site=f"https://127.0.0.1:{https_port}", tls_internal=True,
                                http_port=https_port + 1, https_port=https_port))
    room = actions.open_room()
    actions.send_ping(room, "Alice")
    caddy = subprocess.Popen(["caddy", "run", "--adapter", "caddyfile", "--config", str(config)],
                             env=caddy_env(tmp_path), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        context = wait_for_certificate(tmp_path, caddy)
        base = f"https://127.0.0.1:{https_port}"
        answer = wait_for("Caddy's HTTPS listener", lambda: answered(f"{base}/health/", context))  # follows the CA
        assert answer is not None and answer[0] == 200
        status, page = get(f"{base}/", context)
        assert status == 200 and b"Bunco" in page
        content_type, first = stream_until(f"{base}/events/check/{room.token}/", context, b"Alice")
        assert content_type == "text/event-stream" and b"id: " in first
        # Plain HTTP is sent to HTTPS (on a real server the ports are 80 and 443: Caddy 2.6 names no port).
        status, location = redirect_of(https_port + 1, "/n/")
        assert status == 308 and location.startswith("https://127.0.0.1") and location.endswith("/n/")
    finally:
        caddy.terminate()
        caddy.wait(timeout=10)
