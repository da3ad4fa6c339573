"""While the database is down, the phones' JSON URLs answer 503 in JSON, whatever the caller's Accept
header says; a page still answers a page (issue 42, S7: a probe calling the tap, the move and a
seat's state with every service stopped got the HTML page). The database is made unreachable for
real: the connection's settings point at a database file in no folder (SQLite) or at a port nobody
listens on (PostgreSQL), and every request opens a connection of its own."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db import connection
from django.urls import reverse

from bunco_club.site.unavailable import MESSAGE
from live.http import answers_json
from scripts.run_scaled import free_ports
from tests.builders import (
    element_text,
    joined_phone,
    make_table,
    seated,
    seated_phone,
    started_night,
    table_url,
)

pytestmark = pytest.mark.django_db(transaction=True)


def _close() -> None:
    connection.close()
    close_pool = getattr(connection, "close_pool", None)  # PostgreSQL's pool: made again from the settings
    if close_pool is not None and connection.settings_dict.get("OPTIONS", {}).get("pool"):
        close_pool()


@contextmanager
def database_unreachable() -> Iterator[None]:
    settings_dict = connection.settings_dict
    saved = dict(settings_dict)
    _close()
    if connection.vendor == "sqlite":
        settings_dict["NAME"] = "/no-such-folder/bunco/db.sqlite3"
    else:
        settings_dict["PORT"] = str(free_ports())
    try:
        yield
    finally:
        _close()
        settings_dict.clear()
        settings_dict.update(saved)


def unavailable_in_json(response) -> bool:
    return (response.status_code == 503 and response["Content-Type"] == "application/json"
            and json.loads(response.content) == {"error": MESSAGE})


def test_a_tap_an_undo_a_move_and_a_seats_state_answer_json_to_a_caller_that_asked_for_nothing() -> None:
    night = started_night(players=8, seed=3)
    phone = joined_phone(night, seated(night, 1, 0))
    table = make_table(3)
    seat = seated_phone(table, 0)
    with database_unreachable():
        answers = {
            "tap": phone.post(reverse("games:tally", args=[night.code]), {"team": "A", "points": "1", "key": "k1"}),
            "undo": phone.post(reverse("games:undo", args=[night.code]), {"team": "A", "key": "k2"}),
            "move": seat.post(table_url("move", table), {"kind": "roll", "key": "k3"}),
            "state": seat.get(table_url("state", table)),
            "here": seat.post(table_url("here", table)),
        }
    wrong = {name: (answer.status_code, answer["Content-Type"]) for name, answer in answers.items()
             if not unavailable_in_json(answer)}
    assert not wrong


def test_a_page_still_answers_a_page_that_says_what_happened() -> None:
    night = started_night(players=8, seed=3)
    phone = joined_phone(night, seated(night, 1, 0))
    with database_unreachable():
        page = phone.get(reverse("games:play", args=[night.code]))
    assert page.status_code == 503
    assert page["Content-Type"].startswith("text/html")
    assert element_text(page.content.decode(), role="alert") == MESSAGE


def test_a_caller_that_asks_for_json_gets_json_from_a_page_url_too() -> None:
    night = started_night(players=8, seed=3)
    phone = joined_phone(night, seated(night, 1, 0))
    with database_unreachable():
        answer = phone.get(reverse("games:play", args=[night.code]), headers={"Accept": "application/json"})
    assert unavailable_in_json(answer)


def test_only_what_is_marked_is_taken_for_json() -> None:
    def view() -> None:
        return None

    assert not getattr(view, "answers_json", False)
    assert answers_json(view) is view and view.answers_json  # type: ignore[attr-defined]
