"""What every club workflow shares: the club's event log, a typed name or text cleaned, the club's and
a party's row locks, a change a calendar must see, and an email enqueued on commit."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from bunco_club import tasks
from bunco_club.actions.refusals import ClubError
from bunco_club.models import NAME_MAX, Club, Party
from live.log import log_event


def log_change(club: Club | int, kind: str, **data: Any) -> None:
    """Append to the club's event log (channel `club:<id>`), published on commit."""
    club_id = club if isinstance(club, int) else club.pk
    log_event(f"club:{club_id}", kind, data)


def clean_name(raw: str, what: str = "name", limit: int = NAME_MAX) -> str:
    name = " ".join(str(raw).split())
    if not name:
        raise ClubError(f"Write a {what}.")
    if len(name) > limit:
        raise ClubError(f"“{name[:limit]}…” is too long for a {what} ({limit} letters at most).")
    return name


def clean_text(raw: str, what: str, limit: int) -> str:
    """Text a host typed (an address, a phone number, a party's notes), trimmed; refused when
    longer than its cap (bunco_club.models), before anything is saved."""
    text = str(raw).strip()
    if len(text) > limit:
        raise ClubError(f"Shorten the {what}: {limit:,} characters at most, and this has {len(text):,}.")
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
