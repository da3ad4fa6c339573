"""The night's views for a player's phone: joining from a QR code, claiming a name, the phone
page, its taps and undos, its table's buttons, the score sheet, "That's not me", its stream."""

from __future__ import annotations

from typing import cast

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRefresh

from games import phones
from games.links import join_token, read_join_token
from games.night import actions, taps
from games.night.forms import TallyForm, UndoForm
from games.night.models import Night, Player, PlayerQuerySet, Round, Seat, TableRound, Tally
from games.night.views.shared import (
    NEVER_JOINED,
    SEATS,
    joined_key,
    joined_table,
    leaver_of,
    named_roll_off,
    named_round,
    night_for_player,
    night_or_404,
    player_of,
    posted_table,
    refused,
    seat_of,
    why_not_playing,
)
from games.rules import bunco
from live.forms import cleaned_by_its_fields
from live.http import ID_MAX, HtmxHttpRequest, parse_int_or_none
from live.limits import limited
from live.refusals import NotYours
from live.streams import event_stream_response, read_for_a_stream


def _phone_seat(request: HttpRequest, code: str) -> taps.PhoneSeat:
    """`night_for_player` for the hot path of a tap: one statement, the player's table with it.

    Its refusals (NoSuchNight, NotYourTable) reach the scoring buttons as JSON through `refused`
    like any other (the page's script shows the message): an unknown night, a phone that never
    joined, a phone whose seat the host handed over."""
    player_id = SEATS.claimed(request, code)
    token = phones.phone_token(request)
    phone = taps.phone_seat(player_id, code, token) if isinstance(player_id, int) and token else None
    if phone is None:
        night = Night.objects.filter(code=code).first()
        if night is None:
            raise actions.NoSuchNight(_("That game no longer exists: ask the host for tonight's QR code."))
        raise actions.NotYourTable(why_not_playing(request, night))
    return phone


TOO_MANY_JOINS = cast(str, gettext_lazy("Too many tries from this network just now. Wait a minute, then scan the code again."))


def _names_to_claim(night: Night, table: int | None) -> PlayerQuerySet:
    """The names a join link offers: everyone's (the night's link) or, from a table's code, only the
    players seated at that table in the current round."""
    seated_now = {"seats__round__night": night, "seats__round__number": night.current_round}
    if table is not None:
        seated_now["seats__table_round__number"] = table  # the same seat: one filter() call, one join
    return night.players.real().filter(**seated_now)  # those seated this round: not those who have left


@require_GET
@refused(join_page=True)
def join(request: HttpRequest, token: str) -> HttpResponse:
    """A QR code's link: the night's (every name) or a table's (that table's names this round).

    A link whose signature holds is always admitted, however many bad links came from its address
    before: a hall's phones share one public address, and one guest's stale or mistyped link must
    not lock the others out. Only bad links are counted (per address), and past the limit they are
    answered 429 rather than with the reason (by `refused`, which counts them).
    """
    ticket = read_join_token(token)
    night = Night.objects.filter(code=ticket.code).first()
    if night is None:
        raise NotYours(_("That game no longer exists."))
    over = night.join_refusal()
    if over is not None:  # the night's link lives as long as the night: no new phone, no names
        return render(request, "games/join.html", {
            "night": night, "over": over, "is_player": player_of(request, night) is not None,
        })
    request.session[joined_key(night)] = ticket.table or True
    phone = phones.phone_token(request)
    names = [
        {"player": player, "taken": player.is_taken_for(phone), "mine": player.is_held_by(phone)}
        for player in _names_to_claim(night, ticket.table).order_by("name")
    ]
    let_go = SEATS.let_go_name(request, night.code)
    return render(request, "games/join.html", {"night": night, "names": names, "table": ticket.table,
                                               "let_go": let_go})


@require_POST
@refused(join_page=True)
@limited("claim", TOO_MANY_JOINS)
def claim(request: HttpRequest, code: str) -> HttpResponse:
    """Tap your name: this phone now plays as that person (the session remembers), if no other
    phone does. From a table's code, only a name seated at that table this round."""
    night = night_or_404(code)
    is_host = night.is_hosted_by(request.user, request.session)
    joined = request.session.get(joined_key(night))
    if not joined and not is_host:
        raise PermissionDenied(_("Scan your table's QR code first."))
    over = night.join_refusal()
    if over is not None:
        raise NotYours(over)
    player_id = parse_int_or_none(request.POST.get("player"), low=1, high=ID_MAX)
    player = night.players.real().filter(pk=player_id).first() if player_id is not None else None
    if player is None:
        raise actions.BadTally(_("Tap one of the names on the list."))
    table = None if is_host else joined_table(joined)
    if table is not None and not _names_to_claim(night, table).filter(pk=player.pk).exists():
        raise NotYours(_("%(name)s isn't at table %(table)s this round. Scan the QR code on your own table.")
                       % {"name": player.name, "table": table})
    actions.claim_seat(night=night, player=player, phone=phones.phone_token(request, create=True),
                       language=translation.get_language())
    SEATS.remember(request, night.code, player.pk)
    return redirect("games:play", code=night.code)


def _seat_and_table(player: Player, round_: Round | int) -> tuple[Seat, TableRound, list[Player]] | None:
    """The player's seat this round, its table with the totals, and the table's players in seat
    order; None when not seated. Three reads: a host's change of the seating between them (a
    leaver, a late arrival: the round's tables are drawn again) leaves the seat read pointing at a
    table that is gone, or the table read at seats that are gone. The seating is rewritten in one
    transaction, so the three read again agree. (Seen as a 500 on a phone while the host took a
    leaver out, 14 pages refreshing; then, with the table re-read, still as a 500 in the moment
    between the table's read and its seats', CI's 13-phone night at a late arrival.)"""
    for _attempt in range(3):
        seat = seat_of(player, round_)
        if seat is None:
            return None
        table = TableRound.objects.with_totals().filter(pk=seat.table_round_id).first()
        if table is None:
            continue
        seated = table.seated()
        if len(seated) == bunco.SEATS and seated[seat.position].pk == player.pk:
            return seat, table, seated
    return None  # the seating changed three times over: the page's next refresh shows it


def phone_context(night: Night, player: Player) -> dict[str, object]:
    """Everything the phone page shows for `player` now: round, table, teams, scores, what's next."""
    round_ = night.round_obj()
    seated_here = _seat_and_table(player, round_)
    context: dict[str, object] = {"night": night, "player": player, "round": round_,
                                  "seat": seated_here[0] if seated_here else None}
    if seated_here is None:
        return context
    seat, table, seated = seated_here
    teams = table.teams(seated)
    mine, theirs = seat.team, seat.other_team
    partner = seated[seat.partner_position]
    points = {"A": table.points_a, "B": table.points_b}
    can_score = _can_score(round_, table)
    roll_off = table.roll_off if table.status == TableRound.Status.ROLL_OFF else table.deciding_roll_off()
    roll_off_totals = table.totals(roll_off) if roll_off else None
    context.update({
        "my_points": points[mine],
        "their_points": points[theirs],
        "their_names": " & ".join(p.name for p in teams[theirs]),
        "table": table,
        "teams": teams,
        "bunco_chooser": table.bunco_chooser(seated),
        "my_team": mine,
        "their_team": theirs,
        "partner": partner,
        # The roll-off under way, or the one that decided the table (its result line says both scores).
        "roll_off_totals": roll_off_totals,
        "my_roll_off": roll_off_totals[mine] if roll_off_totals else None,
        "their_roll_off": roll_off_totals[theirs] if roll_off_totals else None,
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
@refused(join_page=True)
def play(request: HtmxHttpRequest, code: str) -> HttpResponse:
    night = night_or_404(code)
    player = player_of(request, night)
    if player is None:
        if request.htmx:  # the page's own refresh: reload it whole, to say why
            return HttpResponseClientRefresh()
        why = why_not_playing(request, night)
        joined = request.session.get(joined_key(night))
        if joined and why == NEVER_JOINED:  # scanned a code, tapped no name yet
            return redirect("games:join", token=join_token(night.code, joined_table(joined)))
        leaver = leaver_of(request, night)
        if leaver is not None:
            return render(request, "games/left.html", {"night": night, "player": leaver, "message": why})
        raise NotYours(why)
    context = phone_context(night, player)
    if request.htmx:
        return render(request, "games/play.html#phone-state", context)
    if player.language != translation.get_language():  # the phone switched: the projector follows
        Player.objects.filter(pk=player.pk).update(language=translation.get_language())
    return render(request, "games/play.html", context)


@require_POST
@refused(as_json=True)
def tally(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """A tap: +1, +2, +5 or a Bunco, for a team at the player's own table.

    The hot path of a night: a few indexed queries and a small JSON answer (the table's new
    totals). Everything else on the phone follows from the night's stream.
    """
    phone = _phone_seat(request, code)
    night, player = phone.night, phone.player
    cleaned = cleaned_by_its_fields(TallyForm, request.POST)  # the form's checks, without a form per tap
    if cleaned is None:
        raise actions.BadTally(_("That tap was malformed: choose a team and a button."))
    table_number = posted_table(request)
    if phone.table_number is None or (table_number is not None and table_number != phone.table_number):
        raise actions.NotYourTable(_("You're not at that table this round: scores go in at your own table."))
    bunco_player = None
    if cleaned["bunco_player"] is not None:
        bunco_player = night.players.filter(pk=cleaned["bunco_player"]).first()
        if bunco_player is None:
            raise actions.BadTally(_("Who rolled the Bunco? Tap a name at your table."))
    points = cleaned["points"]
    wipeout = cleaned["wipeout"]
    if bunco_player is None and points is None and not wipeout:
        raise actions.BadTally(_("That tap was malformed: choose a button."))
    entry = actions.record_tally(
        night=night, table_number=phone.table_number, team=cleaned["team"],
        points=points or 0, bunco_player=bunco_player, entered_by=player,
        key=cleaned["key"] or None, wipeout=wipeout,
    )
    return JsonResponse(_tally_answer(entry))


def _tally_answer(entry: Tally) -> dict[str, object]:
    """The table's new totals, for the round and table the tally went to."""
    table = entry.table_round
    totals = table.totals() if entry.table_totals is None else entry.table_totals
    return {"round": table.round.number, "table": table.number, "a": totals["A"], "b": totals["B"],
            "kind": entry.kind}


@require_POST
@refused(as_json=True)
def undo(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """Undo my last entry. Like a tap it carries a key: a retry after a lost answer undoes once."""
    phone = _phone_seat(request, code)
    if phone.table_number is None:
        raise actions.NotYourTable(_("You're not seated this round: there is nothing of yours to undo. Ask the host."))
    form = UndoForm(request.POST)
    if not form.is_valid():
        raise actions.BadTally(_("That undo was malformed: tap Undo again."))
    table_number = posted_table(request)
    if table_number is not None and table_number != phone.table_number:
        raise actions.NotYourTable(_("You're not at that table this round: undo at your own table."))
    entry = actions.undo_tally(night=phone.night, table_number=phone.table_number, entered_by=phone.player,
                               key=form.cleaned_data["key"] or None)
    return JsonResponse(_tally_answer(entry))


def _phone_at_its_table(request: HttpRequest, code: str) -> tuple[Night, Player, int]:
    """The night, the player and the number of the table they sit at this round; 403 otherwise."""
    night, player = night_for_player(request, code)
    seat = seat_of(player, night.round_obj())
    if seat is None:
        raise PermissionDenied(_("You're not seated this round."))
    return night, player, seat.table_round.number


def _phone_state(request: HttpRequest, night: Night, player: Player) -> HttpResponse:
    night.refresh_from_db()
    return render(request, "games/play.html#phone-state", phone_context(night, player))


def _current_phone_state(request: HtmxHttpRequest, code: str) -> HttpResponse:
    return _phone_state(request, *night_for_player(request, code))


@require_POST
@refused(current=_current_phone_state)
def table_start(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """The head table starts the round."""
    night, player, table_number = _phone_at_its_table(request, code)
    if table_number != 1:
        raise actions.NotYourTable(_("The head table starts each round."))
    actions.start_round(night, round_number=named_round(request))
    return _phone_state(request, night, player)


@require_POST
@refused(current=_current_phone_state)
def table_turn_over(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """After the bell, this table's turn under way is over: its winner is decided."""
    night, player, table_number = _phone_at_its_table(request, code)
    actions.finish_turn(night=night, table_number=table_number, round_number=named_round(request))
    return _phone_state(request, night, player)


@require_POST
@refused(current=_current_phone_state)
def table_roll_off_done(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """Every seat at this table has taken its roll-off turn."""
    night, player, table_number = _phone_at_its_table(request, code)
    actions.finish_roll_off(night=night, table_number=table_number, round_number=named_round(request),
                            roll_off=named_roll_off(request))
    return _phone_state(request, night, player)


@require_GET
def sheet(request: HttpRequest, code: str) -> HttpResponse:
    """A player's score sheet: 24 rounds of W/L and Buncos, derived from the records. The phone
    of a player who has left still reads hers."""
    leaver = leaver_of(request, night_or_404(code))
    night, player = (leaver.night, leaver) if leaver is not None else night_for_player(request, code)
    return render(request, "games/sheet.html", {"night": night, "player": player, **sheet_rows(night, player)})


def sheet_rows(night: Night, player: Player) -> dict[str, object]:
    figures = night.players.with_figures().get(pk=player.pk)
    return {"rows": player.score_sheet_rows(), "wins": figures.wins, "losses": figures.losses,
            "buncos": figures.bunco_count, "holds_traveler": night.traveler() == player}


@require_POST
@refused()
def not_me(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """"That's not me": a phone that tapped the wrong name lets go of that seat, and goes back to
    its table's names to tap its own. Only the phone that holds the seat can (403 for any other)."""
    night, player = night_for_player(request, code)
    seat = seat_of(player, night.round_obj())
    table = seat.table_round.number if seat else joined_table(request.session.get(joined_key(night)))
    # Forget the name too: this phone let it go, the host did not hand it over. And the table the
    # phone first scanned is forgotten for the one the player sits at now. Saved before the seat is
    # let go: the phone's own page, told on its channel that the seat is free, reloads at once and
    # must find this session (it lands on the same names, not on a refusal or another table's).
    request.session[joined_key(night)] = table or True
    SEATS.let_go(request, night.code, player.name)
    actions.release_seat(night=night, player=player)
    return redirect("games:join", token=join_token(night.code, table))


@require_GET
def player_events(request: HttpRequest, code: str, player_id: int) -> HttpResponse | StreamingHttpResponse:
    """A phone's live stream: the night's public channel and its own seat's private one.

    Only the browser whose session plays as `player_id` in this night may follow it; any other
    (another player's phone, an outsider, the host) is refused: a private channel is its seat's.
    """

    def player_or_refusal() -> Player | str:
        night = night_or_404(code)  # an unknown night is a 404
        playing_as = SEATS.claimed(request, night.code)
        if playing_as is None:
            return _("Only the phone playing as this player can follow this stream: join the game first.")
        if playing_as != player_id:
            return _("This is another player's stream: a phone can follow only its own.")
        player = night.players.filter(pk=player_id, is_ghost=False).first()
        if player is None:
            return _("Join the game to follow it live.")
        if not player.is_held_by(phones.phone_token(request)):  # its seat went to another phone
            return why_not_playing(request, night)
        player.night = night
        return player

    player = read_for_a_stream(request, player_or_refusal)
    if isinstance(player, str):
        raise PermissionDenied(player)
    night = player.night

    def snapshot() -> str:
        return render_to_string("games/_bell.html", {"round": night.round_obj()})

    return event_stream_response(request, [night.channel, player.private_channel], snapshot)

