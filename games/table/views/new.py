""""Play a game": anyone opens a game table (rate limited per address, like a night), or a club's
host opens one for a party."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from bunco_club.limits import too_many, used_up
from bunco_club.models import Party
from games import phones
from games.table import actions
from games.table.forms import NewTableForm
from live.http import ID_MAX, BadNumber, parse_int
from live.refusals import shown_on

TOO_MANY_TABLES = "Too many tables opened from here just now. Wait a while, then try again."


def _party(request: HttpRequest) -> Party | None:
    """The club party the table is for (`?party=<id>`, its club's hosts only), or None."""
    raw = request.GET.get("party")
    if not raw:
        return None
    party_id = parse_int(raw, low=1, high=ID_MAX, what="the party in the link")
    party = get_object_or_404(Party.objects.select_related("club"), pk=party_id)
    if not party.club.is_hosted_by(request.user):
        raise PermissionDenied("Only the club's hosts can open a table for its party.")
    return party


@require_http_methods(["GET", "POST"])
def table_new(request: HttpRequest) -> HttpResponse:
    try:
        party = _party(request)
    except BadNumber as error:
        return render(request, "games/table/refused.html", {"message": str(error)}, status=400)
    status = 200
    if request.method == "POST":
        form = NewTableForm(request.POST)
        status = 400
        if form.is_valid() and used_up(request, "table-new"):
            form.add_error(None, TOO_MANY_TABLES)
            status = 429
        elif form.is_valid():
            with shown_on(form, None):
                table = actions.open_table(
                    game=form.cleaned_data["game"], names=form.cleaned_data["names"],
                    bots=form.cleaned_data["bots"], options=form.options(),
                    opener_token=phones.phone_token(request, create=True),
                    host_user=request.user if party is not None else None, party=party,
                )
                too_many(request, "table-new")
                return redirect("tables:table", code=table.code)
    else:
        form = NewTableForm(initial={"name_0": "", "name_1": ""})
    return render(request, "games/table/new.html", {"form": form, "party": party}, status=status)
