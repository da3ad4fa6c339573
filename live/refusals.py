"""The one base of every refusal the site gives (DESIGN.md §3).

A `Refusal` is a request the site will not take, raised by an action before it changes anything:
`status` is the HTTP answer (400 bad input, 403 not yours, 404 no such thing, 409 not now or
already done), and the message tells a person what to do. The night's, the tournament's and the
club's errors all derive from it, so a view, a test or a middleware can tell a refusal (answered,
never logged as a fault) from a bug (a 500, logged) with one `except Refusal`.
"""

from __future__ import annotations


class Refusal(Exception):
    """A request refused with nothing changed; `str(refusal)` is the message for people."""

    status: int = 400

    @property
    def message(self) -> str:
        return str(self)


class KeyReused(Refusal):
    """An idempotency key already recorded with other content: never taken for a retry of it, so a
    phone whose second request reused a key learns that request was not saved."""

    status = 409
