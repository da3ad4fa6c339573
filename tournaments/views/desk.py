"""The director's desk (issue 46): one board of every group of the round under way, flagging
the tables gone quiet, and the minutes of silence that flag one."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from live.http import HtmxHttpRequest
from tournaments import actions
from tournaments.forms import AlertForm
from tournaments.views.contexts import desk_context
from tournaments.views.shared import Page, form_error, refused, tournament_for_director


@login_required
@require_GET
def director_desk(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """Every group of the round: its table, players, turns, whose turn, its silence and its clock."""
    tournament = tournament_for_director(request, code)
    context = desk_context(tournament, timezone.now())
    if request.htmx:
        return render(request, "tournaments/desk.html#desk-state", context)
    return render(request, "tournaments/desk.html", context)


@login_required
@require_POST
@refused(Page.DESK)
def director_alert(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """The minutes without a report after which the desk flags a table and rings."""
    tournament = tournament_for_director(request, code)
    form = AlertForm(request.POST)
    if not form.is_valid():
        raise form_error(form, _("Give the minutes without a report that flag a table."))
    actions.set_alert_minutes(tournament, minutes=form.cleaned_data["minutes"])
    if request.htmx:
        return render(request, "tournaments/desk.html#desk-state", desk_context(tournament, timezone.now()))
    return redirect("tournaments:desk", code=tournament.code)
