"""The reader's language on every request: Django's LocaleMiddleware's work, without its cost under
ASGI.

LocaleMiddleware is a MiddlewareMixin: under uvicorn each of its two hooks is run through
`sync_to_async`, two hops to the sync thread and back on every request, the taps and the moves
included (measured: the tap's answer through the server 15 % slower with it, docs/PERFORMANCE.md
"Languages"). The site uses no language prefix in its URLs (no `i18n_patterns`), so what is left of
LocaleMiddleware's work is pure and quick: read the switch's cookie, else Accept-Language, activate
that language, and say so in the answer's headers. This does it on whichever side the request runs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from inspect import iscoroutinefunction

from django.http import HttpRequest, HttpResponseBase
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.decorators import sync_and_async_middleware

type Answer = Callable[[HttpRequest], HttpResponseBase]
type AsyncAnswer = Callable[[HttpRequest], Awaitable[HttpResponseBase]]


def read_language(request: HttpRequest) -> None:
    """The switch's cookie, else the phone's Accept-Language, else the site's default: activated."""
    translation.activate(translation.get_language_from_request(request))
    request.LANGUAGE_CODE = translation.get_language()


def said_in_language(response: HttpResponseBase) -> HttpResponseBase:
    """An answer that depends on the reader's Accept-Language says so to caches, and says its language."""
    patch_vary_headers(response, ("Accept-Language",))
    response.headers.setdefault("Content-Language", translation.get_language())
    return response


@sync_and_async_middleware
def language_middleware(get_response: Answer | AsyncAnswer) -> Answer | AsyncAnswer:
    if iscoroutinefunction(get_response):
        answer_later: AsyncAnswer = get_response

        async def in_language_async(request: HttpRequest) -> HttpResponseBase:
            read_language(request)
            return said_in_language(await answer_later(request))

        return in_language_async

    answer_now: Answer = get_response  # type: ignore[assignment]

    def in_language(request: HttpRequest) -> HttpResponseBase:
        read_language(request)
        return said_in_language(answer_now(request))

    return in_language
