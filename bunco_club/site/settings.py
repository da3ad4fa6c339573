"""Bunco Club settings: one file, configured by environment variables.

Unset variables give the embedded default of docs/DESIGN.md §5 (SQLite in WAL mode, the in-process
broadcaster, Celery eager, the in-process round clock): `make run` needs no set-up at all.
Setting DATABASE_URL and REDIS_URL gives the scaled layout (PostgreSQL, Redis pub/sub, Celery
workers). See docs/OPERATIONS.md.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from bunco_club.site import secrets_file

BASE_DIR = Path(__file__).resolve().parent.parent.parent


def truthy(value: str | None, default: bool) -> bool:
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_bool(name: str, default: bool) -> bool:
    return truthy(os.environ.get(name), default)


def env_int(name: str, default: int) -> int:
    """A whole number from the environment, `default` when unset or empty; a value that is not one
    stops the start with the variable's name (not a bare ValueError from deep in the settings)."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {raw!r}.") from None


def env_float(name: str, default: float) -> float:
    """A number of seconds (or any decimal) from the environment, as env_int does for whole ones."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, not {raw!r}.") from None


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1],testserver")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

# --- Secret key (bunco_club/site/secrets_file.py) ---------------------------------------------------
# SECRET_KEY from the environment wins. Without it the embedded default makes a random key on first
# start and keeps it in a file beside the SQLite database (mode 600, outside git); a site served
# beyond this machine and its home network with DEBUG off refuses to start instead.
SECRET_FILE = Path(
    os.environ.get("BUNCO_SECRET_FILE")
    or secrets_file.beside(os.environ.get("SQLITE_PATH") or BASE_DIR / "db.sqlite3")
)
_public_hosts = secrets_file.public_hosts(ALLOWED_HOSTS)
if os.environ.get("SECRET_KEY"):
    SECRET_KEY = os.environ["SECRET_KEY"]
elif not DEBUG and (env_bool("HTTPS", False) or _public_hosts):
    _served_as = f"ALLOWED_HOSTS={','.join(_public_hosts)}" if _public_hosts else "HTTPS=1"
    raise ImproperlyConfigured(
        f"SECRET_KEY is not set, and this site is served beyond this machine ({_served_as}, DEBUG off). "
        "Set the SECRET_KEY environment variable to a long random string, the same on every server and "
        "kept across restarts, e.g. the output of: python -c 'import secrets; print(secrets.token_urlsafe(64))' "
        "(docs/OPERATIONS.md)."
    )
else:
    SECRET_KEY = secrets_file.secret(SECRET_FILE, secrets_file.SECRET_KEY)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "django_ratelimit",
    "bunco_club",
    "bunco_club.site",
    "live",
    "games",
    "tournaments",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "bunco_club.site.security.PermissionsPolicyMiddleware",
    # Every answer: Vary: HX-Request, Accept and, unless the view set its own, Cache-Control: no-store.
    "bunco_club.site.caching.KeptByNoCacheMiddleware",
    "django.middleware.gzip.GZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The reader's language: the switch's cookie, else the phone's Accept-Language (docs/I18N.md),
    # as LocaleMiddleware finds it, without its two thread hops a request under ASGI.
    "bunco_club.site.language.language_middleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # A view that cannot reach the database answers 503 with a sentence, not the 500 page (and logs it).
    "bunco_club.site.unavailable.DatabaseUnavailableMiddleware",
]

ROOT_URLCONF = "bunco_club.site.urls"
WSGI_APPLICATION = "bunco_club.site.wsgi.application"
ASGI_APPLICATION = "bunco_club.site.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.csp",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
            "builtins": ["django_htmx.templatetags.django_htmx"],
        },
    },
]

# --- Database -------------------------------------------------------------------------------
DATABASE_URL = os.environ.get("DATABASE_URL", "")
if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=0)}
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        # psycopg 3's pool: connections are reused across requests without conn_max_age.
        # Parameters bound on the server, and a statement a connection has run this many times
        # prepared: PostgreSQL then plans it once, not at every tap. Planning was most of the
        # database's time for a tap (docs/PERFORMANCE.md, issue 22). 0 turns preparing off (a pooler
        # in front of PostgreSQL that cannot keep prepared statements).
        prepare_after = env_int("DB_PREPARE_THRESHOLD", 5)
        DATABASES["default"].setdefault("OPTIONS", {}).update(
            server_side_binding=True, prepare_threshold=prepare_after or None)
        DATABASES["default"]["OPTIONS"]["pool"] = {
            "min_size": env_int("DB_POOL_MIN", 2),
            "max_size": env_int("DB_POOL_MAX", 20),
            # How long a request waits for a connection before it is answered 503 (PostgreSQL down,
            # or every connection busy): bunco_club/site/unavailable.py.
            "timeout": env_float("DB_POOL_TIMEOUT", 10),
        }
else:
    SQLITE_PATH = os.environ.get("SQLITE_PATH", str(BASE_DIR / "db.sqlite3"))
    # Owner-only, as the secret file beside it (mode 600, its -wal and -shm too): it holds emails,
    # phones, password hashes and sessions.
    secrets_file.owner_only(SQLITE_PATH)
    # NORMAL (WAL): a power cut may lose the transactions committed in the moments before it, never
    # corrupt the database. FULL syncs every commit to disk, at a cost per write (docs/OPERATIONS.md).
    SQLITE_SYNCHRONOUS = os.environ.get("SQLITE_SYNCHRONOUS", "NORMAL").strip().upper() or "NORMAL"
    if SQLITE_SYNCHRONOUS not in {"NORMAL", "FULL"}:
        raise ImproperlyConfigured(f"SQLITE_SYNCHRONOUS must be NORMAL or FULL, not {SQLITE_SYNCHRONOUS!r}.")
    DATABASES = {
        "default": {
            # Django's SQLite, its transactions queued for the write lock (bunco_club/site/sqlite/).
            "ENGINE": "bunco_club.site.sqlite",
            "NAME": SQLITE_PATH,
            "OPTIONS": {
                # IMMEDIATE takes the write lock at BEGIN, so two phones writing at once queue
                # behind the busy timeout instead of failing with "database is locked".
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
                "init_command": (
                    "PRAGMA journal_mode=WAL;"
                    f"PRAGMA synchronous={SQLITE_SYNCHRONOUS};"
                    "PRAGMA busy_timeout=20000;"
                    "PRAGMA foreign_keys=ON;"
                ),
            },
            "TEST": {"NAME": os.environ.get("SQLITE_TEST_PATH") or None},
            # A connection kept by each request thread (bunco_club/site/handler.py) for this many
            # seconds: opening one, with its PRAGMAs, was a large part of a tap's time on SQLite
            # (docs/PERFORMANCE.md, issue 47). 0 opens one a request. PostgreSQL's pool keeps its own.
            "CONN_MAX_AGE": env_int("DB_CONN_MAX_AGE", 600),
        }
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Events, cache and background jobs --------------------------------------------------------
REDIS_URL = os.environ.get("REDIS_URL", "")

if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    }
    CACHES["limits"] = CACHES["default"]  # the rate limits' counts: in Redis, shared by every process
else:
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
        # The rate limits' counts (live/limits.py), in the site's database: a restart must not
        # forget the wrong passwords and forged links counted (issue 42, S3). The table is
        # live.models.RateLimitCount's; expired counts are deleted once there are MAX_ENTRIES.
        "limits": {
            "BACKEND": "live.limits.CountsInTheDatabase",
            "LOCATION": "live_rate_limits",
            "OPTIONS": {"MAX_ENTRIES": 20_000},
        },
        # One process: its sessions are read from memory, written through to the database. Every
        # tap reads the phone's session; the database read was a quarter of a tap's cost.
        "sessions": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "sessions",
            "OPTIONS": {"MAX_ENTRIES": 20_000},  # a charity night's phones, hosts and projectors
        },
    }
    SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
    SESSION_CACHE_ALIAS = "sessions"
# With Redis (several processes) sessions stay in the database alone: a process's own memory would
# go stale when another process changed a session, and Django's cached sessions fail while Redis
# is down, which must not log anybody out.
RATELIMIT_USE_CACHE = "limits"

# Rate limits and lock-outs (live/limits.py): "count/period". A party shares one address
# behind its hall's Wi-Fi, so only failures are counted where a script and a guest differ: a good
# join link is never refused, and wrong passwords lock out an address and username together.
RATE_LIMITS = {
    "login": os.environ.get("RATE_LIMIT_LOGIN", "10/h"),  # wrong passwords from one address for one username
    "bad-join": os.environ.get("RATE_LIMIT_BAD_JOIN", "20/m"),  # forged or expired links from one address
    "claim": os.environ.get("RATE_LIMIT_CLAIM", "600/m"),  # tapping a name after joining
}
RATELIMIT_IP_META_KEY = "live.limits.client_address"
# Behind nginx (make run-scaled) every request comes from 127.0.0.1: the client is X-Real-IP.
TRUST_X_REAL_IP = env_bool("TRUST_X_REAL_IP", False)
SILENCED_SYSTEM_CHECKS = [
    # Django's own Redis cache increments atomically (INCRBY), and so do the database counts of
    # the embedded default (live.limits.CountsInTheDatabase); the check only knows django-redis.
    "django_ratelimit.W001",
]

# Celery: a real broker when Redis is configured, otherwise plain jobs run eagerly in-process.
CELERY_BROKER_URL = REDIS_URL or "memory://"
CELERY_RESULT_BACKEND = None
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_IGNORE_RESULT = True
# The worker outlives its broker (issues 33 and 42): a Redis that is away (restarted, the hall's
# router rebooted) is tried again for ever, at start and after a loss, every 2 s at most
# (bunco_club/site/celery.py), instead of the 100 tries after which a worker gives up and exits; a
# channel error is retried as a lost connection is. Every broker connection is the site's (a lost
# one is closed without killing the worker) and so is the worker's consumer (no gossip, mingle or
# heartbeat): celery.py says why. tests/reliability/test_fault_broker_outage.py: ten 8-s outages,
# half while the worker starts.
CELERY_BROKER_CONNECTION_RETRY = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_MAX_RETRIES = None
CELERY_BROKER_CHANNEL_ERROR_RETRY = True
CELERY_WORKER_CONSUMER = "bunco_club.site.celery:Consumer"
# Celery 6's default, said now: on a lost connection the worker cancels the running tasks it could
# no longer acknowledge (those with acks_late; the site has none), rather than warning at each loss.
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = True
# A dead connection is noticed within seconds (redis-py's health check), not at the next timeout.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 300, "health_check_interval": 10}
# The clock's task lives with the clock (a wiring module, not an app's tasks.py).
CELERY_IMPORTS = ["bunco_club.site.clock"]
CELERY_BEAT_SCHEDULE: dict[str, dict] = {
    # The round clock's safety sweep (scaled layout): whatever else fails, a due round closes
    # within seconds. The embedded default runs the same tickers in-process (bunco_club/site/clock.py).
    "tick-clock": {"task": "bunco_club.site.clock.tick_clock", "schedule": 5.0},
}

# Where live events go: "redis" (many processes) or "memory" (one process).
EVENTS_BACKEND = "redis" if REDIS_URL else "memory"
# A stream sends a comment this often so proxies and phones know it is alive; at the same
# moment it checks the database for rows a dead pub/sub might have missed.
EVENTS_HEARTBEAT_SECONDS = env_float("EVENTS_HEARTBEAT_SECONDS", 15)
# The threads of a serving process that run its requests (all but the streams), each whole in one
# go and each keeping its database connection (bunco_club/site/handler.py): a slow page (an export)
# holds one of them, never the taps.
REQUEST_THREADS = env_int("REQUEST_THREADS", 8)
# Streams end after this long and the browser reconnects with Last-Event-ID: it bounds the
# life of a connection whose other end vanished without a word.
EVENTS_STREAM_MAX_SECONDS = env_float("EVENTS_STREAM_MAX_SECONDS", 300)
# The safety net under the streams: every live page re-fetches itself this often, whatever the
# stream missed (the htmx `every Ns` triggers, static/js/table_live.js). Browser tests that must prove
# delivery by the stream turn it effectively off (an hour).
PHONE_POLL_SECONDS = env_int("PHONE_POLL_SECONDS", 10)

# --- Request bodies ---------------------------------------------------------------------------
# A request body over this is refused with 413 before it is read: by the ASGI app (bunco_club/site/asgi.py)
# and, in the scaled layout, by nginx (client_max_body_size, scripts/run_scaled.py). Django's own
# check of a form's size uses the same figure. No page sends more than a few kilobytes: a charity
# night's 400 names, a party's notes.
REQUEST_BODY_MAX_BYTES = env_int("REQUEST_BODY_MAX_BYTES", 1024 * 1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = REQUEST_BODY_MAX_BYTES

# --- Auth -------------------------------------------------------------------------------------
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
# The test suite (its own process and the servers it starts) makes hundreds of accounts: PBKDF2's
# deliberate slowness (about half a second a password here) would cost minutes and protect nothing.
# Never set it on a real site.
if env_bool("TESTS_FAST_PASSWORD_HASHING", False):
    PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# A server the test suite starts serves one browser test after another; between two tests the
# suite quiets it and wipes what it keeps in memory (bunco_club/site/between_tests.py). Those two doors
# exist only with this set: never on a real site.
TESTS_BETWEEN_TESTS_HOOKS = env_bool("TESTS_BETWEEN_TESTS_HOOKS", False)
SESSION_COOKIE_AGE = 60 * 60 * 24 * 30  # a phone stays joined for a month of club nights
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"

# --- Security headers -------------------------------------------------------------------------
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF, CSP.NONCE],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF],
    # Said outright, though default-src already allows them: the service worker (/sw.js), the web
    # app manifest, and the muted video that keeps a screen on where the browser has no wake lock
    # (static/media/keep-awake.*: a file of the site, never a data: or blob: address).
    "worker-src": [CSP.SELF],
    "manifest-src": [CSP.SELF],
    "media-src": [CSP.SELF],
}
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
if env_bool("HTTPS", False):
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    # Behind TLS: plain HTTP is redirected (except the load balancer's probes, which speak plain
    # HTTP to the app), and browsers are told to use HTTPS only (HSTS: a year by default).
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_REDIRECT_EXEMPT = [r"^alive/$", r"^health/$"]
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 60 * 60 * 24 * 365)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    # Asking browsers to preload the domain is a commitment for the whole registered domain that takes
    # months to undo: it is the operator's choice, so security.W021 ("preload is off") is advice here.
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
    if not SECURE_HSTS_PRELOAD:
        SILENCED_SYSTEM_CHECKS.append("security.W021")
# Browser features no page of the site uses, switched off for every page (bunco_club/site/security.py).
PERMISSIONS_POLICY = os.environ.get("PERMISSIONS_POLICY", "camera=(), microphone=(), geolocation=(), payment=()")

# --- Email ------------------------------------------------------------------------------------
# Django 6.1's MAILERS: the console by default (a living room needs no mail server); set
# EMAIL_HOST to send real reminders through SMTP.


def mailers(environ: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """MAILERS for these environment variables (the tests point a real SMTP server's at it too)."""
    if not environ.get("EMAIL_HOST"):
        return {"default": {"BACKEND": "django.core.mail.backends.console.EmailBackend"}}
    return {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {
                "host": environ["EMAIL_HOST"],
                "port": int(environ.get("EMAIL_PORT", "25")),
                "username": environ.get("EMAIL_HOST_USER", ""),
                "password": environ.get("EMAIL_HOST_PASSWORD", ""),
                "use_tls": truthy(environ.get("EMAIL_USE_TLS"), False),
            },
        }
    }


MAILERS = mailers(os.environ)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Bunco Club <bunco@localhost>")

# --- Internationalisation ---------------------------------------------------------------------
# English and Spanish (docs/I18N.md). A phone at a night or a table follows its browser, or the switch
# on every page (a cookie); a member's mails, RSVP page and calendar follow the member's language.
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("es", "Español")]
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGE_COOKIE_AGE = 60 * 60 * 24 * 365 * 2
TIME_ZONE = os.environ.get("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

# --- Static files -----------------------------------------------------------------------------
STATIC_URL = "/static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT") or BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
# Static files are served in front of Django (bunco_club/site/static.py): from the finders by default
# (no collectstatic needed), or from STATIC_ROOT with compressed copies and hashed names once
# `collectstatic` has run (`make run` and docs/OPERATIONS.md set STATIC_COLLECTED=1).
STATIC_COLLECTED = env_bool("STATIC_COLLECTED", False)
STATIC_MAX_AGE = 0 if DEBUG else 3600
# The version of the static files the service worker caches (its cache's name carries it): a new
# release changes it, and the phones' worker then drops the old cache. Empty: a hash of the collected
# static files' manifest (STATIC_COLLECTED) or of the files themselves (bunco_club/site/views.py).
STATIC_VERSION = os.environ.get("STATIC_VERSION", "")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "servestatic.storage.CompressedManifestStaticFilesStorage"
            if STATIC_COLLECTED
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}

# --- Join links -------------------------------------------------------------------------------
# A join link works while its night is not over; this caps it for a night nobody ended (days).
JOIN_LINK_MAX_AGE_SECONDS = env_int("JOIN_LINK_MAX_AGE_SECONDS", 60 * 60 * 24 * 4)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "filters": {"debug_off": {"()": "django.utils.log.RequireDebugFalse"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain"},
        # Every 500, with its traceback, DEBUG or not (Django's own console handler speaks only
        # with DEBUG on, and then this one keeps quiet so it is not printed twice).
        "request_errors": {
            "class": "logging.StreamHandler", "formatter": "plain", "level": "ERROR", "filters": ["debug_off"],
        },
    },
    "loggers": {
        "django.request": {"handlers": ["request_errors"]},
        "bunco_club": {"handlers": ["console"], "level": "INFO"},
        "live": {"handlers": ["console"], "level": "INFO"},
        "games": {"handlers": ["console"], "level": "INFO"},
        "tournaments": {"handlers": ["console"], "level": "INFO"},
    },
}

# --- Round clock ------------------------------------------------------------------------------
# Idempotent "close what is due" functions, called once a second by the in-process clock of the
# embedded default (bunco_club/site/clock.py), and by Celery beat when scaled.
CLOCK_TICKERS: list[str] = []
IN_PROCESS_CLOCK = env_bool("IN_PROCESS_CLOCK", not REDIS_URL)
# How often it ticks: a bot whose pause is over moves at the next tick (the browser tests' table
# server ticks faster, so that their bots keep up with the phones).
CLOCK_INTERVAL_SECONDS = env_float("CLOCK_INTERVAL_SECONDS", 1.0)

# --- Limits against abuse: bad numbers aside, how big and how many (issue 8) -------------------
# A night seats at most this many players: a big charity night, 100 tables. The start form and its
# live hint say so (games.models.night_size_refusal).
NIGHT_MAX_PLAYERS = env_int("NIGHT_MAX_PLAYERS", 400)
RATE_LIMITS.update({
    # Starting nights (each is hundreds of rows), per address and per host account.
    "night-new": os.environ.get("RATE_LIMIT_NIGHT_NEW", "30/h"),
    "night-new-host": os.environ.get("RATE_LIMIT_NIGHT_NEW_HOST", "30/h"),
    # The connection check's ping lights up every screen open in its room: counted per room, so the
    # parties of a hall behind one address each have their own room's count (live/views.py)...
    "ping": os.environ.get("RATE_LIMIT_PING", "60/m"),
    # ...under a ceiling per address, ten rooms' worth: a room costs nothing to open and every ping
    # is a row of the event log, so this bounds the rows one address writes however many it opens.
    "ping-address": os.environ.get("RATE_LIMIT_PING_ADDRESS", "600/m"),
})
# Live streams open at once from one address, counted in each process (live/streams.py). A hall's
# phones share one public address: a charity night of 400 phones, the host and a projector fit.
EVENTS_MAX_STREAMS_PER_ADDRESS = env_int("EVENTS_MAX_STREAMS_PER_ADDRESS", 500)
# "Just play tonight" nights (no club, no host account) that nothing has happened in for this many
# days are deleted with all their rows (games.actions.purge_abandoned_nights): hourly by the
# in-process clock, daily by Celery beat when scaled, or `python manage.py purge_nights` from cron.
NIGHT_RETENTION_DAYS = env_int("NIGHT_RETENTION_DAYS", 30)
NIGHT_PURGE_INTERVAL_SECONDS = 60 * 60
if IN_PROCESS_CLOCK:
    CLOCK_TICKERS.append("games.tasks.purge_abandoned_nights_when_due")
CELERY_BEAT_SCHEDULE["purge-abandoned-nights"] = {
    "task": "games.tasks.purge_abandoned_nights", "schedule": 24 * 60 * 60.0,
}
# Tournament rounds end on time (issue 11): the in-process clock every second; scaled, an ETA task
# per round (tournaments.actions.start_round) and this beat sweep every 5 s. Idempotent.
if IN_PROCESS_CLOCK:
    CLOCK_TICKERS.append("tournaments.tasks.close_rounds_when_due")
CELERY_BEAT_SCHEDULE["close-tournament-rounds"] = {"task": "tournaments.tasks.close_rounds", "schedule": 5.0}

# --- Club reminders (issue 10) ----------------------------------------------------------------
# RSVP nudges, hosts' reminders, substitute invitations and swap requests: each sent once
# (bunco_club.mail.send_due_reminders records what went). Every few minutes by the in-process
# clock, every 15 minutes by Celery beat when scaled, or `python manage.py send_reminders` from cron.
REMINDERS_INTERVAL_SECONDS = 300
# The site's address as members reach it: links in club emails and calendar entries start with it.
SITE_URL = os.environ.get("SITE_URL", "")
if IN_PROCESS_CLOCK:
    CLOCK_TICKERS.append("bunco_club.tasks.send_due_reminders_when_due")
# How often beat runs the reminders' sweep (seconds): however often, each email goes once.
REMINDERS_BEAT_SECONDS = env_float("REMINDERS_BEAT_SECONDS", 15 * 60)
CELERY_BEAT_SCHEDULE["send-club-reminders"] = {
    "task": "bunco_club.tasks.send_due_reminders", "schedule": REMINDERS_BEAT_SECONDS,
}
# "Paid tonight keeps your seat next month" (issue 45): the seats of the unpaid go to the sub list
# once a party's cutoff has passed, by a sweep beside the reminders', as often (bunco_club/sweeps.py).
CELERY_IMPORTS.append("bunco_club.sweeps")
if IN_PROCESS_CLOCK:
    CLOCK_TICKERS.append("bunco_club.sweeps.release_due_seats_when_due")
CELERY_BEAT_SCHEDULE["release-unpaid-seats"] = {
    "task": "bunco_club.sweeps.release_due_seats", "schedule": REMINDERS_BEAT_SECONDS,
}

# --- Caps on what a host or a director creates (issue 21) --------------------------------------
# Each is refused by the action that creates the thing, with a message that says what to do, so
# every caller (a page, a command, a test) is held to it; a page shows the message on its form. How
# long a typed text may be is the models' (bunco_club.models, tournaments.models, games.night.models).
# Clubs one account hosts: those it started and those another host handed it as a co-host.
CLUB_MAX_PER_HOST = env_int("CLUB_MAX_PER_HOST", 20)
# Members on a club's roster, retired ones included (they stay for the club's history).
CLUB_MAX_MEMBERS = env_int("CLUB_MAX_MEMBERS", 500)
# Parties in one season (a weekly club's two years), and in a club over all its years: every one
# of them is an entry of the club's calendar feed.
SEASON_MAX_PARTIES = env_int("SEASON_MAX_PARTIES", 104)
CLUB_MAX_PARTIES = env_int("CLUB_MAX_PARTIES", 1000)
# Tournaments one director has open (not finished) at once.
TOURNAMENT_MAX_OPEN = env_int("TOURNAMENT_MAX_OPEN", 20)
# Players in one tournament: the brackets are tested up to 1,000 (tests/tournaments/test_brackets.py).
TOURNAMENT_MAX_ENTRANTS = env_int("TOURNAMENT_MAX_ENTRANTS", 1000)

# --- Game tables (issue 18) -----------------------------------------------------------------------
# A bot waits this long before each move, so people at the table can follow it; then the clock
# moves it (the in-process clock every second; Celery beat every second when scaled).
TABLE_BOT_PAUSE_SECONDS = env_float("TABLE_BOT_PAUSE_SECONDS", 0.8)
if IN_PROCESS_CLOCK:
    CLOCK_TICKERS.append("games.tasks.move_bots_when_due")
CELERY_BEAT_SCHEDULE["move-table-bots"] = {"task": "games.table.tasks.move_bots", "schedule": 1.0}
RATE_LIMITS.update({
    # Opening game tables: per address for anyone ("Play a game" needs no account), per account for
    # a signed-in person (live.limits.counted_as).
    "table-new": os.environ.get("RATE_LIMIT_TABLE_NEW", "30/h"),
    "table-new-host": os.environ.get("RATE_LIMIT_TABLE_NEW_HOST", "30/h"),
})

# --- The treasury's receipts (issue 45) -----------------------------------------------------------
# A supply's receipt photo: at most this many bytes as sent (its form alone takes a body this large:
# bunco_club/site/asgi.py, and nginx and Caddy in the scaled layouts, scripts/run_scaled.py and
# scripts/server_files.py, for this default) and this many pixels; stored re-encoded without its metadata (bunco_club/receipts.py) under MEDIA_ROOT, which
# no URL serves: a view does, to those who may see the money. MEDIA_ROOT is beside the SQLite
# database by default (the project's folder with PostgreSQL), never in git; backups carry it.
RECEIPT_MAX_BYTES = env_int("RECEIPT_MAX_BYTES", 5 * 1024 * 1024)
RECEIPT_MAX_PIXELS = env_int("RECEIPT_MAX_PIXELS", 40_000_000)
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT") or (
    Path(DATABASES["default"]["NAME"]).parent / "media" if not DATABASE_URL else BASE_DIR / "media"))

# --- Backups (issue 48) -------------------------------------------------------------------------
# `python manage.py backup` writes one dated file (the database and any uploaded files) into
# BACKUP_DIR: by default a `backups` folder beside the SQLite database, or in the project's folder
# with PostgreSQL. The newest BACKUP_KEEP are kept. One is taken by itself when the newest is
# BACKUP_EVERY_HOURS old (0: never): the in-process clock looks every minute, Celery beat every
# hour when scaled (bunco_club/site/backups.py). `python manage.py restore FILE` puts one back.
BACKUP_DIR = Path(os.environ.get("BACKUP_DIR") or (
    Path(DATABASES["default"]["NAME"]).parent / "backups" if not DATABASE_URL else BASE_DIR / "backups"))
BACKUP_KEEP = env_int("BACKUP_KEEP", 14)
BACKUP_EVERY_HOURS = env_float("BACKUP_EVERY_HOURS", 24)
if IN_PROCESS_CLOCK:
    CLOCK_TICKERS.append("bunco_club.site.backups.backup_when_due_tick")
CELERY_IMPORTS.append("bunco_club.site.backups")
CELERY_BEAT_SCHEDULE["backup-when-due"] = {"task": "bunco_club.site.backups.backup_when_due_task", "schedule": 60 * 60.0}
