"""The night's views for its host: starting a night, the host's page and its buttons (one view
per verb), the printed codes, corrections, arrivals and leavers, one table's entries."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import cast

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games.links import join_path, party_in_link
from games.night import actions
from games.night.forms import CorrectionForm, NewNightForm, names_in, shape_of
from games.night.models import TITLE_MAX, Night
from games.night.views.shared import (
    named_roll_off,
    named_round,
    night_for_host,
    posted_number,
    posted_table,
    refused,
    seat_of,
    tables_context,
)
from live.http import ID_MAX, HtmxHttpRequest, parse_int
from live.limits import Key, counted_as, too_many, used_up
from live.qr import qr_svg
from live.refusals import Refusal, TooMany, form_status, shown_on


@require_http_methods(["GET", "POST"])
@refused(page=cast(str, gettext_lazy("Can't start that night")))
def night_new(request: HttpRequest) -> HttpResponse:
    """"Just play tonight" (anyone) or a club party's night (its host): names, buy-in, house rules.

    Starting a night writes hundreds of rows: it is rate limited per address and per host account.
    A malformed party in the link is refused (400); the start's own refusals show on its form."""
    party = party_in_link(request, _("Only the club's hosts can start its party night."))
    started = Night.objects.filter(party=party).order_by("pk").first() if party is not None else None
    if started is not None:  # one night per party: its host re-opens it (issue 16, C5)
        messages.info(request, _("This party's night is started already: here it is."))
        return redirect("games:night_host", code=started.code)
    if request.method == "POST":
        form = NewNightForm(request.POST)
        if form.is_valid():
            with shown_on(form, "names"):
                if _too_many_nights(request):
                    raise TooMany(TOO_MANY_NIGHTS)  # shown above the form, which stays filled in to send later
                night = actions.start_night(
                    names=form.name_list(),
                    buy_in_cents=form.buy_in_cents(),
                    rules=form.rules(),
                    prize_rules=form.prize_rules(),
                    title=form.cleaned_data["title"] or _("Bunco night"),
                    club=party.club if party else None,
                    party=party,
                    host_user=request.user,
                    members={member.name: member for member in party.club.members.all()} if party else None,
                )
                _count_a_night_started(request)
                request.session[f"host:{night.pk}"] = night.host_key
                return redirect("games:night_host", code=night.code)
    else:
        initial: dict[str, object] = {"title": _("Bunco night")}
        if party is not None:
            initial["names"] = "\n".join(party.coming_names())
            initial["buy_in"] = party.club.buy_in_cents / 100
            title = _("%(club)s night") % {"club": party.club.name}
            initial["title"] = title if len(title) <= TITLE_MAX else party.club.name  # a long club name fits alone
            # The club's house rules: every night of the club starts with them.
            initial.update(NewNightForm.initial_for_rules(party.club.night_rules(), party.club.prize_rules()))
        form = NewNightForm(initial=initial)
    names = form.data.get("names", form.initial.get("names", "")) or ""
    return render(request, "games/night_new.html",
                  {"form": form, "party": party, "shape": shape_of(names_in(names))}, status=form_status(form))


TOO_MANY_NIGHTS = cast(str, gettext_lazy("Too many nights started from here just now. Wait a while, then try again."))


NIGHTS_A_PAGE = 20


@require_GET
@login_required
@refused(page=cast(str, gettext_lazy("No such page")))
def host_nights(request: HttpRequest) -> HttpResponse:
    """A host's nights: every night they host (their own and their clubs'), newest first, the
    finished ones with their prizes; older ones a page further (`?page=2`)."""
    number = parse_int(request.GET.get("page", "1"), low=1, high=ID_MAX, what=_("the page number"))
    paginator = Paginator(Night.objects.hosted_by(request.user).listed(), NIGHTS_A_PAGE)
    page = paginator.get_page(number)
    return render(request, "games/nights.html", {"page": page, "nights": page.object_list})


def _too_many_nights(request: HttpRequest) -> bool:
    """Whether this signed-in host (from any address), or else this address, has started as many
    nights as its limit allows. A signed-in host is counted by their account alone: the anonymous
    nights of a neighbour sharing the address (a hall's Wi-Fi) never hold the host back. Only
    nights started count: a list the action refused (5 players, a name twice) is fixed and sent
    again."""
    door, key = _night_door(request)
    return used_up(request, door, key=key)


def _count_a_night_started(request: HttpRequest) -> None:
    door, key = _night_door(request)
    too_many(request, door, key=key)


def _night_door(request: HttpRequest) -> tuple[str, Key]:
    """The limit a night started here counts against, and what it is counted by."""
    return counted_as(request, "night-new")


@require_POST
def night_shape(request: HttpRequest) -> HttpResponse:
    """The live hint under the names: "13 players · 4 tables · 3 ghost seats"."""
    return render(request, "games/night_new.html#shape", {"shape": shape_of(names_in(request.POST.get("names", "")))})


@require_GET
def night_host(request: HtmxHttpRequest, code: str) -> HttpResponse:
    night = night_for_host(request, code)
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
def night_codes(request: HttpRequest, code: str) -> HttpResponse:
    """A printable page of QR codes: one per table, one for the night."""
    night = night_for_host(request, code)
    tables = night.round_obj(1).tables.count()
    codes = []
    for number in range(1, tables + 1):
        url = request.build_absolute_uri(join_path(night.code, number))
        codes.append({"table": number, "url": url, "qr": qr_svg(url, scale=6)})
    return render(request, "games/codes.html", {"night": night, "codes": codes, **_join_codes(request, night)})


def _host_state(request: HtmxHttpRequest, night: Night) -> HttpResponse:
    night.refresh_from_db()
    if not request.htmx:
        return redirect("games:night_host", code=night.code)
    return render(request, "games/host.html#host-state", {**tables_context(night), "is_host": True})


def _current_host_state(request: HtmxHttpRequest, code: str) -> HttpResponse:
    return _host_state(request, night_for_host(request, code))


# The host's buttons that end a step of the night, one view per verb: a refusal goes back to the
# host's page with its message (or its partial, for htmx), and a step already ended is answered
# with the page as it stands.
host_step = refused(to_host=True, current=_current_host_state)


def _posted_table_or_refuse(request: HttpRequest) -> int:
    table_number = posted_table(request)
    if table_number is None:
        raise actions.BadTally(_("Which table?"))
    return table_number


@require_POST
@host_step
def host_start(request: HtmxHttpRequest, code: str) -> HttpResponse:
    night = night_for_host(request, code)
    actions.start_round(night, round_number=named_round(request))
    return _host_state(request, night)


@require_POST
@host_step
def host_resume(request: HtmxHttpRequest, code: str) -> HttpResponse:
    night = night_for_host(request, code)
    actions.resume_after_break(night, round_number=named_round(request))
    return _host_state(request, night)


@require_POST
@host_step
def host_reopen(request: HtmxHttpRequest, code: str) -> HttpResponse:
    night = night_for_host(request, code)
    actions.reopen_last_round(night, table_number=_posted_table_or_refuse(request),
                              round_number=named_round(request))
    return _host_state(request, night)


@require_POST
@host_step
def host_turn_over(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """The host finishes the turn for a table whose phone is not answering."""
    night = night_for_host(request, code)
    actions.finish_turn(night=night, table_number=_posted_table_or_refuse(request),
                        round_number=named_round(request))
    return _host_state(request, night)


@require_POST
@host_step
def host_roll_off_done(request: HtmxHttpRequest, code: str) -> HttpResponse:
    night = night_for_host(request, code)
    actions.finish_roll_off(night=night, table_number=_posted_table_or_refuse(request),
                            round_number=named_round(request), roll_off=named_roll_off(request))
    return _host_state(request, night)


@require_POST
@host_step
def host_end(request: HtmxHttpRequest, code: str) -> HttpResponse:
    night = night_for_host(request, code)
    actions.end_night(night, round_number=named_round(request))
    return _host_state(request, night)


@require_POST
@refused(to_host=True)
def host_prizes(request: HtmxHttpRequest, code: str) -> HttpResponse:
    night = night_for_host(request, code)
    actions.award_prizes(night)
    return redirect("games:prizes", code=night.code)


def _correction_form(request: HttpRequest) -> CorrectionForm:
    """The host's correction, read; BadTally with what a field said ("The round must be a whole
    number from 1 to 24."), else the gist."""
    form = CorrectionForm(request.POST)
    if not form.is_valid():
        said = [form.errors[field][0] for field in ("table", "points", "round", "key") if form.has_error(field)]
        raise actions.BadTally(said[0] if said and not form.has_error("team")
                               else _("A correction needs a table, a team and points between -99 and 99."))
    return form


@require_POST
@refused()
def host_correct_check(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """What a correction would change (scores, winner, wins and losses, the next round's seats,
    the prizes), with the button that applies it: nothing is changed yet."""
    night = night_for_host(request, code)
    data = _correction_form(request).cleaned_data
    effect = actions.describe_correction(night=night, table_number=data["table"], team=data["team"],
                                         points=data["points"], round_number=data["round"])
    return render(request, "games/host.html#correction-check",
                  {"night": night, "effect": effect, "key": secrets.token_hex(16)})


@require_POST
@refused()
def host_correct(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """The host adds or removes points at any table of any started round (a mistaken tally), as
    checked. Its key makes a copy sent again (a lost answer) apply once."""
    night = night_for_host(request, code)
    data = _correction_form(request).cleaned_data
    corrected = actions.correct_tally(night=night, table_number=data["table"], team=data["team"],
                                      points=data["points"], round_number=data["round"], key=data["key"] or None)
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
        "ghost_seats": [seat for seat in seats if seat.player.is_ghost],
        "player_seats": sorted((seat for seat in seats if not seat.player.is_ghost), key=lambda s: s.player.name),
    }


def _players_change(request: HtmxHttpRequest, night: Night, change: Callable[[], str]) -> HttpResponse:
    """Make a change of players and answer with the card saying what happened (a refusal is
    answered by `_players_card_refused`)."""
    said = change()
    if not request.htmx:
        messages.success(request, said)
        return redirect("games:night_host", code=night.code)
    return _players_card(request, night, said=said)


def _players_card_refused(request: HtmxHttpRequest, code: str, refusal: Refusal) -> HttpResponse:
    """The players card saying why a change of players was refused."""
    return _players_card(request, night_for_host(request, code), said=refusal.message, is_error=True,
                         status=refusal.status)


def _posted_key(request: HttpRequest) -> str | None:
    return request.POST.get("key") or None


@require_GET
def host_players(request: HtmxHttpRequest, code: str) -> HttpResponse:
    night = night_for_host(request, code)
    return _players_card(request, night)


@require_POST
@refused(to_host=True, card=_players_card_refused)
def host_arrival(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """Someone arrives late: between rounds they take a ghost's seat."""
    night = night_for_host(request, code)

    def seat_them() -> str:
        ghost_id = _posted_id_or_none(request, "ghost")
        ghost = night.players.filter(is_ghost=True, pk=ghost_id).first() if ghost_id else None
        if ghost_id and ghost is None:
            raise actions.BadTally(_("That ghost's seat is gone: pick one again."))
        player = actions.seat_late_arrival(night, name=request.POST.get("name", ""), ghost=ghost,
                                           round_number=named_round(request), key=_posted_key(request))
        seat = seat_of(player, night.current_round)
        if seat is None:
            return (_("%(name)s plays from round %(number)s: they tap their name on the join page.")
                    % {"name": player.name, "number": night.current_round})
        return (_("%(name)s plays from round %(number)s at table %(table)s: they tap their name on the join page.")
                % {"name": player.name, "number": night.current_round, "table": seat.table_round.number})

    return _players_change(request, night, seat_them)


@require_POST
@refused(to_host=True, card=_players_card_refused)
def host_leave(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """Someone leaves early: between rounds a ghost takes their seat."""
    night = night_for_host(request, code)

    def let_them_go() -> str:
        player = night.players.real().filter(pk=_posted_id_or_none(request, "player") or 0).first()
        if player is None:
            raise actions.BadTally(_("Pick who is leaving."))
        ghost = actions.let_player_leave(night, player=player, round_number=named_round(request),
                                         key=_posted_key(request))
        return (_("%(name)s has left: %(ghost)s takes their seat, and their partner rolls for it.")
                % {"name": player.name, "ghost": ghost.name})

    return _players_change(request, night, let_them_go)


def _posted_id_or_none(request: HttpRequest, field: str) -> int | None:
    what = {"ghost": _("the ghost"), "player": _("the player")}.get(field, field)
    return posted_number(request, field, high=ID_MAX, what=what)


@require_POST
@refused()
def host_undo(request: HtmxHttpRequest, code: str, tally_id: int) -> HttpResponse:
    """The host strikes out any entry (a mistaken Bunco, a wrong tally)."""
    night = night_for_host(request, code)
    entry = night.tallies.filter(pk=tally_id).select_related("table_round__round").first()
    if entry is None:
        raise Http404(_("No such entry."))
    undone = actions.undo_tally(night=night, table_number=entry.table_round.number, tally_id=tally_id,
                                by_host=True)
    if undone.result_note:
        messages.warning(request, undone.result_note)
    return redirect(reverse("games:night_table", args=[night.code, entry.table_round.number])
                    + f"?round={entry.table_round.round.number}")


@require_GET
@refused()
def night_table(request: HttpRequest, code: str, number: int) -> HttpResponse:
    """The host's close look at one table this round: every entry, to correct."""
    night = night_for_host(request, code)
    round_number = parse_int(request.GET.get("round") or str(night.current_round), low=1,
                             high=night.current_round, what=_("the round"))
    table = get_object_or_404(night.round_obj(round_number).tables.with_totals(), number=number)
    entries = table.tallies.select_related("bunco_player", "entered_by", "undone_by").order_by("-id")
    return render(request, "games/host_table.html", {
        "night": night, "table": table, "entries": entries, "seats": table.seats.select_related("player"),
        "earlier": round_number - 1, "later": round_number + 1 if round_number < night.current_round else 0,
    })


@require_POST
@refused(to_host=True)
def host_release(request: HtmxHttpRequest, code: str, player_id: int) -> HttpResponse:
    """The host hands a seat over (a flat battery, a borrowed phone): the phone playing as this
    player stops, its next tap or page says so, and the next phone to tap the name gets the seat."""
    night = night_for_host(request, code)
    player = get_object_or_404(night.players.real(), pk=player_id)
    released = actions.release_seat(night=night, player=player)
    if released:
        messages.success(request, _("%(name)s's seat is free: the next phone to tap the name gets it.")
                         % {"name": player.name})
    else:
        messages.info(request, _("No phone was playing as %(name)s.") % {"name": player.name})
    seat = seat_of(player, night.current_round)
    if seat is None:
        return redirect("games:night_host", code=night.code)
    return redirect("games:night_table", code=night.code, number=seat.table_round.number)

