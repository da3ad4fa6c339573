"""Signed, expiring join links: one for the night, one per table (shown as QR codes).

A link carries the night's id and, for a table's code, the table number; it is signed with the
site's secret (django.core.signing) and expires after settings.JOIN_LINK_MAX_AGE_SECONDS, so a
forged or old link gets a clear refusal instead of a seat.
"""

from __future__ import annotations

from dataclasses import dataclass

import segno
from django.conf import settings
from django.core import signing
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

SALT = "bunco-club.join"


@dataclass(frozen=True)
class JoinTicket:
    night_id: int
    table: int | None


class BadJoinLink(Exception):
    """A join link that was altered or has expired; the message says which, for people."""


def join_token(night_id: int, table: int | None = None) -> str:
    payload = {"n": night_id} if table is None else {"n": night_id, "t": table}
    return signing.dumps(payload, salt=SALT, compress=True)


def join_path(night_id: int, table: int | None = None) -> str:
    return reverse("games:join", args=[join_token(night_id, table)])


def read_join_token(token: str) -> JoinTicket:
    try:
        payload = signing.loads(token, salt=SALT, max_age=settings.JOIN_LINK_MAX_AGE_SECONDS)
    except signing.SignatureExpired as error:
        raise BadJoinLink("This join link has expired. Ask the host for tonight's QR code.") from error
    except signing.BadSignature as error:
        raise BadJoinLink("This join link isn't valid. Scan the QR code on your table again.") from error
    if not isinstance(payload, dict) or not isinstance(payload.get("n"), int):
        raise BadJoinLink("This join link isn't valid. Scan the QR code on your table again.")
    table = payload.get("t")
    return JoinTicket(night_id=payload["n"], table=table if isinstance(table, int) else None)


def qr_svg(url: str, *, scale: int = 4) -> SafeString:
    """An inline SVG QR code (segno): no image request, no script, fine under the CSP."""
    return mark_safe(segno.make(url, error="m").svg_inline(scale=scale, dark="#000", light="#fff", border=2))
