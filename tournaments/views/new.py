"""A director's tournaments: the list, and a new one."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from live.refusals import form_status
from tournaments import actions
from tournaments.forms import NewTournamentForm
from tournaments.models import Tournament
from tournaments.views.shared import Page, refused


@login_required
@require_GET
def tournament_list(request: HttpRequest) -> HttpResponse:
    """The director's tournaments, newest first, and the way to start one."""
    tournaments = Tournament.objects.filter(director_id=request.user.pk).order_by("-created_at")
    return render(request, "tournaments/list.html", {"tournaments": tournaments})


@login_required
@require_http_methods(["GET", "POST"])
@refused(Page.NEW)
def tournament_new(request: HttpRequest) -> HttpResponse:
    # Bound on every POST: an empty one gets the form back with what is missing, not a blank form.
    form = NewTournamentForm(request.POST if request.method == "POST" else None, user=request.user)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        tournament = actions.create_tournament(
            director=request.user, name=data["name"], date=data["date"], format=data["format"],
            round_minutes=data["round_minutes"], per_player_minutes=data["per_player_minutes"],
            face_off_minutes=data["face_off_minutes"], grace_seconds=data["grace_seconds"],
            ties=data["ties"], grouping=data["grouping"], point_goal=data["point_goal"],
            vengeance_penalty=data["vengeance_penalty"], must_bust_penalty=data["must_bust_penalty"],
            club=data["club"], practice_minutes=data["practice_minutes"], confirm_results=data["confirm_results"],
        )
        return redirect("tournaments:dashboard", code=tournament.code)
    return render(request, "tournaments/new.html", {"form": form}, status=form_status(form))
