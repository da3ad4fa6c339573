"""Views of the club domain and the site's front door."""

from __future__ import annotations

from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from bunco_club.models import Club, Party


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    from games.models import Night  # the front door lists nights; the club models never import games

    clubs = Club.objects.none()
    upcoming: list[Party] = []
    nights: list[Night] = []
    if request.user.is_authenticated:
        clubs = Club.objects.filter(hosts=request.user)
        upcoming = list(Party.objects.upcoming().filter(club__in=clubs).select_related("club", "host")[:5])
        nights = list(Night.objects.hosted_by(request.user).order_by("-created_at")[:5])
    return render(request, "bunco_club/home.html", {"clubs": clubs, "upcoming": upcoming, "nights": nights})


@require_GET
def alive(request: HttpRequest) -> HttpResponse:
    """Liveness: the process answers, without touching the database (also the benchmarks'
    trivial view, the baseline that other throughputs are ratios of)."""
    return HttpResponse("ok", content_type="text/plain")


@require_GET
def health(request: HttpRequest) -> JsonResponse:
    """Readiness, for load balancers and `make run-scaled`: the database answers."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"ok": True})
