"""The club's pages in Spanish (issue 44): a host whose phone asks for Spanish reads the club page,
a party, the roster, a season and its standings in Spanish, and a refusal (a bad party form, an
action's refusal shown after a redirect, a pure rule's sentence) in Spanish too; English stays."""

from __future__ import annotations

import datetime

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from bunco_club import actions
from bunco_club.models import Club, Party, Season
from tests.builders import element_text, soon, text

pytestmark = pytest.mark.django_db

SPANISH = "es"  # what the phone asks for (Accept-Language)


@pytest.fixture
def season(club: Club) -> Season:
    return actions.create_season(club, name="Este año", starts=[soon(-30), soon(10), soon(40)])


@pytest.fixture
def played(club: Club, season: Season) -> Party:
    """The season's first party, played: Ada won the most Buncos and $20."""
    party = season.parties.order_by("starts_at")[0]
    actions.record_night_results(party, [
        {"name": "Ada", "wins": 14, "losses": 10, "buncos": 3, "prize_cents": 2000, "prizes": ["Most Buncos"]},
        {"name": "Bea", "wins": 10, "losses": 14, "buncos": 0},
    ])
    return party


def spanish_page(client: Client, url: str) -> str:
    response = client.get(url, HTTP_ACCEPT_LANGUAGE=SPANISH)
    assert response.status_code == 200, url
    return text(response)


def test_the_club_page_speaks_spanish_to_a_spanish_phone(host_client, club, season, played):
    page = spanish_page(host_client, reverse("clubs:club", args=[club.slug]))
    for spanish in ("Próxima fiesta", "Próximamente", "Temporadas", "Noches pasadas", "Lista de miembros",
                    "Nueva temporada", "Agregar un coanfitrión", "Descargar la historia del club",
                    "normalmente a las 19:00 · cuota $5.00", "Todavía no viene nadie"):
        assert spanish in page
    for english in ("Next party", "Coming up", "Past nights", "Roster", "New season", "Add a co-host",
                    "usually at", "Nobody coming yet"):
        assert english not in page
    english_page = text(host_client.get(reverse("clubs:club", args=[club.slug])))
    assert "Next party" in english_page and "Próxima fiesta" not in english_page


def test_a_party_page_with_its_headcount_and_sheets_in_spanish(host_client, club, season, played):
    party = season.parties.order_by("starts_at")[1]
    for member in club.members.regulars()[:5]:
        actions.answer_rsvp(party, member, "yes")
    page = spanish_page(host_client, reverse("clubs:party", args=[club.slug, party.pk]))
    for spanish in ("vienen 5, 3 fantasmas", "2 mesas de cuatro: 3 asientos fantasma.", "Vienen (5)",
                    "Sin responder", "Para el anfitrión", "Invitar al siguiente suplente", "Respuestas, notas y cuotas",
                    "Efectivo", "Cancelar esta fiesta (se les avisa a los miembros)", "todavía sin anfitrión"):
        assert spanish in page
    for english in ("5 coming", "tables of four", "Not answered", "For the host", "Waived", "no host yet"):
        assert english not in page
    sheets = spanish_page(host_client, reverse("clubs:party", args=[club.slug, played.pk]))
    assert "Las hojas de la noche" in sheets and "Victorias" in sheets and "Derrotas" in sheets
    assert "The night's sheets" not in sheets and "Wins" not in sheets


def test_the_roster_and_its_form_in_spanish(host_client, club):
    page = spanish_page(host_client, reverse("clubs:roster", args=[club.slug]))
    for spanish in ("Agregar un miembro", "Miembros fijos (12)", "Lista de suplentes (3)", "Pasar a la lista de suplentes",
                    "Hacer miembro fijo", "(sin contraseña)", "En la lista de suplentes (un suplente)", "Nombre",
                    "Para invitaciones y recordatorios."):
        assert spanish in page
    for english in ("Add a member", "Regulars (", "Sub list (", "Move to sub list", "Make regular", "no password",
                    "For invitations and reminders."):
        assert english not in page


def test_a_season_and_its_standings_in_spanish(host_client, club, season, played):
    page = spanish_page(host_client, reverse("clubs:season", args=[club.slug, season.pk]))
    for spanish in ("El año de un vistazo", "Planear quién es anfitrión", "Clasificación", "Agregar una fecha"):
        assert spanish in page
    for english in ("The year at a glance", "Plan who hosts", "Standings", "Add a date"):
        assert english not in page
    standings = spanish_page(host_client, reverse("clubs:standings", args=[club.slug, season.pk]))
    for spanish in ("clasificación de Este año", "Jugador", "Noches", "Victorias", "Derrotas", "Premios"):
        assert spanish in standings
    for english in ("Este año standings", "Player", "Nights", "Wins", "Losses", "Prizes"):
        assert english not in standings


def test_the_new_season_form_offers_its_rule_in_spanish(host_client, club):
    page = spanish_page(host_client, reverse("clubs:season_new", args=[club.slug]))
    for spanish in ("Crear la temporada", "Nombre de la temporada", "Tercero", "Viernes", "Día de la semana"):
        assert spanish in page
    for english in ("Create the season", "Season name", "Third", "Friday", "Weekday"):
        assert english not in page


def test_a_bad_party_form_is_refused_in_spanish(host_client, club):
    url = reverse("clubs:party_new", args=[club.slug])
    data = {"date": "2027-01-15", "time": "19:00", "cohost": club.members.get(name="Bea").pk}
    response = host_client.post(url, data, HTTP_ACCEPT_LANGUAGE=SPANISH)
    assert response.status_code == 400
    page = text(response)
    assert "Corrige lo que está marcado abajo." in page
    assert "Elige al anfitrión antes que al coanfitrión." in page
    assert "Pick the host before a co-host." not in page
    # An action's refusal on the same form: a second party on one day.
    host_client.post(url, {"date": "2027-01-15", "time": "19:00"})
    again = host_client.post(url, {"date": "2027-01-15", "time": "20:00"}, HTTP_ACCEPT_LANGUAGE=SPANISH)
    assert again.status_code == 400
    assert "El club ya tiene una fiesta el vie 15 Ene 2027." in text(again)


def test_a_refusal_after_a_redirect_is_said_in_spanish(host_client, club, season):
    party = season.parties.order_by("starts_at")[1]
    bea = club.members.get(name="Bea")
    url = reverse("clubs:party_paid", args=[club.slug, party.pk, bea.pk])
    response = host_client.post(url, {"how": "cash"}, follow=True, HTTP_ACCEPT_LANGUAGE=SPANISH)
    message = element_text(response.content.decode(), class_="message message-error")
    assert message == "Bea no ha dicho que viene: solo pagan la cuota los que vienen."
    assert "hasn't said" not in text(response)


def test_a_rotation_rule_refusal_is_translated_where_it_is_read(club):
    with pytest.raises(actions.ClubError) as refused:
        actions.season_by_rule(club, name="Demasiado", first_month=datetime.date(2027, 1, 1), months=200, nth=3,
                               weekday=4)
    assert str(refused.value) == "A season has 1 to 120 months."
    with translation.override("es"):
        assert refused.value.message == "Una temporada tiene de 1 a 120 meses."


def test_a_member_on_a_hosts_page_is_told_in_spanish(member_client, club):
    response = member_client.get(reverse("clubs:roster", args=[club.slug]), HTTP_ACCEPT_LANGUAGE=SPANISH)
    assert response.status_code == 403
    assert "Solo los anfitriones del club pueden hacer eso." in text(response)
    assert "Only the club's hosts" not in text(response)
