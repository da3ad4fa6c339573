"""How a game table's events reach its pages: named events carrying the event's data as JSON.

A table's page draws the dice, the scores and whose turn it is from the view the event carries
(public on the table's channel, a seat's own on its channel), so each event is rendered once per
process whatever the number of phones. No queries (live.rendering).
"""

from __future__ import annotations

import json

from live.broadcasters import Message
from live.rendering import Frame, renders


@renders("table", "moved")
def render_moved(message: Message) -> list[Frame]:
    """A move and the public view after it."""
    return [("moved", json.dumps({"id": message["id"], **message["data"]}))]


@renders("table", "hand")
def render_hand(message: Message) -> list[Frame]:
    """A seat's private view (its hand), on that seat's own channel only."""
    return [("hand", json.dumps(message["data"]))]


@renders("table", "table_state")
def render_table_state(message: Message) -> list[Frame]:
    """Seats taken or handed to bots, the start, the end (with the revealed seed)."""
    return [("table_state", json.dumps(message["data"]))]
