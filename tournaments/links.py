"""Signed links to a group's page (shown as a QR code on its table), as the night's join links.

A link carries the group's unguessable code (never its id) and is signed by live.signing with the
site's secret and this module's salt, so a forged or altered link gets a clear refusal, and so does
one dated in the future. It lives as long as the group plays: once its scores are final the page
shows them and takes no turn.
"""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext, gettext_noop

from live import signing
from live.refusals import Refusal

SALT = "bunco-club.tournament-group"
MAX_AGE_SECONDS = 60 * 60 * 24 * 2  # a tournament day, and then some

INVALID = gettext_noop("This group link isn't valid. Scan the QR code on your table again.")
EXPIRED = gettext_noop("This group link has expired. Ask the director for your table's QR code.")
FROM_THE_FUTURE = gettext_noop("This group link isn't valid yet. Ask the director for your table's QR code.")


class BadGroupLink(Refusal):
    """A group link that was altered, has expired or is dated in the future; the message says
    which, for people."""

    status = 403


def group_token(code: str) -> str:
    if not isinstance(code, str):  # an id passed by mistake would sign a link to no group
        raise TypeError(f"A group link carries the group's code, not {code!r}.")
    return signing.sign({"g": code}, salt=SALT)


def group_path(code: str) -> str:
    return reverse("tournaments:group_join", args=[group_token(code)])


REFUSED = signing.Refused(invalid=lambda: BadGroupLink(gettext(INVALID)), expired=lambda: BadGroupLink(gettext(EXPIRED)),
                          future=lambda: BadGroupLink(gettext(FROM_THE_FUTURE)))


def read_group_token(token: str) -> str:
    """The group code a link carries; BadGroupLink otherwise."""
    code = signing.text_field(signing.read_link(token, salt=SALT, refused=REFUSED, max_age=MAX_AGE_SECONDS), "g")
    if code is None:
        raise BadGroupLink(gettext(INVALID))
    return code
