"""How the night's events look on screen: one renderer per kind, no queries (live.rendering).

A renderer runs once per event per process, whatever the number of phones, so everything it
shows comes from the event's data. Numbers are pushed straight into the page (`<hx-partial>`);
changes that differ per phone (where do I go next?) are a named event, `changed`, on which each
page re-fetches its own live region.
"""

from __future__ import annotations

import json

from django.template.loader import render_to_string

from live.broadcasters import Message
from live.rendering import Frame, renders


@renders("night", "tally")
def render_tally(message: Message) -> list[Frame]:
    """A table's new team totals, into every page that shows that table this round."""
    return [(None, render_to_string("games/_live.html#tally", message["data"]))]


@renders("night", "bell")
def render_bell(message: Message) -> list[Frame]:
    """The bell banner on every phone at once, then each page refreshes its own panel."""
    return [
        (None, render_to_string("games/_live.html#bell", message["data"])),
        ("changed", json.dumps(message["data"])),
    ]


@renders("night", "state")
def render_state(message: Message) -> list[Frame]:
    return [("changed", json.dumps(message["data"]))]
