"""The connection check: one phone opens a check ROOM, the others at the party join it by its link
or QR code, anyone in it pings, and every screen in that room (and no other) lights up."""

from __future__ import annotations

import enum
import functools
import logging
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from django.conf import settings
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext, gettext_noop
from django.views.decorators.http import require_GET, require_POST
from django_ratelimit import ALL
from django_ratelimit.core import is_ratelimited
from redis.exceptions import RedisError

from live.actions import CheckRoom, find_room, open_room, send_ping
from live.forms import PingForm
from live.http import HtmxHttpRequest
from live.models import Event
from live.qr import qr_svg
from live.refusals import Refusal, TooMany, answers_refusals, form_status, text_refusal
from live.renderers import ping_from_message
from live.streams import event_stream_response

logger = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R", bound=HttpResponseBase)

RECENT_PINGS = 10
TOO_MANY_PINGS = gettext_noop("Lots of pings in this check just now: wait a few seconds, then ping again.")
TOO_MANY_PINGS_FROM_HERE = gettext_noop("Lots of pings from this network just now: wait a minute, then ping again.")


class Shown(enum.Enum):
    """Where a room link that leads nowhere is answered, which decides how its refusal is shown."""

    PAGE = "page"  # the check's page, saying so
    FEED = "feed"  # the slow poll's list, saying so (and no longer polling)
    PING = "ping"  # the ping form (htmx), else the page
    STREAM = "stream"  # the stream: plain text, which the page does not retry


def _answer(request: HtmxHttpRequest, refusal: Refusal, *, shown: Shown, **kwargs: object) -> HttpResponse:
    """The connection check's one answer to a refusal (a room link that leads nowhere: 404 for a
    link the site never signed, nothing about it is recorded; 410 for one that has expired)."""
    if shown is Shown.STREAM:
        return text_refusal(refusal)
    if shown is Shown.PING and isinstance(refusal, TooMany):  # over a limit: the form again, the message above it
        return _ping_form_again(request, find_room(str(kwargs["room"])), refusal)
    context = {"room_refusal": refusal.message}
    if shown is Shown.FEED:
        return render(request, "live/connection_check.html#pings", context, status=refusal.status)
    if shown is Shown.PING and request.htmx:
        return render(request, "live/connection_check.html#ping-form", context, status=refusal.status)
    return render(request, "live/connection_check.html", context, status=refusal.status)


def _ping_form_again(request: HtmxHttpRequest, check: CheckRoom, refusal: Refusal) -> HttpResponse:
    """The ping form as it was sent (to send again later) with the refusal above it: the form's
    region for htmx, else the room's page."""
    form = PingForm(request.POST)
    form.is_valid()
    if request.htmx:
        return render(request, "live/connection_check.html#ping-form",
                      {"room": check, "form": form, "refused": refusal.message}, status=refusal.status)
    return _room_page(request, check, form, status=refusal.status, refused=refusal.message)


def refused(shown: Shown) -> Callable[[Callable[P, R]], Callable[P, R | HttpResponse]]:
    """The view decorator answering a refusal raised in the view as `shown` says."""
    return answers_refusals(functools.partial(_answer, shown=shown))


def _recent_pings(room: CheckRoom) -> list[dict[str, object]]:
    events = Event.objects.on(room.channel).filter(kind="ping").order_by("-id")
    return [ping_from_message(event.as_message()) for event in events[:RECENT_PINGS]]


@require_GET
def connection_check(request: HttpRequest) -> HttpResponse:
    """A fresh room for whoever opens the check; its page shows the link the others join by."""
    return redirect("live:connection_check_room", open_room().token)


def _room_page(request: HttpRequest, check: CheckRoom, form: PingForm, *, status: int = 200,
               refused: str | None = None) -> HttpResponse:
    """The room's page: its link and QR code (for the others to join), the ping form, the pings."""
    room_url = request.build_absolute_uri(reverse("live:connection_check_room", args=[check.token]))
    return render(request, "live/connection_check.html", {
        "room": check, "room_url": room_url, "room_qr": qr_svg(room_url, scale=5),
        "pings": _recent_pings(check), "form": form, "refused": refused,
    }, status=status)


@require_GET
@refused(Shown.PAGE)
def connection_check_room(request: HttpRequest, room: str) -> HttpResponse:
    return _room_page(request, find_room(room), PingForm())


@require_GET
@refused(Shown.FEED)
def connection_check_feed(request: HttpRequest, room: str) -> HttpResponse:
    """The slow poll's answer: the room's list as the log has it now (or, for a room link that
    leads nowhere, a list that says so and stops polling)."""
    check = find_room(room)
    return render(request, "live/connection_check.html#pings", {"room": check, "pings": _recent_pings(check)})


def _count_the_ping(request: HttpRequest, room: CheckRoom) -> None:
    """Count this ping; TooMany when it is over a limit.

    A ping reaches every screen in its room, and only there: what a flood hurts is one room's
    screens, so the limit is the room's (settings.RATE_LIMITS["ping"]), whoever sends them. A hall
    whose parties share one public address is not one room: each party's check counts apart.

    The address keeps a ceiling (RATE_LIMITS["ping-address"], ten rooms' worth): a room costs
    nothing to open (its link is signed, nothing is stored) and every ping is a row of the event
    log, so without it one address could open rooms without end and write rows as fast as it likes.
    A ping its room refused is not counted against the address. Redis down: the ping goes through."""
    try:
        if is_ratelimited(request, group="ping", key=lambda group, request: room.id,
                          rate=settings.RATE_LIMITS["ping"], method=ALL, increment=True):
            raise TooMany(gettext(TOO_MANY_PINGS))
        if is_ratelimited(request, group="ping-address", key="ip", rate=settings.RATE_LIMITS["ping-address"],
                          method=ALL, increment=True):
            raise TooMany(gettext(TOO_MANY_PINGS_FROM_HERE))
    except RedisError as error:
        logger.warning("Ping rate limit not checked, the cache is down: %s", error)


@require_POST
@refused(Shown.PING)
def connection_check_ping(request: HtmxHttpRequest, room: str) -> HttpResponse:
    # The room first: a ping to a room that doesn't exist is neither validated, counted nor logged.
    check = find_room(room)
    form = PingForm(request.POST)
    if not form.is_valid():
        return render(request, "live/connection_check.html#ping-form", {"room": check, "form": form},
                      status=form_status(form))
    _count_the_ping(request, check)
    event = send_ping(check, form.sender())
    if not request.htmx:
        return redirect("live:connection_check_room", check.token)
    return render(
        request,
        "live/connection_check.html#ping-form",
        {"room": check, "form": PingForm(initial={"name": form.cleaned_data.get("name")}), "sent": event},
    )


@require_GET
@refused(Shown.STREAM)
def connection_check_events(request: HttpRequest, room: str) -> HttpResponse | StreamingHttpResponse:
    """The room's stream: its pings only. A room link that leads nowhere is refused (404, 410),
    and the page does not retry a refusal."""
    check = find_room(room)

    def snapshot() -> str:
        return render_to_string("live/connection_check.html#pings-replace",
                                {"room": check, "pings": _recent_pings(check)})

    return event_stream_response(request, [check.channel], snapshot)
