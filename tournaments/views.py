"""Views of a tournament: thin, typed, permission first, then an action, then a template.

Three kinds of visitor: the director (logged in, the tournament's own), a group's phone (opened
the group's signed QR link; its session remembers the group) and the projector (a read-only link
with an unguessable token). One URL per verb; an action's refusal reaches the response through
`refused(page)`, the one place that answers this app's refusals.
"""

from __future__ import annotations

import csv
import enum
import functools
from collections.abc import Callable
from datetime import datetime
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.crypto import constant_time_compare
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from games.table.renderers import STOPPED
from live.http import HtmxHttpRequest
from live.limits import too_many
from live.qr import qr_svg
from live.refusals import NotYours, Refusal, TooMany, answers_refusals, form_status
from live.streams import event_stream_response, read_for_a_stream
from tournaments import actions, brackets, digital
from tournaments.forms import (
    CorrectionForm,
    ExtendForm,
    KeyForm,
    NewTournamentForm,
    RegisterForm,
    RoundForm,
    SeatForm,
    StartForm,
    TurnForm,
)
from tournaments.links import BadGroupLink, group_path, read_group_token
from tournaments.models import ENTRANT_NAME_MAX, Entrant, Group, Tournament, TournamentRound, Turn, new_token

# --- Permissions ----------------------------------------------------------------------------------


def _tournament(code: str) -> Tournament:
    return get_object_or_404(Tournament, code=code)


def _tournament_for_director(request: HttpRequest, code: str) -> Tournament:
    """The tournament, if the signed-in user directs it; 404 for an unknown one, 403 otherwise."""
    tournament = _tournament(code)
    if not tournament.is_directed_by(request.user):
        raise PermissionDenied("Only the tournament's director can do that.")
    return tournament


def _group_key(code: str) -> str:
    return f"tgroup:{code}"


def _group_for_phone(request: HttpRequest, code: str) -> Group:
    """The group whose QR link this phone opened (or any group, for the director); 403 otherwise."""
    group = get_object_or_404(Group.objects.select_related("round__tournament"), code=code)
    if request.session.get(_group_key(code)) or group.round.tournament.is_directed_by(request.user):
        return group
    raise PermissionDenied("This phone hasn't opened this group's link: scan the QR code on your table.")


def _posted_entrant(group: Group, form: TurnForm | CorrectionForm) -> Entrant:
    """The player a phone posts for: 400 for no such player, 403 for a player of another group."""
    entrant = group.round.tournament.entrants.filter(pk=form.cleaned_data["entrant"]).first()
    if entrant is None:
        raise actions.BadEntry("Choose one of the group's players.")
    if not group.seats.filter(entrant=entrant).exists():
        raise actions.NotYourGroup(f"{entrant.name} doesn't play at your table: enter turns for your own group.")
    return entrant


def _form_error(form: Any, fallback: str) -> actions.BadEntry:
    """What a number field said ("The points banked must be a whole number…"), else the gist."""
    for errors in form.errors.as_data().values():
        if errors and errors[0].code != "required":
            return actions.BadEntry(errors[0].messages[0])
    return actions.BadEntry(fallback)


# --- Refusals -------------------------------------------------------------------------------------


class Page(enum.Enum):
    """The page a refused request came from, which decides how its refusal is answered."""

    GROUP_PHONE = "group phone"  # a group's phone: its live region again, the message on top
    DASHBOARD = "dashboard"  # the director's dashboard: its live region with the message (htmx), else back to it
    GROUP_SHEET = "group sheet"  # the director's page of one group's entries: back to it with the message
    NEW = "new"  # the new-tournament form: the form again with the message on it
    GROUP_LINK = "group link"  # a table's QR link: the refused page (a bad link is counted, per address)


def _answer(request: HtmxHttpRequest, error: Refusal, *, page: Page, code: str = "", **kwargs: Any) -> HttpResponse:
    """The one way a refusal (an action's, or a form's read by the view) reaches a page: its
    message, with its status, in the way of the page it came from (`page`; `code` and the other
    view arguments say which tournament or group). Nothing has changed: the state is read afresh."""
    if page is Page.GROUP_LINK:
        # Only bad links count (per address, with the night's join links): a hall shares one address.
        if isinstance(error, BadGroupLink) and too_many(request, "bad-join"):
            error = TooMany(TOO_MANY_BAD_LINKS)  # past the limit, not the link's reason
        return render(request, "tournaments/refused.html", {"message": error.message}, status=error.status)
    if page is Page.GROUP_PHONE:
        group = get_object_or_404(Group.objects.select_related("round__tournament"), code=code)
        context = {**group_context(group), "message": error.message}
        return render(request, "tournaments/group.html#group-state", context, status=error.status)
    if page is Page.GROUP_SHEET:
        group_id = kwargs.get("group_id") or get_object_or_404(Turn, pk=kwargs.get("turn_id"),
                                                               tournament__code=code).group_id
        messages.error(request, error.message)
        return redirect("tournaments:director_group", code=code, group_id=group_id)
    if page is Page.NEW:
        form = NewTournamentForm(request.POST, user=request.user)
        form.is_valid()
        form.add_error(None, error.message)
        return render(request, "tournaments/new.html", {"form": form}, status=form_status(form))
    # The dashboard again, the message in it beside what settles it: htmx swaps a 4xx answer like
    # any other, so its live region comes whole (the message alone would replace the dashboard);
    # a plain form (no script, or a button pressed before the page's script was ready) gets the
    # whole page, the same region in it, as a refused form is shown again where it was sent.
    tournament = _tournament_for_director(request, code)
    context = {**dashboard_context(request, tournament), "message": error.message,
               "refused_seats": error.seats if isinstance(error, actions.SeatsNobodyHolds) else []}
    template = "tournaments/dashboard.html#dashboard-state" if request.htmx else "tournaments/dashboard.html"
    return render(request, template, context, status=error.status)


View = Callable[..., HttpResponse]


def refused(page: Page) -> Callable[[View], View]:
    """The view decorator answering a refusal raised in the view as `page` answers it."""
    return answers_refusals(functools.partial(_answer, page=page))


# --- Shared context -------------------------------------------------------------------------------


def clock_text(seconds: int) -> str:
    """What a countdown shows before its script runs: "19:59", "0:07"."""
    return f"{seconds // 60}:{seconds % 60:02d}"


def groups_context(round_: TournamentRound, now: datetime) -> list[dict[str, Any]]:
    """Every group of a round with its players and their scores (replayed from the turns, for the
    whole round at once: a 1,000-player round is a handful of queries)."""
    sheets = round_.sheets()
    rows = []
    for group in round_.groups.select_related("table").order_by("number"):
        group.round = round_
        sheet = sheets.get(group.pk, [])
        if group.status == Group.Status.FINAL:
            sheet = sorted(sheet, key=lambda seat: -seat[2])
        players = [{"entrant": {"pk": pk, "name": name}, "score": score} for pk, name, score in sheet]
        rows.append({"group": group, "players": players, "clock": clock_text(group.seconds_left(now)),
                     "can_extend": group.extend_refusal(now) is None,
                     "table_url": digital.table_path(group.table) if group.table is not None else "",
                     "watch": _watch_context(group, now) if group.status == Group.Status.PLAYING else None})
    return rows


def waited_text(seconds: int) -> str:
    """How long a table has waited, for the director: "40 s", "3 min", "1 h 5 min"."""
    if seconds < 60:
        return f"{seconds} s"
    minutes = seconds // 60
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"


def _watch_context(group: Group, now: datetime) -> dict[str, Any] | None:
    """A group on phones as the director watches it (tournaments.digital.watch): whose move its
    table waits on and for how long, and the seats nobody holds."""
    watch = digital.watch(group)
    if watch is None:
        return None
    waited = max(0, int((now - watch.since).total_seconds())) if watch.since else None
    return {"waiting_on": watch.waiting_on, "waited": waited_text(waited) if waited is not None else "",
            "unheld": watch.unheld, "held": len(watch.seats) - len(watch.unheld), "seats": len(watch.seats)}


def bracket_context(tournament: Tournament, now: datetime) -> dict[str, Any]:
    rounds = list(tournament.rounds.order_by("-number"))
    current = rounds[0] if rounds else None
    shared = shared_places(tournament) if tournament.status == Tournament.Status.FINISHED else set()
    return {
        "tournament": tournament,
        "now": now,
        "current": current,
        "rounds": [{"round": r, "groups": groups_context(r, now) if r == current else None} for r in rounds],
        "players_in": list(tournament.players_in()),
        "champion": tournament.champion(),
        "current_clock": clock_text(max(0, int((current.ends_at - now).total_seconds()))) if current else "",
        # The list numbers each place itself: a shared one only adds "tied" (not "Cy (18th (tied))").
        "places": [{"name": entrant.name, "place": entrant.final_place, "tied": entrant.final_place in shared}
                   for entrant in tournament.entrants.filter(final_place__isnull=False).order_by("final_place", "name")],
    }


def what_next(group: Group) -> str:
    """What a group's phone says once its scores are final: what happens now in its round."""
    round_, tournament = group.round, group.round.tournament
    if tournament.status == Tournament.Status.FINISHED:
        champion = tournament.champion()
        return f"The tournament is over: {champion.name} is the champion." if champion else "The tournament is over."
    if round_.status == TournamentRound.Status.PLAYING:
        return f"The other tables are still playing: {round_}'s results follow when every table's time is up."
    if round_.status == TournamentRound.Status.PLAY_OFF:
        tied = ", ".join(round_.tied())
        if tournament.ties == Tournament.Ties.PLAY_OFF:
            return f"Players tied at the line play off, one turn each: {tied}."
        return f"The director decides between the players tied at the line: {tied}."
    return f"{round_} is decided: the next round starts when the director starts it."


def ordinal(place: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 21st."""
    suffix = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return f"{place}{suffix}"


def shared_places(tournament: Tournament) -> set[int]:
    """The final places two or more players share (tied when eliminated)."""
    places = [place for place in tournament.entrants.values_list("final_place", flat=True) if place is not None]
    return {place for place in places if places.count(place) > 1}


def place_text(place: int | None, shared: set[int]) -> str:
    """A final place in words: "8th", or "8th (tied)" when others share it."""
    return "" if place is None else ordinal(place) + (" (tied)" if place in shared else "")


def board_context(tournament: Tournament) -> list[dict[str, Any]]:
    """The projector's board: one row per player, what is true of them now (their final place; in,
    with their strikes and whether they went through the last round; out, and in which round;
    dropped). Places first, then those still in (fewest strikes first), then those out (latest
    first)."""
    last = (tournament.rounds.filter(status=TournamentRound.Status.DECIDED)
            .exclude(kind=TournamentRound.Kind.PRACTICE).order_by("-number").first())
    strikes = tournament.strikes() if tournament.format == Tournament.Format.DOUBLE else {}
    shared = shared_places(tournament)
    rows = []
    for entrant in tournament.entrants.exclude(status=Entrant.Status.NO_SHOW):
        if tournament.status == Tournament.Status.REGISTRATION and not entrant.checked_in:
            continue
        row: dict[str, Any] = {"name": entrant.name, "state": entrant.status, "strikes": 0, "mark": "", "note": "",
                               "crosses": ""}
        if entrant.final_place:
            row.update(state="placed", note=place_text(entrant.final_place, shared),
                       sort=(0, entrant.final_place, entrant.name))
        elif entrant.status in (Entrant.Status.IN, Entrant.Status.REGISTERED):
            row["strikes"] = strikes.get(entrant.name, 0)
            row["crosses"] = "✗" * row["strikes"]
            row["mark"] = last.mark(entrant.name) if last is not None else ""
            row["sort"] = (1, row["strikes"], entrant.name)
        elif entrant.status == Entrant.Status.ELIMINATED:
            row.update(note=f"out · R{entrant.out_in_round}" if entrant.out_in_round else "out",
                       sort=(2, -(entrant.out_in_round or 0), entrant.name))
        else:
            row.update(note="dropped", sort=(3, 0, entrant.name))
        rows.append(row)
    return sorted(rows, key=lambda row: row["sort"])


def screen_fill(players: int) -> str:
    """How far the projector scales its words up for a tournament of `players` (its board's rows):
    a small one's board and bracket fill the 1,920×1,080 screen instead of its top third ("4" up
    to 4 players, "8", "16", "32"); from 33 the page keeps its 20 px words (issue 42)."""
    return next((str(most) for most in (4, 8, 16, 32) if players <= most), "")


def round_size(players: int) -> str:
    """A bracket column's size class, by how many players the round had (its width on the screen)."""
    return "s" if players <= 12 else "m" if players <= 24 else "l" if players <= 40 else "xl"


def bracket_columns(tournament: Tournament, now: datetime) -> list[dict[str, Any]]:
    """The projector's bracket picture: each round a column of its groups (players, scores, what
    the round did to each), oldest on the left. The newest round is shown in full (its scores
    follow every turn live); older ones summarised (each group's label and how many went through:
    the board beside it names everyone), all of it readable from the back of a hall (20 px at
    1,920×1,080), so that however many rounds, none falls below the fold. The practice
    round shows only while it is the only round (it counts for nothing)."""
    rounds = list(tournament.rounds.order_by("number"))
    if len(rounds) > 1:
        rounds = [r for r in rounds if not r.is_practice]
    columns = []
    for index, round_ in enumerate(rounds):
        round_.tournament = tournament
        age = len(rounds) - 1 - index
        # Older rounds in summary: at 20 px (the back of the hall) only the newest round's names fit.
        level = "full" if age == 0 else "summary"
        sheets = round_.sheets()
        groups: list[dict[str, Any]] = []
        table_players = 0
        for group in round_.groups.order_by("number"):
            sheet = sheets.get(group.pk, [])
            if group.status == Group.Status.FINAL or round_.status != TournamentRound.Status.PLAYING:
                sheet = sorted(sheet, key=lambda seat: -seat[2])
            decided = round_.status == TournamentRound.Status.DECIDED and not group.play_off
            players = [{"pk": pk, "name": name, "score": score, "mark": round_.mark(name) if decided else ""}
                       for pk, name, score in sheet]
            groups.append({"group": group, "players": players, "clock": clock_text(group.seconds_left(now)),
                           "through": sum(1 for p in players if p["mark"] in ("through", "champion"))})
            table_players += 0 if group.play_off else len(players)
        marks = [round_.mark(name) for name in round_.scores] if round_.status == TournamentRound.Status.DECIDED else []
        columns.append({
            "round": round_, "level": level, "groups": groups, "size": round_size(table_players),
            "through": marks.count("through"), "struck": marks.count("struck"), "out": marks.count("out"),
        })
    return columns


def point_limits(tournament: Tournament) -> dict[str, int]:
    """What a points input takes, from the limits the forms and actions check (actions.MAX_POINTS,
    actions.POINT_STEP): a turn's points go below 0 only where the tournament plays a Must Bust
    penalty; a correction may take points off."""
    return {
        "turn_min": -actions.MAX_POINTS if tournament.must_bust_penalty else 0,
        "min": -actions.MAX_POINTS, "max": actions.MAX_POINTS, "step": actions.POINT_STEP,
    }


def group_context(group: Group, now: datetime | None = None) -> dict[str, Any]:
    """A group's page. Its forms carry no key: the page's script gives each new entry a fresh one
    (static/js/tournament.js), kept for a resend of the same entry whose answer was lost."""
    now = now or timezone.now()
    tournament = group.round.tournament
    players = group.players()
    scores = group.scores(players)
    refusal_now = group.turn_refusal(now)
    overtime = group.ends_at is not None and now >= group.ends_at and refusal_now is None
    decided = group.round.status == TournamentRound.Status.DECIDED and not group.play_off
    final = group.status == Group.Status.FINAL
    return {
        "tournament": tournament, "round": group.round, "group": group, "now": now,
        "players": [{"entrant": p, "score": scores[p.name], "result": result_of(group.round, p.name) if decided else ""}
                    for p in players],
        "next_player": group.next_player(players),
        "can_enter": refusal_now is None, "overtime": overtime,
        # A table stopped at the end of the grace period: say what happened to the turn under way.
        "closed_why": STOPPED if final and not group.round.ended_now and digital.was_stopped(group) else refusal_now,
        "what_next": what_next(group) if final else "",
        "clock": clock_text(group.seconds_left(now)),
        "last_entry": group.live_turns().select_related("entrant").order_by("-id").first(),
        "moved_on": tournament.rounds.filter(number__gt=group.round.number).exists(),
        "paused": group.round.is_paused,
        # The director's "End round now" made this group final: the page's script says so (not "Time is up").
        "ended_now": final and group.round.ended_now and not group.play_off,
        "points": point_limits(tournament),
    }


# --- The director ---------------------------------------------------------------------------------


@login_required
@require_GET
def tournament_list(request: HttpRequest) -> HttpResponse:
    """The director's tournaments, newest first, and the way to start one."""
    tournaments = Tournament.objects.filter(director_id=request.user.pk).order_by("-created_at")
    return render(request, "tournaments/list.html", {"tournaments": tournaments})


@login_required
@require_http_methods(["GET", "POST"])
@refused(Page.NEW)
def tournament_new(request: HttpRequest) -> HttpResponse:
    # Bound on every POST: an empty one gets the form back with what is missing, not a blank form.
    form = NewTournamentForm(request.POST if request.method == "POST" else None, user=request.user)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        tournament = actions.create_tournament(
            director=request.user, name=data["name"], date=data["date"], format=data["format"],
            round_minutes=data["round_minutes"], per_player_minutes=data["per_player_minutes"],
            face_off_minutes=data["face_off_minutes"], grace_seconds=data["grace_seconds"],
            ties=data["ties"], grouping=data["grouping"], point_goal=data["point_goal"],
            vengeance_penalty=data["vengeance_penalty"], must_bust_penalty=data["must_bust_penalty"],
            club=data["club"], practice_minutes=data["practice_minutes"],
        )
        return redirect("tournaments:dashboard", code=tournament.code)
    return render(request, "tournaments/new.html", {"form": form}, status=form_status(form))


def dashboard_context(request: HttpRequest, tournament: Tournament) -> dict[str, Any]:
    now = timezone.now()
    context = bracket_context(tournament, now)
    entrants = list(tournament.entrants.all())
    current: TournamentRound | None = context["current"]
    n_in = len(context["players_in"]) if tournament.status == Tournament.Status.PLAYING else sum(
        1 for e in entrants if e.checked_in)
    next_sizes: list[int] = []
    if n_in > 2 and (current is None or current.status == TournamentRound.Status.DECIDED):
        next_sizes = brackets.group_sizes(n_in)
    tied = []
    if current is not None and current.status == TournamentRound.Status.PLAY_OFF:
        by_name = {e.name: e for e in entrants}
        tied = [by_name[name] for name in current.tied()]
    roster = []
    if tournament.club is not None and tournament.registration_refusal() is None:
        registered = {e.member_id for e in entrants if e.member_id}
        roster = [m for m in tournament.club.members.filter(is_active=True).order_by("name") if m.pk not in registered]
    context.update({
        "roster": roster,
        "entrants": entrants, "checked_in": sum(1 for e in entrants if e.checked_in), "next_players": n_in,
        "next_sizes": next_sizes, "tied": tied,
        "screen_url": request.build_absolute_uri(reverse("tournaments:screen",
                                                         args=[tournament.code, tournament.screen_token])),
        "can_start": tournament.start_refusal() is None,
        "can_practice": tournament.practice_refusal() is None,
        "registration_open": tournament.registration_refusal() is None,
        "can_delete": tournament.deletion_refusal() is None,
        "name_max": ENTRANT_NAME_MAX,
        "clock_open": current is not None and current.clock_refusal() is None,
        # The start forms' "Played on phones" box: ticked as the last round was played.
        "on_phones": current is not None and current.on_phones,
        "paused": current is not None and current.is_paused,
        "seating": current is not None and current.seating and current.clock_refusal() is None,
        "bots_take_unheld": current is not None and current.bots_take_unheld,
    })
    if context["seating"]:
        watched = [row["watch"] for item in context["rounds"] if item["groups"] for row in item["groups"] if row["watch"]]
        context["seats_held"] = sum(watch["held"] for watch in watched)
        context["seats_total"] = sum(watch["seats"] for watch in watched)
    return context


@login_required
@require_GET
def dashboard(request: HtmxHttpRequest, code: str) -> HttpResponse:
    tournament = _tournament_for_director(request, code)
    context = dashboard_context(request, tournament)
    if request.htmx:
        return render(request, "tournaments/dashboard.html#dashboard-state", context)
    return render(request, "tournaments/dashboard.html", context)


def _back(request: HtmxHttpRequest, tournament: Tournament) -> HttpResponse:
    if request.htmx:
        return render(request, "tournaments/dashboard.html#dashboard-state", dashboard_context(request, tournament))
    return redirect("tournaments:dashboard", code=tournament.code)


def _entrant_of(tournament: Tournament, entrant_id: int) -> Entrant:
    return get_object_or_404(tournament.entrants, pk=entrant_id)


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_register(request: HtmxHttpRequest, code: str) -> HttpResponse:
    tournament = _tournament_for_director(request, code)
    form = RegisterForm(request.POST)
    if not form.is_valid():
        raise _form_error(form, "Type the player's name.")
    actions.register(tournament, form.cleaned_data["name"], seed_rank=form.cleaned_data["seed_rank"],
                     checked_in=form.cleaned_data["checked_in"])
    return _back(request, tournament)


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_register_member(request: HtmxHttpRequest, code: str, member_id: int) -> HttpResponse:
    """A player from the club roster, one tap each."""
    tournament = _tournament_for_director(request, code)
    if tournament.club is None:
        raise Http404("This tournament has no club roster.")
    member = get_object_or_404(tournament.club.members, pk=member_id)
    actions.register_member(tournament, member)
    return _back(request, tournament)


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_check_in(request: HtmxHttpRequest, code: str, entrant_id: int) -> HttpResponse:
    tournament = _tournament_for_director(request, code)
    entrant = _entrant_of(tournament, entrant_id)
    actions.check_in(tournament, entrant, present=request.POST.get("present", "1") == "1")
    return _back(request, tournament)


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_seed(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """Seeds from the club's season standings, for a seeded draw."""
    tournament = _tournament_for_director(request, code)
    actions.seed_by_club_standings(tournament)
    return _back(request, tournament)


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_drop(request: HtmxHttpRequest, code: str, entrant_id: int) -> HttpResponse:
    tournament = _tournament_for_director(request, code)
    actions.drop_entrant(tournament, _entrant_of(tournament, entrant_id))
    return _back(request, tournament)


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_delete(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """Delete a tournament that has not begun (the way back under the cap on open tournaments)."""
    tournament = _tournament_for_director(request, code)
    name = tournament.name
    actions.delete_tournament(tournament)
    messages.success(request, f"{name} is deleted.")
    if request.htmx:
        response = HttpResponse(status=204)
        response["HX-Redirect"] = reverse("tournaments:list")
        return response
    return redirect("tournaments:list")


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_start(request: HtmxHttpRequest, code: str) -> HttpResponse:
    tournament = _tournament_for_director(request, code)
    on_phones, bots_take_unheld = _start_choices(request)
    actions.start_round(tournament, on_phones=on_phones, seating=on_phones, bots_take_unheld=bots_take_unheld)
    return _back(request, tournament)


def _start_choices(request: HttpRequest) -> tuple[bool, bool]:
    """The start button's boxes: "Played on phones" (every group plays at a game table, the clock
    waiting while the phones take their seats) and whether bots take the seats nobody holds when
    the director starts the clock."""
    form = StartForm(request.POST)
    on_phones = bool(form.is_valid() and form.cleaned_data["on_phones"])
    return on_phones, on_phones and bool(form.cleaned_data["bots_take_unheld"])


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_practice(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """The practice round, before round 1 (it counts for nothing)."""
    tournament = _tournament_for_director(request, code)
    on_phones, bots_take_unheld = _start_choices(request)
    actions.start_practice_round(tournament, on_phones=on_phones, seating=on_phones, bots_take_unheld=bots_take_unheld)
    return _back(request, tournament)


def _clock_step(request: HtmxHttpRequest, code: str, action: Callable[..., TournamentRound]) -> HttpResponse:
    """A clock button (pause, resume, end now) for the round it was shown with: pressed twice, or
    retried, it changes nothing the second time."""
    tournament = _tournament_for_director(request, code)
    form = RoundForm(request.POST)
    if not form.is_valid():
        raise _form_error(form, "That button lost its round: reload the dashboard.")
    action(tournament, number=form.cleaned_data["round"])
    return _back(request, tournament)


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_pause(request: HtmxHttpRequest, code: str) -> HttpResponse:
    return _clock_step(request, code, actions.pause_round)


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_resume(request: HtmxHttpRequest, code: str) -> HttpResponse:
    return _clock_step(request, code, actions.resume_round)


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_start_clock(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """The clock of a round on phones starts, once its phones have taken their seats."""
    return _clock_step(request, code, actions.start_clock)


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_seat_to_bot(request: HtmxHttpRequest, code: str, group_id: int) -> HttpResponse:
    """One tap on the dashboard: a seat of a group's game table is played by a bot."""
    tournament = _tournament_for_director(request, code)
    group = _group_of(tournament, group_id)
    form = SeatForm(request.POST)
    if not form.is_valid():
        raise _form_error(form, "That button lost its seat: reload the dashboard.")
    actions.hand_group_seat_to_bot(group=group, number=form.cleaned_data["seat"])
    return _back(request, tournament)


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_end_now(request: HtmxHttpRequest, code: str) -> HttpResponse:
    return _clock_step(request, code, actions.end_round_now)


def _group_of(tournament: Tournament, group_id: int) -> Group:
    return get_object_or_404(Group.objects.select_related("round__tournament"), pk=group_id,
                             round__tournament=tournament)


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_extend(request: HtmxHttpRequest, code: str, group_id: int) -> HttpResponse:
    tournament = _tournament_for_director(request, code)
    group = _group_of(tournament, group_id)
    form = ExtendForm(request.POST)
    if not form.is_valid():
        raise _form_error(form, "How many minutes?")
    actions.extend_group(group=group, minutes=form.cleaned_data["minutes"])
    return _back(request, tournament)


@login_required
@require_POST
@refused(Page.DASHBOARD)
def director_decide(request: HtmxHttpRequest, code: str, number: int) -> HttpResponse:
    """The director's decision for players tied at the line: the order they are listed in, best first."""
    tournament = _tournament_for_director(request, code)
    round_ = get_object_or_404(tournament.rounds, number=number)
    by_name = {entrant.name: entrant for entrant in tournament.entrants.all()}
    names = request.POST.getlist("order")
    if any(name not in by_name for name in names):
        raise actions.BadEntry("Put the tied players in order.")
    actions.decide_tie(round_=round_, order=[by_name[name] for name in names])
    return _back(request, tournament)


@login_required
@require_GET
def director_group(request: HttpRequest, code: str, group_id: int) -> HttpResponse:
    """One group's every entry, to strike out or correct."""
    tournament = _tournament_for_director(request, code)
    group = _group_of(tournament, group_id)
    entries = group.turns.select_related("entrant", "undone_by").order_by("-id")
    # Fresh keys for each showing of the page (each correction or strike comes back to it): the
    # same form sent twice (a double click, a resend) is applied once.
    return render(request, "tournaments/director_group.html", {
        **group_context(group), "entries": entries, "group_url": request.build_absolute_uri(group_path(group.code)),
        "correction_key": new_token(), "strike_key": new_token(),
        "can_correct": group.correction_refusal() is None,
        "can_go_on_phones": group.phones_refusal(timezone.now()) is None,
        "table_url": digital.table_path(group.table) if group.table is not None else "",
    })


@login_required
@require_POST
@refused(Page.GROUP_SHEET)
def director_on_phones(request: HttpRequest, code: str, group_id: int) -> HttpResponse:
    """One group plays on phones from now on: its game table opens."""
    tournament = _tournament_for_director(request, code)
    group = _group_of(tournament, group_id)
    actions.put_group_on_phones(group=group)
    return redirect("tournaments:director_group", code=tournament.code, group_id=group.pk)


@login_required
@require_POST
@refused(Page.GROUP_SHEET)
def director_strike(request: HtmxHttpRequest, code: str, turn_id: int) -> HttpResponse:
    tournament = _tournament_for_director(request, code)
    turn = get_object_or_404(Turn.objects.select_related("group"), pk=turn_id, tournament=tournament)
    form = KeyForm(request.POST)
    if not form.is_valid():
        raise actions.BadEntry("That strike was malformed: strike the entry again.")
    actions.correct_turn(turn=turn, key=form.cleaned_data["key"] or None)
    return redirect("tournaments:director_group", code=tournament.code, group_id=turn.group_id)


@login_required
@require_POST
@refused(Page.GROUP_SHEET)
def director_correct(request: HtmxHttpRequest, code: str, group_id: int) -> HttpResponse:
    tournament = _tournament_for_director(request, code)
    group = _group_of(tournament, group_id)
    form = CorrectionForm(request.POST)
    if not form.is_valid():
        raise _form_error(form, "A correction needs a player and points.")
    actions.add_correction(group=group, entrant=_posted_entrant(group, form), points=form.cleaned_data["points"],
                           key=form.cleaned_data["key"] or None)
    return redirect("tournaments:director_group", code=tournament.code, group_id=group.pk)


@login_required
@require_GET
def director_codes(request: HttpRequest, code: str) -> HttpResponse:
    """A printable page of the current round's group QR codes, and blank score sheets."""
    tournament = _tournament_for_director(request, code)
    current = tournament.current_round()
    codes = []
    if current is not None:
        for group in current.groups.order_by("number"):
            url = request.build_absolute_uri(group_path(group.code))
            codes.append({"group": group, "players": group.players(), "url": url, "qr": qr_svg(url, scale=5)})
    return render(request, "tournaments/codes.html", {"tournament": tournament, "round": current, "codes": codes})


def result_of(round_: TournamentRound, name: str) -> str:
    """What a round did to a player, in words for the CSV and the printout."""
    outcome = round_.outcome
    if round_.is_practice:
        return "practice (counts for nothing)"
    if round_.is_face_off and outcome.get("winner"):
        return "champion" if outcome["winner"] == name else "runner-up"
    if name in outcome.get("tied", []):
        return "tied at the line"
    if name in outcome.get("eliminated", []):
        return "eliminated"
    if name in outcome.get("advancing", []):
        return "through"
    strikes = outcome.get("strikes", {}).get(name)
    if strikes is not None:
        return f"{strikes} strike" + ("s" if strikes != 1 else "")
    return ""


def _csv_cell(value: object) -> str:
    """A cell a spreadsheet shows as text: a name starting with = + - @ is not run as a formula."""
    text = str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


@login_required
@require_GET
def director_results_csv(request: HttpRequest, code: str) -> HttpResponse:
    """Every round's results: one row per player and group (play-offs included)."""
    tournament = _tournament_for_director(request, code)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="tournament-{tournament.code}-results.csv"'
    writer = csv.writer(response)
    writer.writerow(["round", "kind", "group", "player", "score", "result"])
    for round_ in tournament.rounds.order_by("number"):
        for group in round_.groups.order_by("number"):
            group.round = round_
            players = group.players()
            scores = group.scores(players)
            again = _tied_again(round_, group)
            for entrant in players:
                result = "tied again" if entrant.name in again else result_of(round_, entrant.name)
                writer.writerow([round_.number, round_.get_kind_display(), str(group), _csv_cell(entrant.name),
                                 scores[entrant.name], result])
    return response


def _tied_again(round_: TournamentRound, group: Group) -> set[str]:
    """A play-off's players who tied again in it: they play the next one (a play-off's players are
    those its predecessor left tied), whose row says what the round did to them."""
    if not group.play_off:
        return set()
    return set(round_.groups.filter(play_off__gt=group.play_off).values_list("seats__entrant__name", flat=True))


# --- A group's phone ------------------------------------------------------------------------------


TOO_MANY_BAD_LINKS = "Too many bad links from this network just now. Wait a minute, then scan the code again."


@require_GET
@refused(Page.GROUP_LINK)
def group_join(request: HttpRequest, token: str) -> HttpResponse:
    """A table's QR code: this phone keeps the group's scoresheet from now on."""
    code = read_group_token(token)
    group = Group.objects.select_related("round__tournament").filter(code=code).first()
    if group is None:
        raise NotYours("That group no longer exists.")
    request.session[_group_key(code)] = group.round.tournament_id
    request.session[f"tournament:{group.round.tournament.code}"] = True
    return redirect("tournaments:group", code=code)


@require_GET
def group_page(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """The group's phone: its scoresheet and turn form or, for a group on phones while it plays,
    its game table (where every player's phone plays their seat)."""
    group = _group_for_phone(request, code)
    if group.table is not None and group.status == Group.Status.PLAYING:
        return _go(request, digital.table_path(group.table))
    onwards = _lead_on(request, group)
    if onwards is not None:
        return onwards
    context = group_context(group)
    if request.htmx:
        return render(request, "tournaments/group.html#group-state", context)
    return render(request, "tournaments/group.html", context)


def _go(request: HtmxHttpRequest, path: str) -> HttpResponse:
    """The whole page goes to `path` (from its live region too, which htmx asks again)."""
    if request.htmx:
        response = HttpResponse(status=204)
        response["HX-Redirect"] = path
        return response
    return redirect(path)


def _lead_on(request: HtmxHttpRequest, group: Group) -> HttpResponse | None:
    """A final group's phone goes on to the play-off its players play next (Group.next_play_off:
    a play-off that tied again, or its table's players tied at the line), by itself: it may open
    that play-off as if it had scanned its code. None when there is nowhere to go."""
    onwards = group.next_play_off()
    if onwards is None:
        return None
    request.session[_group_key(onwards.code)] = group.round.tournament_id
    return _go(request, reverse("tournaments:group", args=[onwards.code]))


@require_POST
@refused(Page.GROUP_PHONE)
def group_turn(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """A turn entered on the group's phone: the player, the points banked, a Vengeance or not."""
    group = _group_for_phone(request, code)
    form = TurnForm(request.POST)
    if not form.is_valid():
        raise _form_error(form, "Enter the points banked (0 for a bust).")
    points = form.banked()
    if points is None:
        raise actions.BadEntry("Enter the points banked, or tap Bust.")
    actions.record_turn(group=group, entrant=_posted_entrant(group, form), points=points,
                        vengeance=form.cleaned_data["vengeance"], key=form.cleaned_data["key"] or None)
    group = Group.objects.select_related("round__tournament").get(pk=group.pk)  # its round may have moved on
    onwards = _lead_on(request, group)
    if onwards is not None:
        return onwards
    return render(request, "tournaments/group.html#group-state", group_context(group))


@require_POST
@refused(Page.GROUP_PHONE)
def group_undo(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """Undo the group's last entry; the same key undoes once."""
    group = _group_for_phone(request, code)
    form = KeyForm(request.POST)
    if not form.is_valid():
        raise actions.BadEntry("That undo was malformed: tap Undo again.")
    actions.undo_last_turn(group=group, key=form.cleaned_data["key"] or None)
    group.refresh_from_db()
    return render(request, "tournaments/group.html#group-state", group_context(group))


# --- The projector and the stream ------------------------------------------------------------------


@require_GET
def screen(request: HtmxHttpRequest, code: str, token: str) -> HttpResponse:
    """The live bracket and standings for the projector: read-only, by unguessable link."""
    tournament = _tournament(code)
    if not constant_time_compare(token, tournament.screen_token):
        raise PermissionDenied("This screen link isn't valid.")
    now = timezone.now()
    current = tournament.current_round()
    players_in = list(tournament.players_in())
    board = board_context(tournament)
    context = {
        "tournament": tournament, "now": now, "current": current, "screen_token": token,
        "champion": tournament.champion(), "players_in": players_in,
        "current_clock": clock_text(max(0, int((current.ends_at - now).total_seconds()))) if current else "",
        "board": board, "bracket": bracket_columns(tournament, now), "fill": screen_fill(len(board)),
        "paused": current is not None and current.is_paused,
    }
    if request.htmx:
        return render(request, "tournaments/screen.html#screen-state", context)
    return render(request, "tournaments/screen.html", context)


@require_GET
def tournament_events(request: HttpRequest, code: str) -> HttpResponse | StreamingHttpResponse:
    """The tournament's live stream: for its director, its group phones and its projector (token)."""

    def tournament_if_allowed() -> Tournament | None:
        tournament = _tournament(code)
        screen_token = request.GET.get("screen", "")
        allowed = (
            (screen_token and constant_time_compare(screen_token, tournament.screen_token))
            or request.session.get(f"tournament:{tournament.code}")
            or tournament.is_directed_by(request.user)
        )
        return tournament if allowed else None

    tournament = read_for_a_stream(request, tournament_if_allowed)
    if tournament is None:
        raise PermissionDenied("Open your group's link to follow the tournament live.")
    channel = tournament.channel

    def snapshot() -> str:
        return render_to_string("tournaments/_live.html#snapshot", {"channel": channel})

    return event_stream_response(request, [channel], snapshot)
