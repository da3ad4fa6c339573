"""Views of live play: thin, typed, permission first, then an action, then a template."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import NoReturn

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.crypto import constant_time_compare
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRefresh

from bunco_club.limits import limited, too_many, used_up
from bunco_club.models import Party
from games import actions, taps
from games.forms import CorrectionForm, NewNightForm, TallyForm, UndoForm, names_in, shape_of
from games.links import BadJoinLink, join_path, join_token, read_join_token
from games.models import Night, Player, PlayerQuerySet, Round, Seat, TableRound, Tally, max_tables
from games.rules import bunco
from live.http import ID_MAX, BadNumber, HtmxHttpRequest, parse_int
from live.qr import qr_svg
from live.streams import event_stream_response, read_for_a_stream

# --- A Bunco night ----------------------------------------------------------------------------


def _night(code: str) -> Night:
    return get_object_or_404(Night, code=code)


def _night_for_host(request: HttpRequest, code: str) -> Night:
    """The night, if this browser is its host (creator's session, night host, club host)."""
    night = _night(code)
    if not night.is_hosted_by(request.user, request.session):
        raise PermissionDenied("Only the night's host can do that.")
    return night


def _player_key(code: str) -> str:
    """Where a phone's session remembers whom it plays as, by night code (one query finds both)."""
    return f"player:{code}"


PHONE_TOKEN_KEY = "phone-token"


def _phone_token(request: HttpRequest, *, create: bool = False) -> str:
    """This phone's own random token, kept in its session: the seat it claims holds it
    (`Player.claimed_by`), so no other phone plays as that player. "" before its first claim."""
    token = request.session.get(PHONE_TOKEN_KEY)
    if isinstance(token, str) and token:
        return token
    if not create:
        return ""
    token = secrets.token_urlsafe(24)
    request.session[PHONE_TOKEN_KEY] = token
    return token


def _player_of(request: HttpRequest, night: Night) -> Player | None:
    player_id = request.session.get(_player_key(night.code))
    phone = _phone_token(request)
    if player_id is None or not phone:
        return None
    return night.players.filter(pk=player_id, is_ghost=False, claimed_by=phone).first()


def _night_for_player(request: HttpRequest, code: str) -> tuple[Night, Player]:
    """The night and the player this phone claimed (and still holds); 403 for any other phone."""
    player_id = request.session.get(_player_key(code))
    phone = _phone_token(request)
    player = (
        Player.objects.select_related("night")
        .filter(pk=player_id, night__code=code, is_ghost=False, claimed_by=phone)
        .first()
        if player_id is not None and phone
        else None
    )
    if player is None:
        _refuse_a_phone_not_playing(request, code)
    return player.night, player


NEVER_JOINED = "This phone hasn't joined tonight's game: scan your table's QR code."


def _refuse_a_phone_not_playing(request: HttpRequest, code: str) -> NoReturn:
    night = get_object_or_404(Night, code=code)  # an unknown night is a 404, not a 403
    raise PermissionDenied(_why_not_playing(request, night))


def _why_not_playing(request: HttpRequest, night: Night) -> str:
    """Why this phone plays as nobody: it never claimed a name, or its seat went to another phone
    (the host handed it over, or another phone claimed it after a hand-over)."""
    player_id = request.session.get(_player_key(night.code))
    player = night.players.filter(pk=player_id).first() if isinstance(player_id, int) else None
    if player is None:
        return NEVER_JOINED
    if player.has_left():
        return left_the_game(player)
    return (f"This phone is no longer playing as {player.name}: the host handed the seat over. "
            "Scan your table's QR code again to pick your name.")


def left_the_game(player: Player) -> str:
    return (f"{player.name}, you have left tonight's game: a ghost plays your seat, and what you played "
            "stays yours (prizes included). Thanks for playing!")


def _leaver_of(request: HttpRequest, night: Night) -> Player | None:
    """The player this phone played as, if she has left the game (the host let her go): her
    phone may still read her score sheet. None otherwise."""
    player_id = request.session.get(_player_key(night.code))
    player = night.players.filter(pk=player_id).first() if isinstance(player_id, int) else None
    return player if player is not None and player.has_left() else None


def _phone_seat(request: HttpRequest, code: str) -> taps.PhoneSeat:
    """`_night_for_player` for the hot path of a tap: one statement, the player's table with it.

    Its refusals are NightErrors, so the scoring buttons get them as JSON through `refusal`
    like any other (the page's script shows the message): an unknown night, a phone that never
    joined, a phone whose seat the host handed over."""
    player_id = request.session.get(_player_key(code))
    token = _phone_token(request)
    phone = taps.phone_seat(player_id, code, token) if isinstance(player_id, int) and token else None
    if phone is None:
        night = Night.objects.filter(code=code).first()
        if night is None:
            raise actions.NoSuchNight("That game no longer exists: ask the host for tonight's QR code.")
        raise actions.NotYourTable(_why_not_playing(request, night))
    return phone


def _error_response(request: HttpRequest, error: Exception, status: int) -> HttpResponse:
    return render(request, "games/_message.html", {"message": str(error), "is_error": True}, status=status)


def refusal(request: HtmxHttpRequest, error: actions.NightError, *, as_json: bool = False,
            back_to_host: Night | None = None, current: Callable[[], HttpResponse] | None = None) -> HttpResponse:
    """The one way an action's refusal reaches a phone or the host: its message, with its status.

    The phone's scoring buttons read JSON; htmx buttons get the message partial; a plain form
    post on the host's page goes back to that page with the message on top. A step-ending
    request for a step already ended (a double tap, the other phone's tap, a late retry) changed
    nothing and is no mistake: it gets `current`, the page's state as it is, without an error.
    """
    if current is not None and isinstance(error, actions.StepAlreadyEnded):
        return current()
    if as_json:
        return _json_error(str(error), error.status)
    if back_to_host is not None and not request.htmx:
        messages.error(request, str(error))
        return redirect("games:night_host", code=back_to_host.code)
    return _error_response(request, error, error.status)


def _seat_of(player: Player, round_: Round | int) -> Seat | None:
    """The player's seat in a round (a Round, or its number in the player's night)."""
    seats = Seat.objects.select_related("table_round__round")
    if isinstance(round_, Round):
        return seats.filter(round=round_, player=player).first()
    return seats.filter(round__night_id=player.night_id, round__number=round_, player=player).first()


# Starting a night


@require_http_methods(["GET", "POST"])
def night_new(request: HttpRequest) -> HttpResponse:
    """"Just play tonight" (anyone) or a club party's night (its host): names, buy-in, house rules.

    Starting a night writes hundreds of rows: it is rate limited per address and per host account."""
    try:
        party = _party_for_new_night(request)
    except BadNumber as error:
        return render(request, "games/refused.html", {"title": "Can't start that night", "message": str(error)},
                      status=400)
    started = Night.objects.filter(party=party).order_by("pk").first() if party is not None else None
    if started is not None:  # one night per party: its host re-opens it (issue 16, C5)
        messages.info(request, "This party's night is started already: here it is.")
        return redirect("games:night_host", code=started.code)
    status = 400
    if request.method == "POST":
        form = NewNightForm(request.POST)
        if form.is_valid() and _too_many_nights(request):
            form.add_error(None, TOO_MANY_NIGHTS)
            status = 429  # the form stays filled in: it can be sent again later
        elif form.is_valid():
            try:
                night = actions.start_night(
                    names=form.name_list(),
                    buy_in_cents=form.buy_in_cents(),
                    rules=form.rules(),
                    prize_rules=form.prize_rules(),
                    title=form.cleaned_data["title"] or "Bunco night",
                    club=party.club if party else None,
                    party=party,
                    host_user=request.user,
                    members={member.name: member for member in party.club.members.all()} if party else None,
                )
            except actions.NightError as error:
                form.add_error("names", str(error))
            else:
                _count_a_night_started(request)
                request.session[f"host:{night.pk}"] = night.host_key
                return redirect("games:night_host", code=night.code)
    else:
        initial: dict[str, object] = {"title": "Bunco night"}
        if party is not None:
            initial["names"] = "\n".join(
                party.rsvps.filter(answer="yes").order_by("member__name").values_list("member__name", flat=True)
            )
            initial["buy_in"] = party.club.buy_in_cents / 100
            initial["title"] = f"{party.club.name} night"
            # The club's house rules: every night of the club starts with them.
            initial.update(NewNightForm.initial_for_rules(party.club.night_rules(), party.club.prize_rules()))
        form = NewNightForm(initial=initial)
        status = 200
    names = form.data.get("names", form.initial.get("names", "")) or ""
    return render(request, "games/night_new.html",
                  {"form": form, "party": party, "shape": shape_of(names_in(names))}, status=status)


TOO_MANY_NIGHTS = "Too many nights started from here just now. Wait a while, then try again."

NIGHTS_A_PAGE = 20


@require_GET
@login_required
def host_nights(request: HttpRequest) -> HttpResponse:
    """A host's nights: every night they host (their own and their clubs'), newest first, the
    finished ones with their prizes; older ones a page further (`?page=2`)."""
    try:
        number = parse_int(request.GET.get("page", "1"), low=1, high=ID_MAX, what="the page number")
    except BadNumber as error:
        return render(request, "games/refused.html", {"title": "No such page", "message": str(error)}, status=400)
    paginator = Paginator(Night.objects.hosted_by(request.user).listed(), NIGHTS_A_PAGE)
    page = paginator.get_page(number)
    return render(request, "games/nights.html", {"page": page, "nights": page.object_list})


def _too_many_nights(request: HttpRequest) -> bool:
    """Whether this address, or this signed-in host, has started as many nights as its limit allows.
    Only nights started count: a list the action refused (5 players, a name twice) is fixed and sent
    again."""
    return used_up(request, "night-new") or (
        request.user.is_authenticated and used_up(request, "night-new-host", key="user"))


def _count_a_night_started(request: HttpRequest) -> None:
    too_many(request, "night-new")
    if request.user.is_authenticated:
        too_many(request, "night-new-host", key="user")


def _party_for_new_night(request: HttpRequest) -> Party | None:
    """The club party whose night this is (`?party=<id>`), or None; BadNumber for a malformed id."""
    raw = request.GET.get("party")
    if not raw:
        return None
    party_id = parse_int(raw, low=1, high=ID_MAX, what="the party in the link")
    party = get_object_or_404(Party.objects.select_related("club"), pk=party_id)
    if not party.club.is_hosted_by(request.user):
        raise PermissionDenied("Only the club's hosts can start its party night.")
    return party


@require_POST
def night_shape(request: HttpRequest) -> HttpResponse:
    """The live hint under the names: "13 players · 4 tables · 3 ghost seats"."""
    return render(request, "games/night_new.html#shape", {"shape": shape_of(names_in(request.POST.get("names", "")))})


# Joining from a QR code


def _refuse_join(request: HttpRequest, message: str, status: int) -> HttpResponse:
    return render(request, "games/join_refused.html", {"message": message}, status=status)


TOO_MANY_JOINS = "Too many tries from this network just now. Wait a minute, then scan the code again."
TOO_MANY_BAD_LINKS = "Too many bad join links from this network just now. Wait a minute, then scan the code again."


def _joined_key(night: Night) -> str:
    """Where a phone's session remembers the join link it opened: True for the night's, or the
    number of the table whose code it scanned (then only that table's names are its to claim)."""
    return f"joined:{night.pk}"


def _joined_table(joined: object) -> int | None:
    return joined if type(joined) is int else None  # True (the night's link) is an int in Python


def _names_to_claim(night: Night, table: int | None) -> PlayerQuerySet:
    """The names a join link offers: everyone's (the night's link) or, from a table's code, only the
    players seated at that table in the current round."""
    seated_now = {"seats__round__night": night, "seats__round__number": night.current_round}
    if table is not None:
        seated_now["seats__table_round__number"] = table  # the same seat: one filter() call, one join
    return night.players.real().filter(**seated_now)  # those seated this round: not those who have left


@require_GET
def join(request: HttpRequest, token: str) -> HttpResponse:
    """A QR code's link: the night's (every name) or a table's (that table's names this round).

    A link whose signature holds is always admitted, however many bad links came from its address
    before: a hall's phones share one public address, and one guest's stale or mistyped link must
    not lock the others out. Only bad links are counted (per address), and past the limit they are
    answered 429 rather than with the reason.
    """
    try:
        ticket = read_join_token(token)
    except BadJoinLink as error:
        if too_many(request, "bad-join"):
            return _refuse_join(request, TOO_MANY_BAD_LINKS, 429)
        return _refuse_join(request, str(error), 403)
    night = Night.objects.filter(code=ticket.code).first()
    if night is None:
        return _refuse_join(request, "That game no longer exists.", 403)
    over = night.join_refusal()
    if over is not None:  # the night's link lives as long as the night: no new phone, no names
        return render(request, "games/join.html", {
            "night": night, "over": over, "is_player": _player_of(request, night) is not None,
        })
    request.session[_joined_key(night)] = ticket.table or True
    phone = _phone_token(request)
    names = [
        {"player": player, "taken": player.is_taken_for(phone), "mine": player.is_held_by(phone)}
        for player in _names_to_claim(night, ticket.table).order_by("name")
    ]
    let_go = request.session.get(_let_go_key(night))
    return render(request, "games/join.html", {"night": night, "names": names, "table": ticket.table,
                                               "let_go": let_go})


def _let_go_key(night: Night) -> str:
    """Where a phone's session keeps the name it has let go ("That's not me"), for its join page
    to say so until it taps a name. Not a flash message: the phone's own page, told on its channel
    that the seat is free, refreshes at the same moment and lands on the join page too, using up a
    flash message before the page the player sees is drawn."""
    return f"let-go:{night.pk}"


@require_POST
@limited("claim", lambda request: _refuse_join(request, TOO_MANY_JOINS, 429))
def claim(request: HttpRequest, code: str) -> HttpResponse:
    """Tap your name: this phone now plays as that person (the session remembers), if no other
    phone does. From a table's code, only a name seated at that table this round."""
    night = _night(code)
    is_host = night.is_hosted_by(request.user, request.session)
    joined = request.session.get(_joined_key(night))
    if not joined and not is_host:
        raise PermissionDenied("Scan your table's QR code first.")
    over = night.join_refusal()
    if over is not None:
        return _refuse_join(request, over, 403)
    try:
        player_id = parse_int(request.POST.get("player"), low=1, high=ID_MAX, what="the player")
    except BadNumber:
        player_id = None
    player = night.players.real().filter(pk=player_id).first() if player_id is not None else None
    if player is None:
        return _error_response(request, ValueError("Tap one of the names on the list."), 400)
    table = None if is_host else _joined_table(joined)
    if table is not None and not _names_to_claim(night, table).filter(pk=player.pk).exists():
        return _refuse_join(request, f"{player.name} isn't at table {table} this round. "
                                     "Scan the QR code on your own table.", 403)
    try:
        actions.claim_seat(night=night, player=player, phone=_phone_token(request, create=True))
    except actions.NightError as error:
        return _refuse_join(request, str(error), error.status)
    request.session[_player_key(night.code)] = player.pk
    request.session.pop(_let_go_key(night), None)
    return redirect("games:play", code=night.code)


# The phone at the table


def phone_context(night: Night, player: Player) -> dict[str, object]:
    """Everything the phone page shows for `player` now: round, table, teams, scores, what's next."""
    round_ = night.round_obj()
    seat = _seat_of(player, round_)
    context: dict[str, object] = {"night": night, "player": player, "round": round_, "seat": seat}
    if seat is None:
        return context
    table = TableRound.objects.with_totals().get(pk=seat.table_round_id)
    seated = table.seated()
    teams = table.teams(seated)
    mine, theirs = seat.team, seat.other_team
    partner = seated[seat.partner_position]
    points = {"A": table.points_a, "B": table.points_b}
    can_score = _can_score(round_, table)
    context.update({
        "my_points": points[mine],
        "their_points": points[theirs],
        "their_names": " & ".join(p.name for p in teams[theirs]),
        "table": table,
        "teams": teams,
        "my_team": mine,
        "their_team": theirs,
        "partner": partner,
        "roll_off_totals": table.totals(table.roll_off) if table.status == TableRound.Status.ROLL_OFF else None,
        "can_score": can_score,
        "rules": night.bunco_rules(),
        "offers_wipeout": can_score and round_.takes_wipeouts(),
        "previous": _previous_result(night, player, round_),
    })
    return context


def _can_score(round_: Round, table: TableRound) -> bool:
    """Whether the phone offers the scoring buttons: the rule the tally action enforces."""
    table.round = round_
    return table.tally_refusal() is None


def _previous_result(night: Night, player: Player, round_: Round) -> dict[str, object] | None:
    """Last round's result for this player, shown while the next round waits to start."""
    if round_.status != Round.Status.READY or round_.number == 1:
        return None
    seat = Seat.objects.select_related("table_round").filter(
        round__night=night, round__number=round_.number - 1, player=player
    ).first()
    if seat is None:
        return None
    return {"won": seat.table_round.winner == seat.team, "table": seat.table_round.number}


@require_GET
def play(request: HtmxHttpRequest, code: str) -> HttpResponse:
    night = _night(code)
    player = _player_of(request, night)
    if player is None:
        if request.htmx:  # the page's own refresh: reload it whole, to say why
            return HttpResponseClientRefresh()
        why = _why_not_playing(request, night)
        joined = request.session.get(_joined_key(night))
        if joined and why == NEVER_JOINED:  # scanned a code, tapped no name yet
            return redirect("games:join", token=join_token(night.code, _joined_table(joined)))
        leaver = _leaver_of(request, night)
        if leaver is not None:
            return render(request, "games/left.html", {"night": night, "player": leaver, "message": why})
        return render(request, "games/join_refused.html", {"message": why}, status=403)
    context = phone_context(night, player)
    if request.htmx:
        return render(request, "games/play.html#phone-state", context)
    return render(request, "games/play.html", context)


@require_POST
def tally(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """A tap: +1, +2, +5 or a Bunco, for a team at the player's own table.

    The hot path of a night: a few indexed queries and a small JSON answer (the table's new
    totals). Everything else on the phone follows from the night's stream.
    """
    try:
        phone = _phone_seat(request, code)
    except actions.NightError as error:
        return refusal(request, error, as_json=True)
    night, player = phone.night, phone.player
    form = TallyForm(request.POST)
    if not form.is_valid():
        return _json_error("That tap was malformed: choose a team and a button.", 400)
    try:
        table_number = _posted_table(request)
    except BadNumber as error:
        return _json_error(str(error), 400)
    if phone.table_number is None or (table_number is not None and table_number != phone.table_number):
        return _json_error("You're not at that table this round: scores go in at your own table.", 403)
    bunco_player = None
    if form.cleaned_data["bunco_player"] is not None:
        bunco_player = night.players.filter(pk=form.cleaned_data["bunco_player"]).first()
        if bunco_player is None:
            return _json_error("Who rolled the Bunco? Tap a name at your table.", 400)
    points = form.cleaned_data["points"]
    wipeout = form.cleaned_data["wipeout"]
    if bunco_player is None and points is None and not wipeout:
        return _json_error("That tap was malformed: choose a button.", 400)
    try:
        entry = actions.record_tally(
            night=night, table_number=phone.table_number, team=form.cleaned_data["team"],
            points=points or 0, bunco_player=bunco_player, entered_by=player,
            key=form.cleaned_data["key"] or None, wipeout=wipeout,
        )
    except actions.NightError as error:
        return refusal(request, error, as_json=True)
    return JsonResponse(_tally_answer(entry))


def _tally_answer(entry: Tally) -> dict[str, object]:
    """The table's new totals, for the round and table the tally went to."""
    table = entry.table_round
    totals = table.totals() if entry.table_totals is None else entry.table_totals
    return {"round": table.round.number, "table": table.number, "a": totals["A"], "b": totals["B"],
            "kind": entry.kind}


def _json_error(message: str, status: int) -> JsonResponse:
    return JsonResponse({"error": message}, status=status)


def _posted_table(request: HttpRequest) -> int | None:
    """The table the phone believes it is at (None when the request names none); a stale page's
    table is caught and refused. BadNumber for anything but a table number."""
    return _posted_number(request, "table", high=max_tables(), what="the table number")


def _posted_number(request: HttpRequest, field: str, *, high: int, what: str) -> int | None:
    """A whole number from 1 to `high` posted as `field`; None when the request sends none.
    BadNumber for anything else."""
    raw = request.POST.get(field, "")
    if not raw:
        return None
    return parse_int(raw, low=1, high=high, what=what)


@require_POST
def undo(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """Undo my last entry. Like a tap it carries a key: a retry after a lost answer undoes once."""
    try:
        phone = _phone_seat(request, code)
    except actions.NightError as error:
        return refusal(request, error, as_json=True)
    if phone.table_number is None:
        return _json_error("You're not seated this round: there is nothing of yours to undo. Ask the host.", 403)
    form = UndoForm(request.POST)
    if not form.is_valid():
        return _json_error("That undo was malformed: tap Undo again.", 400)
    try:
        table_number = _posted_table(request)
    except BadNumber as error:
        return _json_error(str(error), 400)
    if table_number is not None and table_number != phone.table_number:
        return _json_error("You're not at that table this round: undo at your own table.", 403)
    try:
        entry = actions.undo_tally(night=phone.night, table_number=phone.table_number, entered_by=phone.player,
                                   key=form.cleaned_data["key"] or None)
    except actions.NightError as error:
        return refusal(request, error, as_json=True)
    return JsonResponse(_tally_answer(entry))


# The table's own buttons: one view per verb, each for the table this phone sits at.


def _phone_at_its_table(request: HttpRequest, code: str) -> tuple[Night, Player, int]:
    """The night, the player and the number of the table they sit at this round; 403 otherwise."""
    night, player = _night_for_player(request, code)
    seat = _seat_of(player, night.round_obj())
    if seat is None:
        raise PermissionDenied("You're not seated this round.")
    return night, player, seat.table_round.number


def _phone_state(request: HttpRequest, night: Night, player: Player) -> HttpResponse:
    night.refresh_from_db()
    return render(request, "games/play.html#phone-state", phone_context(night, player))


def _named_round(request: HttpRequest) -> int:
    """The round a step-ending request names (its page's round): BadTally when it names none."""
    try:
        return parse_int(request.POST.get("round"), low=1, high=bunco.ROUNDS, what="the round this button ends")
    except BadNumber as error:
        raise actions.BadTally(f"{error} Reload the page and tap again.") from None


ROLL_OFF_MAX = 999  # far more roll-offs than a table ever needs: the bound of a number read


def _named_roll_off(request: HttpRequest) -> int:
    """The roll-off a "roll-off done" request ends: BadTally when it names none."""
    try:
        return parse_int(request.POST.get("roll_off"), low=1, high=ROLL_OFF_MAX, what="the roll-off this button ends")
    except BadNumber as error:
        raise actions.BadTally(f"{error} Reload the page and tap again.") from None


@require_POST
def table_start(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """The head table starts the round."""
    night, player, table_number = _phone_at_its_table(request, code)
    try:
        if table_number != 1:
            raise actions.NotYourTable("The head table starts each round.")
        actions.start_round(night, round_number=_named_round(request))
    except actions.NightError as error:
        return refusal(request, error, current=lambda: _phone_state(request, night, player))
    return _phone_state(request, night, player)


@require_POST
def table_turn_over(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """After the bell, this table's turn under way is over: its winner is decided."""
    night, player, table_number = _phone_at_its_table(request, code)
    try:
        actions.finish_turn(night=night, table_number=table_number, round_number=_named_round(request))
    except actions.NightError as error:
        return refusal(request, error, current=lambda: _phone_state(request, night, player))
    return _phone_state(request, night, player)


@require_POST
def table_roll_off_done(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """Every seat at this table has taken its roll-off turn."""
    night, player, table_number = _phone_at_its_table(request, code)
    try:
        actions.finish_roll_off(night=night, table_number=table_number, round_number=_named_round(request),
                                roll_off=_named_roll_off(request))
    except actions.NightError as error:
        return refusal(request, error, current=lambda: _phone_state(request, night, player))
    return _phone_state(request, night, player)


@require_GET
def sheet(request: HttpRequest, code: str) -> HttpResponse:
    """A player's score sheet: 24 rounds of W/L and Buncos, derived from the records. The phone
    of a player who has left still reads hers."""
    leaver = _leaver_of(request, _night(code))
    night, player = (leaver.night, leaver) if leaver is not None else _night_for_player(request, code)
    return render(request, "games/sheet.html", {"night": night, "player": player, **sheet_rows(night, player)})


def sheet_rows(night: Night, player: Player) -> dict[str, object]:
    figures = night.players.with_figures().get(pk=player.pk)
    return {"rows": player.score_sheet_rows(), "wins": figures.wins, "losses": figures.losses,
            "buncos": figures.bunco_count, "holds_traveler": night.traveler() == player}


@require_POST
def not_me(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """"That's not me": a phone that tapped the wrong name lets go of that seat, and goes back to
    its table's names to tap its own. Only the phone that holds the seat can (403 for any other)."""
    night, player = _night_for_player(request, code)
    seat = _seat_of(player, night.round_obj())
    table = seat.table_round.number if seat else _joined_table(request.session.get(_joined_key(night)))
    # Forget the name too: this phone let it go, the host did not hand it over. And the table the
    # phone first scanned is forgotten for the one the player sits at now. Saved before the seat is
    # let go: the phone's own page, told on its channel that the seat is free, reloads at once and
    # must find this session (it lands on the same names, not on a refusal or another table's).
    request.session.pop(_player_key(night.code), None)
    request.session[_let_go_key(night)] = player.name
    request.session[_joined_key(night)] = table or True
    request.session.save()
    try:
        actions.release_seat(night=night, player=player)
    except actions.NightError as error:
        return refusal(request, error)
    return redirect("games:join", token=join_token(night.code, table))


# The host's page and the projector


def tables_context(night: Night) -> dict[str, object]:
    """Every table of the current round at a glance, with team names and derived scores."""
    round_ = night.round_obj()
    return {"night": night, "round": round_, "rows": round_.tables_at_a_glance()}


def standings(night: Night) -> list[Player]:
    return night.standings()


@require_GET
@never_cache
def night_host(request: HtmxHttpRequest, code: str) -> HttpResponse:
    night = _night_for_host(request, code)
    context = {**tables_context(night), "is_host": True}
    if request.htmx:
        return render(request, "games/host.html#host-state", context)
    context.update(_join_codes(request, night))
    context.update({key: value for key, value in _players_card_context(night).items() if key not in context})
    return render(request, "games/host.html", context)


def _join_codes(request: HttpRequest, night: Night) -> dict[str, object]:
    night_url = request.build_absolute_uri(join_path(night.code))
    return {
        "night_join_url": night_url,
        "night_qr": qr_svg(night_url, scale=5),
        "screen_url": request.build_absolute_uri(reverse("games:screen", args=[night.code, night.screen_token])),
    }


@require_GET
@never_cache
def night_codes(request: HttpRequest, code: str) -> HttpResponse:
    """A printable page of QR codes: one per table, one for the night."""
    night = _night_for_host(request, code)
    tables = night.round_obj(1).tables.count()
    codes = []
    for number in range(1, tables + 1):
        url = request.build_absolute_uri(join_path(night.code, number))
        codes.append({"table": number, "url": url, "qr": qr_svg(url, scale=6)})
    return render(request, "games/codes.html", {"night": night, "codes": codes, **_join_codes(request, night)})


# The host's buttons: one view per verb.


def _host_state(request: HtmxHttpRequest, night: Night) -> HttpResponse:
    night.refresh_from_db()
    if not request.htmx:
        return redirect("games:night_host", code=night.code)
    return render(request, "games/host.html#host-state", {**tables_context(night), "is_host": True})


def _posted_table_or_refuse(request: HttpRequest) -> int:
    try:
        table_number = _posted_table(request)
    except BadNumber as error:
        raise actions.BadTally(str(error)) from None
    if table_number is None:
        raise actions.BadTally("Which table?")
    return table_number


@require_POST
def host_start(request: HtmxHttpRequest, code: str) -> HttpResponse:
    night = _night_for_host(request, code)
    try:
        actions.start_round(night, round_number=_named_round(request))
    except actions.NightError as error:
        return refusal(request, error, back_to_host=night, current=lambda: _host_state(request, night))
    return _host_state(request, night)


@require_POST
def host_resume(request: HtmxHttpRequest, code: str) -> HttpResponse:
    night = _night_for_host(request, code)
    try:
        actions.resume_after_break(night, round_number=_named_round(request))
    except actions.NightError as error:
        return refusal(request, error, back_to_host=night, current=lambda: _host_state(request, night))
    return _host_state(request, night)


@require_POST
def host_reopen(request: HtmxHttpRequest, code: str) -> HttpResponse:
    night = _night_for_host(request, code)
    try:
        actions.reopen_last_round(night, table_number=_posted_table_or_refuse(request),
                                  round_number=_named_round(request))
    except actions.NightError as error:
        return refusal(request, error, back_to_host=night, current=lambda: _host_state(request, night))
    return _host_state(request, night)


@require_POST
def host_turn_over(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """The host finishes the turn for a table whose phone is not answering."""
    night = _night_for_host(request, code)
    try:
        actions.finish_turn(night=night, table_number=_posted_table_or_refuse(request),
                            round_number=_named_round(request))
    except actions.NightError as error:
        return refusal(request, error, back_to_host=night, current=lambda: _host_state(request, night))
    return _host_state(request, night)


@require_POST
def host_roll_off_done(request: HtmxHttpRequest, code: str) -> HttpResponse:
    night = _night_for_host(request, code)
    try:
        actions.finish_roll_off(night=night, table_number=_posted_table_or_refuse(request),
                                round_number=_named_round(request), roll_off=_named_roll_off(request))
    except actions.NightError as error:
        return refusal(request, error, back_to_host=night, current=lambda: _host_state(request, night))
    return _host_state(request, night)


@require_POST
def host_end(request: HtmxHttpRequest, code: str) -> HttpResponse:
    night = _night_for_host(request, code)
    try:
        actions.end_night(night, round_number=_named_round(request))
    except actions.NightError as error:
        return refusal(request, error, back_to_host=night, current=lambda: _host_state(request, night))
    return _host_state(request, night)


@require_POST
def host_prizes(request: HtmxHttpRequest, code: str) -> HttpResponse:
    night = _night_for_host(request, code)
    try:
        actions.award_prizes(night)
    except actions.NightError as error:
        return refusal(request, error, back_to_host=night)
    return redirect("games:prizes", code=night.code)


def _correction_form(request: HttpRequest) -> CorrectionForm:
    """The host's correction, read; BadTally with what a field said ("The round must be a whole
    number from 1 to 24."), else the gist."""
    form = CorrectionForm(request.POST)
    if not form.is_valid():
        said = [form.errors[field][0] for field in ("table", "points", "round", "key") if form.has_error(field)]
        raise actions.BadTally(said[0] if said and not form.has_error("team")
                               else "A correction needs a table, a team and points between -99 and 99.")
    return form


@require_POST
def host_correct_check(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """What a correction would change (scores, winner, wins and losses, the next round's seats,
    the prizes), with the button that applies it: nothing is changed yet."""
    night = _night_for_host(request, code)
    try:
        data = _correction_form(request).cleaned_data
        effect = actions.describe_correction(night=night, table_number=data["table"], team=data["team"],
                                             points=data["points"], round_number=data["round"])
    except actions.NightError as error:
        return refusal(request, error)
    return render(request, "games/host.html#correction-check",
                  {"night": night, "effect": effect, "key": secrets.token_hex(16)})


@require_POST
def host_correct(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """The host adds or removes points at any table of any started round (a mistaken tally), as
    checked. Its key makes a copy sent again (a lost answer) apply once."""
    night = _night_for_host(request, code)
    try:
        data = _correction_form(request).cleaned_data
        corrected = actions.correct_tally(night=night, table_number=data["table"], team=data["team"],
                                          points=data["points"], round_number=data["round"], key=data["key"] or None)
    except actions.NightError as error:
        return refusal(request, error)
    night.refresh_from_db()
    return render(request, "games/host.html#host-state",
                  {**tables_context(night), "is_host": True, "corrected": data, "result_note": corrected.result_note})


def _players_card(request: HttpRequest, night: Night, *, said: str = "", is_error: bool = False,
                  status: int = 200) -> HttpResponse:
    """The host's card for people arriving late or leaving early, as the night stands now."""
    night.refresh_from_db()
    return render(request, "games/host.html#players-answer" if said else "games/host.html#players-card",
                  {**_players_card_context(night), "said": said, "is_error": is_error}, status=status)


def _players_card_context(night: Night) -> dict[str, object]:
    round_ = night.round_obj()
    seats = round_.seats_in_order()
    return {
        "night": night, "round": round_, "key": secrets.token_hex(16),
        "between_rounds": night.status != Night.Status.FINISHED and round_.status == Round.Status.READY,
        "ghost_seats": [seat for seat in seats if seat.player.is_ghost],
        "player_seats": sorted((seat for seat in seats if not seat.player.is_ghost), key=lambda s: s.player.name),
    }


def _players_change(request: HtmxHttpRequest, night: Night, change: Callable[[], str]) -> HttpResponse:
    """Make a change of players and answer with the card saying what happened (or why not)."""
    try:
        said = change()
    except actions.NightError as error:
        if not request.htmx:
            return refusal(request, error, back_to_host=night)
        return _players_card(request, night, said=str(error), is_error=True, status=error.status)
    if not request.htmx:
        messages.success(request, said)
        return redirect("games:night_host", code=night.code)
    return _players_card(request, night, said=said)


def _posted_key(request: HttpRequest) -> str | None:
    return request.POST.get("key") or None


@require_GET
@never_cache
def host_players(request: HtmxHttpRequest, code: str) -> HttpResponse:
    night = _night_for_host(request, code)
    return _players_card(request, night)


@require_POST
def host_arrival(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """Someone arrives late: between rounds they take a ghost's seat."""
    night = _night_for_host(request, code)

    def seat_them() -> str:
        ghost_id = _posted_id_or_none(request, "ghost")
        ghost = night.players.filter(is_ghost=True, pk=ghost_id).first() if ghost_id else None
        if ghost_id and ghost is None:
            raise actions.BadTally("That ghost's seat is gone: pick one again.")
        player = actions.seat_late_arrival(night, name=request.POST.get("name", ""), ghost=ghost,
                                           round_number=_named_round(request), key=_posted_key(request))
        seat = _seat_of(player, night.current_round)
        where = f" at table {seat.table_round.number}" if seat is not None else ""
        return f"{player.name} plays from round {night.current_round}{where}: they tap their name on the join page."

    return _players_change(request, night, seat_them)


@require_POST
def host_leave(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """Someone leaves early: between rounds a ghost takes their seat."""
    night = _night_for_host(request, code)

    def let_them_go() -> str:
        player = night.players.real().filter(pk=_posted_id_or_none(request, "player") or 0).first()
        if player is None:
            raise actions.BadTally("Pick who is leaving.")
        ghost = actions.let_player_leave(night, player=player, round_number=_named_round(request),
                                         key=_posted_key(request))
        return f"{player.name} has left: {ghost.name} takes their seat, and their partner rolls for it."

    return _players_change(request, night, let_them_go)


def _posted_id_or_none(request: HttpRequest, field: str) -> int | None:
    try:
        return _posted_number(request, field, high=ID_MAX, what=f"the {field}")
    except BadNumber as error:
        raise actions.BadTally(str(error)) from None


@require_POST
def host_undo(request: HtmxHttpRequest, code: str, tally_id: int) -> HttpResponse:
    """The host strikes out any entry (a mistaken Bunco, a wrong tally)."""
    night = _night_for_host(request, code)
    entry = night.tallies.filter(pk=tally_id).select_related("table_round__round").first()
    if entry is None:
        raise Http404("No such entry.")
    try:
        undone = actions.undo_tally(night=night, table_number=entry.table_round.number, tally_id=tally_id,
                                    by_host=True)
    except actions.NightError as error:
        return refusal(request, error)
    if undone.result_note:
        messages.warning(request, undone.result_note)
    return redirect(reverse("games:night_table", args=[night.code, entry.table_round.number])
                    + f"?round={entry.table_round.round.number}")


@require_GET
@never_cache
def night_table(request: HttpRequest, code: str, number: int) -> HttpResponse:
    """The host's close look at one table this round: every entry, to correct."""
    night = _night_for_host(request, code)
    try:
        round_number = parse_int(request.GET.get("round") or str(night.current_round), low=1,
                                 high=night.current_round, what="the round")
    except BadNumber as error:
        return _error_response(request, error, 400)
    table = get_object_or_404(night.round_obj(round_number).tables.with_totals(), number=number)
    entries = table.tallies.select_related("bunco_player", "entered_by", "undone_by").order_by("-id")
    return render(request, "games/host_table.html", {
        "night": night, "table": table, "entries": entries, "seats": table.seats.select_related("player"),
        "earlier": round_number - 1, "later": round_number + 1 if round_number < night.current_round else 0,
    })


@require_POST
def host_release(request: HtmxHttpRequest, code: str, player_id: int) -> HttpResponse:
    """The host hands a seat over (a flat battery, a borrowed phone): the phone playing as this
    player stops, its next tap or page says so, and the next phone to tap the name gets the seat."""
    night = _night_for_host(request, code)
    player = get_object_or_404(night.players.real(), pk=player_id)
    try:
        released = actions.release_seat(night=night, player=player)
    except actions.NightError as error:
        return refusal(request, error, back_to_host=night)
    if released:
        messages.success(request, f"{player.name}'s seat is free: the next phone to tap the name gets it.")
    else:
        messages.info(request, f"No phone was playing as {player.name}.")
    seat = _seat_of(player, night.current_round)
    if seat is None:
        return redirect("games:night_host", code=night.code)
    return redirect("games:night_table", code=night.code, number=seat.table_round.number)


@require_GET
def screen(request: HtmxHttpRequest, code: str, token: str) -> HttpResponse:
    """The projector: all tables live, standings, the traveler. Read-only, by unguessable link."""
    night = _night(code)
    if not constant_time_compare(token, night.screen_token):
        raise PermissionDenied("This screen link isn't valid.")
    context = {**tables_context(night), "standings": standings(night)[:20], "traveler": night.traveler(),
               "screen_token": token,
               # The night's code for late arrivals, while its link still admits phones.
               "join_qr": qr_svg(request.build_absolute_uri(join_path(night.code)), scale=4)
               if night.join_refusal() is None else None}
    if request.htmx:
        return render(request, "games/screen.html#screen-state", context)
    return render(request, "games/screen.html", context)


@require_http_methods(["GET"])
def night_prizes(request: HttpRequest, code: str) -> HttpResponse:
    night = _night(code)
    is_host = night.is_hosted_by(request.user, request.session)
    if not is_host and _player_of(request, night) is None:
        raise PermissionDenied("Only tonight's players and host can see the prizes.")
    awards = list(night.awards.select_related("player"))
    return render(request, "games/prizes.html", {
        "night": night, "awards": awards, "is_host": is_host, "standings": standings(night),
        "pot": night.pot_cents(), "traveler": night.traveler(), "unclaimed": night.unclaimed_prizes(),
    })


@require_GET
def night_events(request: HttpRequest, code: str) -> HttpResponse | StreamingHttpResponse:
    """The night's live stream, for its players, its host and its projector (by token)."""

    def night_if_allowed() -> Night | None:
        night = _night(code)
        screen_token = request.GET.get("screen", "")
        allowed = (
            (screen_token and constant_time_compare(screen_token, night.screen_token))
            or request.session.get(_player_key(night.code)) is not None
            or night.is_hosted_by(request.user, request.session)
        )
        return night if allowed else None

    night = read_for_a_stream(request, night_if_allowed)
    if night is None:
        raise PermissionDenied("Join the game to follow it live.")

    def snapshot() -> str:
        return render_to_string("games/_bell.html", {"round": night.round_obj()})

    return event_stream_response(request, [night.channel], snapshot)


@require_GET
def player_events(request: HttpRequest, code: str, player_id: int) -> HttpResponse | StreamingHttpResponse:
    """A phone's live stream: the night's public channel and its own seat's private one.

    Only the browser whose session plays as `player_id` in this night may follow it; any other
    (another player's phone, an outsider, the host) is refused: a private channel is its seat's.
    """

    def player_or_refusal() -> Player | str:
        night = _night(code)  # an unknown night is a 404
        playing_as = request.session.get(_player_key(night.code))
        if playing_as is None:
            return "Only the phone playing as this player can follow this stream: join the game first."
        if playing_as != player_id:
            return "This is another player's stream: a phone can follow only its own."
        player = night.players.filter(pk=player_id, is_ghost=False).first()
        if player is None:
            return "Join the game to follow it live."
        if not player.is_held_by(_phone_token(request)):  # its seat went to another phone
            return _why_not_playing(request, night)
        player.night = night
        return player

    player = read_for_a_stream(request, player_or_refusal)
    if isinstance(player, str):
        raise PermissionDenied(player)
    night = player.night

    def snapshot() -> str:
        return render_to_string("games/_bell.html", {"round": night.round_obj()})

    return event_stream_response(request, [night.channel, player.private_channel], snapshot)
