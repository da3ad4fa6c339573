"""The projector (a read-only page by an unguessable link: the board and the bracket) and the
tournament's live stream."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.crypto import constant_time_compare
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from live.http import HtmxHttpRequest
from live.qr import qr_svg
from live.streams import event_stream_response, read_for_a_stream
from tournaments import check_in
from tournaments.models import Entrant, Group, Tournament, TournamentRound
from tournaments.views.contexts import clock_text, place_text, shared_places
from tournaments.views.shared import tournament_or_404


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
            row.update(note=_("out · R%(round)s") % {"round": entrant.out_in_round} if entrant.out_in_round else _("out"),
                       sort=(2, -(entrant.out_in_round or 0), entrant.name))
        else:
            row.update(note=_("dropped"), sort=(3, 0, entrant.name))
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


def _check_in_context(request: HttpRequest, tournament: Tournament, now: datetime) -> dict[str, Any] | None:
    """While players check themselves in: the rotating code (tournaments.check_in; this page is
    fetched again every few seconds, so it shows the code of the moment) and the count so far."""
    if tournament.check_in_refusal(now) is not None:
        return None
    url = request.build_absolute_uri(check_in.code_path(tournament.code, now))
    registered = tournament.entrants.filter(status=Entrant.Status.REGISTERED)
    return {"qr": qr_svg(url, scale=8), "url": url, "checked_in": registered.filter(checked_in=True).count(),
            "registered": registered.count()}


@require_GET
def screen(request: HtmxHttpRequest, code: str, token: str) -> HttpResponse:
    """The live bracket and standings for the projector: read-only, by unguessable link."""
    tournament = tournament_or_404(code)
    if not constant_time_compare(token, tournament.screen_token):
        raise PermissionDenied(_("This screen link isn't valid."))
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
        "check_in": _check_in_context(request, tournament, now),
    }
    if request.htmx:
        return render(request, "tournaments/screen.html#screen-state", context)
    return render(request, "tournaments/screen.html", context)


@require_GET
def tournament_events(request: HttpRequest, code: str) -> HttpResponse | StreamingHttpResponse:
    """The tournament's live stream: for its director, its group phones and its projector (token)."""

    def tournament_if_allowed() -> Tournament | None:
        tournament = tournament_or_404(code)
        screen_token = request.GET.get("screen", "")
        allowed = (
            (screen_token and constant_time_compare(screen_token, tournament.screen_token))
            or request.session.get(f"tournament:{tournament.code}")
            or tournament.is_directed_by(request.user)
        )
        return tournament if allowed else None

    tournament = read_for_a_stream(request, tournament_if_allowed)
    if tournament is None:
        raise PermissionDenied(_("Open your group's link to follow the tournament live."))
    channel = tournament.channel

    def snapshot() -> str:
        return render_to_string("tournaments/_live.html#snapshot", {"channel": channel})

    return event_stream_response(request, [channel], snapshot)
