"""The night's views to watch: the projector (by unguessable link), the prizes page, the
night's live stream."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.crypto import constant_time_compare
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods

from games.links import join_path
from games.night.models import Night
from games.night.views.shared import (
    SEATS,
    night_or_404,
    player_of,
    standings,
    tables_context,
)
from live.bilingual import shown_in
from live.http import HtmxHttpRequest
from live.qr import qr_svg
from live.streams import event_stream_response, read_for_a_stream


@require_GET
def screen(request: HtmxHttpRequest, code: str, token: str) -> HttpResponse:
    """The projector: all tables live, standings, the traveler. Read-only, by unguessable link."""
    night = night_or_404(code)
    if not constant_time_compare(token, night.screen_token):
        raise PermissionDenied(_("This screen link isn't valid."))
    context = {**tables_context(night), "standings": standings(night)[:20], "traveler": night.traveler(),
               "screen_token": token,
               # The night's code for late arrivals, while its link still admits phones.
               "join_qr": qr_svg(request.build_absolute_uri(join_path(night.code)), scale=4)
               if night.join_refusal() is None else None}
    # In every language of the night's phones, its own first (live/bilingual.py).
    with shown_in(night.languages_for_a_screen(translation.get_language())):
        if request.htmx:
            return render(request, "games/screen.html#screen-state", context)
        return render(request, "games/screen.html", context)


@require_http_methods(["GET"])
def night_prizes(request: HttpRequest, code: str) -> HttpResponse:
    night = night_or_404(code)
    is_host = night.is_hosted_by(request.user, request.session)
    if not is_host and player_of(request, night) is None:
        raise PermissionDenied(_("Only tonight's players and host can see the prizes."))
    awards = list(night.awards.select_related("player"))
    return render(request, "games/prizes.html", {
        "night": night, "awards": awards, "is_host": is_host, "standings": standings(night),
        "pot": night.pot_cents(), "traveler": night.traveler(), "unclaimed": night.unclaimed_prizes(),
    })


@require_GET
def night_events(request: HttpRequest, code: str) -> HttpResponse | StreamingHttpResponse:
    """The night's live stream, for its players, its host and its projector (by token)."""

    def night_if_allowed() -> tuple[Night, list[str]] | None:
        night = night_or_404(code)
        screen_token = request.GET.get("screen", "")
        if screen_token and constant_time_compare(screen_token, night.screen_token):  # the projector
            return night, night.languages_for_a_screen(translation.get_language())
        allowed = SEATS.claimed(request, night.code) is not None or night.is_hosted_by(request.user, request.session)
        return (night, []) if allowed else None

    allowed = read_for_a_stream(request, night_if_allowed)
    if allowed is None:
        raise PermissionDenied(_("Join the game to follow it live."))
    night, languages = allowed

    def snapshot() -> str:
        return render_to_string("games/_bell.html", {"round": night.round_obj()})

    return event_stream_response(request, [night.channel], snapshot, languages=languages)

