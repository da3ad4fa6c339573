"""ASGI entry point: Django (its handler serving a request in one hop to a request thread,
bunco_club/site/handler.py) wrapped in a lifespan handler.

The lifespan handler does what one long-lived process must do around Django:
* at start-up, the in-process round clock (embedded default only: when Celery workers and beat
  run, they own the clock), which calls every ticker in settings.CLOCK_TICKERS once a second;
* at start-up too, a shared lock on the serving file (bunco_club/site/backups.py), so that
  `manage.py restore` refuses while the site serves;
* at shutdown, it ends every open event stream so uvicorn can stop promptly (uvicorn does not
  close streaming responses itself), and stops the Redis relay and the process's look at the
  event log at each heartbeat (live/streams.py LogWatch, started by the first stream).

And every HTTP request passes `limit_the_body` first: a body over settings.REQUEST_BODY_MAX_BYTES
(or, on the receipt's form, its photo's RECEIPT_MAX_BYTES) is refused with 413 before it is read (Django's ASGI handler reads a whole body into a file before
any view or limit of its own sees it: 50 MB took 2 s, and slowed every other request meanwhile).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
from typing import Any

from django.conf import settings

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bunco_club.site.settings")

from bunco_club.site.handler import StreamAwareASGIHandler  # noqa: E402


def _django_application() -> StreamAwareASGIHandler:
    """What get_asgi_application() does, with the site's handler."""
    import django

    django.setup(set_prefix=False)
    return StreamAwareASGIHandler()


django_application = _django_application()

from servestatic.asgi import ServeStaticASGI  # noqa: E402

from bunco_club.site.backups import hold_serving_lock  # noqa: E402
from bunco_club.site.clock import run_clock  # noqa: E402  (needs Django set up)
from bunco_club.site.static import with_static_files  # noqa: E402
from live.broadcasters import get_broadcaster  # noqa: E402
from live.streams import stop_watching_the_log  # noqa: E402

http_application = with_static_files(ServeStaticASGI, django_application)

logger = logging.getLogger("bunco_club.site.asgi")


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        await lifespan(receive, send)
        return
    if scope["type"] == "http":
        await limit_the_body(http_application, scope, receive, send, body_limit(scope.get("path", "")))
        return
    await http_application(scope, receive, send)


# The one form that carries a photo (a supply's receipt, bunco_club/treasury_views.py): its body may
# hold settings.RECEIPT_MAX_BYTES and the form's few fields.
RECEIPT_FORM = re.compile(r"/clubs/[-a-zA-Z0-9_]+/treasury/entries/")
FORM_FIELDS_ROOM = 64 * 1024


def body_limit(path: str) -> int:
    """The largest body a request to `path` may carry (settings.REQUEST_BODY_MAX_BYTES, or room for
    a receipt photo on the receipt's form)."""
    if RECEIPT_FORM.fullmatch(path):
        return max(settings.REQUEST_BODY_MAX_BYTES, settings.RECEIPT_MAX_BYTES + FORM_FIELDS_ROOM)
    return int(settings.REQUEST_BODY_MAX_BYTES)


TOO_LARGE = "This request is too large: the site takes at most {size} in one request. Send less."


async def limit_the_body(app: Any, scope: dict[str, Any], receive: Any, send: Any, limit: int) -> None:
    """Run `app`, unless the request's body is over `limit` bytes: a declared Content-Length over it
    is answered 413 at once, the body unread; a body without one (chunked) is counted as it arrives,
    and once past the limit the app is told the client went away (Django then drops the request
    unanswered) and the client gets the 413."""
    declared = dict(scope.get("headers") or ()).get(b"content-length")
    if declared is not None and declared.strip().isdigit() and int(declared) > limit:
        await _refuse_too_large(send, limit)
        return
    received = 0
    over = answered = False

    async def counting_receive() -> dict[str, Any]:
        nonlocal received, over
        if over:
            return {"type": "http.disconnect"}
        message: dict[str, Any] = await receive()
        if message["type"] == "http.request":
            received += len(message.get("body", b""))
            if received > limit:
                over = True
                return {"type": "http.disconnect"}
        return message

    async def watching_send(message: dict[str, Any]) -> None:
        nonlocal answered
        answered = answered or message["type"] == "http.response.start"
        await send(message)

    await app(scope, counting_receive, watching_send)
    if over and not answered:
        await _refuse_too_large(send, limit)


async def _refuse_too_large(send: Any, limit: int) -> None:
    size = f"{limit / 1024 / 1024:g} MB" if limit >= 1024 * 1024 else f"{limit:,} bytes"
    body = TOO_LARGE.format(size=size).encode()
    await send({
        "type": "http.response.start",
        "status": 413,
        "headers": [
            (b"content-type", b"text/plain; charset=utf-8"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),  # the rest of the body is never read: the connection ends here
        ],
    })
    await send({"type": "http.response.body", "body": body})


async def lifespan(receive: Any, send: Any) -> None:
    clock: asyncio.Task[None] | None = None
    serving = None
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            serving = hold_serving_lock()  # while it is held, `manage.py restore` refuses
            clock = asyncio.create_task(run_clock())
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            broadcaster = get_broadcaster()
            broadcaster.local.close_all()
            await broadcaster.close()
            await stop_watching_the_log()
            if clock is not None:
                clock.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await clock
            if serving is not None:
                serving.close()
            await send({"type": "lifespan.shutdown.complete"})
            return
