"""`make messages`: refreshes the translators' catalogs from the code, then compiles them.

Every marked word goes into locale/es/LC_MESSAGES/django.po (Python and templates) and djangojs.po
(static/js), keeping what is already translated. Locations name files, not lines, so moving code
changes nothing in the catalog. The compiled .mo files are committed: a fresh clone and `make run`
need no gettext. tests/i18n/test_catalog.py refreshes a copy the same way (`refresh`) and fails if
anything differs from what is committed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LANGUAGES = ["es"]
DOMAINS = ("django", "djangojs")
# Not the site's words: the virtualenv, the tests' own fixtures, collected copies, the benchmarks'
# and scripts' operator output, vendored scripts.
IGNORED = [".venv", "tests", "staticfiles", "bench", "scripts", "node_modules", "static/vendor/*"]


def refresh(locale_root: Path | None = None) -> None:
    """Runs makemessages for every language and domain; into `locale_root` when given (a copy of
    locale/), else into locale/ itself. Django must be set up."""
    from django.core.management import call_command
    from django.test import override_settings

    paths = [locale_root] if locale_root is not None else [ROOT / "locale"]
    catalogs = list(paths[0].glob("*/LC_MESSAGES/*.po"))
    before = {catalog: catalog.read_text(encoding="utf-8") for catalog in catalogs}
    previous = Path.cwd()
    os.chdir(ROOT)
    try:
        with override_settings(LOCALE_PATHS=paths):
            for domain in DOMAINS:
                call_command("makemessages", locale=LANGUAGES, domain=domain, no_obsolete=True,
                             add_location="file", ignore_patterns=IGNORED, verbosity=0)
    finally:
        os.chdir(previous)
    for catalog, text in before.items():  # only the refresh's date changed: the catalog is as it was
        if without_date(catalog.read_text(encoding="utf-8")) == without_date(text):
            catalog.write_text(text, encoding="utf-8")


def without_date(catalog: str) -> str:
    """A catalog's text less the header line makemessages rewrites on every run."""
    return "\n".join(line for line in catalog.splitlines() if not line.startswith('"POT-Creation-Date:'))


def main() -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bunco_club.site.settings")
    import django
    from django.core.management import call_command

    django.setup()
    refresh()
    call_command("compilemessages", locale=LANGUAGES, ignore_patterns=[".venv"], verbosity=0)


if __name__ == "__main__":
    main()
