"""Watching a table: its screen (a projector or a tablet, by an unguessable read-only link) and,
after the game, its replay with the revealed seed and the check of the dice."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from django.views.decorators.http import require_GET

from games.rules.table import names_and
from games.table.models import Table
from games.table.record import record_json
from games.table.renderers import said_of, spoken, spoken_values
from games.table.replay import deal, replay, verify
from games.table.views.shared import is_screen_token, refused, seat_payload, table_or_404
from live.bilingual import shown_in
from live.qr import qr_svg
from live.refusals import NotNow, Refusal, answers_refusals
from live.streams import event_stream_response, read_for_a_stream

FORGED_SCREEN = gettext_noop("This screen link isn't valid: open the table's screen from its own link.")


@require_GET
def screen(request: HttpRequest, code: str, token: str) -> HttpResponse:
    """The table screen: the scores, whose turn, the live toss large, the commitment. Read-only."""
    table = table_or_404(code)
    if not is_screen_token(table, token):
        raise PermissionDenied(_(FORGED_SCREEN))
    # The moves in words in every language of the table's phones, the screen's own first.
    with shown_in(table.languages_for_a_screen(translation.get_language())):
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

    def table_if_allowed() -> tuple[Table, list[str]] | None:
        table = table_or_404(code)
        if not is_screen_token(table, token):
            return None
        return table, table.languages_for_a_screen(translation.get_language())

    allowed = read_for_a_stream(request, table_if_allowed)
    if allowed is None:
        raise PermissionDenied(_(FORGED_SCREEN))
    table, languages = allowed

    def snapshot() -> str:
        return json.dumps({"snapshot": True, **seat_payload(Table.objects.get(pk=table.pk), None)})

    return event_stream_response(request, [table.channel], snapshot, languages=languages)


def replay_steps(table: Table) -> list[dict[str, Any]]:
    """Every recorded move in order, in words, with the dice it showed, the scores after, and what
    the game's `_replay_step.html` shows of it (its `GameRules.step_extras`)."""
    rules = table.engine
    steps = []
    for step in replay(table, table.moves.order_by("number")):
        move = step.move.as_data()
        view = step.game.view(None).public
        tossed = rules.dice_shown(move)
        steps.append({
            "number": move["number"],
            "name": view["seats"][move["seat"]] if 0 <= move["seat"] < len(view["seats"]) else "",
            "said": said_of(move, view),
            "toss": tossed,
            "dice": [{"face": die, "pips": range(die)} for die in (tossed or [])],
            "scores": list(zip(view["seats"], move["scores"], strict=False)),
            "by_bot": move["by_bot"],
            **spoken_values(rules.step_extras(step.game)),
        })
    return steps


NOT_OVER_YET = gettext_noop("The replay opens when the game is over: then every card, toss, keep and score is "
                            "shown here, with the seed.")


def _not_over_yet(request: HttpRequest, refusal: Refusal, *, code: str, **kwargs: object) -> HttpResponse:
    """The replay's and the check's one answer to a refusal (the game is not over, NotNow: 409):
    the replay page saying so, with the table's commitment (nothing secret)."""
    return render(request, "games/table/replay.html", {"table": table_or_404(code), "not_yet": refusal.message},
                  status=refusal.status)


def _over(table: Table) -> None:
    if not table.is_over:
        raise NotNow(_(NOT_OVER_YET))


@require_GET
@answers_refusals(_not_over_yet)
def replay_page(request: HttpRequest, code: str) -> HttpResponse:
    """After the game: every card, toss, keep and score in order, the seed and its commitment, and
    what the game's own folder shows (its `GameRules.replay_extras`: a deal, the start roll, the
    sheets). Before the end: only that the replay opens then (and the commitment): nothing secret."""
    table = table_or_404(code)
    _over(table)
    final = table.loaded().view(None).public
    return render(request, "games/table/replay.html", {
        **spoken_values(table.engine.replay_extras(deal(table), final)),
        "winners": spoken(names_and(final.get("winners") or [])),
        "table": table, "steps": replay_steps(table), "seed": table.revealed_seed,
        "final": final, "final_scores": list(zip(final["seats"], final["scores"], strict=True)),
    })


@require_GET
@answers_refusals(_not_over_yet)
def check(request: HttpRequest, code: str) -> HttpResponse:
    """"Check the dice": replay every move from the revealed seed through the engine (verify_table)
    and say whether every card, toss and score holds, or where the record first differs."""
    table = table_or_404(code)
    _over(table)
    verdict = verify(table)
    return render(request, "games/table/check.html", {"table": table, "verdict": verdict,
                                                      "seed": table.revealed_seed})


@require_GET
@refused(as_json=True)
def record(request: HttpRequest, code: str) -> HttpResponse:
    """The finished game's record (docs/FAIRNESS.md, "The record"), for anyone's own check; 409 while it
    is played."""
    table = table_or_404(code)
    response = HttpResponse(record_json(table), content_type="application/json")
    response["Content-Disposition"] = f'inline; filename="bunco-club-{table.code}.json"'
    return response


VERIFIER = settings.BASE_DIR / "scripts" / "verify_record.py"


@require_GET
def verifier(request: HttpRequest) -> HttpResponse:
    """scripts/verify_record.py as it is in this release, to download and run on one's own computer
    (Python's standard library only): the check of a record that trusts nothing of this site."""
    response = HttpResponse(VERIFIER.read_bytes(), content_type="text/x-python; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="verify_record.py"'
    return response
