"""The site's front door (wiring, docs/DESIGN.md §2): home, health, login.

A wiring file: it may import every app (the home page lists a host's nights and clubs).
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.staticfiles import finders
from django.db import connection
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.urls import reverse
from django.utils import translation
from django.utils.cache import patch_cache_control
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext, gettext_noop
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_GET, require_POST
from django.views.i18n import JavaScriptCatalog

from bunco_club import actions as club_actions
from bunco_club.headcount import headcount
from bunco_club.models import Club, Party
from games.night.models import Night
from live.http import remember_language
from live.limits import address_and_username, too_many, used_up
from live.refusals import BadInput, NotFound, Refusal, TooMany, answers_refusals, text_refusal
from live.text import has_control_characters

TOO_MANY_LOGINS = gettext_noop("Too many attempts to log in as this user from this network. Wait a while and try again, "
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
    return render(request, "bunco_club/home.html",
                  {"clubs": clubs, "upcoming": upcoming, "nights": nights, "dashboard": dashboard})


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


def _login_page_refused(request: HttpRequest, refusal: Refusal, **kwargs: object) -> HttpResponse:
    """The log-in page's one answer to a refusal (a lock-out): the form again, the username kept,
    the message above it."""
    form = AuthenticationForm(request, initial={"username": request.POST.get("username", "")})
    context = {"form": form, "refused": refusal.message, "next": request.POST.get("next", "")}
    return render(request, "registration/login.html", context, status=refusal.status)


def _admin_login_refused(request: HttpRequest, refusal: Refusal, **kwargs: object) -> HttpResponse:
    """The admin's log in answers a refusal as plain text."""
    return text_refusal(refusal)


@sensitive_post_parameters("password")
@answers_refusals(_login_page_refused)
def login(request: HttpRequest) -> HttpResponseBase:
    """The host's log in. Wrong passwords lock out the pair of the address and the username they
    were typed for (live/limits.py), not the user everywhere nor the address for everyone."""
    _refuse_when_locked_out(request)
    response = _counting_failures(request, _login_view(request))
    chosen = club_actions.account_language(request.user) if request.user.is_authenticated else None
    return remember_language(response, chosen) if request.method == "POST" and chosen else response


@sensitive_post_parameters("password")
@answers_refusals(_admin_login_refused)
def admin_login(request: HttpRequest) -> HttpResponseBase:
    """The admin's log in, under the same lock-outs as the host's."""
    _refuse_when_locked_out(request)
    return _counting_failures(request, admin.site.login(request))


def _refuse_when_locked_out(request: HttpRequest) -> None:
    """TooMany when this address has typed wrong passwords for this username as often as allowed."""
    if request.method == "POST" and used_up(request, "login", key=address_and_username):
        raise TooMany(gettext(TOO_MANY_LOGINS))


def _counting_failures(request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
    """Count a posted log in that did not log anybody in (the form again, not the redirect a
    successful log in answers with) as a failure of its address and username. The form comes back
    with its message ("Please enter a correct username and password…") as a 400, like every form
    of the site sent back for what was typed: Django's log-in views answer it 200."""
    if request.method == "POST" and not (300 <= response.status_code < 400):
        too_many(request, "login", key=address_and_username)
        if response.status_code == 200:
            response.status_code = BadInput.status
    return response


# --- The installed app: manifest, service worker, offline page --------------------------------

THEME_COLOUR = "#16131d"  # the site's --bg (static/css/site.css) and base.html's theme-color
# What the service worker keeps from its install on (the offline page needs the first two and
# js/offline.js); every other static file is kept once a page has used it.
APP_SHELL = [
    "css/site.css", "js/offline.js", "js/site.js", "django_htmx/htmx-4.min.js", "django_htmx/ext/hx-sse-4.min.js",
    "django_htmx/ext/hx-upsert-4.min.js", "favicon.svg", "icons/icon-192.png", "icons/icon-512.png",
]


@require_GET
def manifest(request: HttpRequest) -> JsonResponse:
    """The web app manifest: what a phone needs to add the site to its home screen as an app."""
    icons = [
        {"src": static("icons/icon-192.png"), "sizes": "192x192", "type": "image/png", "purpose": "any"},
        {"src": static("icons/icon-512.png"), "sizes": "512x512", "type": "image/png", "purpose": "any"},
        {"src": static("icons/icon-maskable-512.png"), "sizes": "512x512", "type": "image/png",
         "purpose": "maskable"},
    ]
    return JsonResponse({
        "id": "/",
        "name": "Bunco Club",  # the site's name, as the game names: the same in every language
        "short_name": "Bunco",
        "description": gettext("Club nights, live table scoring and Fill or Bust tournaments."),
        "lang": translation.get_language(),
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": THEME_COLOUR,
        "theme_color": THEME_COLOUR,
        "icons": icons,
    }, content_type="application/manifest+json")


@require_GET
def service_worker(request: HttpRequest) -> HttpResponse:
    """The service worker's script, served from the site's root so that its scope is the whole site.
    It names its cache after the static files' version, so a release's new files replace the old."""
    offline = reverse("offline")
    config = {
        "version": static_version(),
        "offline": offline,
        "static": settings.STATIC_URL,
        "shell": [offline, *(static(name) for name in APP_SHELL)],
    }
    script = render_to_string("service_worker.js", {"config": json.dumps(config, indent=2)})
    response = HttpResponse(script, content_type="text/javascript; charset=utf-8")
    response["Service-Worker-Allowed"] = "/"
    # Checked with the server each time: a phone must learn of a new release on its next visit.
    patch_cache_control(response, no_cache=True, max_age=0)
    return response


@require_GET
def offline(request: HttpRequest) -> HttpResponse:
    """The page the service worker shows when a page cannot be reached. It is kept in the phone's
    cache, so it holds nothing of anyone's: no name, no token (it does not extend base.html)."""
    return render(request, "offline.html")


def static_version() -> str:
    """The version of the static files: settings.STATIC_VERSION, or a hash of the files (worked out
    once per process, as the files are read once, but again at each call with DEBUG on)."""
    if settings.STATIC_VERSION:
        return str(settings.STATIC_VERSION)
    if settings.DEBUG:
        return _hash_of_static_files()
    return _hash_once()


@functools.cache
def _hash_once() -> str:
    return _hash_of_static_files()


def _hash_of_static_files() -> str:
    digest = hashlib.sha256()
    collected_manifest = Path(settings.STATIC_ROOT) / "staticfiles.json"
    if settings.STATIC_COLLECTED and collected_manifest.exists():
        # Its hashed names change with every file's content.
        digest.update(collected_manifest.read_bytes())
    else:
        seen: set[str] = set()
        for finder in finders.get_finders():
            for path, storage in finder.list(["CVS", ".*", "*~"]):  # as collectstatic skips
                if path in seen:  # the first finder's file is the one served
                    continue
                seen.add(path)
                digest.update(path.encode())
                with storage.open(path) as file:
                    digest.update(file.read())
    return digest.hexdigest()[:12]


_javascript_catalog = JavaScriptCatalog.as_view()


@require_POST
def switch_language(request: HttpRequest) -> HttpResponseBase:
    """The header's language switch: this phone reads the site in the language posted from now on
    (a cookie, settings.LANGUAGE_COOKIE_*), back on the page it was tapped on."""
    language = request.POST.get("language", "")
    if language not in dict(settings.LANGUAGES):
        return text_refusal(BadInput(gettext("Choose English or Spanish.")))
    next_url = request.POST.get("next", "")
    if has_control_characters(next_url):
        return text_refusal(BadInput(gettext("That page's address was malformed: tap the switch again.")))
    if not url_has_allowed_host_and_scheme(next_url, allowed_hosts={request.get_host()},
                                           require_https=request.is_secure()):
        next_url = reverse("home")
    if request.user.is_authenticated:  # a host's or director's own: the next phone they log in on takes it up
        club_actions.set_account_language(request.user, language)
    return remember_language(HttpResponseRedirect(next_url), language)


@require_GET
def javascript_catalog(request: HttpRequest, language: str) -> HttpResponseBase:
    """The scripts' words in one language (`gettext` in static/js): its own URL per language, so a
    phone keeps it for a day and the language switch loads the other one."""
    if language not in dict(settings.LANGUAGES):
        return text_refusal(NotFound(gettext("There is no such language here.")))
    with translation.override(language):
        response = _javascript_catalog(request)
    patch_cache_control(response, public=True, max_age=60 * 60 * 24)
    return response
