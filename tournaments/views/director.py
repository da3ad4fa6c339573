"""The director's dashboard and its buttons (one view per verb): registering and checking in
players, starting rounds, the round's clock, a group's extra minutes, a tie decided."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from live.http import HtmxHttpRequest
from tournaments import actions
from tournaments.forms import ExtendForm, RegisterForm, RoundForm, SeatForm, StartForm
from tournaments.models import Entrant, Tournament, TournamentRound
from tournaments.views.contexts import dashboard_context
from tournaments.views.shared import Page, form_error, group_of, refused, tournament_for_director


@login_required
@require_GET
def dashboard(request: HtmxHttpRequest, code: str) -> HttpResponse:
    tournament = tournament_for_director(request, code)
    context = dashboard_context(request, tournament)
    if request.htmx:
        return render(request, "tournaments/dashboard.html#dashboard-state", context)
    return render(request, "tournaments/dashboard.html", context)


def _back(request: HtmxHttpRequest, tournament: Tournament) -> HttpResponse:
    if request.htmx:
        return render(request, "tournaments/dashboard.html#dashboard-state", dashboard_context(request, tournament))
    return redirect("tournaments:dashboard", code=tournament.code)


def _entrant_of(tournament: Tournament, entrant_id: int) -> Entrant:
    return get_object_or_404(tournament.entrants, pk=entrant_id)


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_register(request: HtmxHttpRequest, code: str) -> HttpResponse:
    tournament = tournament_for_director(request, code)
    form = RegisterForm(request.POST)
    if not form.is_valid():
        raise form_error(form, _("Type the player's name."))
    actions.register(tournament, form.cleaned_data["name"], seed_rank=form.cleaned_data["seed_rank"],
                     checked_in=form.cleaned_data["checked_in"])
    return _back(request, tournament)


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_register_member(request: HtmxHttpRequest, code: str, member_id: int) -> HttpResponse:
    """A player from the club roster, one tap each."""
    tournament = tournament_for_director(request, code)
    if tournament.club is None:
        raise Http404(_("This tournament has no club roster."))
    member = get_object_or_404(tournament.club.members, pk=member_id)
    actions.register_member(tournament, member)
    return _back(request, tournament)


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_check_in(request: HtmxHttpRequest, code: str, entrant_id: int) -> HttpResponse:
    tournament = tournament_for_director(request, code)
    entrant = _entrant_of(tournament, entrant_id)
    actions.check_in(tournament, entrant, present=request.POST.get("present", "1") == "1")
    return _back(request, tournament)


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_seed(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """Seeds from the club's season standings, for a seeded draw."""
    tournament = tournament_for_director(request, code)
    actions.seed_by_club_standings(tournament)
    return _back(request, tournament)


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_drop(request: HtmxHttpRequest, code: str, entrant_id: int) -> HttpResponse:
    tournament = tournament_for_director(request, code)
    actions.drop_entrant(tournament, _entrant_of(tournament, entrant_id))
    return _back(request, tournament)


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_delete(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """Delete a tournament that has not begun (the way back under the cap on open tournaments)."""
    tournament = tournament_for_director(request, code)
    name = tournament.name
    actions.delete_tournament(tournament)
    messages.success(request, _("%(name)s is deleted.") % {"name": name})
    if request.htmx:
        response = HttpResponse(status=204)
        response["HX-Redirect"] = reverse("tournaments:list")
        return response
    return redirect("tournaments:list")


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_start(request: HtmxHttpRequest, code: str) -> HttpResponse:
    tournament = tournament_for_director(request, code)
    on_phones, bots_take_unheld = _start_choices(request)
    actions.start_round(tournament, on_phones=on_phones, seating=on_phones, bots_take_unheld=bots_take_unheld)
    return _back(request, tournament)


def _start_choices(request: HttpRequest) -> tuple[bool, bool]:
    """The start button's boxes: "Played on phones" (every group plays at a game table, the clock
    waiting while the phones take their seats) and whether bots take the seats nobody holds when
    the director starts the clock."""
    form = StartForm(request.POST)
    on_phones = bool(form.is_valid() and form.cleaned_data["on_phones"])
    return on_phones, on_phones and bool(form.cleaned_data["bots_take_unheld"])


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_practice(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """The practice round, before round 1 (it counts for nothing)."""
    tournament = tournament_for_director(request, code)
    on_phones, bots_take_unheld = _start_choices(request)
    actions.start_practice_round(tournament, on_phones=on_phones, seating=on_phones, bots_take_unheld=bots_take_unheld)
    return _back(request, tournament)


def _clock_step(request: HtmxHttpRequest, code: str, action: Callable[..., TournamentRound]) -> HttpResponse:
    """A clock button (pause, resume, end now) for the round it was shown with: pressed twice, or
    retried, it changes nothing the second time."""
    tournament = tournament_for_director(request, code)
    form = RoundForm(request.POST)
    if not form.is_valid():
        raise form_error(form, _("That button lost its round: reload the dashboard."))
    action(tournament, number=form.cleaned_data["round"])
    return _back(request, tournament)


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_pause(request: HtmxHttpRequest, code: str) -> HttpResponse:
    return _clock_step(request, code, actions.pause_round)


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_resume(request: HtmxHttpRequest, code: str) -> HttpResponse:
    return _clock_step(request, code, actions.resume_round)


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_start_clock(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """The clock of a round on phones starts, once its phones have taken their seats."""
    return _clock_step(request, code, actions.start_clock)


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_seat_to_bot(request: HtmxHttpRequest, code: str, group_id: int) -> HttpResponse:
    """One tap on the dashboard: a seat of a group's game table is played by a bot."""
    tournament = tournament_for_director(request, code)
    group = group_of(tournament, group_id)
    form = SeatForm(request.POST)
    if not form.is_valid():
        raise form_error(form, _("That button lost its seat: reload the dashboard."))
    actions.hand_group_seat_to_bot(group=group, number=form.cleaned_data["seat"])
    return _back(request, tournament)


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_end_now(request: HtmxHttpRequest, code: str) -> HttpResponse:
    return _clock_step(request, code, actions.end_round_now)


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_extend(request: HtmxHttpRequest, code: str, group_id: int) -> HttpResponse:
    tournament = tournament_for_director(request, code)
    group = group_of(tournament, group_id)
    form = ExtendForm(request.POST)
    if not form.is_valid():
        raise form_error(form, _("How many minutes?"))
    actions.extend_group(group=group, minutes=form.cleaned_data["minutes"])
    return _back(request, tournament)


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_decide(request: HtmxHttpRequest, code: str, number: int) -> HttpResponse:
    """The director's decision for players tied at the line: the order they are listed in, best first."""
    tournament = tournament_for_director(request, code)
    round_ = get_object_or_404(tournament.rounds, number=number)
    by_name = {entrant.name: entrant for entrant in tournament.entrants.all()}
    names = request.POST.getlist("order")
    if any(name not in by_name for name in names):
        raise actions.BadEntry(_("Put the tied players in order."))
    actions.decide_tie(round_=round_, order=[by_name[name] for name in names])
    return _back(request, tournament)
