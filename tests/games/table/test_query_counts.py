"""How many statements a phone's requests at a game table run (issue 34 pins them): a move in each
game, a move at a table with patience, the phone's page and its state. Each statement of a move is
one the phones at the table wait for (docs/DESIGN.md §7: a move no dearer than a Bunco tap), so one more
is a change to make on purpose. With several processes the session is one statement more
(`statements_besides_the_session`)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from games.rules.fill_or_bust_table import SHORT_GOAL
from games.table.models import DEFAULT_PATIENCE, Move, Table
from tests.builders import is_sqlite, make_table, seated_phone, statements_besides_the_session, to_move
from tests.builders import table_url as url

pytestmark = pytest.mark.django_db

PAGE_STATEMENTS = 6
STATE_STATEMENTS = 5
# On PostgreSQL the move's row and its events are one statement (live.log's one insert).
MOVE_STATEMENTS = 6 if is_sqlite() else 5
OPTIONS = {"fill_or_bust": {"goal": SHORT_GOAL}, "kismet": {"real_seats": []}, "ninety_nine": {"markers": 4}}


def statements_of(request: Any) -> tuple[Any, list[str]]:
    """The response of `request()` and the statements it ran."""
    with CaptureQueriesContext(connection) as captured:
        response = request()
    return response, statements_besides_the_session(captured)


def a_legal_move(phone: Client, table: Table) -> dict[str, Any]:
    """The first legal move the phone's seat may make now, as its page would post it."""
    payload = phone.get(url("state", table)).json()
    assert payload["on_turn"], payload
    move = payload["legal_moves"][0]
    return {name: value for name, value in move.items() if value not in (None, [])}


def a_move_posted(phone: Client, table: Table, key: str) -> tuple[Any, list[str]]:
    """A legal move posted by the phone (its state read first), and the statements of the POST."""
    fields = {**a_legal_move(phone, table), "key": key, "client": "ab" * 16}
    return statements_of(lambda: phone.post(url("move", table), fields))


@pytest.mark.parametrize("game", sorted(OPTIONS))
def test_a_move_runs_six_statements_in_every_game(game: str) -> None:
    """The table with its seats (the phone's among them), the table's lock and game, the key's
    lookup, the game written back, the move and its events (a Ninety-Nine move's hands with its
    public event: one INSERT; on PostgreSQL the move and its events are one statement)."""
    table = make_table(3, game=game, options=OPTIONS[game])
    phone = seated_phone(table, to_move(table))
    answer, sql = a_move_posted(phone, table, "k-1")
    assert answer.status_code == 200, answer.content
    assert len(sql) == MOVE_STATEMENTS, sql
    assert Move.objects.filter(table=table).count() == 1


def test_at_a_table_with_patience_a_move_also_notes_that_its_phone_is_here() -> None:
    table = make_table(3, patience_seconds=DEFAULT_PATIENCE)
    phone = seated_phone(table, to_move(table))
    answer, sql = a_move_posted(phone, table, "k-1")
    assert answer.status_code == 200
    assert len(sql) == MOVE_STATEMENTS + 1, sql
    assert sum(statement.startswith("UPDATE") and "quiet_at" in statement for statement in sql) == 1, sql


def test_a_retried_move_runs_three_statements_and_records_nothing() -> None:
    """The table with its seats, its lock, and the key's lookup that finds the move (the last one:
    the answer needs no other read)."""
    table = make_table(3)
    phone = seated_phone(table, to_move(table))
    fields = {**a_legal_move(phone, table), "key": "k-1", "client": "ab" * 16}
    assert phone.post(url("move", table), fields).status_code == 200
    answer, sql = statements_of(lambda: phone.post(url("move", table), fields))
    assert answer.status_code == 200
    assert len(sql) == 3, sql
    assert Move.objects.filter(table=table).count() == 1


def test_the_phone_page_of_a_game_under_way_is_read_in_a_few_statements() -> None:
    """The page a phone reloads after sleep: the table, the phone's seat, the seat a bot may keep
    for it, the seats, the last move (a table without patience notes nothing)."""
    table = make_table(3)
    phone = seated_phone(table, to_move(table))
    phone.get(url("table", table))
    page, sql = statements_of(lambda: phone.get(url("table", table)))
    assert page.status_code == 200
    assert len(sql) == PAGE_STATEMENTS, [statement[:60] for statement in sql]


def test_the_phone_state_is_read_in_a_few_statements() -> None:
    """What a page asks for when the turn comes to it: the table, the phone's seat, the seats and
    the last move, as the page's own payload reads them."""
    table = make_table(3)
    phone = seated_phone(table, to_move(table))
    state, sql = statements_of(lambda: phone.get(url("state", table)))
    assert state.status_code == 200 and state.json()["on_turn"]
    assert len(sql) == STATE_STATEMENTS, [statement[:60] for statement in sql]


def test_a_moves_table_has_no_index_of_its_own_beside_those_that_lead_with_it() -> None:
    """A move's key lookup (table, key) is planned on the key's index, never on the table's alone
    (which would read every move of the game at every move; see Tally.night)."""
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, Move._meta.db_table)
    indexes = [details["columns"] for details in constraints.values() if details["index"] or details["unique"]]
    assert ["table_id"] not in indexes, indexes
    assert ["table_id", "key"] in indexes and ["table_id", "number"] in indexes, indexes
