"""A shared screen in every language of the phones around it (live/bilingual.py, issue 44)."""

from __future__ import annotations

from django.template import Context, Template
from django.utils import translation

from live.bilingual import shown_in

WORDS = Template('{% load i18n bilingual %}<h2>{% bilingual %}{% translate "Standings" %}{% endbilingual %}</h2>')


def test_outside_a_shared_screen_the_words_are_said_once_in_the_readers_language() -> None:
    with translation.override("es"):
        assert WORDS.render(Context()) == "<h2>Clasificación</h2>"


def test_a_screen_of_one_language_says_them_once() -> None:
    with translation.override("en"), shown_in(["en"]):
        assert WORDS.render(Context()) == "<h2>Standings</h2>"


def test_a_screen_of_two_languages_says_them_in_its_own_first_then_the_other_marked_with_its_language() -> None:
    with translation.override("en"), shown_in(["en", "es"]):
        assert WORDS.render(Context()) == '<h2>Standings <span class="also-said" lang="es">Clasificación</span></h2>'
    with translation.override("es"), shown_in(["es", "en"]):
        assert WORDS.render(Context()) == '<h2>Clasificación <span class="also-said" lang="en">Standings</span></h2>'
