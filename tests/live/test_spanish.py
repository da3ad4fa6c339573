"""Live's refusals in Spanish (issue 44): a phone whose browser asks for Spanish is told in Spanish
that a check room's link is forged or that its network has too many live screens open."""

from __future__ import annotations

import html

import pytest
from django.test import Client
from django.urls import reverse

from live.actions import open_room

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_streams")]

SPANISH = {"accept-language": "es"}


def test_a_forged_check_room_link_is_refused_in_spanish():
    response = Client(headers=SPANISH).get(reverse("live:connection_check_room", args=["forged.token.here"]))
    assert response.status_code == 404
    text = html.unescape(response.content.decode())
    assert "Este enlace de la prueba de conexión no es válido" in text
    assert "Empezar una prueba nueva" in text and "Prueba de conexión" in text
    assert "This connection check link isn't valid" not in text


def test_a_new_check_room_is_in_spanish():
    phone = Client(headers=SPANISH)
    room = phone.get(reverse("live:connection_check"), follow=True)
    text = html.unescape(room.content.decode())
    assert "Enviar un ping a todas las pantallas" in text and "Aún no hay pings." in text
    assert "Ping every screen" not in text


def test_too_many_live_screens_are_refused_in_spanish(settings):
    settings.EVENTS_MAX_STREAMS_PER_ADDRESS = 0
    refused = Client(headers=SPANISH).get(reverse("live:connection_check_events", args=[open_room().token]))
    assert refused.status_code == 429
    assert refused.content.decode().startswith(
        "Hay demasiadas pantallas en vivo abiertas desde esta red en este momento (0 como máximo).")


def test_a_ping_without_a_name_is_someones_in_each_screens_language():
    room = open_room()
    sent = Client().post(reverse("live:connection_check_ping", args=[room.token]), {"name": ""})
    assert sent.status_code < 400
    room_url = reverse("live:connection_check_room", args=[room.token])
    spanish = html.unescape(Client(headers=SPANISH).get(room_url).content.decode())
    english = html.unescape(Client().get(room_url).content.decode())
    assert "<strong>Alguien</strong> envió un ping a las" in spanish
    assert "<strong>Someone</strong> pinged at" in english
