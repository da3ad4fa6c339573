"""A finished table's record (docs/FAIRNESS.md, "The record"): everything anyone needs to check
every die and card on their own, with `scripts/verify_record.py` or a script of their own.

It is made by replaying the recorded moves from the revealed seed through the engines, each step
with its own chance stream, which notes what it produced in the order it was used (the dice, each
shuffle with the order before and after, each card drawn).
"""

from __future__ import annotations

import json
from typing import Any

from django.utils.translation import gettext as _

from games.table.models import FAIRNESS_VERSION, Table
from games.table.replay import dealt, replay
from live.refusals import NotNow


def table_record(table: Table) -> dict[str, Any]:
    """The record as /g/<code>/record.json serves it and `manage.py table_record` prints it."""
    if not table.is_over:
        raise NotNow(_("The record is published when the game is over: the seed that checks it is "
                       "secret until then."))
    if table.fairness != FAIRNESS_VERSION:
        raise NotNow(_("This table was dealt before the dice took the phones' parts (version 1): "
                       "its replay page checks it instead."))
    seats = list(table.seats.order_by("number"))
    _names, setup_input = table.deal_inputs()
    _game, setup_chance = dealt(table)
    steps: list[dict[str, Any]] = [
        {"number": 0, "move": {"kind": "setup"}, "client": setup_input, "chance": setup_chance},
    ]
    for step in replay(table, table.moves.order_by("number")):
        steps.append({"number": step.move.number, "seat": step.move.seat, "move": step.move.move,
                      "client": step.move.client, "chance": step.chance_used})
    return {
        "version": FAIRNESS_VERSION,
        "game": table.game,
        "code": table.code,
        "seed": table.seed,
        "commitment": table.commitment,
        "options": table.options,
        "seats": [{"name": seat.name, "bot": seat.is_bot, "contribution": seat.contribution} for seat in seats],
        "steps": steps,
    }


def record_json(table: Table) -> str:
    """The record as served and printed: one JSON object."""
    return json.dumps(table_record(table))
