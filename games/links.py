"""Signed, expiring join links: one for the night, one per table (shown as QR codes, live.qr).

A link carries the night's code (never its id: ids are counters, and a readable counter tells how
many nights the site has run and where the next one is) and, for a table's code, the table number.
It is signed by live.signing with the site's secret and this module's salt, so a forged or altered
link gets a clear refusal instead of a seat. A link lives as long as its night: the join page stops
admitting phones once the night is over (`Night.join_refusal`); `settings.JOIN_LINK_MAX_AGE_SECONDS`
(days) is only a cap, for a night nobody ever ended. A link dated in the future (beyond a small clock
skew between the site's processes) is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy

from bunco_club.models import Party
from live import signing
from live.http import ID_MAX, parse_int
from live.refusals import Refusal

SALT = "bunco-club.join"

INVALID = cast(str, gettext_lazy("This join link isn't valid. Scan the QR code on your table again."))
EXPIRED = cast(str, gettext_lazy("This join link has expired. Ask the host for tonight's QR code."))
OLD_FORMAT = cast(str, gettext_lazy(
    "This join link is from an older version of the site. Ask the host for tonight's QR code."))
FROM_THE_FUTURE = cast(str, gettext_lazy("This join link isn't valid yet. Ask the host for tonight's QR code."))


@dataclass(frozen=True)
class JoinTicket:
    code: str  # the night's code (Night.code)
    table: int | None


class BadJoinLink(Refusal):
    """A join link that was altered, has expired or is dated in the future; the message says
    which, for people."""

    status = 403


def join_token(code: str, table: int | None = None) -> str:
    """The signed token of a join link to the night `code` (Night.code), or to one of its tables."""
    if not isinstance(code, str):  # an id passed by mistake would sign a link to no night
        raise TypeError(f"A join link carries the night's code, not {code!r}.")
    payload: dict[str, object] = {"c": code} if table is None else {"c": code, "t": table}
    return signing.sign(payload, salt=SALT)


def join_path(code: str, table: int | None = None) -> str:
    return reverse("games:join", args=[join_token(code, table)])


REFUSED = signing.Refused(invalid=lambda: BadJoinLink(INVALID), expired=lambda: BadJoinLink(EXPIRED),
                          future=lambda: BadJoinLink(FROM_THE_FUTURE))


def read_join_token(token: str) -> JoinTicket:
    payload = signing.read_link(token, salt=SALT, refused=REFUSED, max_age=settings.JOIN_LINK_MAX_AGE_SECONDS)
    if not isinstance(payload, dict):
        raise BadJoinLink(INVALID)
    if "n" in payload and "c" not in payload:  # signed by the site before links carried the code
        raise BadJoinLink(OLD_FORMAT)
    code, table = signing.text_field(payload, "c"), payload.get("t")
    if code is None:
        raise BadJoinLink(INVALID)
    if table is not None and (type(table) is not int or table < 1):
        raise BadJoinLink(INVALID)
    return JoinTicket(code=code, table=table)


def party_in_link(request: HttpRequest, refused: str) -> Party | None:
    """The club party a night or a game table is opened for (`?party=<id>`), or None. Only the
    club's hosts may (PermissionDenied with `refused` otherwise); BadNumber for a malformed id."""
    raw = request.GET.get("party")
    if not raw:
        return None
    party_id = parse_int(raw, low=1, high=ID_MAX, what=gettext("the party in the link"))
    party = get_object_or_404(Party.objects.select_related("club"), pk=party_id)
    if not party.club.is_hosted_by(request.user):
        raise PermissionDenied(refused)
    return party
