"""What whoever opened a table (its phone, or the logged-in host it was opened for) may do: start
the game, hand a quiet seat to a bot and take it back, free a seat for another phone."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games.table import actions
from games.table.views.shared import opener_only, refused, table_or_404


@require_POST
@refused()
def start(request: HttpRequest, code: str) -> HttpResponse:
    table = table_or_404(code)
    opener_only(request, table)
    actions.start_table(table=table)
    return redirect("tables:table", code=table.code)


@require_POST
@refused()
def to_bot(request: HttpRequest, code: str, number: int) -> HttpResponse:
    """A seat whose phone has gone quiet is played by a bot (the level posted) until taken back."""
    table = table_or_404(code)
    opener_only(request, table)
    actions.hand_seat_to_bot(table=table, number=number, level=request.POST.get("level", ""))
    return redirect("tables:table", code=table.code)


@require_POST
@refused()
def take_back(request: HttpRequest, code: str, number: int) -> HttpResponse:
    table = table_or_404(code)
    opener_only(request, table)
    actions.take_seat_back(table=table, number=number)
    return redirect("tables:table", code=table.code)


@require_POST
@refused()
def free(request: HttpRequest, code: str, number: int) -> HttpResponse:
    """The seat is free for another phone to tap (a player changing phones)."""
    table = table_or_404(code)
    opener_only(request, table)
    if not actions.release_seat(table=table, number=number):
        raise actions.NotNow(_("No phone holds that seat."))
    return redirect("tables:table", code=table.code)
