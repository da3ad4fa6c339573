"""Members' signed personal links: their "my club" page, RSVPs, sub invitations, swap answers and
personal calendar feed, all without a password.

A link carries the member's code (`Member.code`, random), never their id: ids are counters a
stranger could walk through. It is signed by live.signing with the site's secret and this
module's salt, so an altered link is refused. It carries no date and does not expire (a club lasts years, and a calendar subscription must
keep working); the host revokes a leaked link by giving the member a new code
(`actions.reset_member_link`), which makes every link signed for the old code stop working.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.urls import reverse
from django.utils.translation import gettext_lazy

from live import signing
from live.refusals import Refusal

SALT = "bunco-club.member"

INVALID = gettext_lazy("This link isn't valid: it may have been cut short or replaced. Ask your club's host for "
                       "your link.")


class BadMemberLink(Refusal):
    """A personal link that was altered or is no longer the member's; the message is for people."""

    status = 404


def member_token(code: str) -> str:
    """The signed token of the member whose code (`Member.code`) this is."""
    if not isinstance(code, str) or not code:  # an id passed by mistake would sign nobody's link
        raise TypeError(f"A personal link carries the member's code, not {code!r}.")
    return signing.sign({"m": code}, salt=SALT, dated=False)


REFUSED = signing.Refused(invalid=lambda: BadMemberLink(str(INVALID)))  # undated: it never expires


def read_member_token(token: str) -> str:
    """The member code a token was signed for; BadMemberLink if it was not signed by this site."""
    code = signing.text_field(signing.read_link(token, salt=SALT, refused=REFUSED, dated=False), "m")
    if code is None:
        raise BadMemberLink(str(INVALID))
    return code


def my_club_path(code: str) -> str:
    return reverse("clubs:my_club", args=[member_token(code)])


FALLBACK_ADDRESS = "http://127.0.0.1:8000"


def site_url(club: Any = None) -> str:
    """The site's address for emails and calendar entries, where no request says it: settings.SITE_URL
    when set (`make run` sets it to the address it serves at), else the address the club's host
    last reached the site at (`Club.site_address`), else this machine. Pages use their request."""
    address = settings.SITE_URL or getattr(club, "site_address", "") or FALLBACK_ADDRESS
    return str(address).rstrip("/")


def absolute(path: str, *, club: Any = None) -> str:
    return site_url(club) + path
