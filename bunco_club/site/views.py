"""The site's front door (wiring, DESIGN.md §2): home, health, login.

A wiring file: it may import every app (the home page lists a host's nights and clubs).
"""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render
from django.utils.cache import add_never_cache_headers
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_GET

from bunco_club.headcount import headcount
from bunco_club.models import Club, Party
from games.night.models import Night
from live.limits import address_and_username, too_many, used_up

TOO_MANY_LOGINS = ("Too many attempts to log in as this user from this network. Wait a while and try again, "
                   "or log in from another network.")


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    clubs = Club.objects.none()
    upcoming: list[Party] = []
    nights: list[Night] = []
    dashboard: list[dict[str, object]] = []
    if request.user.is_authenticated:
        clubs = Club.objects.filter(hosts=request.user)
        upcoming = list(Party.objects.upcoming().filter(club__in=clubs).select_related("club", "host")[:5])
        nights = list(Night.objects.hosted_by(request.user).order_by("-created_at")[:5])
        # The host's dashboard: each club's next party and its headcount ("9 coming, 2 subs invited, 1 ghost").
        for club in clubs:
            party = club.parties.upcoming().select_related("host", "cohost").first()
            dashboard.append({"club": club, "party": party,
                              "summary": headcount(party).summary() if party else ""})
    response = render(request, "bunco_club/home.html",
                      {"clubs": clubs, "upcoming": upcoming, "nights": nights, "dashboard": dashboard})
    if request.user.is_authenticated:
        # A host's nights, clubs and parties: kept by no cache, as the club pages are (issue 29, S6);
        # the page a visitor without an account sees holds nothing of anyone's.
        add_never_cache_headers(response)
    return response


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
def login(request: HttpRequest) -> HttpResponseBase:
    """The host's log in. Wrong passwords lock out the pair of the address and the username they
    were typed for (live/limits.py), not the user everywhere nor the address for everyone."""
    if request.method == "POST" and _locked_out(request):
        form = AuthenticationForm(request, initial={"username": request.POST.get("username", "")})
        context = {"form": form, "refused": TOO_MANY_LOGINS, "next": request.POST.get("next", "")}
        return render(request, "registration/login.html", context, status=429)
    return _counting_failures(request, _login_view(request))


@sensitive_post_parameters("password")
def admin_login(request: HttpRequest) -> HttpResponseBase:
    """The admin's log in, under the same lock-outs as the host's."""
    if request.method == "POST" and _locked_out(request):
        return HttpResponse(TOO_MANY_LOGINS, status=429, content_type="text/plain; charset=utf-8")
    return _counting_failures(request, admin.site.login(request))


def _locked_out(request: HttpRequest) -> bool:
    """Whether this address has typed wrong passwords for this username as often as allowed."""
    return used_up(request, "login", key=address_and_username)


def _counting_failures(request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
    """Count a posted log in that did not log anybody in (the form again, not the redirect a
    successful log in answers with) as a failure of its address and username. The form comes back
    with its message ("Please enter a correct username and password…") as a 400, like every form
    of the site sent back for what was typed: Django's log-in views answer it 200."""
    if request.method == "POST" and not (300 <= response.status_code < 400):
        too_many(request, "login", key=address_and_username)
        if response.status_code == 200:
            response.status_code = 400
    return response
