"""How a game table's events reach its pages: named events carrying the event's data as JSON.

A table's page draws the dice, the scores and whose turn it is from the view the event carries
(public on the table's channel, a seat's own on its channel), so each event is rendered once per
process whatever the number of phones. No queries (live.rendering).

A move's frame also carries `said`: the move in words ("Bea tossed 2 3 4 4 6: BUST!"), written
here once from the move and the public view after it, so the phones, the screen and the replay say
the same thing (`said_of`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext, gettext_noop

from games.rules.registry import game_rules
from live.bilingual import said_in_each
from live.broadcasters import Message
from live.rendering import Frame, renders
from live.streams import WRITTEN_FOR
from live.words import spoken

STOPPED = gettext_noop("Time and the grace period are over: the turn under way was stopped and counts nothing.")


def said_of(move: Mapping[str, Any], view: Mapping[str, Any], *, stopped: bool = False) -> str:
    """One move in words, from the move as recorded (`Move.as_data`) and the public view after it,
    in the words of the view's game (its `GameRules.said`). Only what everyone may see: the move is
    made, the view is public. `stopped`: the table was stopped after it (actions.end_table: a
    tournament's grace period ran out with a turn under way), which is what the page then says.
    On a table's screen whose phones read two languages, it is said in both (live/bilingual.py)."""
    if stopped:
        return said_in_each(lambda: gettext(STOPPED))
    said = game_rules(str(view.get("game"))).said(move, view)
    return said_in_each(lambda: spoken(said))


def spoken_values(values: Mapping[str, Any]) -> dict[str, Any]:
    """`values` (what a game gives a page) with each `Said` among them in the reader's language."""
    return {name: _spoken_within(value) for name, value in values.items()}


def shown_view(view: Mapping[str, Any]) -> Mapping[str, Any]:
    """The public view as a page shows it, in the reader's language (its game's `GameRules.shown`)."""
    return _spoken_within(game_rules(str(view.get("game"))).shown(view))


def _spoken_within(value: Any) -> Any:
    if hasattr(value, "template"):
        return spoken(value)
    if isinstance(value, Mapping):
        return {key: _spoken_within(item) for key, item in value.items()}
    return value


@renders("table", "moved")
def render_moved(message: Message) -> list[Frame]:
    """A move, the public view after it, and the move in words."""
    data = message["data"]
    return [("moved", json.dumps({"id": message["id"], **data, "view": shown_view(data["view"]),
                                  "said": said_of(data["move"], data["view"])}))]


@renders("table", "hand")
def render_hand(message: Message) -> list[Frame]:
    """A seat's private view (its hand), on that seat's own channel only (the holding it was
    written for is the stream's to check, not the page's)."""
    return [("hand", json.dumps({name: value for name, value in message["data"].items() if name != WRITTEN_FOR}))]


@renders("table", "table_state")
def render_table_state(message: Message) -> list[Frame]:
    """Seats taken or handed to bots, the start, the end (with the revealed seed)."""
    data = message["data"]
    return [("table_state", json.dumps({**data, "view": shown_view(data["view"])} if data.get("view") else data))]
