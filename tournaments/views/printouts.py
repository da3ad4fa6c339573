"""What the director prints or downloads: the round's group QR codes with blank score
sheets, and every round's results as CSV."""

from __future__ import annotations

import csv

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from django.views.decorators.http import require_GET

from live.qr import qr_svg
from tournaments.links import group_path
from tournaments.models import Group, TournamentRound
from tournaments.views.contexts import result_of
from tournaments.views.shared import tournament_for_director


@login_required
@require_GET
def director_codes(request: HttpRequest, code: str) -> HttpResponse:
    """A printable page of the current round's group QR codes, and blank score sheets."""
    tournament = tournament_for_director(request, code)
    current = tournament.current_round()
    codes = []
    if current is not None:
        for group in current.groups.order_by("number"):
            url = request.build_absolute_uri(group_path(group.code))
            codes.append({"group": group, "players": group.players(), "url": url, "qr": qr_svg(url, scale=5)})
    return render(request, "tournaments/codes.html", {"tournament": tournament, "round": current, "codes": codes})


def _csv_cell(value: object) -> str:
    """A cell a spreadsheet shows as text: a name starting with = + - @ is not run as a formula."""
    text = str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


@login_required
@require_GET
def director_results_csv(request: HttpRequest, code: str) -> HttpResponse:
    """Every round's results: one row per player and group (play-offs included)."""
    tournament = tournament_for_director(request, code)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="tournament-{tournament.code}-results.csv"'
    writer = csv.writer(response)
    writer.writerow([pgettext("csv", "round"), pgettext("csv", "kind"), pgettext("csv", "group"), pgettext("csv", "player"),
                     pgettext("csv", "score"), pgettext("csv", "result")])
    for round_ in tournament.rounds.order_by("number"):
        for group in round_.groups.order_by("number"):
            group.round = round_
            players = group.players()
            scores = group.scores(players)
            again = _tied_again(round_, group)
            for entrant in players:
                result = _("tied again") if entrant.name in again else result_of(round_, entrant.name)
                writer.writerow([round_.number, round_.get_kind_display(), str(group), _csv_cell(entrant.name),
                                 scores[entrant.name], result])
    return response


def _tied_again(round_: TournamentRound, group: Group) -> set[str]:
    """A play-off's players who tied again in it: they play the next one (a play-off's players are
    those its predecessor left tied), whose row says what the round did to them."""
    if not group.play_off:
        return set()
    return set(round_.groups.filter(play_off__gt=group.play_off).values_list("seats__entrant__name", flat=True))
