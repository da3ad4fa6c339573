from __future__ import annotations

from typing import ClassVar

from django.db import models


class Counter(models.Model):
    """One row per phone's table: the minimal write is one UPDATE of one row."""

    count = models.IntegerField(default=0)

    # Declared: the type checker's settings (the project's) don't install this benchmark's app.
    objects: ClassVar[models.Manager[Counter]] = models.Manager()

    def __str__(self) -> str:
        return f"row {self.pk}: {self.count}"
