"""How the connection check looks on screen: its events (live.rendering: no queries) and the QR
code of a room's link."""

from __future__ import annotations

import segno
from django.template.loader import render_to_string
from django.utils.dateparse import parse_datetime
from django.utils.safestring import SafeString, mark_safe

from live.broadcasters import Message
from live.rendering import Frame, renders

# The quiet zone the QR standard asks for: with less, phones miss codes drawn beside other ink.
QR_BORDER = 4


@renders("ping")
def render_ping(message: Message) -> list[Frame]:
    ping = ping_from_message(message)
    html = render_to_string("live/connection_check.html#ping-upsert", {"ping": ping})
    return [(None, html)]


def ping_from_message(message: Message) -> dict[str, object]:
    return {
        "id": message["id"],
        "sender": message["data"].get("sender", "Someone"),
        "sent_at": parse_datetime(message["data"].get("sent_at", "")),
    }


def qr_svg(url: str, *, scale: int = 4) -> SafeString:
    """An inline SVG QR code of `url` (segno): no image request, no script, fine under the CSP.
    (The games app has its own for join links; live imports no domain app.)"""
    code = segno.make(url, error="m")
    width, height = code.symbol_size(scale=scale, border=QR_BORDER)
    svg = code.svg_inline(scale=scale, dark="#000", light="#fff", border=QR_BORDER, omitsize=True)
    return mark_safe(svg.replace("<svg ", f'<svg width="{width}" height="{height}" ', 1))
