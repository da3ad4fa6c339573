"""Rate limits on the doors anyone can knock at: logging in and joining a night (docs/DESIGN.md §6).

Counted by django-ratelimit in the cache settings.RATELIMIT_USE_CACHE names ("limits"): the site's
database in the embedded default (`CountsInTheDatabase`: a restart keeps the counts; issue 42, S3)
and Redis when it is configured (shared by every process).
Behind a proxy (`make run-scaled`, nginx) the client's address is nginx's X-Real-IP.

A whole party shares one address (a hall's Wi-Fi behind one public address: 400 phones scanning
their table's code within minutes must all get in), so what is counted is what a script does and a
guest does not: failures. A join link whose signature holds is never refused for its address's bad
links; a wrong password locks out the pair of an address and a username (django-axes's
AXES_LOCKOUT_PARAMETERS = [["ip_address", "username"]]), never the user everywhere, so someone
guessing a host's password from elsewhere cannot keep the host out.

Why not django-axes itself: its newest release (8.3.1) is classified for Django 4.2, 5.2 and 6.0,
not 6.1, and it brings models, a middleware and an authentication backend for what is, here, one
counter in the cache beside the others.
"""

from __future__ import annotations

import base64
import logging
import pickle
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.core.cache.backends.db import DatabaseCache
from django.db import connections, router, transaction
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django_ratelimit import ALL
from django_ratelimit.core import get_usage, is_ratelimited
from redis.exceptions import RedisError

from live import http as live_http
from live.refusals import TooMany

logger = logging.getLogger(__name__)

View = Callable[..., HttpResponse]


Key = str | Callable[[str, HttpRequest], str]  # django-ratelimit's: "ip", "post:username", a function


def counted_as(request: HttpRequest, door: str) -> tuple[str, Key]:
    """The limit a knock at `door` counts against, and what it is counted by: a signed-in person's
    account (`<door>-host`), anyone else's address. A hall's Wi-Fi is one address: the strangers
    behind it never hold a signed-in host back (nor the host's party tables)."""
    return (f"{door}-host", "user") if request.user.is_authenticated else (door, "ip")


def too_many(request: HttpRequest, door: str, *, key: Key = "ip") -> bool:
    """Count this knock at `door`: True when it is over the limit (settings.RATE_LIMITS)."""
    try:
        return is_ratelimited(
            request, group=door, key=key, rate=settings.RATE_LIMITS[door], method=ALL, increment=True
        )
    except RedisError as error:
        _report_cache_down(door, error)
        return False


def used_up(request: HttpRequest, door: str, *, key: Key = "ip") -> bool:
    """Whether the client has already knocked at `door` as often as its limit allows (not counting
    this request): for doors where only failures count."""
    try:
        usage = get_usage(request, group=door, key=key, rate=settings.RATE_LIMITS[door], method=ALL)
    except RedisError as error:
        _report_cache_down(door, error)
        return False
    return usage is not None and usage["count"] >= usage["limit"]


def _report_cache_down(door: str, error: Exception) -> None:
    # Redis down: the doors stay open rather than nobody getting in (the site runs on).
    logger.warning("Rate limit %s not checked, the cache is down: %s", door, error)


def limited(door: str, message: str) -> Callable[[View], View]:
    """Decorate a view: every request knocks at `door`; over the limit the view is not run: TooMany
    (429) with `message`, which says when to try again, answered by the app's `refused` (put it
    above this decorator)."""

    def decorate(view: View) -> View:
        @wraps(view)
        def guarded(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
            if too_many(request, door):
                raise TooMany(str(message))  # a lazy message, said in the reader's language
            return view(request, *args, **kwargs)

        return guarded

    return decorate


def address_and_username(group: str, request: HttpRequest) -> str:
    """The lock-out key of a log in: the client's address and the username typed (case and
    surrounding spaces ignored, so "Host " is "host")."""
    username = request.POST.get("username", "").strip().casefold()
    return f"{client_address(request)} {username}"


def client_address(request: HttpRequest) -> str:
    """The client's address (settings.RATELIMIT_IP_META_KEY names this function): live.http's, the
    one the stream cap counts by too."""
    return live_http.client_address(request)


class CountsInTheDatabase(DatabaseCache):
    """The rate limits' cache without Redis (settings.CACHES["limits"]): Django's database cache, on
    the table `live.models.RateLimitCount` makes, so the counts live where the site keeps its data
    and a restart keeps them (issue 42, S3).

    Its `incr` is its own. Django's reads the count, then writes it again with the cache's default
    timeout: two knocks at once could both write 5 (why django-ratelimit calls the database cache
    "not atomic"), and an hour's count of wrong passwords would end five minutes after its last
    knock. Here the count is read under its row's lock (SELECT ... FOR UPDATE; SQLite's IMMEDIATE
    transaction holds the write lock from its BEGIN) and written back with the end it was given."""

    _table: str  # the table's name, as Django's database cache keeps it (its type stubs leave it out)

    def incr(self, key: Any, delta: int = 1, version: int | None = None) -> int:
        key = self.make_and_validate_key(key, version=version)
        db = router.db_for_write(self.cache_model_class)
        connection = connections[db]
        quote = connection.ops.quote_name
        table, cache_key, value = quote(self._table), quote("cache_key"), quote("value")
        now = connection.ops.adapt_datetimefield_value(timezone.now().replace(microsecond=0, tzinfo=None))
        lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
        with transaction.atomic(using=db), connection.cursor() as cursor:
            cursor.execute(f"SELECT {value} FROM {table} WHERE {cache_key} = %s AND {quote('expires')} > %s{lock}",
                           [key, now])
            row = cursor.fetchone()
            if row is None:
                raise ValueError(f"Key '{key}' not found.")  # as Django's incr, for a missing or ended count
            stored = connection.ops.process_clob(row[0])
            count = pickle.loads(base64.b64decode(stored.encode(), validate=True)) + delta
            counted = base64.b64encode(pickle.dumps(count, self.pickle_protocol)).decode("latin1")
            cursor.execute(f"UPDATE {table} SET {value} = %s WHERE {cache_key} = %s", [counted, key])
        return int(count)
