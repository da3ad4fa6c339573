"""The tournament in Spanish (issue 44): a phone whose browser asks for Spanish reads the director's
dashboard, its group's page, the projector and the refusals (a pure rule's sentence included) in
Spanish, and no English sentence of theirs is left."""

from __future__ import annotations

import html
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tests.builders import groups_of, logged_in, make_tournament
from tournaments import actions
from tournaments.links import group_path
from tournaments.models import Group, Tournament

pytestmark = pytest.mark.django_db

SPANISH = {"accept-language": "es"}


def page(response) -> str:
    assert response.status_code < 500
    return html.unescape(response.content.decode())


def spanish_phone_for(group: Group) -> Client:
    phone = Client(headers=SPANISH)
    assert phone.get(group_path(group.code)).status_code == 302
    return phone


def screen_of(tournament: Tournament) -> str:
    return page(Client(headers=SPANISH).get(reverse("tournaments:screen", args=[tournament.code, tournament.screen_token])))


def test_the_directors_dashboard_is_in_spanish(director):
    tournament = make_tournament(director, 12, practice_minutes=5)
    dashboard = page(logged_in(director, headers=SPANISH).get(reverse("tournaments:dashboard", args=[tournament.code])))
    for spanish in ("Inscribir a un jugador", "Empezar la ronda 1", "Empezar la ronda de práctica (5 min)",
                    "Proyector", "12 inscritos, 12 con llegada registrada", "Deshacer el registro de llegada",
                    "Conectando…", "Eliminación simple", "rondas de 20 min", "Salir", '<html lang="es">'):
        assert spanish in dashboard
    for english in ("Register a player", "Start round 1", "Projector", "checked in", "Single elimination", "Log out"):
        assert english not in dashboard


def test_the_dashboard_of_a_round_under_way_names_it_in_spanish(director):
    tournament = make_tournament(director, 12)
    actions.start_round(tournament)
    dashboard = page(logged_in(director, headers=SPANISH).get(reverse("tournaments:dashboard", args=[tournament.code])))
    assert "Terminar ya la ronda 1" in dashboard and "Pausar el reloj" in dashboard and "Mesa 1" in dashboard
    assert "Round 1" not in dashboard and "Table 1" not in dashboard and "Pause the clock" not in dashboard


def test_a_groups_phone_is_in_spanish(director):
    tournament = make_tournament(director, 12)
    actions.start_round(tournament)
    group = groups_of(tournament)[0]
    phone_page = page(spanish_phone_for(group).get(reverse("tournaments:group", args=[group.code])))
    for spanish in ("Ronda 1 · Mesa 1", "De quién es el turno", "Puntos al plantarse", "Plantarse", "Quemado (0)",
                    "Meta en la hoja: 10000 · Venganza −2500", "Tiempo restante", "Sonido"):
        assert spanish in phone_page
    for english in ("Whose turn", "Points banked", ">Bank<", "Bust (0)", "Goal on the sheet", "Time left"):
        assert english not in phone_page


def test_a_refusal_on_the_phone_is_said_in_spanish(director):
    tournament = make_tournament(director, 12)
    actions.start_round(tournament)
    group = groups_of(tournament)[0]
    phone = spanish_phone_for(group)
    first, *_ = group.players()
    url = reverse("tournaments:group_turn", args=[group.code])
    response = phone.post(url, {"entrant": first.pk, "points": "25", "key": "a"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert "Los puntos son un múltiplo entero de 50 (0 para un quemado)." in page(response)
    assert "Points are a whole multiple of 50" not in page(response)


def test_a_pure_rules_sentence_reaches_the_phone_in_spanish(director):
    """brackets.apply_turn's sentence (a Said) is translated where the phone reads it."""
    tournament = make_tournament(director, 12)
    actions.start_round(tournament)
    group = groups_of(tournament)[0]
    phone = spanish_phone_for(group)
    first, second, *_ = group.players()
    url = reverse("tournaments:group_turn", args=[group.code])
    phone.post(url, {"entrant": first.pk, "points": "3000", "key": "a"})
    response = phone.post(url, {"entrant": second.pk, "points": "", "bust": "1", "vengeance": "1", "key": "b"},
                          HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert "Una Venganza solo cuenta cuando el turno llena" in page(response)
    assert "A Vengeance bites only" not in page(response)
    assert group.turns.count() == 1


def test_the_projector_is_in_spanish(director):
    tournament = make_tournament(director, 12)
    before = screen_of(tournament)
    assert "12 jugadores presentes. Esperando la ronda 1." in before and "El cuadro empieza con la ronda 1." in before
    assert "Waiting for round 1" not in before and "The bracket starts" not in before

    actions.start_round(tournament)
    during = screen_of(tournament)
    assert "Autumn Open · Ronda 1" in during and "Jugadores" in during and "Mesa 1" in during
    assert "Round 1" not in during and "Players" not in during


def test_the_projector_during_check_in_says_in_spanish_that_nobody_has_arrived_yet_not_that_nobody_registered(director):
    """Issue 46: twenty registered, none checked in yet: "in" on the projector is "present", never
    "registered" ("inscrito"), which the twenty are."""
    tournament = make_tournament(director, 0)
    for number in range(1, 21):
        actions.register(tournament, f"Kit {number:02d}")
    actions.set_check_in_window(tournament, starts_at=timezone.now() + timedelta(minutes=30), minutes=60)
    screen = screen_of(tournament)
    assert "Ningún jugador presente todavía. Esperando la ronda 1." in screen
    assert "0 de 20 con llegada registrada" in screen and "inscrito" not in screen

    actions.check_in(tournament, tournament.entrants.get(name="Kit 01"))
    assert "1 jugador presente. Esperando la ronda 1." in screen_of(tournament)


def test_a_bad_group_link_is_refused_in_spanish():
    response = Client(headers=SPANISH).get(reverse("tournaments:group_join", args=["not-a-link"]))
    assert response.status_code == 403
    assert "Este enlace de grupo no es válido. Vuelve a escanear el código QR de tu mesa." in page(response)
    assert "No se puede abrir" in page(response)


def test_the_results_csv_has_spanish_headers(director):
    tournament = make_tournament(director, 12)
    actions.start_round(tournament)
    csv = logged_in(director, headers=SPANISH).get(reverse("tournaments:results_csv", args=[tournament.code]))
    assert csv.content.decode().splitlines()[0] == "ronda,tipo,grupo,jugador,puntos,resultado"
