"""What the night's views share: finding the night and whose it is, the phone's player, the
request's numbers, the one answer to a refusal, the tables at a glance."""

from __future__ import annotations

from collections.abc import Callable
from typing import NoReturn, ParamSpec, cast

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games import phones
from games.links import BadJoinLink
from games.night import actions
from games.night.models import Night, Player, Round, Seat, max_tables
from games.rules import bunco
from live.http import HtmxHttpRequest, answers_json, parse_int
from live.limits import too_many
from live.refusals import Refusal, TooMany, answers_refusals, json_refusal

P = ParamSpec("P")


def night_or_404(code: str) -> Night:
    return get_object_or_404(Night, code=code)


def night_for_host(request: HttpRequest, code: str) -> Night:
    """The night, if this browser is its host (creator's session, night host, club host)."""
    night = night_or_404(code)
    if not night.is_hosted_by(request.user, request.session):
        raise PermissionDenied(_("Only the night's host can do that."))
    return night


# The seat a phone plays tonight (games/phones.py): its session keeps `player:<night code>`.
SEATS = phones.Seats("player")


def player_of(request: HttpRequest, night: Night) -> Player | None:
    player_id = SEATS.claimed(request, night.code)
    phone = phones.phone_token(request)
    if player_id is None or not phone:
        return None
    return night.players.filter(pk=player_id, is_ghost=False, claimed_by=phone).first()


def night_for_player(request: HttpRequest, code: str) -> tuple[Night, Player]:
    """The night and the player this phone claimed (and still holds); 403 for any other phone."""
    player_id = SEATS.claimed(request, code)
    phone = phones.phone_token(request)
    player = (
        Player.objects.select_related("night")
        .filter(pk=player_id, night__code=code, is_ghost=False, claimed_by=phone)
        .first()
        if player_id is not None and phone
        else None
    )
    if player is None:
        refuse_a_phone_not_playing(request, code)
    return player.night, player


NEVER_JOINED = gettext_lazy("This phone hasn't joined tonight's game: scan your table's QR code.")


def refuse_a_phone_not_playing(request: HttpRequest, code: str) -> NoReturn:
    night = get_object_or_404(Night, code=code)  # an unknown night is a 404, not a 403
    raise PermissionDenied(why_not_playing(request, night))


def why_not_playing(request: HttpRequest, night: Night) -> str:
    """Why this phone plays as nobody: it never claimed a name, or its seat went to another phone
    (the host handed it over, or another phone claimed it after a hand-over)."""
    player_id = SEATS.claimed(request, night.code)
    player = night.players.filter(pk=player_id).first() if isinstance(player_id, int) else None
    if player is None:
        return str(NEVER_JOINED)
    if player.has_left():
        return left_the_game(player)
    return (_("This phone is no longer playing as %(name)s: the host handed the seat over. Scan your table's QR "
              "code again to pick your name.") % {"name": player.name})


def left_the_game(player: Player) -> str:
    return (_("%(name)s, you have left tonight's game: a ghost plays your seat, and what you played stays yours "
              "(prizes included). Thanks for playing!") % {"name": player.name})


def leaver_of(request: HttpRequest, night: Night) -> Player | None:
    """The player this phone played as, if she has left the game (the host let her go): her
    phone may still read her score sheet. None otherwise."""
    player_id = SEATS.claimed(request, night.code)
    player = night.players.filter(pk=player_id).first() if isinstance(player_id, int) else None
    return player if player is not None and player.has_left() else None


Current = Callable[[HtmxHttpRequest, str], HttpResponse]
"""The page's state as it stands, for the request and the night's code."""


def refused(*, as_json: bool = False, to_host: bool = False, current: Current | None = None,
            join_page: bool = False, card: Callable[[HtmxHttpRequest, str, Refusal], HttpResponse] | None = None,
            page: str = "") -> Callable[[Callable[P, HttpResponse]], Callable[P, HttpResponse]]:
    """The night's one place where a refusal becomes a response (live.refusals.answers_refusals):
    a view so decorated raises its refusals (an action's, or its own check's) and this answers them
    with the refusal's message and status, as the view's caller expects.

    The phone's scoring buttons read JSON (`as_json`); a phone's join page gets the refused page
    (`join_page`), and a bad join link is counted against its address (past the limit, 429 without
    the reason: a hall's phones share one address, so only bad links count); a page of its own gets
    the refused page titled `page`; a host's htmx button gets its `card` if it has one, else the
    message partial; a plain form post on the host's page (`to_host`) goes back to that page with
    the message on top. A step-ending request for a step already ended (a double tap, the other phone's tap, a
    late retry) changed nothing and is no mistake: with `current`, it gets the page's state as it
    is, without an error. The view's `code` keyword names the night."""

    def answer(request: HtmxHttpRequest, refusal: Refusal, **view_kwargs: object) -> HttpResponse:
        if current is not None and isinstance(refusal, actions.StepAlreadyEnded):
            return current(request, str(view_kwargs["code"]))
        if as_json:
            return json_refusal(refusal)
        if join_page:
            if isinstance(refusal, BadJoinLink) and too_many(request, "bad-join"):
                refusal = TooMany(TOO_MANY_BAD_LINKS)  # past the limit, not the link's reason
            return render(request, "games/join_refused.html", {"message": refusal.message}, status=refusal.status)
        if page:
            return render(request, "games/refused.html", {"title": page, "message": refusal.message},
                          status=refusal.status)
        code = str(view_kwargs["code"])
        if to_host and not request.htmx:
            messages.error(request, refusal.message)
            return redirect("games:night_host", code=code)
        if card is not None:
            return card(request, code, refusal)
        return render(request, "games/_message.html", {"message": refusal.message, "is_error": True},
                      status=refusal.status)

    decorate = answers_refusals(answer)
    return (lambda view: answers_json(decorate(view))) if as_json else decorate


TOO_MANY_BAD_LINKS = cast(str, gettext_lazy(
    "Too many bad join links from this network just now. Wait a minute, then scan the code again."))


def seat_of(player: Player, round_: Round | int) -> Seat | None:
    """The player's seat in a round (a Round, or its number in the player's night)."""
    seats = Seat.objects.select_related("table_round__round")
    if isinstance(round_, Round):
        return seats.filter(round=round_, player=player).first()
    return seats.filter(round__night_id=player.night_id, round__number=round_, player=player).first()


def joined_key(night: Night) -> str:
    """Where a phone's session remembers the join link it opened: True for the night's, or the
    number of the table whose code it scanned (then only that table's names are its to claim)."""
    return f"joined:{night.pk}"


def joined_table(joined: object) -> int | None:
    return joined if type(joined) is int else None  # True (the night's link) is an int in Python


def posted_table(request: HttpRequest) -> int | None:
    """The table the phone believes it is at (None when the request names none); a stale page's
    table is caught and refused. BadNumber for anything but a table number."""
    return posted_number(request, "table", high=max_tables(), what=_("the table number"))


def posted_number(request: HttpRequest, field: str, *, high: int, what: str) -> int | None:
    """A whole number from 1 to `high` posted as `field`; None when the request sends none.
    BadNumber for anything else."""
    raw = request.POST.get(field, "")
    if not raw:
        return None
    return parse_int(raw, low=1, high=high, what=what)


# A step-ending button's number comes from its page: a bad one means a stale or broken page.
RELOAD = cast(str, gettext_lazy("Reload the page and tap again."))


def named_round(request: HttpRequest) -> int:
    """The round a step-ending request names (its page's round): BadNumber when it names none."""
    return parse_int(request.POST.get("round"), low=1, high=bunco.ROUNDS, what=_("the round this button ends"),
                     advice=RELOAD)


ROLL_OFF_MAX = 999  # far more roll-offs than a table ever needs: the bound of a number read


def named_roll_off(request: HttpRequest) -> int:
    """The roll-off a "roll-off done" request ends: BadNumber when it names none."""
    return parse_int(request.POST.get("roll_off"), low=1, high=ROLL_OFF_MAX, what=_("the roll-off this button ends"),
                     advice=RELOAD)


def tables_context(night: Night) -> dict[str, object]:
    """Every table of the current round at a glance, with team names and derived scores."""
    round_ = night.round_obj()
    return {"night": night, "round": round_, "rows": round_.tables_at_a_glance()}


def standings(night: Night) -> list[Player]:
    return night.standings()

