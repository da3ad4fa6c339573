""""Play a game": anyone opens a game table, or a club's host opens one for a party; rate limited
like a night: per account for a signed-in person, per address for anyone else."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from django.views.decorators.http import require_http_methods

from games import phones
from games.links import party_in_link
from games.table import actions
from games.table.forms import NewTableForm
from games.table.views.shared import refused
from live.limits import counted_as, too_many, used_up
from live.refusals import TooMany, form_status, shown_on

TOO_MANY_TABLES = gettext_noop("Too many tables opened from here just now. Wait a while, then try again.")


@require_http_methods(["GET", "POST"])
@refused()
def table_new(request: HttpRequest) -> HttpResponse:
    # A malformed party in the link is refused (400) by `refused`; opening's own refusals show on the form.
    party = party_in_link(request, _("Only the club's hosts can open a table for its party."))
    if request.method == "POST":
        form = NewTableForm(request.POST)
        door, key = counted_as(request, "table-new")
        if form.is_valid():
            with shown_on(form, None):
                if used_up(request, door, key=key):
                    raise TooMany(_(TOO_MANY_TABLES))
                table = actions.open_table(
                    game=form.cleaned_data["game"], names=form.cleaned_data["names"],
                    bots=form.cleaned_data["bots"], options=form.options(),
                    opener_token=phones.phone_token(request, create=True),
                    host_user=request.user if party is not None else None, party=party,
                    patience_seconds=form.cleaned_data["patience"],
                )
                too_many(request, door, key=key)
                return redirect("tables:table", code=table.code)
    else:
        form = NewTableForm(initial=NewTableForm.initial_seats(party.coming_names() if party is not None else []))
    return render(request, "games/table/new.html", {"form": form, "party": party}, status=form_status(form))
