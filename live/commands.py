"""What every management command that plays through the database shares (docs/CONTRACT.md, Commands)."""

from __future__ import annotations

from django.core.management.base import CommandError
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor

NOT_MIGRATED = "The database has no tables yet (or not all of them): run `make run` (or `python manage.py migrate`) first."


def require_migrated_database(alias: str = DEFAULT_DB_ALIAS) -> None:
    """CommandError, one line, unless every migration is applied: a command run on a fresh database
    says what to do instead of a traceback about a missing table."""
    connection = connections[alias]
    executor = MigrationExecutor(connection)
    if executor.migration_plan(executor.loader.graph.leaf_nodes()):
        raise CommandError(NOT_MIGRATED)
