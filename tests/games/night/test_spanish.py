"""The night in Spanish (issue 44): a phone, the host's page, the projector, the printable sheet,
the start form, a bell pushed down the stream and the refusals a phone is given speak the language
of the browser that reads them (Accept-Language), while an English browser reads the same night in
English."""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from games.links import join_path
from games.night import actions
from games.night.models import Night, Player
from live.rendering import render_message
from tests.builders import make_night, night_host_browser, phone_of, seated, started_night

pytestmark = pytest.mark.django_db

SPANISH = {"HTTP_ACCEPT_LANGUAGE": "es"}
ENGLISH = {"HTTP_ACCEPT_LANGUAGE": "en"}


@pytest.fixture(autouse=True)
def english_after_each_test():
    """A request read in Spanish leaves its thread in Spanish (the language middleware activates the
    language and nothing deactivates it): the tests after these ones read English again."""
    yield
    translation.deactivate()


def page(client, url: str, language: dict[str, str]) -> str:
    response = client.get(url, **language)
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def tap(phone, night: Night, language: dict[str, str], **data: object):
    """A phone's tap on a scoring button, as the page posts it, from a browser in `language`."""
    return phone.post(reverse("games:tally", args=[night.code]), data, headers={"HX-Request": "true"}, **language)


def play_url(night: Night) -> str:
    return reverse("games:play", args=[night.code])


def test_a_spanish_phone_reads_its_table_in_spanish_and_an_english_one_in_english():
    night = started_night()
    phone = phone_of(night, seated(night, 2, 0))

    spanish = page(phone, play_url(night), SPANISH)
    english = page(phone, play_url(night), ENGLISH)

    assert '<html lang="es">' in spanish
    for words in ("Deshacer mi última anotación", "Mi hoja de puntos", "Sumar 5 puntos (minibunco)",
                  "¿Quién lo sacó?", "No soy yo", "Puntos para", "Tú y ", "número en juego 1"):
        assert words in spanish, words
    for words in ("Undo my last entry", "My score sheet", "Who rolled it?", "That's not me", "Points for"):
        assert words not in spanish, words
        assert words in english, words


def test_the_host_page_and_the_projector_are_spanish_for_a_spanish_browser():
    night = started_night()
    host = night_host_browser(night)

    spanish = page(host, reverse("games:night_host", args=[night.code]), SPANISH)
    projector = page(host, reverse("games:screen", args=[night.code, night.screen_token]), SPANISH)

    for words in ("Pantalla del proyector", "Imprimir tarjetas de mesa", "Ronda 1 de 24 · serie 1", "Corregir puntos",
                  "Revisar la corrección", "Llegar tarde, irse temprano", "Códigos y enlaces para unirse",
                  "Mesa 1", "★ principal", "Anotaciones"):
        assert words in spanish, words
    for words in ("Projector screen", "Print table cards", "Correct a tally", "Arriving late, leaving early",
                  "Join codes and links", "Entries"):
        assert words not in spanish, words
    for words in ("Ronda <strong>1</strong> de 24", "Clasificación", "Viajero", "nadie todavía", "Escanea para unirte",
                  "Jugador", "Mesa 2"):
        assert words in projector, words
    for words in ("Standings", "Traveler", "nobody yet", "Scan to join", "Player"):
        assert words not in projector, words


def test_the_printable_score_sheet_is_spanish_for_a_spanish_phone():
    night = started_night()
    phone = phone_of(night, seated(night, 1, 0))

    sheet = page(phone, reverse("games:sheet", args=[night.code]), SPANISH)

    for words in ("Hoja de puntos de", "Victorias", "Derrotas", "Qué significan las marcas",
                  "Tu equipo ganó la ronda en esa mesa.", "La línea amarilla: el descanso, después de la ronda 12.",
                  "Volver a mi mesa"):
        assert words in sheet, words
    for words in ("score sheet", "What the marks mean", "The yellow line", "Back to my table"):
        assert words not in sheet, words


def test_the_start_form_and_its_house_rules_read_in_spanish():
    form = page(night_host_browser(make_night()), reverse("games:night_new"), SPANISH)

    for words in ("Reglas de la casa", "Un minibunco (tres iguales, +5) termina el turno",
                  "Muerte súbita: gana el primer equipo que anote", "Un premio por jugador",
                  "Empates en una mesa", "Montos de los premios", "Sortear los asientos y empezar"):
        assert words in form, words
    for words in ("House rules", "A baby bunco", "Sudden death", "One prize per player", "Ties at a table"):
        assert words not in form, words


def bell_of_round_3(night: Night, event_id: int) -> dict[str, Any]:
    """The bell of round 3 as the night's log sends it (id `event_id`, the render cache's key)."""
    return {"id": event_id, "channel": night.channel, "kind": "bell", "data": {"round": 3, "team": "A", "winners": ["A"]}}


def test_a_bell_pushed_down_the_stream_is_spanish_for_a_spanish_phone_and_english_for_an_english_one():
    message = bell_of_round_3(make_night(), 987654)

    spanish = render_message(message, "es").decode()
    english = render_message(message, "en").decode()

    assert "¡Campana! Terminó la ronda 3." in spanish
    assert "Mesa principal: deténganse ya." in spanish
    assert "Tu mesa está empatada: jueguen un desempate." in spanish
    assert "Bell!" not in spanish and "Head table" not in spanish
    assert "Bell! Round 3 is over." in english
    assert "Head table: stop now." in english
    assert "Campana" not in english


def phone_in(night: Night, who: Player, language: dict[str, str]) -> Client:
    """`who`'s phone, which joined and tapped their name from a browser in `language`."""
    phone = Client(headers={"Accept-Language": language["HTTP_ACCEPT_LANGUAGE"]})
    assert phone.get(join_path(night.code)).status_code == 200
    assert phone.post(reverse("games:claim", args=[night.code]), {"player": who.pk}).status_code == 302
    return phone


def test_the_projector_speaks_every_language_of_the_nights_phones_its_own_first():
    night = started_night()
    screen_url = reverse("games:screen", args=[night.code, night.screen_token])
    phone_in(night, seated(night, 1, 0), ENGLISH)
    assert "Clasificación" not in page(Client(), screen_url, ENGLISH)  # English phones only: English alone

    phone_in(night, seated(night, 2, 0), SPANISH)
    english_first = page(Client(), screen_url, ENGLISH)
    spanish_first = page(Client(), screen_url, SPANISH)

    assert 'Standings <span class="also-said" lang="es">Clasificación</span>' in english_first
    assert 'Round <strong>1</strong> of 24 <span class="also-said" lang="es">Ronda <strong>1</strong> de 24</span>' in english_first
    assert 'Clasificación <span class="also-said" lang="en">Standings</span>' in spanish_first
    assert 'Traveler <span class="also-said" lang="en">' not in english_first  # the projector's own first


def test_a_bell_on_a_projector_of_two_languages_says_the_bell_in_both_and_a_phone_in_its_own():
    message = bell_of_round_3(make_night(), 987655)

    projector = render_message(message, "en+es").decode()
    phone = render_message(message, "es").decode()

    assert 'Bell! Round 3 is over. <span class="also-said" lang="es">¡Campana! Terminó la ronda 3.</span>' in projector
    assert "¡Campana! Terminó la ronda 3." in phone and "Bell!" not in phone


def test_a_rule_refusal_reaches_a_spanish_phone_in_spanish():
    """The round not started yet is the Bunco rules' own sentence (games/rules/bunco.py, a Said),
    passed on by the tally action and translated where the phone reads it."""
    night = make_night()
    phone = phone_of(night, seated(night, 1, 0))

    spanish = tap(phone, night, SPANISH, team="A", points=1)
    english = tap(phone, night, ENGLISH, team="A", points=1)

    assert spanish.status_code == english.status_code == 409
    assert spanish.json()["error"] == "La ronda 1 no empezó: la empieza la mesa principal."
    assert english.json()["error"] == "Round 1 hasn't started: the head table starts it."


def test_a_bad_tally_and_a_correction_below_zero_are_refused_in_spanish():
    night = started_night()
    phone = phone_of(night, seated(night, 2, 0))

    bad = tap(phone, night, SPANISH, team="A", points=3)
    assert bad.status_code == 400
    assert bad.json()["error"] == "Una anotación es +1, +2, +5 o un Bunco, no 3."

    with translation.override("es"), pytest.raises(actions.BadTally) as below:
        actions.correct_tally(night=night, table_number=2, team="A", points=-2)
    assert below.value.message == ("El equipo A de la mesa 2 solo tiene 0 puntos: una corrección puede quitar como "
                                   "máximo 0, nunca por debajo de 0. No se cambió nada.")
    assert str(below.value).startswith("Team A at table 2 has only 0 points")  # the log's English
