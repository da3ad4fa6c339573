"""A phone at a game table: the table's page (its lobby while seats are taken, then the game),
tapping a seat, "That's not me", a move, the seat's view as JSON, and its live stream."""

from __future__ import annotations

import json
from functools import partial

from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import redirect
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from games import phones
from games.table import actions
from games.table.forms import read_move
from games.table.models import Table, TableSeat
from games.table.views.shared import (
    SEATS,
    refused,
    seat_of_phone,
    seat_payload,
    table_and_seat_of_phone,
    table_or_404,
    table_page_response,
)
from live.http import parse_int
from live.streams import PrivateChannel, event_stream_response, read_for_a_stream


@require_GET
def table_page(request: HttpRequest, code: str) -> HttpResponse:
    """The table's one address: the lobby (code, QR, commitment, seats) until the game starts, then
    the game as this phone plays it (or watches it, holding no seat), then the result."""
    return table_page_response(request, table_or_404(code))


@require_POST
@refused()
def claim(request: HttpRequest, code: str) -> HttpResponse:
    """Tap a seat: this phone plays it from now on (its session remembers, through sleep and
    reloads), unless another phone holds it."""
    table = table_or_404(code)
    number = parse_int(request.POST.get("seat"), low=0, high=table.engine.max_seats - 1, what=_("the seat"),
                       advice=_("Tap one of the seats."))
    seat = actions.claim_seat(table=table, number=number, phone=phones.phone_token(request, create=True),
                              contribution=request.POST.get("contribution", ""), language=translation.get_language())
    SEATS.remember(request, table.code, seat.pk)
    return redirect("tables:table", code=table.code)


@require_POST
@refused()
def not_me(request: HttpRequest, code: str) -> HttpResponse:
    """"That's not me": this phone hands its seat back, for the right phone to tap."""
    table = table_or_404(code)
    mine = seat_of_phone(request, table)
    if mine is None:
        raise actions.NotYourSeat(_("This phone doesn't hold a seat at this table."))
    SEATS.let_go(request, table.code, mine.name)
    actions.release_seat(table=table, number=mine.number)
    return redirect("tables:table", code=table.code)


@require_POST
@refused(as_json=True)
def here(request: HttpRequest, code: str) -> HttpResponse:
    """"Still here": the page of the phone holding a seat is shown, so the seat stays this phone's
    for another whole patience (actions.hear_from_phone). Answered 204 either way."""
    table = table_or_404(code)
    actions.hear_from_phone(table=table, phone=phones.phone_token(request))
    return HttpResponse(status=204)


@require_POST
@refused()
def back(request: HttpRequest, code: str) -> HttpResponse:
    """"I'm back": the phone a bot covered for plays its seat again, with one tap."""
    table = table_or_404(code)
    seat = actions.take_my_seat_back(table=table, phone=phones.phone_token(request))
    SEATS.remember(request, table.code, seat.pk)
    return redirect("tables:table", code=table.code)


@require_POST
@refused(as_json=True)
def move(request: HttpRequest, code: str) -> HttpResponse:
    """A move of the seat this phone holds: {"kind": ...} (and its dice, for a keep), with its
    idempotency key and the phone's part of its chance (`client`, docs/FAIRNESS.md). Answered with the
    seat's view as JSON; a refusal is {"error": ...} with a 4xx
    (403 for a seat this phone doesn't hold, 409 out of turn, 400 an illegal or malformed move)."""
    table, mine = table_and_seat_of_phone(request, code)
    if mine is None:
        raise actions.NotYourSeat(_("This phone doesn't play a seat at this table: tap your name first."))
    chosen, key, seat = read_move(request.POST, table.engine)
    if seat is not None and seat != mine.number:
        raise actions.NotYourSeat(_("This phone plays %(name)s: it moves for that seat only.") % {"name": mine.name})
    made = actions.make_move(table=table, seat=mine.number, move=chosen, key=key,
                             client=request.POST.get("client", ""), phone=mine.claimed_by)
    now = made.table  # the table as the action left it (for a retry: as it stands now)
    return JsonResponse(seat_payload(now, mine.number, last=made if made.number == now.moves_made else None,
                                     seats=table.seats.all()))


@require_GET
@refused(as_json=True)
def state(request: HttpRequest, code: str) -> HttpResponse:
    """The game as this phone may see it now (its seat's view; the public one for a phone with no
    seat): what its page asks for when the turn comes to it. `?seat=N` for a seat this phone does
    not hold (another player's hand) is refused, 403."""
    table = table_or_404(code)
    mine = seat_of_phone(request, table)
    asked = request.GET.get("seat")
    if asked is not None and (mine is None or asked != str(mine.number)):
        raise actions.NotYourSeat(_("A phone sees its own seat's hand only."))
    return JsonResponse(seat_payload(table, mine.number if mine else None))


@require_GET
def events(request: HttpRequest, code: str) -> HttpResponse | StreamingHttpResponse:
    """A phone's live stream: the table's public channel and ONLY its own seat's channel (none for
    a phone holding no seat), and that one only while the phone holds the seat: checked again
    before each of its events (live.streams.PrivateChannel), since the seat can change hands
    while the stream is open. The snapshot on connect is the page's payload, as JSON."""
    token = phones.phone_token(request)

    def table_and_seat() -> tuple[Table, TableSeat | None]:
        table = table_or_404(code)
        return table, seat_of_phone(request, table)

    table, mine = read_for_a_stream(request, table_and_seat)
    private = ([PrivateChannel(table.seat_channel(mine.number), partial(mine.held_since_for, token), mine.held_since)]
               if mine else [])

    def snapshot() -> str:
        holds = mine is not None and mine.held_since_for(token) is not None
        payload = seat_payload(Table.objects.get(pk=table.pk), mine.number if mine and holds else None)
        return json.dumps({"snapshot": True, **payload})

    return event_stream_response(request, [table.channel], snapshot, private=private)
