"""The one base of every refusal the site gives (docs/DESIGN.md §3).

A `Refusal` is a request the site will not take, raised by an action before it changes anything:
`status` is the HTTP answer (400 bad input, 403 not yours, 404 no such thing, 409 not now or
already done, 429 too many just now), and the message tells a person what to do. The night's, the tournament's and the
club's errors all derive from it, so a view, a test or a middleware can tell a refusal (answered,
never logged as a fault) from a bug (a 500, logged) with one `except Refusal`.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from typing import ParamSpec, TypeVar

from django import forms
from django.http import HttpResponse, JsonResponse
from django.http.response import HttpResponseBase

from live.words import spoken

P = ParamSpec("P")
R = TypeVar("R", bound=HttpResponseBase)


class Refusal(Exception):
    """A request refused with nothing changed; `str(refusal)` is the message for people."""

    status: int = 400

    @property
    def message(self) -> str:
        """In the reader's language: raised with a sentence already translated (`gettext`), it is
        that; raised with a pure rule's `Said` (games/rules/words.py), its template is translated
        here and filled in."""
        return spoken(self.args[0]) if self.args and hasattr(self.args[0], "template") else str(self)


# The refusals every app gives alike, defined here once: an app raises them with its own message
# (and, for an app's own kind of them, subclasses them only to say something a view tells apart).
# An app may give one its own name (`BadMove = BadInput`): the same class, read in the app's words.


class BadInput(Refusal):
    """What was sent cannot be taken as it is (malformed, out of bounds, not one of the choices);
    the message says what to send instead."""

    status = 400


class NotYours(Refusal):
    """Not this person's or this phone's to do (another table, another seat, another group)."""

    status = 403


class NotFound(Refusal):
    """No such thing (any longer): a night deleted, a link that names nothing."""

    status = 404


class KeyReused(Refusal):
    """An idempotency key already recorded with other content: never taken for a retry of it, so a
    phone whose second request reused a key learns that request was not saved."""

    status = 409


class NotNow(Refusal):
    """Not at this moment: before it has started, after it is over, out of turn, while paused;
    the message says when it will be possible, or what to do instead."""

    status = 409


class SeatTaken(Refusal):
    """Another phone (or person) holds that seat; the message says who can hand it over."""

    status = 409


class TooMany(Refusal):
    """Over a limit (too many log-ins, bad links, nights, streams, pings from here just now): 429,
    the message says how long to wait. `retry_after` (seconds), when given, is sent as the answer's
    Retry-After header, by whichever answer gives it (`answers_refusals`)."""

    status = 429

    def __init__(self, message: str, *, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


Answer = Callable[..., HttpResponse]


def answers_refusals(answer: Answer) -> Callable[[Callable[P, R]], Callable[P, R | HttpResponse]]:
    """A view decorator, one per app (`refused = answers_refusals(my_answer)`): a `Refusal` raised
    in the view, by an action it calls or a check it makes, becomes `answer(request, refusal,
    **view_kwargs)`, the response that view's caller expects (JSON for a phone, the page's partial
    for a host or a director). Nothing else is caught: a bug stays a 500, and is logged.

    The action's own `transaction.atomic` has rolled back by the time the refusal gets here, so
    the answer reads the state as it stands."""

    def decorate(view: Callable[P, R]) -> Callable[P, R | HttpResponse]:
        @functools.wraps(view)
        def answered(*args: P.args, **kwargs: P.kwargs) -> R | HttpResponse:
            try:
                return view(*args, **kwargs)
            except Refusal as refusal:
                return with_retry_after(answer(args[0], refusal, **kwargs), refusal)

        return answered

    return decorate


def with_retry_after[Response: HttpResponseBase](response: Response, refusal: Refusal) -> Response:
    """The answer to a refusal, with Retry-After when the refusal says when to come back (TooMany)."""
    retry_after = getattr(refusal, "retry_after", None)
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response


def json_refusal(refusal: Refusal) -> JsonResponse:
    """A refusal as a phone's script reads it: {"error": message} with the refusal's status."""
    return JsonResponse({"error": refusal.message}, status=refusal.status)


def text_refusal(refusal: Refusal) -> HttpResponse:
    """A refusal as an event stream's client gets it: the message as plain text, with the refusal's
    status (an EventSource does not retry a refusal)."""
    return HttpResponse(refusal.message, status=refusal.status, content_type="text/plain; charset=utf-8")


@contextlib.contextmanager
def shown_on(form: forms.BaseForm, field: str | None) -> Iterator[None]:
    """For a form page, the one way an action's refusal reaches the person: the message beside the
    field it is about (`None`: above the form), and the page shown again with what they typed.

        if request.method == "POST" and form.is_valid():
            with shown_on(form, "name"):
                club = actions.create_club(...)
                return redirect(...)        # only when the action took it
        return render(...)                  # the form, with the refusal as its error

    A limit's refusal (TooMany) is about the whole form, never one field: it is shown above it, and
    the page is answered with its 429 (`form_status`), the form still filled in to send again later.

    Only refusals are caught: a bug stays a 500."""
    try:
        yield
    except Refusal as refusal:
        too_many = isinstance(refusal, TooMany)
        form.add_error(None if too_many else field, refusal.message)
        if too_many:
            form.over_a_limit = refusal  # type: ignore[attr-defined]


def form_status(form: forms.BaseForm) -> int:
    """The status of a form page, the one way every form page tells it: 200 shown afresh, 400 sent
    back for what was typed (an action's refusal shown on it by `shown_on` included), and a limit's
    429 when `shown_on` showed a TooMany on it."""
    over_a_limit = getattr(form, "over_a_limit", None)
    if isinstance(over_a_limit, TooMany):
        return over_a_limit.status
    return BadInput.status if form.errors else 200
