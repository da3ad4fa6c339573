"""The connection check's workflows: open a room, ping the screens in it.

A check is a ROOM: whoever opens the check page gets a fresh one, and the others at the party
join it by its link (or its QR code). A ping lights up the screens in that room and no other;
before rooms, every ping reached every check page open anywhere on the site.

A room is not stored: its link carries a random id signed with the site's secret (live.signing,
with the time it was opened). The signature makes a forged or garbled link (or one dated in the
future) a plain "not found" instead of a room anyone can name, and the time lets a link expire
(`ROOM_MAX_AGE`): an old link says so and offers a new room.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

from live import signing
from live.log import log_event
from live.models import Event
from live.refusals import Refusal

SALT = "bunco-club.check-room"
# A party's evening, with room to spare; after that the link says the check has expired.
ROOM_MAX_AGE = timedelta(days=1)
# The channel of a room's pings ("check:<room id>"; Event.channel holds 64 characters).
CHANNEL_PREFIX = "check:"
# 12 random bytes, URL-safe base64: 16 characters nobody guesses.
_ROOM_ID = re.compile(r"[A-Za-z0-9_-]{16}")
# A signed token is the id, a timestamp and a signature; anything much longer is garbage, refused
# before any work is spent on it.
TOKEN_MAX_LENGTH = 100


ROOM_NOT_FOUND = gettext_noop(
    "This connection check link isn't valid (was it cut short when it was copied?). "
    "Scan the QR code on the screen of whoever started the check, or start a new one."
)
ROOM_EXPIRED = gettext_noop("This connection check has expired: a check's link lasts a day. Start a new one and share its link.")


class RoomNotFound(Refusal):
    """A room link that was not signed by the site (forged, garbled, truncated): 404, since
    nothing about it is recorded."""

    status = 404

    def __init__(self) -> None:
        super().__init__(gettext(ROOM_NOT_FOUND))


class RoomExpired(Refusal):
    """A room link the site signed, older than ROOM_MAX_AGE: 410, gone."""

    status = 410

    def __init__(self) -> None:
        super().__init__(gettext(ROOM_EXPIRED))


# Forged, garbled, or dated in the future: not found; signed, but too old: expired.
REFUSED = signing.Refused(invalid=RoomNotFound, expired=RoomExpired)


@dataclass(frozen=True)
class CheckRoom:
    """One connection check: its id names its channel; its token is what its link carries."""

    id: str
    token: str

    @property
    def channel(self) -> str:
        return CHANNEL_PREFIX + self.id


def open_room() -> CheckRoom:
    """A fresh room (nothing is stored: the signed token is the room)."""
    room_id = secrets.token_urlsafe(12)
    return CheckRoom(id=room_id, token=signing.sign(room_id, salt=SALT, text=True))


def find_room(token: str) -> CheckRoom:
    """The room a link's token names; RoomNotFound for one the site did not sign (or dated in the
    future), RoomExpired for one older than ROOM_MAX_AGE."""
    if len(token) > TOKEN_MAX_LENGTH:
        raise RoomNotFound
    room_id = signing.read_link(token, salt=SALT, refused=REFUSED, max_age=ROOM_MAX_AGE, text=True)
    if not _ROOM_ID.fullmatch(room_id):
        raise RoomNotFound
    return CheckRoom(id=room_id, token=token)


@transaction.atomic
def send_ping(room: CheckRoom, sender: str) -> Event:
    """Light up every screen open on the room's check page (before a night starts)."""
    return log_event(
        room.channel,
        "ping",
        {"sender": sender, "sent_at": timezone.now().isoformat()},
    )
