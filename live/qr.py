"""The site's one QR helper: an inline SVG QR code of a link (join links, table cards, a tournament
group's table, a connection-check room). In live/ because every app shows one and live imports no
domain app."""

from __future__ import annotations

import segno
from django.utils.safestring import SafeString, mark_safe

# The quiet zone the QR standard asks for: with less, phones and decoders miss codes printed beside
# other ink (a card's edge, the next card).
QR_BORDER = 4


def qr_svg(url: str, *, scale: int = 4) -> SafeString:
    """An inline SVG QR code of `url` (segno): no image request, no script, fine under the CSP.

    `scale` gives its size on screen; it carries a viewBox too, so CSS can size it for print (a
    table card) without cropping it."""
    code = segno.make(url, error="m")
    width, height = code.symbol_size(scale=scale, border=QR_BORDER)
    svg = code.svg_inline(scale=scale, dark="#000", light="#fff", border=QR_BORDER, omitsize=True)
    return mark_safe(svg.replace("<svg ", f'<svg width="{width}" height="{height}" ', 1))
