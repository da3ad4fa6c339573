"""Rate limits on the doors anyone can knock at: logging in and joining a night (DESIGN.md §6).

Counted by django-ratelimit in the cache: the in-process cache in the embedded default (one
process, so the counts are whole) and Redis when it is configured (shared by every process).
Behind a proxy (`make run-scaled`, nginx) the client's address is nginx's X-Real-IP.

The limits are per client address and generous where a whole party shares one (a hall's Wi-Fi
behind one public address: 400 phones scanning their table's code within minutes must all get
in). What they stop is a script: guessing passwords, probing forged join links, flooding the
session table with joins.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import wraps

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django_ratelimit import ALL
from django_ratelimit.core import get_usage, is_ratelimited
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

View = Callable[..., HttpResponse]


def too_many(request: HttpRequest, door: str, *, key: str = "ip") -> bool:
    """Count this knock at `door`: True when it is over the limit (settings.RATE_LIMITS)."""
    try:
        return is_ratelimited(
            request, group=door, key=key, rate=settings.RATE_LIMITS[door], method=ALL, increment=True
        )
    except RedisError as error:
        _report_cache_down(door, error)
        return False


def used_up(request: HttpRequest, door: str, *, key: str = "ip") -> bool:
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


def limited(door: str, refused: Callable[[HttpRequest], HttpResponse]) -> Callable[[View], View]:
    """Decorate a view: every request knocks at `door`; over the limit the view is not run and
    `refused` answers (429 with a message that says when to try again)."""

    def decorate(view: View) -> View:
        @wraps(view)
        def guarded(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponse:
            if too_many(request, door):
                return refused(request)
            return view(request, *args, **kwargs)

        return guarded

    return decorate


def client_address(request: HttpRequest) -> str:
    """The client's address: nginx's X-Real-IP when the site runs behind it (TRUST_X_REAL_IP)."""
    if settings.TRUST_X_REAL_IP:
        forwarded = request.META.get("HTTP_X_REAL_IP", "").strip()
        if forwarded:
            return forwarded
    return request.META.get("REMOTE_ADDR") or "0.0.0.0"
