"""`manage.py export_club CLUB`: prints the club's whole history as one versioned JSON document
(docs/CONTRACT.md; the format is docs/CLUB_EXPORT.md). CLUB is the club's id or slug."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Q

from bunco_club.export import export_text
from bunco_club.models import Club
from live.commands import require_migrated_database


class Command(BaseCommand):
    help = "Print a club's whole history (members, seasons, parties, RSVPs, nights' sheets) as one JSON document."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("club", help="the club's id or slug")

    def handle(self, *args: Any, **options: Any) -> None:
        require_migrated_database()
        wanted = str(options["club"])
        found = Q(slug=wanted) | (Q(pk=int(wanted)) if wanted.isascii() and wanted.isdigit() else Q(pk__in=[]))
        club = Club.objects.filter(found).first()
        if club is None:
            raise CommandError(f"No club has the id or slug {wanted!r}.", returncode=2)
        self.stdout.write(export_text(club), ending="")
