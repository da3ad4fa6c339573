#!/bin/sh
# Makes sure the machine has what the test suite drives: Debian's Chromium for the browser tests
# (its headless shell, package chromium-headless-shell: tests/conftest.py says why; never a browser
# downloaded by Playwright), nginx for the scaled layout's tests, and Caddy for the server installer's
# (tests/bunco_club/site/test_install_server.py), and GNU gettext for the catalogs' check
# (tests/i18n/test_catalog.py refreshes a copy of them).
# Usage: scripts/ensure_packages.sh chromium [nginx] [caddy] [wrk] [gettext]
# As root a missing package is installed with apt-get; otherwise it stops at once with the one
# command to run. CHROMIUM_PATH names another Chromium: it is checked, never installed over.
set -eu

missing=""
for need in "$@"; do
    case "$need" in
        chromium)
            if [ -n "${CHROMIUM_PATH:-}" ]; then
                if [ ! -x "$CHROMIUM_PATH" ]; then
                    echo "The browser tests need Chromium, and CHROMIUM_PATH=$CHROMIUM_PATH is not an executable." >&2
                    echo "Point CHROMIUM_PATH at Chromium, or unset it and run: apt-get install -y chromium-headless-shell" >&2
                    exit 1
                fi
            elif [ ! -x /usr/bin/chromium-headless-shell ]; then
                missing="$missing chromium-headless-shell"
            fi ;;
        nginx) command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing="$missing nginx-light" ;;
        caddy) command -v caddy >/dev/null 2>&1 || missing="$missing caddy" ;;
        wrk) command -v wrk >/dev/null 2>&1 || missing="$missing wrk" ;;
        gettext) command -v xgettext >/dev/null 2>&1 || missing="$missing gettext" ;;
        *) echo "ensure_packages.sh: unknown need '$need'" >&2; exit 2 ;;
    esac
done

[ -z "$missing" ] && exit 0
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing$missing (Debian packages, once)"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
    exit 0
fi
echo "The test suite needs$missing. Install it, then run make again:" >&2
echo "    sudo apt-get install -y$missing" >&2
exit 1
