"""The event log every live screen follows, for every app (docs/DESIGN.md §4)."""

from __future__ import annotations

from typing import Any

from django.db import models


class EventQuerySet(models.QuerySet["Event"]):
    def on(self, *channels: str) -> EventQuerySet:
        """Events of one channel, or of any of several (a phone's public and private ones)."""
        if len(channels) == 1:
            return self.filter(channel=channels[0])
        return self.filter(channel__in=channels)

    def after(self, event_id: int) -> EventQuerySet:
        return self.filter(id__gt=event_id).order_by("id")

    def latest_id(self, *channels: str) -> int:
        """The id of the newest event on the channels, 0 when there is none."""
        return self.on(*channels).newest_id()

    def newest_id(self) -> int:
        """The id of the newest of these events (of the whole log, unfiltered), 0 when there is none."""
        return self.order_by("-id").values_list("id", flat=True).first() or 0


class Event(models.Model):
    """One change a screen must see, appended in the same transaction as the change itself.

    The log is the truth for live screens: a stream that missed something (a dropped phone, a
    Redis outage) replays from it by id (Last-Event-ID). The table keeps the name it had when the
    log lived in the games app: moving the model moved no row.
    """

    id = models.BigAutoField(primary_key=True)
    channel = models.CharField(max_length=64)
    kind = models.CharField(max_length=32)
    data = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = EventQuerySet.as_manager()

    class Meta:
        db_table = "games_event"
        indexes = [models.Index(fields=["channel", "id"], name="event_channel_id")]

    def __str__(self) -> str:
        return f"#{self.id} {self.channel} {self.kind}"

    def as_message(self) -> dict[str, Any]:
        """What the broadcaster carries: everything a stream needs to render without a query."""
        return {"id": self.id, "channel": self.channel, "kind": self.kind, "data": self.data}


class RateLimitCount(models.Model):
    """One rate limit's count (live/limits.py) on a site without Redis: a row of Django's database
    cache, in the table settings.CACHES["limits"] names, so the counts live where the site keeps
    its data and a restart keeps them (issue 42, S3). The cache reads and writes the rows; the
    model is here so that `migrate` makes the table on every site (Django's `createcachetable` is
    one more command to remember) and `flush` empties it with the rest."""

    cache_key = models.CharField(max_length=255, primary_key=True)
    value = models.TextField()
    expires = models.DateTimeField(db_index=True)

    class Meta:
        db_table = "live_rate_limits"  # settings.CACHES["limits"]["LOCATION"]

    def __str__(self) -> str:
        return self.cache_key
