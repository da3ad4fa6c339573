"""The Spanish catalog is complete and current (issue 44): what `make messages` would write is
what is committed, every entry is translated and none is fuzzy, the compiled .mo files say what
the .po files say, the plural header is Django's own for es, and plurals take their three forms.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import django
import polib
import pytest
from django.utils import translation

from scripts.messages import DOMAINS, refresh, without_date

ROOT = Path(__file__).resolve().parents[2]
MESSAGES = ROOT / "locale" / "es" / "LC_MESSAGES"
DJANGO_ES = Path(django.__file__).parent / "conf" / "locale" / "es" / "LC_MESSAGES" / "django.po"


def catalogs() -> list[Path]:
    return [MESSAGES / f"{domain}.po" for domain in DOMAINS if (MESSAGES / f"{domain}.po").exists()]


def test_make_messages_leaves_the_committed_catalogs_as_they_are(tmp_path: Path) -> None:
    copy = tmp_path / "locale"
    shutil.copytree(ROOT / "locale", copy)
    refresh(copy)
    for domain in DOMAINS:
        committed, refreshed = MESSAGES / f"{domain}.po", copy / "es" / "LC_MESSAGES" / f"{domain}.po"
        assert committed.exists() == refreshed.exists(), f"{domain}.po: run make messages"
        if committed.exists():
            assert without_date(refreshed.read_text()) == without_date(committed.read_text()), \
                f"{domain}.po differs from what the code marks: run make messages and translate"


def test_every_entry_is_translated_and_none_is_fuzzy() -> None:
    assert catalogs()
    for path in catalogs():
        catalog = polib.pofile(str(path))
        assert [entry.msgid for entry in catalog.untranslated_entries()] == [], path.name
        assert [entry.msgid for entry in catalog.fuzzy_entries()] == [], path.name
        plural_gaps = [entry.msgid for entry in catalog if entry.msgid_plural
                       and not all(entry.msgstr_plural.get(form) for form in (0, 1, 2))]
        assert plural_gaps == [], path.name


def test_the_compiled_catalogs_say_what_the_catalogs_say() -> None:
    for path in catalogs():
        written = {(entry.msgctxt, entry.msgid): (entry.msgstr, entry.msgstr_plural)
                   for entry in polib.pofile(str(path)).translated_entries() if entry.msgid}
        compiled = {(entry.msgctxt, entry.msgid): (entry.msgstr, entry.msgstr_plural)
                    for entry in polib.mofile(str(path.with_suffix(".mo"))) if entry.msgid}
        assert compiled == written, f"{path.with_suffix('.mo').name} is stale: run make messages"


def test_the_plural_header_is_djangos_own_for_spanish() -> None:
    """With another Plural-Forms, Django keeps the catalog apart and its entries stop overriding."""
    djangos = polib.pofile(str(DJANGO_ES)).metadata["Plural-Forms"]
    for path in catalogs():
        assert polib.pofile(str(path)).metadata["Plural-Forms"] == djangos, path.name


def spanish_form(n: int) -> int:
    """Django's es rule: 1 → form 0; a nonzero multiple of a million → form 1; else form 2."""
    return 0 if n == 1 else 1 if n != 0 and n % 1_000_000 == 0 else 2


@pytest.mark.parametrize("n", [0, 1, 2, 1_000_000])
def test_every_plural_takes_its_spanish_form_at(n: int) -> None:
    plurals = [entry for entry in polib.pofile(str(MESSAGES / "django.po")) if entry.msgid_plural]
    assert plurals, "the catalog has plurals (ngettext, blocktranslate count)"
    with translation.override("es"):
        for entry in plurals:
            said = (translation.npgettext(entry.msgctxt, entry.msgid, entry.msgid_plural, n) if entry.msgctxt
                    else translation.ngettext(entry.msgid, entry.msgid_plural, n))
            assert said == entry.msgstr_plural[spanish_form(n)], entry.msgid
