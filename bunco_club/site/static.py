"""Static files served in front of Django, for ASGI (uvicorn) and WSGI (gunicorn) alike.

servestatic's Django middleware is async-only: under gunicorn it would make Django run an event
loop for every request (async_to_sync). Wrapping the application instead keeps the WSGI path
synchronous and the ASGI path asynchronous. Files come from the finders (no collectstatic needed,
`make run` before its first collectstatic, the tests), or from STATIC_ROOT after collectstatic
with compressed copies (STATIC_COLLECTED=1).
"""

from __future__ import annotations

from typing import TypeVar
from wsgiref.headers import Headers

from django.conf import settings
from django.contrib.staticfiles import finders
from servestatic.base import ServeStaticBase

Server = TypeVar("Server", bound=ServeStaticBase)


def security_headers(headers: Headers, path: str, url: str) -> None:
    """What SecurityMiddleware would add, for files it never sees: no guessing at content types."""
    if settings.SECURE_CONTENT_TYPE_NOSNIFF:
        headers["X-Content-Type-Options"] = "nosniff"


def with_static_files[Server: ServeStaticBase](server_class: type[Server], application: object) -> Server:
    server = server_class(
        application,
        autorefresh=settings.DEBUG,
        max_age=settings.STATIC_MAX_AGE,
        # Hashed names (ManifestStaticFilesStorage) never change: cache them for good.
        immutable_file_test=r"\.[0-9a-f]{12}\.\w+$",
        add_headers_function=security_headers,
    )
    prefix = settings.STATIC_URL
    if settings.STATIC_COLLECTED:
        server.add_files(settings.STATIC_ROOT, prefix)
        return server
    roots = []
    for finder in finders.get_finders():
        for storage in getattr(finder, "storages", {}).values():
            roots.append((storage.location, prefix + (getattr(storage, "prefix", None) or "")))
    # Later add_files calls win; the first finder's file must win, as in Django.
    for root, root_prefix in reversed(roots):
        server.add_files(root, root_prefix)
    return server
