"""Check-in on the day (issue 46): a player's phone scanning the projector's rotating code, a
player's personal link, and the director's window and no-shows."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from games.phones import phone_token
from live.http import HtmxHttpRequest
from tournaments import actions
from tournaments import check_in as codes
from tournaments.forms import CheckInForm, CheckInWindowForm
from tournaments.models import Entrant, Tournament, new_token
from tournaments.views.contexts import dashboard_context
from tournaments.views.shared import Page, form_error, refused, tournament_for_director, tournament_or_404


def _names_to_choose(tournament: Tournament, phone: str) -> list[Entrant]:
    """The names a phone scanning the code may choose: those registered and not yet checked in
    whom no other phone answers for, and the one this phone answers for, if any."""
    return [entrant for entrant in tournament.entrants.filter(status=Entrant.Status.REGISTERED)
            if (not entrant.checked_in and not entrant.phone) or (phone and entrant.phone == phone)]


def _checked_in_here(tournament: Tournament, phone: str) -> Entrant | None:
    if not phone:
        return None
    return tournament.entrants.filter(phone=phone, checked_in=True).first()


@require_http_methods(["GET", "POST"])
@refused(Page.CHECK_IN)
def check_in_scan(request: HttpRequest, code: str, token: str) -> HttpResponse:
    """The projector's code, scanned: the names to choose from (GET), then the one chosen checked
    in (POST). A forged code, another tournament's, an old one or one outside the window is
    refused with what to do, and nothing is recorded."""
    tournament = tournament_or_404(code)
    now = timezone.now()
    phone = phone_token(request, create=request.method == "POST")
    if request.method == "POST":
        form = CheckInForm(request.POST)
        if not form.is_valid():
            raise form_error(form, _("Choose your name."))
        entrant = get_object_or_404(Entrant, pk=form.cleaned_data["entrant"], tournament=tournament)
        actions.check_in_by_code(tournament, entrant, token=token, phone=phone, key=form.cleaned_data["key"] or None,
                                 now=now)
        return redirect("tournaments:check_in_scan", code=tournament.code, token=token)
    codes.read_code(token, tournament.code, now)
    done = _checked_in_here(tournament, phone)
    refusal = tournament.check_in_refusal(now) if done is None else None
    if refusal is not None:
        raise actions.NotNow(refusal)
    return render(request, "tournaments/check_in.html", {
        "tournament": tournament, "done": done, "names": _names_to_choose(tournament, phone) if done is None else [],
        "key": new_token(),
    })


def _player_of(tournament: Tournament, token: str) -> Entrant:
    return get_object_or_404(Entrant, pk=codes.read_player_token(token, tournament.code), tournament=tournament)


def _player_context(tournament: Tournament, entrant: Entrant, token: str, now: datetime) -> dict[str, Any]:
    return {
        "tournament": tournament, "entrant": entrant, "token": token, "key": new_token(),
        "refusal": tournament.check_in_refusal(now) if not entrant.checked_in else None,
        "opens_at": tournament.check_in_opens_at(),
    }


@require_http_methods(["GET"])
@refused(Page.CHECK_IN)
def player_page(request: HttpRequest, code: str, token: str) -> HttpResponse:
    """A player's personal link: who they are in the tournament, and their check-in."""
    tournament = tournament_or_404(code)
    entrant = _player_of(tournament, token)
    return render(request, "tournaments/player.html", _player_context(tournament, entrant, token, timezone.now()))


@require_POST
@refused(Page.CHECK_IN)
def player_check_in(request: HttpRequest, code: str, token: str) -> HttpResponse:
    """A player checks in from their personal link (in the window)."""
    tournament = tournament_or_404(code)
    entrant = _player_of(tournament, token)
    form = CheckInForm({"entrant": entrant.pk, "key": request.POST.get("key", "")})
    if not form.is_valid():
        raise form_error(form, _("That check-in was malformed: check in again."))
    actions.check_in_by_link(tournament, entrant, phone=phone_token(request, create=True),
                             key=form.cleaned_data["key"] or None)
    return redirect("tournaments:player", code=tournament.code, token=token)


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_check_in_window(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """The director sets when round 1 starts and how long before it players check themselves in."""
    tournament = tournament_for_director(request, code)
    form = CheckInWindowForm(request.POST)
    if not form.is_valid():
        raise form_error(form, _("Give the start's date and time, and the minutes before it that check-in opens."))
    actions.set_check_in_window(tournament, starts_at=form.cleaned_data["starts_at"],
                                minutes=form.cleaned_data["minutes"])
    return _back(request, tournament)


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_no_shows(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """The director confirms the players who have not checked in are no-shows."""
    tournament = tournament_for_director(request, code)
    actions.drop_no_shows(tournament)
    return _back(request, tournament)


def _back(request: HtmxHttpRequest, tournament: Tournament) -> HttpResponse:
    if request.htmx:
        return render(request, "tournaments/dashboard.html#dashboard-state", dashboard_context(request, tournament))
    return redirect("tournaments:dashboard", code=tournament.code)
