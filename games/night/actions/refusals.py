"""The night's refusals: what a request the night cannot take is told (each a `live.refusals.Refusal`,
carrying the HTTP status a view answers with). They change nothing."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from live.refusals import BadInput, KeyReused, NotFound, NotNow, NotYours, Refusal

# The night's names for the refusals every app gives alike (live.refusals): the same classes.
BadTally = BadInput  # a tap, a name, a correction the night cannot take as sent (400)
NotYourTable = NotYours  # another table's score, a phone that plays nobody (403)
NoSuchNight = NotFound  # a night deleted, or a mistyped link (404)


class RoundClosed(NotNow):
    """A tally after its table's round has closed (the bell, a finished turn): told apart from any
    other refusal by the tallies' concurrency proof."""


class StepAlreadyEnded(NotNow):
    """A request to end a step (start a round, finish a turn, end a roll-off, resume after the
    break, end the night) naming a step that has already ended: a double tap, a second phone at
    the table, a late retry. Nothing changes; a view answers with the current state, no error."""


class KeyOfAnotherTable(Refusal):
    """A tap's key already recorded at another table: never answered with that table's totals."""

    status = 409


def key_reused(what: str) -> KeyReused:
    """A request's idempotency key already used for a request with other content (another team,
    other points, a tap where an undo was sent, another player arriving...): refused, never taken
    for a retry of the first, which would answer with what the first did and drop this one."""
    return KeyReused(_(_KEY_REUSED[what]))


# key_reused's sentence for each kind of request, whole, so each language words it its own way.
_KEY_REUSED: dict[str, str] = {
    "tap": gettext_noop("That tap was sent with the key of an earlier, different one: nothing was changed. "
                        "Reload the page and do it again."),
    "undo": gettext_noop("That undo was sent with the key of an earlier, different one: nothing was changed. "
                         "Reload the page and do it again."),
    "correction": gettext_noop("That correction was sent with the key of an earlier, different one: nothing "
                               "was changed. Reload the page and do it again."),
    "arrival": gettext_noop("That arrival was sent with the key of an earlier, different one: nothing was "
                            "changed. Reload the page and do it again."),
    "departure": gettext_noop("That departure was sent with the key of an earlier, different one: nothing was "
                              "changed. Reload the page and do it again."),
}
