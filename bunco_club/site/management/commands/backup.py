"""`backup [--to DIR]`: one dated backup file of the database and the uploaded files (docs/CONTRACT.md).

Prints `{"file": path, "bytes": int, "database": "sqlite"|"postgresql"}`; the newest BACKUP_KEEP
backups of the folder are kept (bunco_club/site/backups.py).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.utils.translation import gettext as _

from bunco_club.site.backups import take_backup
from live.commands import require_migrated_database
from live.refusals import Refusal


class Command(BaseCommand):
    help = "Write a consistent copy of the database and the uploaded files, as one dated file, to BACKUP_DIR."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--to", type=Path, default=None, help="the folder (BACKUP_DIR unless given)")

    def handle(self, *args: Any, **options: Any) -> None:
        require_migrated_database()
        try:
            made = take_backup(options["to"])
        except Refusal as refusal:
            self.stderr.write(refusal.message)
            sys.exit(2)
        except OSError as error:  # the folder not writable, the disk full: say so, no traceback
            self.stderr.write(_("No backup was written: %(error)s.") % {"error": error.strerror or error})
            sys.exit(1)
        self.stdout.write(json.dumps(made.as_json()))
