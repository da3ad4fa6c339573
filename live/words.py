"""A pure rule's sentence in the reader's language (docs/I18N.md).

The pure rules import no Django, so they raise and return sentences as `Said` (games/rules/words.py):
the English sentence that keeps its template and values. `spoken` says one in the language active
now: the template translated, each value that is itself a `Said` said the same way, a whole number
written as the language writes it. Live knows the shape only (a `template` and its `values`), not
the rules' class: it imports no game.
"""

from __future__ import annotations

from django.utils.formats import number_format
from django.utils.translation import gettext


def spoken(said: object) -> str:
    """`said` in the reader's language: a `Said` translated and filled in, anything else as it is."""
    template, values = getattr(said, "template", None), getattr(said, "values", None)
    if not isinstance(template, str) or not isinstance(values, dict):
        return str(said)
    if not values:
        return gettext(template)
    return gettext(template) % {name: _value(value) for name, value in values.items()}


def _value(value: object) -> object:
    """A value said in a sentence: a `Said` in the reader's language, a whole number written as the
    reader's language writes it (2,000 in English, 2 000 in Spanish)."""
    if hasattr(value, "template"):
        return spoken(value)
    if type(value) is int:
        return number_format(value, force_grouping=True)
    return value
