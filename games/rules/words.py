"""Sentences the pure rules say to people, marked for translation without Django.

The rules import no Django (docs/DESIGN.md §3), so they mark a sentence with `gettext_noop` (the
name `manage.py makemessages` looks for) and raise it as a `Said`: the English sentence, which is
what `str()`, logs and the command line show, that also keeps its template and values. Where it
reaches a person, `live.refusals.Refusal.message` translates the template into the reader's
language and fills the values in. Example:

    raise IllegalRoll(Said(gettext_noop("The number up is 1 to 6, not %(target)s."), target=target))
"""

from __future__ import annotations

from typing import Self


def gettext_noop(message: str) -> str:
    """Marks `message` for the translators' catalog and returns it as it is."""
    return message


class Said(str):
    """An English sentence made from `template` % `values`, keeping both for its translation."""

    template: str
    values: dict[str, object]

    def __new__(cls, template: str, **values: object) -> Self:
        said = super().__new__(cls, template % values if values else template)
        said.template = template
        said.values = values
        return said
