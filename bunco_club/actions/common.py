"""What every club workflow shares: the club's event log, a typed name or text cleaned, the club's and
a party's row locks, a change a calendar must see, and an email enqueued on commit."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.formats import number_format
from django.utils.translation import gettext_lazy as _

from bunco_club import tasks
from bunco_club.actions.refusals import ClubError
from bunco_club.models import NAME_MAX, Club, Party
from live.log import log_event


def log_change(club: Club | int, kind: str, **data: Any) -> None:
    """Append to the club's event log (channel `club:<id>`), published on commit."""
    club_id = club if isinstance(club, int) else club.pk
    log_event(f"club:{club_id}", kind, data)


# What a host typed, said whole for each thing it names (a sentence is never glued from pieces):
# what is missing, and what is too long (`start`: its first letters, `limit`: the cap).
NAME_SENTENCES = {
    "name": (_("Write a name."), _("“%(start)s…” is too long for a name (%(limit)s letters at most).")),
    "club name": (_("Write a club name."),
                  _("“%(start)s…” is too long for a club name (%(limit)s letters at most).")),
    "season name": (_("Write a season name."),
                    _("“%(start)s…” is too long for a season name (%(limit)s letters at most).")),
}
# Text over its cap (`limit` characters at most, `length` typed).
SHORTEN_SENTENCES = {
    "usual place": _("Shorten the usual place: %(limit)s characters at most, and this has %(length)s."),
    "email address": _("Shorten the email address: %(limit)s characters at most, and this has %(length)s."),
    "phone number": _("Shorten the phone number: %(limit)s characters at most, and this has %(length)s."),
    "address": _("Shorten the address: %(limit)s characters at most, and this has %(length)s."),
    "notes": _("Shorten the notes: %(limit)s characters at most, and this has %(length)s."),
}


def figure(number: int) -> str:
    """A count as the reader's language writes it: 2,000 in English, 2.000 in Spanish."""
    return number_format(number, force_grouping=True)


def clean_name(raw: str, what: str = "name", limit: int = NAME_MAX) -> str:
    """A name typed (`what`: one of NAME_SENTENCES), its spaces tidied; refused empty or too long."""
    missing, too_long = NAME_SENTENCES[what]
    name = " ".join(str(raw).split())
    if not name:
        raise ClubError(str(missing))
    if len(name) > limit:
        raise ClubError(str(too_long) % {"start": name[:limit], "limit": limit})
    return name


def clean_text(raw: str, what: str, limit: int) -> str:
    """Text a host typed (an address, a phone number, a party's notes: `what`, one of
    SHORTEN_SENTENCES), trimmed; refused when longer than its cap (bunco_club.models), before
    anything is saved."""
    text = str(raw).strip()
    if len(text) > limit:
        raise ClubError(str(SHORTEN_SENTENCES[what]) % {"limit": figure(limit), "length": figure(len(text))})
    return text


def locked_club(club: Club) -> None:
    """Take the club's row lock: what counts its members or parties before adding one goes one at a time."""
    Club.objects.select_for_update().filter(pk=club.pk).first()


def touch_party(party: Party, fields: list[str]) -> None:
    """Save a change a calendar must see: SEQUENCE goes up, the UID stays."""
    party.sequence += 1
    party.save(update_fields=[*fields, "sequence"])


def locked_party(party: Party) -> Party:
    return Party.objects.select_for_update().select_related("club").get(pk=party.pk)


def enqueue_mail(task_name: str, pk: int, **details: str) -> None:
    """Run a mail task once the transaction commits (a worker when scaled, eagerly otherwise); the
    tasks call bunco_club.mail, never these actions. `details` are plain strings (Celery's JSON)."""
    task = getattr(tasks, task_name)
    transaction.on_commit(lambda: task.delay(pk, **details))
