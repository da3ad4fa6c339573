#!/bin/bash
# Bunco Club on a fresh Debian 12 server, with HTTPS, in one command (issue 48; docs/OPERATIONS.md).
#
#   sudo scripts/install_server.sh bunco.example.org          # install, or upgrade in place
#   scripts/install_server.sh --root /tmp/try bunco.example.org   # write the files only, under /tmp/try
#   scripts/install_server.sh --dry-run bunco.example.org    # the same, in a new temporary folder
#
# As root, from a checkout of the project: installs PostgreSQL, Redis and Caddy from Debian's
# packages; creates the system user `bunco`; copies this checkout to /opt/bunco/app; makes the
# virtualenv /opt/bunco/venv (Python 3.12 or newer: Debian 12 has 3.11, so when none is found uv
# fetches one, below); writes /etc/bunco/bunco.env (mode 600, a SECRET_KEY made once and kept), the
# systemd units and /etc/caddy/Caddyfile (scripts/server_files.py); makes the database; migrates,
# collects the static files, and (re)starts everything. Run again (after `git pull`, say) it
# upgrades in place: the new code, migrations, a restart; the secret and the data (PostgreSQL) stay,
# so a night being played goes on (its phones reconnect their streams by themselves).
set -euo pipefail

CHECKOUT="$(cd "$(dirname "$0")/.." && pwd)"
APP=/opt/bunco/app
VENV=/opt/bunco/venv
STATE=/var/lib/bunco
ENV_FILE=/etc/bunco/bunco.env
USER_NAME=bunco
UNITS="bunco-pages bunco-streams bunco-worker bunco-beat"

say() { printf '[install_server] %s\n' "$*"; }
die() { printf 'install_server: %s\n' "$*" >&2; exit 1; }

usage() {
    sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
    exit "${1:-0}"
}

ROOT=""
DOMAIN=""
while [ $# -gt 0 ]; do
    case "$1" in
        --root) [ $# -ge 2 ] || usage 2; ROOT="$2"; shift 2 ;;
        --dry-run) ROOT="$(mktemp -d /tmp/bunco-install-XXXXXX)"; shift ;;
        -h|--help) usage 0 ;;
        -*) usage 2 ;;
        *) DOMAIN="$1"; shift ;;
    esac
done
[ -n "$DOMAIN" ] || usage 2
case "$DOMAIN" in
    *[!A-Za-z0-9.-]*|.*|*.) die "'$DOMAIN' is not a domain name (e.g. bunco.example.org)" ;;
esac

render_files() {  # $1: the Python that runs server_files.py; $2: the root folder
    "$1" "$CHECKOUT/scripts/server_files.py" --domain "$DOMAIN" --root "$2" \
        --app-dir "$APP" --venv "$VENV" --state-dir "$STATE" --user "$USER_NAME"
}

if [ -n "$ROOT" ]; then
    say "Writing the server's files for $DOMAIN under $ROOT (nothing installed, nothing started)"
    render_files python3 "$ROOT"
    exit 0
fi

[ "$(id -u)" = 0 ] || die "run it as root (sudo $0 $DOMAIN), or with --dry-run to see the files"
command -v apt-get >/dev/null || die "this installer is for Debian 12 (apt-get not found)"

install_packages() {
    say "Installing PostgreSQL, Redis, Caddy and Python's venv from Debian's packages"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq postgresql redis-server caddy python3 python3-venv rsync ca-certificates >/dev/null
}

make_user() {
    if id "$USER_NAME" >/dev/null 2>&1; then
        say "System user $USER_NAME: already there"
    else
        say "Creating the system user $USER_NAME (home $STATE)"
        useradd --system --home-dir "$STATE" --create-home --shell /usr/sbin/nologin "$USER_NAME"
    fi
    install -d -o "$USER_NAME" -g "$USER_NAME" -m 700 "$STATE" "$STATE/backups" "$STATE/static"
}

copy_code() {
    if [ "$CHECKOUT" = "$APP" ]; then
        say "Code: running from $APP itself"
        return
    fi
    say "Copying the code from $CHECKOUT to $APP"
    install -d -m 755 "$APP"
    rsync -a --delete --exclude .git --exclude .venv --exclude 'db.sqlite3*' --exclude .bunco-secret.json \
        --exclude staticfiles --exclude backups --exclude __pycache__ --exclude node_modules "$CHECKOUT/" "$APP/"
    chown -R root:root "$APP"
    chmod -R a+rX "$APP"
}

# Python 3.12 or newer, as the Makefile finds it (scripts/find_python.sh); Debian 12 has 3.11 alone,
# so then uv (from PyPI, in a virtualenv of Debian's python3) installs a CPython 3.12 build of its
# own into /opt/bunco/python. Prints the Python's path.
# A Python the site's user cannot run is passed over: one under root's home (pyenv in /root, mode
# 700) would make a virtualenv whose python the site's processes are refused ("Permission denied").
find_python() {
    local found
    if found="$("$CHECKOUT/scripts/find_python.sh" 2>/dev/null)"; then
        if runuser -u "$USER_NAME" -- "$found" -c 'import sys' >/dev/null 2>&1; then
            echo "$found"
            return
        fi
        say "$found: the user $USER_NAME cannot run it (it is under root's home?), so it is not used" >&2
    fi
    if [ ! -x /opt/bunco/python/bin/python3.12 ]; then
        say "No Python 3.12+ here that $USER_NAME can run (Debian 12 has 3.11): installing one with uv into /opt/bunco/python" >&2
        python3 -m venv /opt/bunco/uv
        /opt/bunco/uv/bin/pip install --quiet --disable-pip-version-check uv
        UV_PYTHON_INSTALL_DIR=/opt/bunco/uv-pythons /opt/bunco/uv/bin/uv python install 3.12 >&2
        ln -sfn "$(UV_PYTHON_INSTALL_DIR=/opt/bunco/uv-pythons /opt/bunco/uv/bin/uv python find 3.12 | xargs dirname | xargs dirname)" /opt/bunco/python
    fi
    echo /opt/bunco/python/bin/python3.12
}

make_venv() {  # an upgrade keeps the virtualenv (and its Python): no Python is looked for then
    local python
    install -d -m 755 /opt/bunco
    if [ ! -x "$VENV/bin/python" ]; then
        python="$(find_python)"
        say "Making the virtualenv $VENV ($("$python" --version))"
        "$python" -m venv "$VENV"
    fi
    say "Installing the site's Python packages (requirements.txt)"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check --upgrade pip
    "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$APP/requirements.txt"
}

make_database() {
    systemctl enable --now postgresql redis-server >/dev/null
    if runuser -u postgres -- psql -tAc "SELECT 1 FROM pg_roles WHERE rolname = '$USER_NAME'" | grep -q 1; then
        say "PostgreSQL: role and database $USER_NAME already there (kept as they are)"
    else
        say "PostgreSQL: creating the role and database $USER_NAME"
        runuser -u postgres -- createuser "$USER_NAME"
        runuser -u postgres -- createdb -O "$USER_NAME" "$USER_NAME"
    fi
}

as_site() {  # a command as the site's user, with its environment file
    # The file is read as systemd reads it (server_files.py with-env), never sourced by the shell.
    (cd "$APP" && "$VENV/bin/python" "$APP/scripts/server_files.py" with-env "$ENV_FILE" -- runuser -u "$USER_NAME" -- "$@")
}

write_manage_command() {  # bunco-manage: the site's manage.py, for root, as the site's user
    cat > /usr/local/bin/bunco-manage <<EOF
#!/bin/sh
# The installed site's manage.py, as its user with its environment (scripts/install_server.sh).
# The environment file is read as systemd reads it, never sourced by the shell.
cd $APP && exec $VENV/bin/python $APP/scripts/server_files.py with-env $ENV_FILE -- runuser -u $USER_NAME -- $VENV/bin/python manage.py "\$@"
EOF
    chmod 755 /usr/local/bin/bunco-manage
}

database_migrated() {  # whether the site's database exists with its tables (an earlier run migrated it)
    runuser -u postgres -- psql -d "$USER_NAME" -tAc "SELECT to_regclass('public.django_migrations') IS NOT NULL" \
        2>/dev/null | grep -q t
}

# An upgrade backs the database up first, with the installed code and environment, before anything
# changes (packages, code, migrations): a failed backup stops the upgrade with nothing changed.
BACKUP_FILE=""
backup_before_upgrading() {
    if [ ! -x "$VENV/bin/python" ] || [ ! -f "$ENV_FILE" ] || ! command -v psql >/dev/null || ! database_migrated; then
        return 0
    fi
    say "Backing up the database before upgrading (manage.py backup, into $STATE/backups)"
    local made
    made="$(as_site "$VENV/bin/python" manage.py backup)" \
        || die "the backup before upgrading failed (above): nothing was changed, the site runs as it did"
    BACKUP_FILE="$(printf '%s' "$made" | "$VENV/bin/python" -c 'import json, sys; print(json.load(sys.stdin)["file"])')"
    say "Backup: $BACKUP_FILE"
}

# A second run finds the environment file there and keeps it: say so, before it is rendered again.
if [ -f "$ENV_FILE" ]; then FIRST_RUN=no; else FIRST_RUN=yes; fi
backup_before_upgrading
install_packages
make_user
copy_code
make_venv
write_manage_command
say "Writing $ENV_FILE, the systemd units and /etc/caddy/Caddyfile"
render_files "$VENV/bin/python" /
make_database
say "Migrating the database"
as_site "$VENV/bin/python" manage.py migrate --noinput
say "Collecting the static files into $STATE/static"
as_site "$VENV/bin/python" manage.py collectstatic --noinput -v0
systemctl daemon-reload
systemctl enable bunco.target caddy >/dev/null
for unit in $UNITS; do systemctl enable "$unit" >/dev/null; done
say "(Re)starting the site's processes and Caddy"
# shellcheck disable=SC2086
systemctl restart $UNITS
systemctl reload-or-restart caddy

say "Waiting for the pages to answer /health/"
answered=no
for _ in $(seq 60); do
    if "$VENV/bin/python" -c "import urllib.request; urllib.request.urlopen(urllib.request.Request('http://127.0.0.1:8001/health/', headers={'Host': '$DOMAIN'}), timeout=2)" 2>/dev/null; then
        answered=yes
        break
    fi
    sleep 1
done
[ "$answered" = yes ] || die "the pages did not answer within 60 s: journalctl -u bunco-pages -n 50 says why"

echo
if [ "$FIRST_RUN" = yes ]; then
    say "Installed. A new SECRET_KEY is in $ENV_FILE (mode 600): keep a copy, the site's links depend on it."
else
    say "Upgraded in place: new code, migrations applied, processes restarted; SECRET_KEY and data kept."
    if [ -n "$BACKUP_FILE" ]; then
        say "Before it:  a backup, $BACKUP_FILE (to go back: docs/OPERATIONS.md, \"Backups\")"
    fi
fi
say "Processes: systemctl status bunco.target $UNITS caddy"
say "Logs:      journalctl -u bunco-pages -u bunco-streams -u bunco-worker -u bunco-beat -u caddy -f"
say "Backups:   $STATE/backups (daily, by Celery beat; docs/OPERATIONS.md says how to copy them off)"
say "The site:  https://$DOMAIN/  (Caddy gets its certificate from Let's Encrypt on the first visit:"
say "           the domain's DNS must point at this server, and ports 80 and 443 must be open)"
if ! grep -q '^EMAIL_HOST=' "$ENV_FILE"; then
    say "Mail:      no EMAIL_HOST yet, so club emails go to the journal (the processes' logs): add"
    say "           EMAIL_HOST, EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD, EMAIL_USE_TLS and"
    say "           DEFAULT_FROM_EMAIL at the end of $ENV_FILE, then run this again"
fi
say "manage.py: bunco-manage COMMAND (as root), e.g. bunco-manage createsuperuser, bunco-manage backup"
