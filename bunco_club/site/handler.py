"""The site's ASGI handler: Django's, with every request but an event stream served in one hop to a
request thread (issue 47). bunco_club/site/asgi.py serves it; bench/minimal_site can too."""

from __future__ import annotations

import contextlib
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.core.handlers.base import BaseHandler
from django.http import HttpResponseBase
from django.urls import set_script_prefix

STREAMS_PREFIX = "/events/"  # every event stream's URL (live/, games/, tournaments/ urls)


class StreamAwareASGIHandler(ASGIHandler):
    """Django's handler, with every request but an event stream served in one hop to a sync thread.

    Django's own ASGI path hands each sync middleware's hooks to a sync thread and back one by one
    (two hops for each of the site's `MiddlewareMixin` middlewares: 20 a request), and runs each
    request in its own thread-sensitive context, whose first sync call starts an OS thread that
    ends with the request, taking its database connection with it. Here a request's whole sync
    part (the request_started signal, the middleware chain built synchronously, the view, and the
    closing of a response already rendered) runs in one call on a long-lived thread of a small
    pool (settings.REQUEST_THREADS), as gunicorn's threads run it: one hop a request, and each
    thread keeps its database connection across requests (CONN_MAX_AGE on SQLite; PostgreSQL's pool).

    An event stream (STREAMS_PREFIX) keeps Django's async path, outside a thread-sensitive context:
    it waits minutes on the event loop, and its sync code (a few short reads when it opens) runs on
    the one shared sync thread, not an OS thread of its own that would idle as long as the phone
    stays (1,000 phones kept 1,000 threads: issue 22's profile, bench/profile_streams.py).
    """

    def __init__(self) -> None:
        super().__init__()  # the async chain, for the streams
        self._sync_chain = BaseHandler()
        self._sync_chain.load_middleware(is_async=False)
        self._threads = ThreadPoolExecutor(max_workers=settings.REQUEST_THREADS, thread_name_prefix="request")

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)  # Django refuses it, with its own words
        elif scope.get("path", "").startswith(STREAMS_PREFIX):
            await self.handle(scope, receive, send)
        else:
            await self._handle_in_one_hop(scope, receive, send)

    async def _handle_in_one_hop(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        with contextlib.closing(body_file):
            answer = sync_to_async(self._answer, thread_sensitive=False, executor=self._threads)
            response = await answer(scope, body_file)
            try:
                await self.send_response(response, send)
            finally:
                if response.streaming:  # a file or an export: closed once sent, as Django closes it
                    await sync_to_async(response.close, thread_sensitive=False, executor=self._threads)()

    def _answer(self, scope: dict[str, Any], body_file: Any) -> HttpResponseBase:
        """What ASGIHandler.handle does between reading the body and sending the answer, on the
        sync side in one go; a response already rendered is closed here (request_finished: the
        connection given back), before its bytes go out."""
        set_script_prefix(get_script_prefix(scope))
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, response = self.create_request(scope, body_file)
        if request is not None:
            response = self._sync_chain.get_response(request)
            response._handler_class = self.__class__  # type: ignore[attr-defined]  # as run_get_response marks it
        assert response is not None  # create_request gives a request or the answer refusing it
        if not response.streaming:
            response.close()
        return response


