"""A database that cannot be reached is answered 503 with a sentence, never the 500 page (wiring).

While PostgreSQL restarts (or the pool has no connection to give within its timeout) every request
that needs the database fails with Django's OperationalError or InterfaceError. That is not a bug
of the page asked for: the answer says what happened and what to do, as 503 with Retry-After, so a
phone's script sends its tap again with the same key (static/js/tally.js retries a 5xx) and a person
reloads. Each one is logged on one line (the server's log shows the outage and how long it lasted).

The answer is built without a template, a session or a user: each of those may need the database.
"""

from __future__ import annotations

import logging
from html import escape

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.deprecation import MiddlewareMixin
from django.utils.translation import get_language, gettext, gettext_noop

from live.http import wants_json

logger = logging.getLogger("bunco_club.site.unavailable")

MESSAGE = gettext_noop("The site can't reach its database just now, so this wasn't saved. Try again in a few seconds.")
RETRY_AFTER_SECONDS = 5
PAGE = """<!doctype html>
<html lang="{language}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} · Bunco Club</title></head>
<body><h1>{title}</h1><p role="alert">{message}</p></body></html>
"""


class DatabaseUnavailableMiddleware(MiddlewareMixin):
    """Turns a database connection error raised by a view into `database_unavailable`."""

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, OperationalError | InterfaceError):
            return None
        logger.error("The database is unreachable: %s %s answered 503 (%s: %s)", request.method, request.path,
                     type(exception).__name__, str(exception).strip().splitlines()[0] if str(exception) else "")
        return database_unavailable(request)


def database_unavailable(request: HttpRequest) -> HttpResponse:
    """503 with the message: JSON ({"error": ...}) for a caller that reads JSON (a phone's script, or
    anything calling a URL that answers JSON), a page with the message as its alert for anyone else."""
    response: HttpResponse
    if wants_json(request):
        response = JsonResponse({"error": gettext(MESSAGE)}, status=503)
    else:
        page = PAGE.format(language=get_language(), title=escape(gettext("Back in a moment")), message=escape(gettext(MESSAGE)))
        response = HttpResponse(page, status=503,
                                content_type="text/html; charset=utf-8")
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Cache-Control"] = "no-store"
    return response
