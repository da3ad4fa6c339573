"""The site's front door (wiring, DESIGN.md §2): home, health, login.

A wiring file: it may import every app (the home page lists a host's nights and clubs).
"""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_GET

from bunco_club.limits import too_many
from bunco_club.models import Club, Party
from games.models import Night

TOO_MANY_LOGINS = "Too many attempts to log in just now. Wait a minute and try again."


@require_GET
def home(request: HttpRequest) -> HttpResponse:
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


_login_view = auth_views.LoginView.as_view()


@sensitive_post_parameters("password")
def login(request: HttpRequest) -> HttpResponse:
    """The host's log in, with password guesses limited by address and by username."""
    if request.method == "POST" and _too_many_logins(request):
        form = AuthenticationForm(request, initial={"username": request.POST.get("username", "")})
        context = {"form": form, "refused": TOO_MANY_LOGINS, "next": request.POST.get("next", "")}
        return render(request, "registration/login.html", context, status=429)
    return _login_view(request)


@sensitive_post_parameters("password")
def admin_login(request: HttpRequest) -> HttpResponse:
    """The admin's log in, under the same limits as the host's."""
    if request.method == "POST" and _too_many_logins(request):
        return HttpResponse(TOO_MANY_LOGINS, status=429, content_type="text/plain; charset=utf-8")
    return admin.site.login(request)


def _too_many_logins(request: HttpRequest) -> bool:
    by_address = too_many(request, "login")
    by_username = too_many(request, "login-user", key="post:username")  # counted even when the first says no
    return by_address or by_username
