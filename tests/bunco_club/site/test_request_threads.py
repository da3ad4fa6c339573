"""Under uvicorn a request's sync part (middleware, view, signals) runs in one hop to a long-lived
request thread (bunco_club/site/handler.py), which keeps its database connection for the next request;
Django's own ASGI handler hops there and back for every middleware hook, on a thread of the
request's own. Issue 47: the tap's cost outside its view."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from asgiref import sync
from django.core.handlers.asgi import ASGIHandler
from django.db.backends.signals import connection_created

from bunco_club.site.handler import StreamAwareASGIHandler
from tests.builders import http_scope, is_sqlite


def serve(handler: Any, path: str) -> tuple[int, dict[bytes, bytes], bytes]:
    """One GET of `path` through `handler`, as uvicorn hands it over: status, headers, body."""
    sent: list[dict[str, Any]] = []
    body_sent = False

    async def receive() -> dict[str, Any]:
        nonlocal body_sent
        if body_sent:  # as a server, once the body is taken: the client stays until answered
            await asyncio.Event().wait()
        body_sent = True
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(handler(http_scope("GET", path, {"host": "testserver", "accept-language": "es"}), receive, send))
    start = next(message for message in sent if message["type"] == "http.response.start")
    body = b"".join(message.get("body", b"") for message in sent if message["type"] == "http.response.body")
    return start["status"], {name.lower(): value for name, value in start["headers"]}, body


@pytest.fixture
def hops(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[object]]:
    """Every hand-off to a sync thread (asgiref's sync_to_async) made meanwhile."""
    made: list[object] = []
    hop = sync.SyncToAsync.__call__

    async def counted(self: sync.SyncToAsync, *args: Any, **kwargs: Any) -> Any:
        made.append(self.func)
        return await hop(self, *args, **kwargs)

    monkeypatch.setattr(sync.SyncToAsync, "__call__", counted)
    yield made


@pytest.fixture
def connections_opened() -> Iterator[list[object]]:
    opened: list[object] = []

    def note(sender: object, connection: object, **kwargs: object) -> None:
        opened.append(connection)

    connection_created.connect(note)
    yield opened
    connection_created.disconnect(note)


@pytest.mark.django_db(transaction=True)
def test_a_page_through_the_sites_asgi_app_takes_one_hop_to_a_sync_thread(hops):
    handler = StreamAwareASGIHandler()
    serve(handler, "/accounts/login/")  # warm: the first request loads the URLs and templates
    hops.clear()

    status, headers, body = serve(handler, "/accounts/login/")

    assert status == 200 and "Contraseña".encode() in body
    # The whole middleware chain ran: the phone's language, the page's policy, its CSRF cookie.
    assert headers[b"content-language"] == b"es" and b"content-security-policy" in headers
    assert b"csrftoken" in headers[b"set-cookie"]
    assert len(hops) == 1


@pytest.mark.django_db(transaction=True)
def test_djangos_own_asgi_handler_hops_for_every_middleware_hook(hops):
    """What the count above is measured against: the same page, Django's stock handler."""
    handler = ASGIHandler()
    serve(handler, "/accounts/login/")
    hops.clear()

    assert serve(handler, "/accounts/login/")[0] == 200
    assert len(hops) >= 15


@pytest.mark.django_db(transaction=True)
def test_the_request_threads_keep_their_database_connections_across_requests(settings, connections_opened):
    if not is_sqlite():
        pytest.skip("PostgreSQL's connections are its pool's, taken and given back a request")
    settings.REQUEST_THREADS = 2
    handler = StreamAwareASGIHandler()
    for _request in range(6):
        assert serve(handler, "/health/")[0] == 200  # a read of the database

    assert 1 <= len(connections_opened) <= 2


@pytest.mark.django_db(transaction=True)
def test_djangos_own_asgi_handler_opens_a_connection_a_request(connections_opened):
    """A thread of each request's own, and its connection with it."""
    if not is_sqlite():
        pytest.skip("PostgreSQL's connections are its pool's, taken and given back a request")
    handler = ASGIHandler()
    for _request in range(6):
        assert serve(handler, "/health/")[0] == 200

    assert len(connections_opened) == 6
