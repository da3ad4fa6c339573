"""HTTP helpers every app shares: the request type of htmx views, the one way a number is read
from a request, and the client's address."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest
from django.http.response import HttpResponseBase
from django.utils.functional import Promise
from django.utils.translation import gettext, gettext_noop
from django_htmx.middleware import HtmxDetails

from live.refusals import BadInput


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


# --- Who reads an answer as JSON ------------------------------------------------------------------

def answers_json[View: Callable[..., object]](view: View) -> View:
    """Marks a view whose every answer is JSON, read by a phone's script (a tap, a move, a seat's
    state): an answer made outside the view for its URL (the database unreachable) is JSON too,
    whatever the request's Accept header says (`wants_json`)."""
    view.answers_json = True  # type: ignore[attr-defined]
    return view


def wants_json(request: HttpRequest) -> bool:
    """Whether the caller reads JSON: it asks for it, or the URL it called answers JSON."""
    if "application/json" in request.headers.get("Accept", ""):
        return True
    match = getattr(request, "resolver_match", None)
    return bool(match is not None and getattr(match.func, "answers_json", False))


# --- Numbers from a request ---------------------------------------------------------------------

# The largest id a row can have: ids are signed 64-bit integers (SQLite and PostgreSQL bigint).
ID_MAX = 2**63 - 1


class BadNumber(BadInput):
    """A number from a request that is not a whole number within its bounds: refused (400) like any
    other bad input, by the app's one answer. The message says so in words a person can act on. Its
    own kind: a form that reads several numbers tells which field it was about."""


def remember_language[Response: HttpResponseBase](response: Response, language: str) -> Response:
    """`response`, telling the phone to read the site in `language` from now on: the cookie of the
    header's switch (settings.LANGUAGE_COOKIE_*), which bunco_club/site/language.py reads as Django's LocaleMiddleware does."""
    response.set_cookie(settings.LANGUAGE_COOKIE_NAME, language, max_age=settings.LANGUAGE_COOKIE_AGE,
                        path=settings.LANGUAGE_COOKIE_PATH, domain=settings.LANGUAGE_COOKIE_DOMAIN,
                        secure=settings.LANGUAGE_COOKIE_SECURE, httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
                        samesite="Lax")
    return response


def parse_int(raw: object, *, low: int, high: int, what: str | Promise, advice: str = "") -> int:
    """`raw`, text from a request (a form field, a header, a query parameter), as a whole number
    from `low` to `high`; BadNumber otherwise. The one way the site reads a number it was sent.

    Only the ASCII digits 0-9, with a leading minus where a negative number means something
    (`low` < 0), and spaces around them. Python's int() is far more generous: it takes "٣" (an
    Arabic-Indic three), "1_000", "+7" and " 7\n", raises on "²" although "²".isdigit() is True,
    raises on 5,000 digits, and gives 10**30, which no database column holds. The length is
    checked before int() runs, so a long string costs nothing.

    `what` names the number in the message ("The table number"); `advice`, when the page sent the
    number itself (a button's round), is what to do about it ("Reload the page and tap again.").
    """
    read = _read_int(raw, low=low, high=high, what=what)
    if isinstance(read, BadNumber):
        raise BadNumber(f"{read} {advice}") if advice else read
    return read


def parse_int_or_none(raw: object, *, low: int, high: int) -> int | None:
    """`raw` read as parse_int reads it, None for anything but a whole number from `low` to `high`:
    for a view that answers a bad number as it answers a missing one ("Tap one of the names")."""
    read = _read_int(raw, low=low, high=high, what=gettext_noop("the number"))
    return None if isinstance(read, BadNumber) else read


def _read_int(raw: object, *, low: int, high: int, what: str | Promise) -> int | BadNumber:
    """parse_int's reading: the number, or the refusal it would raise."""
    if type(raw) is int:  # already a number (a form built in code): only the bounds to check
        text = str(raw)
    elif isinstance(raw, str):
        text = raw.strip(" \t\r\n")
    else:
        return BadNumber(gettext("%(what)s is missing.") % {"what": _capitalised(what)})
    negative = text.startswith("-")
    digits = text[1:] if negative else text
    if not digits or not (digits.isascii() and digits.isdigit()):
        return BadNumber(gettext("%(what)s must be a whole number, written with the digits 0 to 9.") % {"what": _capitalised(what)})
    digits = digits.lstrip("0") or "0"
    if (negative and low >= 0) or len(digits) > len(str(max(abs(low), abs(high)))):
        return _out_of_bounds(what, low, high)
    value = -int(digits) if negative else int(digits)
    if not low <= value <= high:
        return _out_of_bounds(what, low, high)
    return value


def _out_of_bounds(what: str | Promise, low: int, high: int) -> BadNumber:
    if high < 10**9:
        return BadNumber(gettext("%(what)s must be a whole number from %(low)s to %(high)s.") % {"what": _capitalised(what), "low": low, "high": high})
    # An id: its 19-digit ceiling would mean nothing to anyone.
    return BadNumber(gettext("%(what)s must be a whole number from %(low)s up, of a sensible size.") % {"what": _capitalised(what), "low": low})


def _capitalised(what: str | Promise) -> str:
    # A lazy translation is said now; a name marked with gettext_noop (a pure rule's "a die") is
    # translated here.
    what = gettext(str(what))
    return what[:1].upper() + what[1:]


# --- The client -------------------------------------------------------------------------------


def client_address(request: HttpRequest) -> str:
    """The client's address: nginx's X-Real-IP when the site runs behind it (TRUST_X_REAL_IP)."""
    if settings.TRUST_X_REAL_IP:
        forwarded = request.META.get("HTTP_X_REAL_IP", "").strip()
        if forwarded:
            return forwarded
    return request.META.get("REMOTE_ADDR") or "0.0.0.0"
