"""How the connection check looks on screen: its events (live.rendering: no queries)."""

from __future__ import annotations

from django.template.loader import render_to_string
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext

from live.broadcasters import Message
from live.rendering import Frame, renders


@renders("check", "ping")
def render_ping(message: Message) -> list[Frame]:
    ping = ping_from_message(message)
    html = render_to_string("live/connection_check.html#ping-upsert", {"ping": ping})
    return [(None, html)]


def ping_from_message(message: Message) -> dict[str, object]:
    return {
        "id": message["id"],
        "sender": message["data"].get("sender") or gettext("Someone"),
        "sent_at": parse_datetime(message["data"].get("sent_at", "")),
    }
