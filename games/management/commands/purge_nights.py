"""`purge_nights`: delete the abandoned "just play tonight" nights (for cron).

    python manage.py purge_nights

A night with no club and no host account that nothing has happened in for
settings.NIGHT_RETENTION_DAYS (NIGHT_RETENTION_DAYS in the environment, 30 by default) is deleted
with all its rows (games.night.actions.purge_abandoned_nights). Running it twice is harmless. The
in-process clock runs the same purge hourly, and Celery beat daily in the scaled layout.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand
from django.utils import timezone

from games.night import actions


class Command(BaseCommand):
    help = "Delete 'just play tonight' nights untouched for NIGHT_RETENTION_DAYS (no club, no host account)."

    def handle(self, *args: Any, **options: Any) -> None:
        purged = actions.purge_abandoned_nights(timezone.now())
        self.stdout.write(
            f"Purged {purged} abandoned night{'s' if purged != 1 else ''} "
            f"(untouched for {settings.NIGHT_RETENTION_DAYS} days, no club, no host account)."
        )
