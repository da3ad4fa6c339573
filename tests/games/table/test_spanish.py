"""The game tables in Spanish (issue 44): each game's table page, "Play a game", the replay and
the check for a phone whose browser asks for Spanish; a move refused out of turn says why in
Spanish; and a move's stream frame rendered for a Spanish phone tells the move in Spanish."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from games.table.models import Table
from live.models import Event
from live.rendering import render_message
from tests.builders import make_table, play_out, seated_phone, to_move
from tests.builders import table_url as url
from tests.games.table.ninety_nine_tables import ninety_nine_table

pytestmark = pytest.mark.django_db

SPANISH = {"Accept-Language": "es"}


def page_in_spanish(phone: Client, address: str) -> str:
    response = phone.get(address, headers=SPANISH)
    assert response.status_code == 200
    return response.content.decode()


def spoken_words(page: str, *words: str) -> None:
    for word in words:
        assert word in page, word


def no_english(page: str, *words: str) -> None:
    for word in words:
        assert word not in page, word


def last_move_frame(table: Table, language: str) -> dict[str, Any]:
    """The stream frame of the table's last move, as a phone in `language` receives it."""
    event = Event.objects.filter(channel=table.channel, kind="moved").latest("id")
    frame = render_message(event.as_message(), language).decode()
    data = next(line for line in frame.splitlines() if line.startswith("data: "))
    return json.loads(data.removeprefix("data: "))


# --- Each game's table page -------------------------------------------------------------------------


def test_a_fill_or_bust_table_page_is_in_spanish_for_a_spanish_phone() -> None:
    table = make_table()
    page = page_in_spanish(seated_phone(table, 0), url("table", table))
    spoken_words(page, "Juegas como", "Conectando…", 'aria-label="Los dados"', "Puntajes",
                 "Dados justos: el SHA-256 de la semilla", "Asientos", "No soy yo", 'lang="es"')
    no_english(page, "You play", "Connecting…", "The dice", "Scores", "Fair dice", "That's not me")


def test_a_kismet_table_page_is_in_spanish_for_a_spanish_phone() -> None:
    table = make_table(2, game="kismet", options={"real_seats": [0]})
    page = page_in_spanish(seated_phone(table, 0), url("table", table))
    spoken_words(page, "Escribe tus cinco dados", "Los totales de todos", "Ada escribe dados reales",
                 "Bea tira los dados del servidor", "cada tirada de los dados de la mesa")
    no_english(page, "Type in your five dice", "Everyone's totals", "types in real dice", "server's dice")


def test_a_ninety_nine_table_page_is_in_spanish_for_a_spanish_phone() -> None:
    table = ninety_nine_table()
    page = page_in_spanish(seated_phone(table, 1), url("table", table))
    spoken_words(page, "Cuenta", "Última carta", "Tu mano", "Fichas y cartas en la mano", "Reparto justo")
    no_english(page, "Last card", "Your hand", "Markers and cards in hand", "Fair deal")


def test_the_lobby_and_play_a_game_are_in_spanish() -> None:
    table = make_table(started=False)
    lobby = page_in_spanish(Client(), url("table", table))
    spoken_words(lobby, "Fill or Bust: tomen asiento", "Escanea para unirte", "Código de mesa",
                 "La partida empieza cuando quien abrió la mesa toca Empezar.", "Soy Ada")
    no_english(lobby, "take your seats", "Scan to join", "I'm Ada")
    new = page_in_spanish(Client(), reverse("tables:new"))
    spoken_words(new, "Jugar una partida", "Jugar hasta", "2\xa0000 (una partida corta)", "una persona",
                 "un bot (constante)", "Bots: fácil: cualquier jugada que pueda hacer, al azar; constante: se planta en cuanto hay una buena cantidad en riesgo",
                 "Variante impresa", "Fichas por jugador", "De dos a ocho jugadores, en cualquier orden",
                 "Quién juega el asiento 1", "Abrir la mesa")
    no_english(new, "Play to", "a short game", ">a person<", "Open the table", "Markers each")


def test_a_finished_games_replay_and_check_are_in_spanish_moves_told_in_spanish_too() -> None:
    table = play_out(make_table(2, bots=["threshold", "threshold"], seed=12))
    replay = page_in_spanish(Client(), url("replay", table))
    spoken_words(replay, "Repetición: Fill or Bust en la mesa", "¿Quién empezó?", "Cada uno tiró un dado:", "aria-label=\"Quién empieza: ",
                 "La semilla revelada", "Comprobar los dados", " tiró ", "Siguiente")
    no_english(replay, "Who started?", "The revealed seed", " tossed ", " set aside ", "Show all")
    check = page_in_spanish(Client(), url("check", table))
    spoken_words(check, "Verificado.", f"Las {table.moves_made} jugadas se repiten con las reglas del juego")
    no_english(check, "Verified.", "moves replay")


def test_a_kismet_replay_prints_its_sheets_with_the_boxes_in_spanish() -> None:
    table = play_out(make_table(2, game="kismet", bots=["easy", "easy"], options={}, seed=5))
    replay = page_in_spanish(Client(), url("replay", table))
    spoken_words(replay, "Las hojas", "Casilla", "Unos", "Escalera", "Total Básico", "Imprimir las hojas", " anotó ")
    no_english(replay, "The sheets", "Ones", "Straight", "Basic total", " scored ")


# --- A refusal ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", ["fill_or_bust", "kismet", "ninety_nine"])
def test_a_move_out_of_turn_is_refused_in_spanish(game: str) -> None:
    table = make_table(3, game=game, options={})
    seat = to_move(table)
    waiting = (seat + 1) % 3
    kind = {"fill_or_bust": "draw", "kismet": "roll", "ninety_nine": "deal"}[game]
    answer = seated_phone(table, waiting).post(url("move", table), {"kind": kind}, headers=SPANISH)
    assert answer.status_code == 409
    names = [seat.name for seat in table.seats.all()]
    assert answer.json()["error"] == f"Es la jugada de {names[seat]}, no de {names[waiting]}."


def test_a_move_the_rules_refuse_says_why_in_spanish_and_in_english() -> None:
    table = make_table(2, game="kismet", options={})
    phone = seated_phone(table, to_move(table))
    assert phone.post(url("move", table), {"kind": "roll"}).status_code == 200
    assert phone.post(url("move", table), {"kind": "roll"}).status_code == 200
    assert phone.post(url("move", table), {"kind": "roll"}).status_code == 200
    refused = phone.post(url("move", table), {"kind": "roll", "keep": ["1"]}, headers=SPANISH)
    assert refused.json()["error"] == "No quedan tiradas: un turno tiene 3 tiradas. Elige una casilla."
    english = phone.post(url("move", table), {"kind": "roll", "keep": ["1"]})
    assert english.json()["error"] == "No rolls left: a turn has 3 rolls. Choose a box."


# --- A move's stream frame -------------------------------------------------------------------------


def fill_or_bust_after_adas_move() -> Table:
    """A Fill or Bust table of Ada's phone and a bot, once Ada has drawn or tossed."""
    table = make_table(2, bots=["", "threshold"], seed=3)
    phone = seated_phone(table, 0)
    while to_move(table) != 0:
        play_out_one(table)
    for kind in ("draw", "toss"):
        legal = [move["kind"] for move in phone.get(url("state", table)).json()["legal_moves"]]
        if kind in legal:
            assert phone.post(url("move", table), {"kind": kind}).status_code == 200
    return table


def test_a_moves_frame_tells_a_spanish_phone_the_move_in_spanish_and_an_english_one_in_english() -> None:
    table = fill_or_bust_after_adas_move()
    spanish, english = last_move_frame(table, "es"), last_move_frame(table, "en")
    name = "Ada"
    assert spanish["said"].startswith(f"{name} ") and spanish["said"] != english["said"]
    assert " tiró " in spanish["said"] or " dio vuelta " in spanish["said"]
    assert " tossed " in english["said"] or " turned over " in english["said"]


def test_a_tables_screen_whose_phones_read_two_languages_says_each_move_in_both() -> None:
    table = fill_or_bust_after_adas_move()
    spanish, english = last_move_frame(table, "es")["said"], last_move_frame(table, "en")["said"]

    assert last_move_frame(table, "en+es")["said"] == f"{english} · {spanish}"  # the screen's stream
    table.seats.filter(number=0).update(language="es")
    screen = Client(headers={"accept-language": "en"}).get(
        reverse("tables:screen", args=[table.code, table.screen_token]), headers={"accept": "application/json"})
    assert screen.json()["said"] == f"{english} · {spanish}"  # the screen's own page, in English first


def test_a_kismet_frame_carries_the_box_names_in_the_phones_language() -> None:
    table = make_table(2, game="kismet", options={})
    phone = seated_phone(table, to_move(table))
    assert phone.post(url("move", table), {"kind": "roll"}).status_code == 200
    spanish, english = last_move_frame(table, "es"), last_move_frame(table, "en")
    assert spanish["view"]["labels"]["ones"] == "Unos" and english["view"]["labels"]["ones"] == "Ones"
    assert "(tirada 1 de 3)" in spanish["said"] and "(roll 1 of 3)" in english["said"]


def play_out_one(table: Table) -> None:
    from games.table.tasks import play_bot_move

    assert play_bot_move(table, waiting=False) is not None
    table.refresh_from_db()


def test_a_ninety_nine_replay_and_a_table_screen_are_in_spanish() -> None:
    table = play_out(ninety_nine_table(2, markers=1, bots=["threshold", "threshold"], seed=7))
    replay = page_in_spanish(Client(), url("replay", table))
    spoken_words(replay, "Reparto:", "Ada tiene ", " juega ", ": la cuenta es ")
    no_english(replay, "Dealt:", " holds ", " plays ", "the count is")
    screen = page_in_spanish(Client(), url("screen", table, table.screen_token))
    spoken_words(screen, "Ninety-Nine or Bust · mesa", "Fichas y cartas en la mano", "Cuenta", "Conectando…")
    no_english(screen, "Markers and cards in hand", "Last card", "Connecting…")
