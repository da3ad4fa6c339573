"""The connection check: every phone opens it, anyone pings, every screen lights up."""

from __future__ import annotations

import logging

from django.conf import settings
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.views.decorators.http import require_GET, require_POST
from django_ratelimit import ALL
from django_ratelimit.core import is_ratelimited
from redis.exceptions import RedisError

from live.actions import CONNECTION_CHECK_CHANNEL, send_ping
from live.forms import PingForm
from live.http import HtmxHttpRequest
from live.models import Event
from live.renderers import ping_from_message
from live.streams import event_stream_response

logger = logging.getLogger(__name__)

RECENT_PINGS = 10
TOO_MANY_PINGS = "Lots of pings from this network just now: wait a few seconds, then ping again."


def _recent_pings() -> list[dict[str, object]]:
    events = Event.objects.on(CONNECTION_CHECK_CHANNEL).filter(kind="ping").order_by("-id")
    return [ping_from_message(event.as_message()) for event in events[:RECENT_PINGS]]


@require_GET
def connection_check(request: HttpRequest) -> HttpResponse:
    return render(request, "live/connection_check.html", {"pings": _recent_pings(), "form": PingForm()})


@require_GET
def connection_check_feed(request: HttpRequest) -> HttpResponse:
    """The slow poll's answer: the list as the log has it now."""
    return render(request, "live/connection_check.html#pings", {"pings": _recent_pings()})


def _too_many_pings(request: HttpRequest) -> bool:
    """Count this ping for the client's address (settings.RATE_LIMITS["ping"]): every ping reaches
    every open check page, so one address may not flood them. Redis down: the ping goes through."""
    try:
        return is_ratelimited(request, group="ping", key="ip", rate=settings.RATE_LIMITS["ping"],
                              method=ALL, increment=True)
    except RedisError as error:
        logger.warning("Ping rate limit not checked, the cache is down: %s", error)
        return False


@require_POST
def connection_check_ping(request: HtmxHttpRequest) -> HttpResponse:
    form = PingForm(request.POST)
    if not form.is_valid():
        return render(request, "live/connection_check.html#ping-form", {"form": form}, status=400)
    if _too_many_pings(request):
        if request.htmx:
            return render(request, "live/connection_check.html#ping-form", {"form": form, "refused": TOO_MANY_PINGS},
                          status=429)
        return render(request, "live/connection_check.html",
                      {"pings": _recent_pings(), "form": form, "refused": TOO_MANY_PINGS}, status=429)
    event = send_ping(form.sender())
    if not request.htmx:
        return redirect("live:connection_check")
    return render(
        request,
        "live/connection_check.html#ping-form",
        {"form": PingForm(initial={"name": form.cleaned_data.get("name")}), "sent": event},
    )


@require_GET
def connection_check_events(request: HttpRequest) -> HttpResponse | StreamingHttpResponse:
    def snapshot() -> str:
        return render_to_string("live/connection_check.html#pings-replace", {"pings": _recent_pings()})

    return event_stream_response(request, [CONNECTION_CHECK_CHANNEL], snapshot)
