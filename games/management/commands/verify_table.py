"""`verify_table CODE`: check a finished table's dice and cards against its revealed seed (docs/CONTRACT.md).

Exit 0 and a line beginning "verified" when SHA-256(seed) is the commitment published before the
first move and replaying every recorded move from the seed gives every toss, card and score; exit 1
and the first difference otherwise; exit 2 for a game still being played (its seed is secret).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from games.table.models import Table
from games.table.replay import verify
from live.commands import require_migrated_database


class Command(BaseCommand):
    help = "Replay a finished game table from its revealed seed and check every toss, card and score."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("code")
        parser.add_argument("--json", action="store_true")

    def _finish(self, code: int, out: dict[str, Any], line: str, as_json: bool) -> None:
        (self.stdout if code == 0 else self.stderr).write(json.dumps(out) if as_json else line)
        sys.exit(code)

    def handle(self, *args: Any, **options: Any) -> None:
        require_migrated_database()
        code, as_json = options["code"], options["json"]
        table = Table.objects.filter(code=code).first()
        if table is None:
            self._finish(2, {"code": code, "verified": False, "error": "no such table"},
                         f"There is no table {code}.", as_json)
            return
        if not table.is_over:
            self._finish(2, {"code": code, "verified": False, "error": "still being played"},
                         f"Table {code} is still being played: its seed is revealed when the game ends.", as_json)
            return
        verdict = verify(table)
        out = {"code": code, "verified": verdict.verified, "commitment": table.commitment,
               "seed": table.revealed_seed, "moves": table.moves_made, "message": verdict.message}
        self._finish(0 if verdict.verified else 1, out,
                     verdict.message if verdict.verified else f"not verified: {verdict.message}", as_json)
