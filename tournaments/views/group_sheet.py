"""The director's page of one group: its every entry, to strike out or correct, and putting
the group on phones."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from live.http import HtmxHttpRequest
from tournaments import actions, digital
from tournaments.forms import CorrectionForm, KeyForm
from tournaments.links import group_path
from tournaments.models import Turn, new_token
from tournaments.views.contexts import group_context
from tournaments.views.shared import (
    Page,
    form_error,
    group_of,
    posted_entrant,
    refused,
    tournament_for_director,
)


@login_required
@require_GET
def director_group(request: HttpRequest, code: str, group_id: int) -> HttpResponse:
    """One group's every entry, to strike out or correct."""
    tournament = tournament_for_director(request, code)
    group = group_of(tournament, group_id)
    entries = group.turns.select_related("entrant", "undone_by").order_by("-id")
    # Fresh keys for each showing of the page (each correction or strike comes back to it): the
    # same form sent twice (a double click, a resend) is applied once.
    return render(request, "tournaments/director_group.html", {
        **group_context(group), "entries": entries, "group_url": request.build_absolute_uri(group_path(group.code)),
        "correction_key": new_token(), "strike_key": new_token(), "settle_key": new_token(),
        "result_log": group.result_entries.select_related("entrant", "director").order_by("id"),
        "can_correct": group.correction_refusal() is None,
        "can_go_on_phones": group.phones_refusal(timezone.now()) is None,
        "table_url": digital.table_path(group.table) if group.table is not None else "",
    })


@login_required
@require_POST
@refused(Page.GROUP_SHEET)
def director_on_phones(request: HttpRequest, code: str, group_id: int) -> HttpResponse:
    """One group plays on phones from now on: its game table opens."""
    tournament = tournament_for_director(request, code)
    group = group_of(tournament, group_id)
    actions.put_group_on_phones(group=group)
    return redirect("tournaments:director_group", code=tournament.code, group_id=group.pk)


@login_required
@require_POST
@refused(Page.GROUP_SHEET)
def director_strike(request: HtmxHttpRequest, code: str, turn_id: int) -> HttpResponse:
    tournament = tournament_for_director(request, code)
    turn = get_object_or_404(Turn.objects.select_related("group"), pk=turn_id, tournament=tournament)
    form = KeyForm(request.POST)
    if not form.is_valid():
        raise actions.BadEntry(_("That strike was malformed: strike the entry again."))
    actions.correct_turn(turn=turn, key=form.cleaned_data["key"] or None)
    return redirect("tournaments:director_group", code=tournament.code, group_id=turn.group_id)


@login_required
@require_POST
@refused(Page.GROUP_SHEET)
def director_correct(request: HtmxHttpRequest, code: str, group_id: int) -> HttpResponse:
    tournament = tournament_for_director(request, code)
    group = group_of(tournament, group_id)
    form = CorrectionForm(request.POST)
    if not form.is_valid():
        raise form_error(form, _("A correction needs a player and points."))
    actions.add_correction(group=group, entrant=posted_entrant(group, form), points=form.cleaned_data["points"],
                           key=form.cleaned_data["key"] or None)
    return redirect("tournaments:director_group", code=tournament.code, group_id=group.pk)


@login_required
@require_POST
@refused(Page.GROUP_SHEET)
def director_settle(request: HtmxHttpRequest, code: str, group_id: int) -> HttpResponse:
    """The director confirms a group's reported or disputed result as its entries now stand."""
    tournament = tournament_for_director(request, code)
    group = group_of(tournament, group_id)
    form = KeyForm(request.POST)
    if not form.is_valid():
        raise actions.BadEntry(_("That confirmation was malformed: confirm the result again."))
    actions.settle_result(group=group, director=request.user, key=form.cleaned_data["key"] or None)
    return redirect("tournaments:director_group", code=tournament.code, group_id=group.pk)
