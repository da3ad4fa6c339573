"""What the table's views share: finding the table, the seat this phone holds, whether this browser
opened the table, the one answer to a refusal, and what a page may be sent of the game.

PRIVACY (docs/DESIGN.md §3): everything a page or an answer carries comes from `TableGame.view(seat)`
and the table's public fields. Never `table.state` (the deck's order), never `table.seed` before
the end (`revealed_seed`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ParamSpec

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import constant_time_compare
from django.utils.translation import gettext as _

from games import phones
from games.rules.registry import bot_levels
from games.table import actions, statements
from games.table.models import Move, Table, TableSeat
from games.table.renderers import said_of, shown_view, spoken
from live.http import answers_json
from live.qr import qr_svg
from live.refusals import NotYours, Refusal, answers_refusals, json_refusal

P = ParamSpec("P")

# The seat a phone plays at a table (games/phones.py): its session keeps `table:<code>`.
SEATS = phones.Seats("table")


def table_or_404(code: str) -> Table:
    return get_object_or_404(Table, code=code)


def table_and_seat_of_phone(request: HttpRequest, code: str) -> tuple[Table, TableSeat | None]:
    """The table (404 if there is none), without its game (the action locks and reads it), with its
    seats, and the seat this phone holds there, in one statement: a move's hot path."""
    table = statements.table_with_seats(code)
    if table is None:
        raise Http404(_("No such table."))
    seat_id = SEATS.claimed(request, code)
    token = phones.phone_token(request)
    mine = next((seat for seat in table.seats.all()
                 if seat.pk == seat_id and token and seat.claimed_by == token and not seat.bot_level), None)
    return table, mine


def seat_of_phone(request: HttpRequest, table: Table) -> TableSeat | None:
    """The seat this phone claimed at `table` and still holds (no bot took it, no other phone)."""
    seat_id = SEATS.claimed(request, table.code)
    token = phones.phone_token(request)
    if seat_id is None or not token:
        return None
    return table.seats.filter(pk=seat_id, claimed_by=token, bot_level="").first()


def is_opener(request: HttpRequest, table: Table) -> bool:
    """The phone that opened the table, or the logged-in host it was opened by."""
    token = phones.phone_token(request)
    if token and table.opener_token and constant_time_compare(token, table.opener_token):
        return True
    user = request.user
    return bool(user.is_authenticated and table.host_user_id is not None and table.host_user_id == user.pk)


def opener_only(request: HttpRequest, table: Table) -> None:
    if not is_opener(request, table):
        raise NotYours(_("Only whoever opened the table can do that."))


def refused(*, as_json: bool = False) -> Callable[[Callable[P, HttpResponse]], Callable[P, HttpResponse]]:
    """The tables' one place where a refusal becomes a response, with the refusal's status: JSON
    {"error": ...} for the play page's script (`as_json`); for a form of the table's page (a seat
    tapped, the opener's buttons) that page itself, the refusal said above it: the phone stays on
    a live page (its stream, its "still here", which keeps its seat), and the page's script puts
    the table's address back in the address bar, so a reload shows the table, not a 405. A page
    with no table (none by that code, "Play a game") says it on the refused page."""

    def answer(request: HttpRequest, refusal: Refusal, **view_kwargs: object) -> HttpResponse:
        if as_json:
            return json_refusal(refusal)
        code = str(view_kwargs.get("code", ""))
        table = Table.objects.filter(code=code).first() if code else None
        if table is not None:
            return table_page_response(request, table, refusal=refusal)
        return render(request, "games/table/refused.html",
                      {"message": refusal.message, "code": code}, status=refusal.status)

    decorate = answers_refusals(answer)
    return (lambda view: answers_json(decorate(view))) if as_json else decorate


def table_page_response(request: HttpRequest, table: Table, *, refusal: Refusal | None = None) -> HttpResponse:
    """The table's page as this phone sees it (tables:table), with `refusal` said above it and its
    status when a form of the page was refused."""
    mine = seat_of_phone(request, table)
    token = phones.phone_token(request)
    # The seat a bot keeps for this phone (it went quiet, or the opener handed it over): one tap
    # takes it back, and while its page is shown the phone is here (the opener may hand it back).
    kept_for_me = table.seats.kept_for(token).first() if mine is None and not table.is_over else None
    if mine is not None or kept_for_me is not None:
        actions.hear_from_phone(table=table, phone=token)
    if not table.is_over:
        # The phone's token (and so its session cookie) comes with the page, before any claim: a
        # claim's answer can be lost (the page reloading on the claim's own live event cancels
        # it, a double tap), and the seat it took must still be this phone's when it asks again.
        phones.phone_token(request, create=True)
    page_url = reverse("tables:table", args=[table.code])
    join_url = request.build_absolute_uri(page_url)
    payload = seat_payload(table, mine.number if mine else None)
    opener = is_opener(request, table)
    return render(request, "games/table/table.html", {
        "table": table,
        "seats": list(table.seats.all()),
        "mine": mine,
        "let_go": SEATS.let_go_name(request, table.code),
        "is_opener": opener,
        **(_screen_link(request, table) if opener and not table.is_over else {}),
        "bot_levels": [{"name": level.name, "label": spoken(level.label)} for level in bot_levels(table.game)],
        "default_bot_level": actions.QUIET_SEAT_BOT,
        "join_url": join_url,
        "join_qr": qr_svg(join_url, scale=5),
        "payload": payload,
        "now": timezone.now(),
        "kept_for_me": kept_for_me,
        "refusal": refusal.message if refusal is not None else "",
        "urls": {
            "page": page_url,
            "move": reverse("tables:move", args=[table.code]),
            "state": reverse("tables:state", args=[table.code]),
            "events": reverse("tables:events", args=[table.code]),
            # "Still here", while the page is shown: only where the table's patience can run out.
            **({"here": reverse("tables:here", args=[table.code])}
               if (mine is not None or kept_for_me is not None) and table.patience_seconds
               and table.status == Table.Status.PLAYING else {}),
        },
    }, status=refusal.status if refusal is not None else 200)


def _screen_link(request: HttpRequest, table: Table) -> dict[str, str]:
    """The table screen's address and QR code, for the opener alone (the link is the screen's
    key): scanned by a tablet or typed into a TV's browser, it shows the game to the room."""
    screen_url = request.build_absolute_uri(reverse("tables:screen", args=[table.code, table.screen_token]))
    return {"screen_url": screen_url, "screen_qr": qr_svg(screen_url, scale=4)}


def seats_data(seats: Iterable[TableSeat]) -> list[dict[str, Any]]:
    """Who plays each seat, as every phone may see it (whether a phone holds it, never its token)."""
    return [{"number": seat.number, "name": seat.name, "bot": seat.bot_level, "taken": bool(seat.claimed_by),
             # A bot that keeps the seat for a phone gone quiet (it takes the seat back when it is back).
             "kept": bool(seat.bot_level and seat.held_before_bot)}
            for seat in seats]


def seat_payload(table: Table, seat: int | None, *, last: Move | None = None,
                 seats: Iterable[TableSeat] | None = None) -> dict[str, Any]:
    """What one page may know of the game now: the public view, the seat's own (`seat` None: a
    spectator's or the screen's), and for the seat on turn only its legal moves, the keeps it may
    confirm with their points (the engine's list: the page never works a score out) and whether
    it may undo. `last`: the table's last move, when the caller has it (the move just made);
    `seats`: the table's seats, when the caller has read them."""
    game = table.loaded()
    view = game.view(seat)
    last = last if last is not None else table.last_move()
    # No hand shows before the start: the lobby is where phones try seats, and one that tapped
    # seat 1, then seat 0, would have read both hands.
    private = view.private if seat is not None and table.status != Table.Status.SEATING else {}
    public = view.public
    if table.status == Table.Status.SEATING and table.fairness != 1:
        # Dealt again at the start with the phones' parts: what chance made here is not the game's.
        public = {**public, **dict.fromkeys(set(table.engine.made_at_the_start) & set(public))}
    data: dict[str, Any] = {
        "code": table.code,
        "status": table.status,
        "moves_made": table.moves_made,
        "commitment": table.commitment,
        "seed": table.revealed_seed,
        "seat": seat,
        "seats": seats_data(table.seats.all() if seats is None else seats),
        "public": shown_view(public),
        "private": private,
        "on_turn": False,
        # A table ended while its game was not (a tournament's grace period ran out mid-turn) says
        # so, not what its last move did.
        "said": "" if last is None else said_of(last.as_data(), view.public,
                                                stopped=table.is_over and not game.is_over),
        "unheld": [],
    }
    if table.status == Table.Status.PLAYING:
        # The seats the game waits on that no phone and no bot plays: every page says so, and
        # points at the seat's button and, for the opener, at handing it to a bot.
        nobody = {entry["number"] for entry in data["seats"] if not entry["taken"] and not entry["bot"]}
        data["unheld"] = [number for number in game.to_move() if number in nobody]
    if seat is not None and table.status == Table.Status.PLAYING and seat in game.to_move():
        data["on_turn"] = True
        data["legal_moves"] = game.legal_moves(seat)
        data.update(table.engine.on_turn(game, seat, table.options))  # the game's own (keeps, a hint...)
        data["can_undo"] = actions.undo_refusal(table, seat, last=last, game=game) is None
    return data


def is_screen_token(table: Table, token: str) -> bool:
    return bool(token) and constant_time_compare(token, table.screen_token)
