"""`table_record CODE`: print a finished table's record exactly as /g/<code>/record.json serves it
(docs/FAIRNESS.md, "The record"; docs/CONTRACT.md): one JSON object. Exit 2 with a message for a game
still being played (its seed is secret until the end) or a table that does not exist."""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.table.models import Table
from games.table.record import record_json
from live.commands import require_migrated_database
from live.refusals import NotNow


class Command(BaseCommand):
    help = "Print a finished game table's record (its seed, the phones' contributions, every step's chance)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("code")

    def handle(self, *args: Any, **options: Any) -> None:
        require_migrated_database()
        table = Table.objects.filter(code=options["code"]).first()
        if table is None:
            self.stderr.write(f"There is no table {options['code']}.")
            sys.exit(2)
        try:
            self.stdout.write(record_json(table))
        except NotNow as refusal:
            self.stderr.write(refusal.message)
            sys.exit(2)
