"""Signed, expiring join links: one for the night, one per table (shown as QR codes).

A link carries the night's code (never its id: ids are counters, and a readable counter tells how
many nights the site has run and where the next one is) and, for a table's code, the table number.
It is signed with the site's secret (django.core.signing), so a forged or altered link gets a clear
refusal instead of a seat. A link lives as long as its night: the join page stops admitting phones
once the night is over (`Night.join_refusal`); `settings.JOIN_LINK_MAX_AGE_SECONDS` (days) is only
a cap, for a night nobody ever ended. A link dated in the future (beyond a small clock skew between
the site's processes) is refused: Django's timestamp signer checks only that a link is not too old.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import timedelta

import segno
from django.conf import settings
from django.core import signing
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

SALT = "bunco-club.join"
# Several processes (or machines) sign and read links: their clocks may differ by this much.
MAX_CLOCK_SKEW_SECONDS = 300

INVALID = "This join link isn't valid. Scan the QR code on your table again."
EXPIRED = "This join link has expired. Ask the host for tonight's QR code."
OLD_FORMAT = "This join link is from an older version of the site. Ask the host for tonight's QR code."
FROM_THE_FUTURE = "This join link isn't valid yet. Ask the host for tonight's QR code."


@dataclass(frozen=True)
class JoinTicket:
    code: str  # the night's code (Night.code)
    table: int | None


class BadJoinLink(Exception):
    """A join link that was altered, has expired or is dated in the future; the message says
    which, for people."""


class _SignedInTheFuture(signing.BadSignature):
    pass


class _JoinSigner(signing.TimestampSigner):
    """Django's timestamp signer, which also refuses a timestamp from the future."""

    def unsign(self, value: str, max_age: int | float | timedelta | None = None) -> str:
        payload = signing.Signer.unsign(self, value)  # checks the signature, timestamp included
        payload, stamp = payload.rsplit(self.sep, 1)
        age = time.time() - signing.b62_decode(stamp)
        if age < -MAX_CLOCK_SKEW_SECONDS:
            raise _SignedInTheFuture(f"Signature dated {-age:.0f} seconds in the future")
        if isinstance(max_age, timedelta):
            max_age = max_age.total_seconds()
        if max_age is not None and age > max_age:
            raise signing.SignatureExpired(f"Signature age {age} > {max_age} seconds")
        return payload


def join_token(code: str, table: int | None = None) -> str:
    """The signed token of a join link to the night `code` (Night.code), or to one of its tables."""
    if not isinstance(code, str):  # an id passed by mistake would sign a link to no night
        raise TypeError(f"A join link carries the night's code, not {code!r}.")
    payload: dict[str, object] = {"c": code} if table is None else {"c": code, "t": table}
    return _JoinSigner(salt=SALT).sign_object(payload, compress=True)


def join_path(code: str, table: int | None = None) -> str:
    return reverse("games:join", args=[join_token(code, table)])


def read_join_token(token: str) -> JoinTicket:
    try:
        payload = _JoinSigner(salt=SALT).unsign_object(token, max_age=settings.JOIN_LINK_MAX_AGE_SECONDS)
    except signing.SignatureExpired as error:
        raise BadJoinLink(EXPIRED) from error
    except _SignedInTheFuture as error:
        raise BadJoinLink(FROM_THE_FUTURE) from error
    except (signing.BadSignature, ValueError) as error:  # ValueError: a token that doesn't decode
        raise BadJoinLink(INVALID) from error
    if not isinstance(payload, dict):
        raise BadJoinLink(INVALID)
    if "n" in payload and "c" not in payload:  # signed by the site before links carried the code
        raise BadJoinLink(OLD_FORMAT)
    code, table = payload.get("c"), payload.get("t")
    if not isinstance(code, str) or not code:
        raise BadJoinLink(INVALID)
    if table is not None and (type(table) is not int or table < 1):
        raise BadJoinLink(INVALID)
    return JoinTicket(code=code, table=table)


# The quiet zone the QR standard asks for: with less, phones and decoders miss codes printed beside
# other ink (a card's edge, the next card).
QR_BORDER = 4


def qr_svg(url: str, *, scale: int = 4) -> SafeString:
    """An inline SVG QR code (segno): no image request, no script, fine under the CSP.

    `scale` gives its size on screen; it carries a viewBox too, so CSS can size it for print (a
    table card) without cropping it."""
    code = segno.make(url, error="m")
    width, height = code.symbol_size(scale=scale, border=QR_BORDER)
    svg = code.svg_inline(scale=scale, dark="#000", light="#fff", border=QR_BORDER, omitsize=True)
    return mark_safe(svg.replace("<svg ", f'<svg width="{width}" height="{height}" ', 1))
