"""A phone's seat: which seat a phone plays, kept in its session and held by its own token.

A phone that taps a name (a night's player, later a game table's seat) claims that seat: its
session gets a random token of its own (`phone_token`), the seat's row records that token (the
night's `Player.claimed_by`), and the session remembers the seat's id (`Seats.remember`). Only the
phone holding the token plays the seat; another phone tapping the name is refused until the seat
is handed over (the host frees it: the row forgets the token) or let go ("That's not me": the phone
forgets the seat and remembers the name it let go, to say so on the names it goes back to).

The claim itself (locking the row, refusing a seat held by another phone) is the caller's action:
this module only keeps the session's side, the same for every kind of place. The night uses
`Seats("player")` keyed by the night's code; a game table will use its own kind and code.

A tournament group's phone keeps no seat: any phone that opened the group's link keeps the group's
scoresheet (tournaments/views/group.py remembers the group in the session), so there is no claim, no
hand-over and no "That's not me" to share. When a group plays at a game table, its players' phones
claim the table's seats through this module like any table's.
"""

from __future__ import annotations

import secrets

from django.http import HttpRequest

PHONE_TOKEN_KEY = "phone-token"


def phone_token(request: HttpRequest, *, create: bool = False) -> str:
    """This phone's own random token, kept in its session: a seat it claims holds it, so no other
    phone plays that seat. "" before its first claim, unless `create` (then made and kept)."""
    token = request.session.get(PHONE_TOKEN_KEY)
    if isinstance(token, str) and token:
        return token
    if not create:
        return ""
    token = secrets.token_urlsafe(24)
    request.session[PHONE_TOKEN_KEY] = token
    return token


class Seats:
    """The seats of one kind of place, as a phone's session remembers them: `kind` names the
    session keys (`<kind>:<place>`), `place` is the night's or the table's code."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def key(self, place: str) -> str:
        """Where the session remembers the seat it plays at `place` (one key per place)."""
        return f"{self.kind}:{place}"

    def _let_go_key(self, place: str) -> str:
        return f"let-go:{self.kind}:{place}"

    def claimed(self, request: HttpRequest, place: str) -> int | None:
        """The id of the seat this phone claimed at `place` (whether or not it still holds it:
        the caller checks the row's token), or None."""
        seat_id = request.session.get(self.key(place))
        return seat_id if isinstance(seat_id, int) else None

    def remember(self, request: HttpRequest, place: str, seat_id: int) -> None:
        """After the claim action took the seat for `phone_token(request)`: the session plays it,
        and no longer says it let a name go."""
        request.session[self.key(place)] = seat_id
        request.session.pop(self._let_go_key(place), None)

    def let_go(self, request: HttpRequest, place: str, name: str) -> None:
        """"That's not me": the session forgets the seat and remembers the name it let go. Saved at
        once, before the caller frees the seat: the phone's own page, told on its channel that the
        seat is free, reloads at that moment and must find the session as it now is. Not a flash
        message, which that reload would use up before the page the player sees is drawn."""
        request.session.pop(self.key(place), None)
        request.session[self._let_go_key(place)] = name
        request.session.save()

    def let_go_name(self, request: HttpRequest, place: str) -> str | None:
        """The name this phone let go at `place`, until it claims one again."""
        name = request.session.get(self._let_go_key(place))
        return name if isinstance(name, str) else None
