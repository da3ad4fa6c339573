"""Shared screens in every language of the phones around them (docs/I18N.md).

A projector or a table screen is read by everyone in the room. When the phones at a night read
more than one language, the screen says its words in each: `{% bilingual %}…{% endbilingual %}`
(live/templatetags/bilingual.py) renders what it holds once per language of `shown_in(...)`, the
first as it is and the others beside it (`<span class="also-said" lang="es">`). Outside
`shown_in`, or with one language, the tag renders its content once, as if it were not there, so
the same partials serve the phones and the host's page unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

from django.conf import settings
from django.utils import translation

_languages: ContextVar[tuple[str, ...]] = ContextVar("shown_in_languages", default=())
SEPARATOR = "+"  # "en+es": a stream's languages, as live.streams passes them to live.rendering


@contextmanager
def shown_in(languages: Sequence[str]) -> Iterator[None]:
    """What is rendered inside says its `{% bilingual %}` words in each of `languages`, in order."""
    token = _languages.set(tuple(dict.fromkeys(languages)))
    try:
        yield
    finally:
        _languages.reset(token)


def languages_shown() -> tuple[str, ...]:
    """The languages of the `shown_in` around this moment (none outside one)."""
    return _languages.get()


def screen_languages(own: str, spoken: Iterable[str]) -> list[str]:
    """The languages a shared screen says its words in: its own first, then every other one of
    `spoken` (its phones' languages) that the site speaks."""
    return [own, *sorted(set(spoken) & set(dict(settings.LANGUAGES)) - {own})]


def in_each_language(say: Callable[[], str]) -> list[str]:
    """`say()` once in each language of the `shown_in` around, in order; once, as it is, outside
    one (or with one language)."""
    languages = languages_shown()
    if len(languages) < 2:
        return [say()]
    said = []
    for language in languages:
        with translation.override(language):
            said.append(say())
    return said


def said_in_each(say: Callable[[], str]) -> str:
    """A sentence a script shows as text (a move in words on a table's screen): `say()` in each
    language of the `shown_in` around, joined by " · "; once, as it is, outside one."""
    return " · ".join(in_each_language(say))
