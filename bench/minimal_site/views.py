"""Two views: a phone's first visit (a session and a CSRF cookie, as a phone that joined a night
has), and the one-row UPDATE POST the project's tally is compared with: read the phone's session,
UPDATE its row (one statement, autocommit), answer a small JSON, as a tally is answered."""

from django.db.models import F
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import get_token
from django.views.decorators.http import require_GET, require_POST

from bench.minimal_site.models import Counter


def health(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok")


@require_GET
def hello(request: HttpRequest) -> HttpResponse:
    row, _ = Counter.objects.get_or_create(pk=int(request.GET.get("row", "1")))
    request.session["row"] = row.pk
    get_token(request)
    return HttpResponse("hello")


@require_POST
def bump(request: HttpRequest) -> HttpResponse:
    row = request.session.get("row")
    if row is None:
        return JsonResponse({"error": "no session"}, status=403)
    updated = Counter.objects.filter(pk=row).update(count=F("count") + 1)
    return JsonResponse({"row": row, "updated": updated})
