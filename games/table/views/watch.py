"""Watching a table: its screen (a projector or a tablet, by an unguessable read-only link) and,
after the game, its replay with the revealed seed and the check of the dice."""

from __future__ import annotations

import json
from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from games.rules import ninety_nine
from games.rules.ninety_nine import NinetyNineTable
from games.table import kismet as kismet_table
from games.table.models import Table
from games.table.renderers import said_of
from games.table.replay import deal, replay, verify
from games.table.views.shared import is_screen_token, seat_payload, table_or_404
from live.qr import qr_svg
from live.streams import event_stream_response, read_for_a_stream

FORGED_SCREEN = "This screen link isn't valid: open the table's screen from its own link."


@require_GET
def screen(request: HttpRequest, code: str, token: str) -> HttpResponse:
    """The table screen: the scores, whose turn, the live toss large, the commitment. Read-only."""
    table = table_or_404(code)
    if not is_screen_token(table, token):
        raise PermissionDenied(FORGED_SCREEN)
    payload = seat_payload(table, None)
    if request.headers.get("Accept") == "application/json":  # the screen's slow poll
        return JsonResponse(payload)
    join_url = request.build_absolute_uri(reverse("tables:table", args=[table.code]))
    return render(request, "games/table/screen.html", {
        "table": table,
        "payload": payload,
        "join_qr": qr_svg(join_url, scale=5) if table.status != Table.Status.OVER else None,
        "urls": {"events": reverse("tables:screen_events", args=[table.code, token]),
                 "state": reverse("tables:screen", args=[table.code, token])},
    })


@require_GET
def screen_events(request: HttpRequest, code: str, token: str) -> HttpResponse | StreamingHttpResponse:
    """The screen's stream: the table's public channel only."""

    def table_if_allowed() -> Table | None:
        table = table_or_404(code)
        return table if is_screen_token(table, token) else None

    table = read_for_a_stream(request, table_if_allowed)
    if table is None:
        raise PermissionDenied(FORGED_SCREEN)

    def snapshot() -> str:
        return json.dumps({"snapshot": True, **seat_payload(Table.objects.get(pk=table.pk), None)})

    return event_stream_response(request, [table.channel], snapshot)


def replay_steps(table: Table) -> list[dict[str, Any]]:
    """Every recorded move in order, in words, with the dice it tossed and the scores after."""
    steps = []
    for step in replay(table, table.moves.order_by("number")):
        move = step.move.as_data()
        view = step.game.view(None).public
        tossed = [c[1] for c in move["chance"] if c and c[0] in ("toss", "roll")]
        if move["move"].get("kind") == "enter":  # Kismet's real dice, typed in
            tossed = [move["move"]["dice"]]
        steps.append({
            "number": move["number"],
            "name": view["seats"][move["seat"]] if 0 <= move["seat"] < len(view["seats"]) else "",
            "said": said_of(move, view),
            "toss": tossed[-1] if tossed else None,
            "dice": [{"face": die, "pips": range(die)} for die in (tossed[-1] if tossed else [])],
            "scores": list(zip(view["seats"], move["scores"], strict=False)),
            "by_bot": move["by_bot"],
        })
        if isinstance(step.game, NinetyNineTable):  # the hands, shown once the game is over
            steps[-1]["hands"] = ninety_nine.hands_words(step.game.state)
    return steps


def start_roll_shown(start_roll: dict[str, Any] | None) -> dict[str, Any] | None:
    """The start roll with each die's pips to draw (the replay draws its dice as the phones do)."""
    if not start_roll:
        return None
    return {**start_roll, "rounds": [[{"name": name, "face": face, "pips": range(face)} for name, face in dice]
                                     for dice in start_roll["rounds"]]}


@require_GET
def replay_page(request: HttpRequest, code: str) -> HttpResponse:
    """After the game: every card, toss, keep and score in order, the seed and its commitment.
    Before the end: only that the replay opens then (and the commitment): nothing secret."""
    table = table_or_404(code)
    if not table.is_over:
        return render(request, "games/table/replay.html", {"table": table, "steps": None}, status=409)
    final = table.loaded().view(None).public
    dealt = deal(table)
    return render(request, "games/table/replay.html", {
        "dealt": ninety_nine.hands_words(dealt.state) if isinstance(dealt, NinetyNineTable) else "",
        # Who starts, as the deal rolled it (Fill or Bust): from the seed, so a table stored before
        # the roll was recorded shows it too.
        "start_roll": start_roll_shown(dealt.view(None).public.get("start_roll")),
        "table": table, "steps": replay_steps(table), "seed": table.revealed_seed,
        "final": final, "final_scores": list(zip(final["seats"], final["scores"], strict=True)),
        "kismet_rows": kismet_table.sheet_rows(final) if table.game == "kismet" else None,
    })


@require_GET
def check(request: HttpRequest, code: str) -> HttpResponse:
    """"Check the dice": replay every move from the revealed seed through the engine (verify_table)
    and say whether every card, toss and score holds, or where the record first differs."""
    table = table_or_404(code)
    if not table.is_over:
        return render(request, "games/table/replay.html", {"table": table, "steps": None}, status=409)
    verdict = verify(table)
    return render(request, "games/table/check.html", {"table": table, "verdict": verdict,
                                                      "seed": table.revealed_seed})
