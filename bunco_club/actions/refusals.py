"""The club's refusal: what a request the club cannot take is told (a `live.refusals.Refusal`, carrying
the HTTP status a view answers with). It changes nothing."""

from __future__ import annotations

from live.refusals import Refusal


class ClubError(Refusal):
    """A request the club cannot take; `status` is the HTTP answer, the message is for people."""

    status = 400
