"""No English left in the scripts (issue 44): every sentence a script of static/js shows a person
goes through the JavaScript catalog (`gettext`, `ngettext`, `pgettext` from /jsi18n/<language>.js),
so no string literal that reads as words stands in a script outside those calls.

A literal "reads as words" when it holds two words of letters joined by a space or a punctuation
mark a sentence uses. Not words: class lists ("button button-big"), selectors, htmx's event names
("htmx:before:request") and settings, "use strict", and the printed names of the Fill or Bust
cards, which stay as printed (tests/i18n/test_no_english_left.py keeps them too).
"""

from __future__ import annotations

import re
from pathlib import Path

from games.rules.fill_or_bust import Card

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted((ROOT / "static" / "js").rglob("*.js"))
COMMENT = re.compile(r"/\*.*?\*/|(?<![:\\'\"])//[^\n]*", re.S)
LITERAL = re.compile(r"""'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`""")
WORDS = re.compile(r"[A-Za-z]{2,}(?: |[,.!?]\s?|: )[A-Za-z]{2,}")
# Inside these calls a literal is marked: the call's first one or two literals.
MARKED = re.compile(r"\b(?:n?p?gettext)\(\s*(?:(?:'[^']*'|\"[^\"]*\")\s*,\s*){0,2}$")
NOT_WORDS = re.compile(r"^(?:[a-z0-9-]+(?: [a-z0-9-]+)*|[a-z]+(?::[a-z-]+)+(?: [a-z]+)?|use strict)$")
SELECTOR = re.compile(r"[\[\]#()]|^\.")  # a CSS selector or media query, not words
KEPT = {card.label for card in Card}


def words_unmarked(source: str) -> list[str]:
    code = COMMENT.sub(lambda comment: " " * len(comment.group()), source)
    found = []
    for match in LITERAL.finditer(code):
        text = next(group for group in match.groups() if group is not None)
        if not WORDS.search(text) or NOT_WORDS.match(text) or SELECTOR.search(text) or text in KEPT:
            continue
        if MARKED.search(code[max(0, match.start() - 400):match.start()]):
            continue
        found.append(f"line {code.count(chr(10), 0, match.start()) + 1}: {text[:70]!r}")
    return found


def test_no_script_shows_a_sentence_outside_the_catalog() -> None:
    assert SCRIPTS
    left = {path.relative_to(ROOT).as_posix(): words for path in SCRIPTS if (words := words_unmarked(path.read_text()))}
    assert left == {}


def test_the_check_finds_a_sentence_left_in_a_script() -> None:
    """The check's premise: an unmarked sentence is found, a marked one and a class list are not."""
    script = ("status.textContent = 'Not saved yet';\n"
              "label.textContent = gettext('Not saved yet');\n"
              "count.textContent = ngettext('One tap', 'Two taps', n);\n"
              "// 'a comment' is no text\n"
              "button.className = 'button button-big';\n")
    assert words_unmarked(script) == ["line 1: 'Not saved yet'"]
