"""The connection check's one workflow: a ping that lights up every screen on the check page."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from live.log import log_event
from live.models import Event

CONNECTION_CHECK_CHANNEL = "check"


@transaction.atomic
def send_ping(sender: str) -> Event:
    """Light up every screen open on the connection check page (before a night starts)."""
    return log_event(
        CONNECTION_CHECK_CHANNEL,
        "ping",
        {"sender": sender, "sent_at": timezone.now().isoformat()},
    )
