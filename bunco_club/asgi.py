"""ASGI entry point: Django wrapped in a lifespan handler.

The lifespan handler does what one long-lived process must do around Django:
* at start-up, the in-process round clock (embedded default only: when Celery workers and beat
  run, they own the clock), which calls every ticker in settings.CLOCK_TICKERS once a second;
* at shutdown, it ends every open event stream so uvicorn can stop promptly (uvicorn does not
  close streaming responses itself), and stops the Redis relay.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from typing import Any

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bunco_club.settings")

django_application = get_asgi_application()

from servestatic.asgi import ServeStaticASGI  # noqa: E402

from bunco_club.clock import run_clock  # noqa: E402  (needs Django set up)
from bunco_club.static import with_static_files  # noqa: E402
from live.broadcasters import get_broadcaster  # noqa: E402

http_application = with_static_files(ServeStaticASGI, django_application)

logger = logging.getLogger("bunco_club.asgi")


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        await lifespan(receive, send)
        return
    await http_application(scope, receive, send)


async def lifespan(receive: Any, send: Any) -> None:
    clock: asyncio.Task[None] | None = None
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            clock = asyncio.create_task(run_clock())
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            broadcaster = get_broadcaster()
            broadcaster.local.close_all()
            await broadcaster.close()
            if clock is not None:
                clock.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await clock
            await send({"type": "lifespan.shutdown.complete"})
            return
