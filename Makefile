# Bunco Club: `make run` and `make test` are all the set-up a fresh machine needs.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
# The machine's services, for the scaled variants.
SERVICES_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/bunco_club
SERVICES_REDIS_URL ?= redis://127.0.0.1:6379/0
# The suite's PostgreSQL sessions do not wait for each commit's flush to disk (synchronous_commit
# off, for its own connections only): its test_ databases are thrown away, and a crash of the
# machine's PostgreSQL is no case the suite tests (the fault tests kill a private cluster of their
# own, with its own settings). Every other guarantee is PostgreSQL's as usual; the benchmarks and
# the site keep the flush. (A rough gain: the club's tests 212 s -> 154 s, under different loads;
# the whole pass took as long as before with a hundred more tests.)
TEST_SERVICES_DATABASE_URL ?= $(SERVICES_DATABASE_URL)?options=-c%20synchronous_commit%3Doff
PYTEST_ARGS ?=
# The address the club's emails and calendar entries link to: the one `make run` serves at, unless
# SITE_URL is given. 0.0.0.0 (or ::) listens on every address but is no address a phone can reach:
# then SITE_URL stays unset and the site uses the address a club's host reached it at.
SITE_URL ?= $(if $(filter 0.0.0.0 :: [::],$(HOST)),,http://$(HOST):$(PORT))

.PHONY: install-server run test proof proof-games proof-phones test-services test-all bench soak run-scaled services-db lint venv clean

venv: $(VENV)/.installed

$(VENV)/.installed: requirements.txt scripts/find_python.sh
	@python=$$(scripts/find_python.sh) || exit 1; \
	  [ -x $(PY) ] || $$python -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

run: venv
	$(PY) manage.py migrate --noinput
	$(PY) manage.py load_demo
	STATIC_COLLECTED=1 $(PY) manage.py collectstatic --noinput -v0
	@echo ""
	@echo "  Bunco Club is at http://$(HOST):$(PORT)/"
	@echo "  Demo host login: as load_demo printed it above (kept in .bunco-secret.json beside the database)"
	@echo ""
	SITE_URL="$(SITE_URL)" STATIC_COLLECTED=1 $(VENV)/bin/uvicorn bunco_club.site.asgi:application --host $(HOST) --port $(PORT) --timeout-graceful-shutdown 3 --no-access-log

# The whole suite on the embedded default: SQLite, in-process broadcaster, browser tests included
# (Debian's Chromium is installed first when missing, as root; otherwise the one command is shown).
# Two passes on pytest-xdist workers (each worker with its own test database, Redis database and
# server ports: tests/conftest.py): the tests without a browser on $(TEST_WORKERS), then the browser
# tests on $(BROWSER_WORKERS) (Playwright keeps an event loop in the process that starts it, beside
# which Django's test client refuses to run, so no worker runs both kinds). A browser test spends
# much of its time waiting on pages, a server and a person's pace (a whole night measured about one
# core busy of two), so that pass has a worker more than the cores. The browser tests are handed out
# one at a time, longest first, so that no worker ends with a long night alone. A pass that
# PYTEST_ARGS leaves without tests (exit 5) is not a failure. The long proofs (the `proof` marker:
# the later parts of the 200-game fairness proofs, a 24-player double-elimination tournament played
# at digital tables, the two whole nights on phones, whole games of Fill or Bust and Kismet and
# their phones' parts on phones) are left out: `make test` keeps a short case of each (the first 10
# games; a 5-player tournament; a dozen phones' night of a few rounds; a whole game of Ninety-Nine
# or Bust with its parts) and `make proof` runs them.
TEST_WORKERS ?= 2
# The browser tests `make test-services` runs: every one, unless given (.ci/run names those whose
# pages depend on PostgreSQL, Redis or the scaled layout).
SERVICES_E2E ?=
BROWSER_WORKERS ?= 3
XDIST := -n $(TEST_WORKERS)
BROWSER_XDIST := -n $(BROWSER_WORKERS) --dist load --maxschedchunk 1
# Each pass's pytest keeps what it compiles in __pycache__ (git ignores it), even where the
# environment says to write no bytecode (PYTHONDONTWRITEBYTECODE, set on the development machine):
# without it every worker of every pass rewrote the asserts of every test module and compiled the
# site again (10.7 s of a core to collect the suite, 4.3 s with the compiled files kept), and every
# server a browser test starts compiled the site again (1.2 s of a core, 0.9 s).
KEEP_BYTECODE := env -u PYTHONDONTWRITEBYTECODE
PYTEST := $(KEEP_BYTECODE) -u DATABASE_URL -u REDIS_URL $(PY) -m pytest
# The browser passes collect tests/e2e alone, unless PYTEST_ARGS names what to run: no other folder
# holds a browser test (tests/conftest.py marks e2e by that folder), and collecting the whole suite
# cost each browser worker 4.3 s of a core against 1.6 s for tests/e2e.
BROWSER_TESTS = $(if $(strip $(PYTEST_ARGS)),,tests/e2e)
test: venv
	@scripts/ensure_packages.sh chromium nginx caddy gettext
	$(PYTEST) $(XDIST) -m "not e2e and not proof" $(PYTEST_ARGS) || [ $$? -eq 5 ]
	$(PYTEST) $(BROWSER_XDIST) -m "e2e and not proof" $(BROWSER_TESTS) $(PYTEST_ARGS) || [ $$? -eq 5 ]

# The long proofs `make test` leaves out (the `proof` marker: hundreds of bot games played through
# the actions, each verified from its revealed seed; a 24-player tournament's every table; two
# whole 24-round nights and whole table games on phones in a browser), on the embedded default (SQLite), in the same two passes as `make test`: the games on
# $(TEST_WORKERS) workers that share their parts, then the nights on $(PROOF_BROWSER_WORKERS) (a
# night of 14 pages and a server keeps about one core busy). CI runs proof-games after `make test`.
PROOF_BROWSER_WORKERS ?= 2
proof: proof-games proof-phones

# The first pass alone (the games' proofs, no browser): what CI runs of `make proof`.
proof-games: venv
	$(PYTEST) $(XDIST) -m "proof and not e2e" $(PYTEST_ARGS) || [ $$? -eq 5 ]

# The second pass alone: the whole nights, games and seasons on phones in a browser.
proof-phones: venv
	@scripts/ensure_packages.sh chromium nginx
	$(PYTEST) -n $(PROOF_BROWSER_WORKERS) --dist load --maxschedchunk 1 -m "proof and e2e" $(BROWSER_TESTS) $(PYTEST_ARGS) || [ $$? -eq 5 ]

# The same suite against the machine's PostgreSQL and Redis, in the same two passes (each worker
# makes its own test_ copy of the database and takes its own Redis database: REDIS_URL's number
# plus the worker's). The long proofs are `make proof`'s, on SQLite: their games' moves and their
# verification are the same code on both databases.
test-services: venv services-db
	@scripts/ensure_packages.sh chromium nginx caddy gettext
	$(KEEP_BYTECODE) DATABASE_URL="$(TEST_SERVICES_DATABASE_URL)" REDIS_URL=$(SERVICES_REDIS_URL) $(PY) -m pytest $(XDIST) -m "not e2e and not proof" $(PYTEST_ARGS) || [ $$? -eq 5 ]
	$(KEEP_BYTECODE) DATABASE_URL="$(TEST_SERVICES_DATABASE_URL)" REDIS_URL=$(SERVICES_REDIS_URL) $(PY) -m pytest $(BROWSER_XDIST) -m "e2e and not proof" $(or $(strip $(SERVICES_E2E)),$(BROWSER_TESTS)) $(PYTEST_ARGS) || [ $$? -eq 5 ]

test-all: test proof test-services

bench: venv
	@scripts/ensure_packages.sh nginx wrk
	BENCH_ONLY=$(ONLY) $(PY) bench/run_all.py

# The soak of issue 21 (bench/soak.py): a 100-table night of 400 phones for SOAK_SECONDS of play
# on each layout of SOAK_LAYOUTS (embedded: 1 uvicorn, SQLite, in-process events; scaled: nginx ->
# gunicorn + 2 uvicorn, Redis, PostgreSQL), then its checks; exits 1 if one fails. docs/RELIABILITY.md
# "The soak" has its figures. CI runs it for 60 s a layout, the head table tapping 4 times as fast
# (SOAK_HEAD_PACE) and the phones not polling their page (SOAK_POLL_SECONDS=0), so that a bell
# rings within the minute on a shared machine.
SOAK_SECONDS ?= 600
SOAK_LAYOUTS ?= embedded,scaled
SOAK_HEAD_PACE ?= 1
SOAK_POLL_SECONDS ?= 10
soak: venv
	@scripts/ensure_packages.sh nginx
	SOAK_SECONDS=$(SOAK_SECONDS) SOAK_LAYOUTS=$(SOAK_LAYOUTS) SOAK_HEAD_PACE=$(SOAK_HEAD_PACE) \
	  SOAK_POLL_SECONDS=$(SOAK_POLL_SECONDS) $(PY) bench/soak.py

# The scaled layout of docs/OPERATIONS.md, locally, against the machine's PostgreSQL and Redis.
run-scaled: venv services-db
	STATIC_COLLECTED=1 $(PY) manage.py collectstatic --noinput -v0
	STATIC_COLLECTED=1 DATABASE_URL=$(SERVICES_DATABASE_URL) REDIS_URL=$(SERVICES_REDIS_URL) $(PY) scripts/run_scaled.py

# A club's site on a fresh Debian 12 server with HTTPS, as root: `make install-server
# DOMAIN=bunco.example.org` (docs/OPERATIONS.md). Run again, it upgrades in place.
install-server:
	@[ -n "$(DOMAIN)" ] || { echo "Usage: make install-server DOMAIN=bunco.example.org" >&2; exit 2; }
	scripts/install_server.sh $(DOMAIN)

# The PostgreSQL database the services targets point at (tests make their own test_ copy).
services-db:
	@psql "$(dir $(SERVICES_DATABASE_URL))postgres" -tAc "SELECT 1 FROM pg_database WHERE datname='$(notdir $(SERVICES_DATABASE_URL))'" | grep -q 1 \
	  || psql "$(dir $(SERVICES_DATABASE_URL))postgres" -qc "CREATE DATABASE $(notdir $(SERVICES_DATABASE_URL))"

# ruff, then mypy with django-stubs over the code, tests, benchmarks and scripts (pyproject.toml).
lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

# The translators' catalogs (docs/I18N.md): every marked word into locale/es/LC_MESSAGES/*.po, and
# their compiled .mo files, committed (scripts/messages.py says how; tests/i18n/test_catalog.py
# checks both are current).
.PHONY: messages
messages: venv
	$(PY) scripts/messages.py

clean:
	rm -rf $(VENV) db.sqlite3* staticfiles .pytest_cache .test-databases

# Lighthouse's accessibility score of the phone pages in light and dark (issue 32; docs/ACCESSIBILITY.md):
# Lighthouse 13 installed with npm into ~/.cache/bunco-lighthouse when missing, Debian's Chromium,
# the site on its own fresh database; exits 1 if a page scores under 95.
.PHONY: lighthouse
lighthouse: venv
	$(PY) scripts/lighthouse_a11y.py
