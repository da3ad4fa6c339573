"""The club's refusal: what a request the club cannot take is told (a `live.refusals.Refusal`, carrying
the HTTP status a view answers with). It changes nothing."""

from __future__ import annotations

from live.refusals import BadInput

# The club's name for live's one BadInput (400): a request the club cannot take as sent (a name, a
# date, a count); the message is for people. The same class, as the night's BadTally is.
ClubError = BadInput
