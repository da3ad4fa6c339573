"""The site's one signing of tokens: join links, a tournament group's links, members' personal links
and connection-check rooms all carry a value signed here with the site's secret
(django.core.signing), each app with its own salt, so a token made for one never opens another.

`sign(value, salt=…)` signs a JSON object (compressed) or, with `text=True`, a plain string kept
readable in a URL path; it carries the time it was signed unless `dated=False` (members' links
never expire: a calendar subscription must keep working). `read(token, salt=…, max_age=…)` gives
the value back or refuses it:
- `ForgedToken`: not signed by this site with this salt (altered, cut short, made up, garbage),
- `ExpiredToken`: signed longer than `max_age` ago,
- `FutureToken`: dated in the future beyond the clock skew allowed between the site's processes
  (Django's timestamp signer checks only that a token is not too old).
`read_link(token, salt=…, refused=…)` is the one reader of a link every app uses: `read`, with each of
those turned into the refusal the link's `Refused` names (its own class, status and message for
people), so the ladder of invalid, expired and not yet valid is written here once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.core import signing

from live.refusals import Refusal

# Several processes (or machines) sign and read tokens: their clocks may differ by this much (NTP keeps
# them within a second; a link dated minutes ahead was made by a clock set wrong, or by hand).
MAX_CLOCK_SKEW_SECONDS = 60
# A token much longer than any the site makes is garbage: refused before any work is spent on it.
TOKEN_MAX_LENGTH = 1000


class BadToken(Exception):
    """A token this site will not take; the subclass says why. Its message is for logs, not people:
    each app answers with its own."""


class ForgedToken(BadToken):
    """Not signed by this site with this salt: altered, cut short, made up."""


class ExpiredToken(BadToken):
    """Signed by this site, longer ago than the token's maximum age."""


class FutureToken(BadToken):
    """Signed by this site, dated in the future (beyond the clock skew allowed)."""


class _DatedSigner(signing.TimestampSigner):
    """Django's timestamp signer, which also refuses a timestamp from the future."""

    def unsign(self, value: str, max_age: int | float | timedelta | None = None) -> str:
        payload = signing.Signer.unsign(self, value)  # checks the signature, timestamp included
        payload, stamp = payload.rsplit(self.sep, 1)
        age = time.time() - signing.b62_decode(stamp)
        if age < -MAX_CLOCK_SKEW_SECONDS:
            raise FutureToken(f"Signature dated {-age:.0f} seconds in the future")
        if isinstance(max_age, timedelta):
            max_age = max_age.total_seconds()
        if max_age is not None and age > max_age:
            raise ExpiredToken(f"Signature age {age:.0f} > {max_age} seconds")
        return payload


def _signer(salt: str, *, dated: bool, text: bool) -> signing.Signer:
    # A text token sits in a URL path as it is: "." rather than ":" between its parts.
    sep = "." if text else ":"
    return _DatedSigner(salt=salt, sep=sep) if dated else signing.Signer(salt=salt, sep=sep)


def sign(value: Any, *, salt: str, dated: bool = True, text: bool = False) -> str:
    """The signed token of `value`: a JSON-able object, or with `text=True` a string."""
    signer = _signer(salt, dated=dated, text=text)
    if text:
        if not isinstance(value, str):
            raise TypeError(f"A text token signs a string, not {value!r}.")
        return signer.sign(value)
    return signer.sign_object(value, compress=True)


def read(token: str, *, salt: str, max_age: float | timedelta | None = None, dated: bool = True,
         text: bool = False) -> Any:
    """The value `token` was signed for with `salt`; ForgedToken, ExpiredToken (older than
    `max_age`, for a dated token) or FutureToken otherwise."""
    if not dated and max_age is not None:
        raise ValueError("An undated token carries no time to expire by.")
    if not isinstance(token, str) or len(token) > TOKEN_MAX_LENGTH:
        raise ForgedToken("Not a token the site makes")
    signer = _signer(salt, dated=dated, text=text)
    try:
        if text:
            return signer.unsign(token, max_age=max_age) if isinstance(signer, _DatedSigner) else signer.unsign(token)
        if isinstance(signer, _DatedSigner):
            return signer.unsign_object(token, max_age=max_age)
        return signer.unsign_object(token)
    except BadToken:
        raise
    except (signing.BadSignature, ValueError, UnicodeError) as error:  # ValueError: a part that doesn't decode
        raise ForgedToken(str(error)) from error


@dataclass(frozen=True)
class Refused:
    """How a link refuses a token `read` will not take: each a refusal made afresh (a class, or a
    function of no arguments), with the link's own message for people. `expired` and `future`
    default to `invalid` (a link that never expires, one that says no more than "not valid")."""

    invalid: Callable[[], Refusal]
    expired: Callable[[], Refusal] | None = None
    future: Callable[[], Refusal] | None = None

    def of(self, error: BadToken) -> Refusal:
        """The refusal for why `read` refused a token."""
        if isinstance(error, ExpiredToken) and self.expired is not None:
            return self.expired()
        if isinstance(error, FutureToken) and self.future is not None:
            return self.future()
        return self.invalid()


def read_link(token: str, *, salt: str, refused: Refused, max_age: float | timedelta | None = None,
              dated: bool = True, text: bool = False) -> Any:
    """The value a link's `token` was signed for (as `read`), or the refusal `refused` names for a
    forged, expired or future token. The one reader of the site's signed links."""
    try:
        return read(token, salt=salt, max_age=max_age, dated=dated, text=text)
    except BadToken as error:
        raise refused.of(error) from error


def text_field(payload: Any, key: str) -> str | None:
    """The non-empty string a link's signed object keeps under `key`, else None (a payload of
    another shape: signed by this site, but not as this link)."""
    value = payload.get(key) if isinstance(payload, dict) else None
    return value if isinstance(value, str) and value else None
