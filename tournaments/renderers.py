"""How a tournament's events look on screen: one renderer per kind, no queries (live.rendering).

A turn pushes the group's new totals straight into every page showing them (`<hx-partial>`);
everything else is a named `changed` event on which each page re-fetches its own live region.
"""

from __future__ import annotations

import json

from django.template.loader import render_to_string

from live.broadcasters import Message
from live.rendering import Frame, renders


@renders("tournament", "tournament_turn")
def render_turn(message: Message) -> list[Frame]:
    data = message["data"]
    return [(None, render_to_string("tournaments/_live.html#totals", {"group": data["group"], "totals": data["totals"]}))]


@renders("tournament", "tournament_state")
def render_state(message: Message) -> list[Frame]:
    return [("changed", json.dumps(message["data"]))]
