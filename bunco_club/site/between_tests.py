"""Two doors of a server the test suite starts, so that one server serves a worker's browser tests
one after another instead of a server started (seconds each) for every test.

Only mounted with settings.TESTS_BETWEEN_TESTS_HOOKS (the suite's servers set it; a real site never
does), and only answered for the machine itself.

- `quiet`: after a test, hold the round clock (no tick writes while the suite empties the database)
  and say how many event streams are still open (the suite waits for the closed pages' streams to
  end, so that none is counted against the next test's phones).
- `fresh`: before a test, forget what the process keeps in memory from the last one (the rate
  limits' counts and the sessions in the cache, the content types of a database since emptied and
  filled again) and let the clock tick again.
"""

from __future__ import annotations

import threading

from django.contrib.contenttypes.models import ContentType
from django.core.cache import caches
from django.http import HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from bunco_club.site.clock import tick_lock
from live.refusals import NotYours, Refusal, answers_refusals, text_refusal
from live.streams import open_streams

LOOPBACK = ("127.0.0.1", "::1")
_holding = threading.Lock()  # one caller at a time decides whether the clock is held
_clock_held = [False]


def _only_from_this_machine(request: HttpRequest, doing: str) -> None:
    """NotYours (403) for a caller from anywhere but the machine itself."""
    if request.META.get("REMOTE_ADDR") not in LOOPBACK:
        raise NotYours(f"Only the test suite on this machine may {doing}.")


def _answer(request: HttpRequest, refusal: Refusal, **kwargs: object) -> HttpResponse:
    return text_refusal(refusal)


@csrf_exempt
@require_POST
@answers_refusals(_answer)
def quiet(request: HttpRequest) -> HttpResponseBase:
    _only_from_this_machine(request, "quiet the server")
    with _holding:
        if not _clock_held[0]:
            tick_lock.acquire()  # waits for a tick under way to end
            _clock_held[0] = True
    return JsonResponse({"open_streams": open_streams.total()})


@csrf_exempt
@require_POST
@answers_refusals(_answer)
def fresh(request: HttpRequest) -> HttpResponseBase:
    _only_from_this_machine(request, "wipe the server's memory")
    for cache in caches.all():
        cache.clear()
    ContentType.objects.clear_cache()
    with _holding:
        if _clock_held[0]:
            tick_lock.release()
            _clock_held[0] = False
    return JsonResponse({"open_streams": open_streams.total()})


urlpatterns = [path("quiet/", quiet), path("fresh/", fresh)]
