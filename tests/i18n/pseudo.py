"""A pseudo-language, "xx", in which every translated word is visibly not English.

Built from the catalogs themselves: every msgid of the project's Spanish catalogs (django and
djangojs) and of Django's own Spanish catalogs (its forms' and the admin's words), each written
with accented look-alikes of its letters ("Ring the bell" → "Ŕìñĝ ţĥé ƀéĺĺ"), its placeholders,
markup and entities kept as they are. A page rendered in "xx" then shows English letters only
where a word was never marked, or where it is somebody's content (a name, a code).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path

import django
import polib

ROOT = Path(__file__).resolve().parents[2]
CODE = "xx"

_PLAIN = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LOOK_ALIKE = "àƀçđéƒĝĥìĵķĺɱñòƥʠŕšţùʋŵẋýžÀƁÇĐÉƑĜĤÌĴĶĹϺÑÒƤɊŔŠŢÙƲŴẊÝŽ"
_ACCENTED = str.maketrans(_PLAIN, _LOOK_ALIKE)
# What must reach the page as it is: %(name)s and %s placeholders, {name} and {{ name }}, markup,
# entities.
_KEPT = re.compile(r"%\([^)]*\)[-#0 +]*\d*(?:\.\d+)?[a-zA-Z%]|%[-#0 +]*\d*[sdifrxX%]|\{\{.*?\}\}|\{[^{}]*\}"
                   r"|<[^>]*>|&[#\w]+;")


def pseudo(text: str) -> str:
    """`text` with every letter outside placeholders, markup and entities replaced by a look-alike."""
    kept = _KEPT.finditer(text)
    written, start = [], 0
    for match in kept:
        written.append(text[start:match.start()].translate(_ACCENTED))
        written.append(match.group())
        start = match.end()
    written.append(text[start:].translate(_ACCENTED))
    return "".join(written)


def _sources(domain: str) -> Iterator[Path]:
    yield from (ROOT / "locale" / "es" / "LC_MESSAGES").glob(f"{domain}.po")
    if domain == "django":
        django_root = Path(django.__file__).parent
        yield from django_root.glob("conf/locale/es/LC_MESSAGES/django.po")
        yield from django_root.glob("contrib/*/locale/es/LC_MESSAGES/django.po")


def _catalog(sources: Iterable[Path]) -> polib.POFile:
    catalog = polib.POFile()
    catalog.metadata = {"Content-Type": "text/plain; charset=UTF-8", "Language": CODE,
                        "Plural-Forms": "nplurals=2; plural=(n != 1);"}
    seen: set[tuple[str | None, str]] = set()
    for source in sources:
        for entry in polib.pofile(str(source)):
            if entry.obsolete or (entry.msgctxt, entry.msgid) in seen:
                continue
            seen.add((entry.msgctxt, entry.msgid))
            if entry.msgid_plural:
                plural = {0: pseudo(entry.msgid), 1: pseudo(entry.msgid_plural)}
                catalog.append(polib.POEntry(msgctxt=entry.msgctxt, msgid=entry.msgid,
                                             msgid_plural=entry.msgid_plural, msgstr_plural=plural))
            else:
                catalog.append(polib.POEntry(msgctxt=entry.msgctxt, msgid=entry.msgid, msgstr=pseudo(entry.msgid)))
    return catalog


def write_pseudo_locale(locale_root: Path) -> Path:
    """The "xx" catalogs compiled under `locale_root` (a LOCALE_PATHS entry); returns it."""
    messages = locale_root / CODE / "LC_MESSAGES"
    messages.mkdir(parents=True, exist_ok=True)
    for domain in ("django", "djangojs"):
        _catalog(_sources(domain)).save_as_mofile(str(messages / f"{domain}.mo"))
    return locale_root
