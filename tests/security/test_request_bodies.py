"""A request body over the site's limit (settings.REQUEST_BODY_MAX_BYTES) is refused with 413 before
it is read: by the ASGI app (bunco_club/site/asgi.py), which Django's handler would otherwise read whole
into a file first (a 50 MB body took 2 s and slowed every other request), and in the scaled layout
by nginx (issue 21). Normal POSTs still work."""

from __future__ import annotations

import asyncio
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.conf import settings

from bunco_club.site.asgi import application
from scripts.run_scaled import REQUEST_BODY_MAX_BYTES, find_nginx, free_ports, nginx_config
from tests.builders import http_scope
from tests.conftest import ServerProcess, start_server, wait_until_up

FIFTY_MB = 50 * 1024 * 1024
CSRF = "a" * 32  # a CSRF secret a browser could hold in its cookie and send back in the header


def call(scope: dict[str, Any], body_messages: Iterator[dict[str, Any]]) -> tuple[int, bytes, int]:
    """Run the site's ASGI app on one request: its status, its body, and how many of the request's
    body messages the app took."""
    taken = 0
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal taken
        message = next(body_messages, None)
        if message is None:  # the whole body taken: as a server, wait for the client to go away
            await asyncio.Event().wait()
            raise AssertionError("never woken")
        taken += 1
        return message

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(application(scope, receive, send))
    status = next(message["status"] for message in sent if message["type"] == "http.response.start")
    body = b"".join(message.get("body", b"") for message in sent if message["type"] == "http.response.body")
    return status, body, taken


def fifty_mb(chunk: bytes) -> Iterator[dict[str, Any]]:
    """A 50 MB body in pieces the size of `chunk`, as a server hands it to the app."""
    pieces = FIFTY_MB // len(chunk)
    for number in range(1, pieces + 1):
        yield {"type": "http.request", "body": chunk, "more_body": number < pieces}


def shape_form() -> tuple[dict[str, str], bytes]:
    body = b"names=Ann%0ABea%0ACal%0ADot%0AEve"
    headers = {"host": "testserver", "content-type": "application/x-www-form-urlencoded",
               "content-length": str(len(body)), "cookie": f"csrftoken={CSRF}", "x-csrftoken": CSRF}
    return headers, body


def test_a_body_declared_over_the_limit_is_refused_before_a_byte_of_it_is_read():
    scope = http_scope("POST", "/nights/shape/", {"host": "testserver", "content-length": str(FIFTY_MB)})

    status, body, taken = call(scope, fifty_mb(b"x" * 65536))

    assert status == 413 and taken == 0
    assert body.decode() == "This request is too large: the site takes at most 1 MB in one request. Send less."


def test_the_receipts_form_alone_takes_a_body_the_size_of_a_phone_photo():
    """A supply's receipt photo (issue 45) is read up to settings.RECEIPT_MAX_BYTES on its one form,
    and refused beyond; every other URL keeps the site's limit."""
    photo = 3 * 1024 * 1024
    headers = {"host": "testserver", "content-length": str(photo), "content-type": "multipart/form-data; boundary=x"}

    def three_mb() -> Iterator[dict[str, Any]]:
        for number in range(1, 49):
            yield {"type": "http.request", "body": b"x" * 65536, "more_body": number < 48}

    status, _, taken = call(http_scope("POST", "/clubs/maple/treasury/entries/", headers), three_mb())
    assert status != 413 and taken == 48  # read whole, then answered by the site (no such club here)
    status, _, taken = call(http_scope("POST", "/clubs/maple/roster/", headers), three_mb())
    assert status == 413 and taken == 0
    over = {**headers, "content-length": str(settings.RECEIPT_MAX_BYTES + 128 * 1024)}
    status, _, taken = call(http_scope("POST", "/clubs/maple/treasury/entries/", over), three_mb())
    assert status == 413 and taken == 0


def test_a_chunked_body_is_cut_off_once_it_passes_the_limit():
    scope = http_scope("POST", "/nights/shape/", {"host": "testserver", "transfer-encoding": "chunked"})
    chunk = b"x" * 65536

    status, _, taken = call(scope, fifty_mb(chunk))

    assert status == 413
    assert taken == settings.REQUEST_BODY_MAX_BYTES // len(chunk) + 1  # the one that passed it, no more


def test_a_form_within_the_limit_is_read_and_answered_as_ever():
    headers, body = shape_form()

    status, page, _ = call(http_scope("POST", "/nights/shape/", headers),
                           iter([{"type": "http.request", "body": body, "more_body": False}]))

    assert status == 200 and "5 players" in page.decode()


def test_a_chunked_form_within_the_limit_is_read_too():
    headers, body = shape_form()
    del headers["content-length"]
    pieces = iter([{"type": "http.request", "body": body[:10], "more_body": True},
                   {"type": "http.request", "body": body[10:], "more_body": False}])

    status, page, _ = call(http_scope("POST", "/nights/shape/", headers), pieces)

    assert status == 200 and "5 players" in page.decode()


# --- Through a real server: uvicorn, and nginx in front of it as the scaled layout has it ---------


def answer_to_head_alone(url: str, head: str) -> bytes:
    """Send a request's head (and not a byte of its body) and read what comes back until the server
    closes the connection. A server that waited for the body would leave this waiting: the socket's
    timeout only ends a test that has failed."""
    address = httpx.URL(url)
    with socket.create_connection((address.host, address.port), timeout=60) as connection:
        connection.sendall(head.encode())
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    return answer


def fifty_mb_post(path: str, size: int = FIFTY_MB) -> str:
    return (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            f"Content-Length: {size}\r\n\r\n")


def post_a_form(url: str) -> httpx.Response:
    headers, body = shape_form()
    return httpx.post(url + "/nights/shape/", content=body, timeout=30,
                      headers={name: value for name, value in headers.items() if name != "host"})


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, django_db_setup: None,
         django_db_blocker: Any) -> Iterator[ServerProcess]:
    with django_db_blocker.unblock():
        server = start_server(tmp_path_factory.mktemp("bodies"))
    yield server
    server.stop()


def test_uvicorn_answers_a_declared_50_mb_body_with_413_without_waiting_for_it(site):
    answer = answer_to_head_alone(site.url, fifty_mb_post("/nights/shape/"))

    assert answer.startswith(b"HTTP/1.1 413 ")
    assert b"This request is too large" in answer
    assert httpx.get(site.url + "/alive/").status_code == 200
    assert post_a_form(site.url).status_code == 200


def test_uvicorn_cuts_a_chunked_body_off_at_the_limit(site):
    address = httpx.URL(site.url)
    chunk = b"x" * 65536
    with socket.create_connection((address.host, address.port), timeout=60) as connection:
        connection.sendall(b"POST /nights/shape/ HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n")
        sent = 0
        while sent <= settings.REQUEST_BODY_MAX_BYTES:  # just past the limit, then nothing more
            connection.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            sent += len(chunk)
        answer = connection.recv(65536)

    assert answer.startswith(b"HTTP/1.1 413 ")


NGINX_LIMIT = 64 * 1024  # the nginx in front of the site here takes less than the site, to tell them apart


@pytest.fixture(scope="module")
def behind_nginx(site, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    workdir: Path = tmp_path_factory.mktemp("nginx")
    port = free_ports()
    backend = httpx.URL(site.url).port
    assert backend is not None
    (workdir / "nginx.conf").write_text(nginx_config(workdir, port, backend, [backend], body_max_bytes=NGINX_LIMIT))
    log = (workdir / "nginx.log").open("wb")
    process = subprocess.Popen([find_nginx(), "-c", str(workdir / "nginx.conf")], cwd=workdir,
                               stdout=log, stderr=subprocess.STDOUT)
    proxy = ServerProcess(url=f"http://127.0.0.1:{port}", process=process, log_path=workdir / "nginx.log")
    wait_until_up(proxy)
    yield proxy.url
    proxy.stop()


@pytest.mark.parametrize("size", [FIFTY_MB, NGINX_LIMIT + 1])
def test_nginx_refuses_a_body_over_its_limit_before_it_reaches_the_site(size, behind_nginx, site):
    site.mark_log()

    answer = answer_to_head_alone(behind_nginx, fifty_mb_post("/nights/shape/", size))

    assert answer.startswith(b"HTTP/1.1 413 ")
    assert "/nights/shape/" not in site.log()  # uvicorn's access log: the request never came
    assert post_a_form(behind_nginx).status_code == 200


def test_nginx_and_the_site_take_the_same_largest_body():
    assert REQUEST_BODY_MAX_BYTES == settings.REQUEST_BODY_MAX_BYTES == settings.DATA_UPLOAD_MAX_MEMORY_SIZE
