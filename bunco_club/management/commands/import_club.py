"""`manage.py import_club FILE`: loads a club's export (docs/CLUB_EXPORT.md) into this installation
under new ids and prints {"club": id, "slug": slug, "members": n, "nights": n} (docs/CONTRACT.md).
A malformed or altered file: exit 2, one message, nothing stored."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from bunco_club.export import import_club
from live.commands import require_migrated_database
from live.refusals import Refusal


class Command(BaseCommand):
    help = "Load a club's export into this installation under new ids (members get new personal links)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="the export, as export_club printed it or the club page gave it")

    def handle(self, *args: Any, **options: Any) -> None:
        require_migrated_database()
        try:
            text = Path(options["file"]).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise CommandError(f"The file cannot be read: {error}.", returncode=2) from None
        try:
            made = import_club(text)
        except Refusal as refusal:  # the file is malformed, of another version, altered or inconsistent
            raise CommandError(f"Nothing was imported. {refusal.message}", returncode=2) from None
        self.stdout.write(json.dumps(made))
