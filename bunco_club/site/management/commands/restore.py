"""`restore FILE [--yes]`: check a backup, then put it in place of the database and the uploaded files.

Exit 2 with a message, and nothing changed, for a file that is not a backup, has been altered or
holds a damaged database, while the site is serving, or when the person does not confirm (without
`--yes`, a question on a terminal; no terminal, no confirmation). bunco_club/site/backups.py.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from bunco_club.site import backups
from live.refusals import NotNow, Refusal


class Command(BaseCommand):
    help = "Check a backup file, then replace the database and the uploaded files with it (the site stopped)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--yes", action="store_true", help="do not ask before replacing the database")

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["file"]
        try:
            with tempfile.TemporaryDirectory(prefix="bunco-restore-") as work:
                self.restore(path, Path(work), options["yes"])
        except Refusal as refusal:
            self.stderr.write(refusal.message)
            sys.exit(2)

    def restore(self, path: Path, work: Path, yes: bool) -> None:
        if not path.is_file():
            raise backups.NotABackup(_("There is no file %(file)s.") % {"file": path})
        checked = backups.check_backup(path, work)
        lock = backups.refuse_while_serving()
        try:
            if not yes and not self.confirmed(path, checked):
                raise NotNow(_("Nothing was restored."))
            backups.put_back(checked)
        finally:
            lock.close()
        self.stdout.write(json.dumps({"restored": str(path), **checked.summary()}))
        missing = checked.migrations_missing()
        if missing:
            self.stderr.write(ngettext(
                "This backup was made before %(count)d migration of this version: run `python manage.py migrate` "
                "before starting the site.",
                "This backup was made before %(count)d migrations of this version: run `python manage.py migrate` "
                "before starting the site.", len(missing)) % {"count": len(missing)})

    def confirmed(self, path: Path, checked: backups.Checked) -> bool:
        if not sys.stdin.isatty():
            self.stderr.write(_("Restore replaces the whole database: run it again with --yes to go ahead."))
            return False
        made = checked.manifest["created_at"]
        answer = input(_("Replace this site's database and uploaded files with %(file)s (made %(made)s)? "
                         "Everything since then is lost. Type yes: ") % {"file": path, "made": made})
        return answer.strip().lower() == "yes"
