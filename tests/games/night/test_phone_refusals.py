"""Every refusal a phone's scoring buttons can get is JSON with a message that says what happened
and what to do, and the page's script shows it (issue 9, fault 10: an undo after the bell said
"That tally was not added."; a phone that never joined got an HTML 403 and showed "Not saved.")."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from games.night import actions
from tests.builders import add, joined_phone, make_night, seated, started_night, tap, undo

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
TALLY_JS = Path(__file__).resolve().parents[3] / "static" / "js" / "tally.js"


def refusal_of(response) -> str:
    assert response["Content-Type"].startswith("application/json"), response.content[:200]
    return response.json()["error"]


def test_an_undo_after_the_bell_at_the_head_table_says_the_undo_was_not_made_and_whom_to_ask():
    night = started_night()
    roller = seated(night, 1, 0)
    phone = joined_phone(night, roller)
    add(night, 1, "A", 21, entered_by=roller)  # the bell: the head table stops
    response = undo(phone, night, table="1", key="u-1")
    assert response.status_code == 409
    message = refusal_of(response)
    assert "tally was not added" not in message
    assert "undo" in message.lower()
    assert "host" in message


def test_an_undo_at_a_decided_table_says_the_entry_stands_and_whom_to_ask():
    night = started_night()
    player = seated(night, 2, 0)
    phone = joined_phone(night, player)
    add(night, 2, "A", 2, entered_by=player)
    add(night, 1, "A", 21)
    actions.finish_turn(night=night, table_number=2)
    message = refusal_of(undo(phone, night, table="2", key="u-1"))
    assert "tally was not added" not in message
    assert "host" in message


def test_an_undo_before_the_round_starts_says_there_is_nothing_to_undo_yet():
    night = make_night()
    phone = joined_phone(night, seated(night, 2, 0))
    message = refusal_of(undo(phone, night, table="2", key="u-1"))
    assert "tally was not added" not in message
    assert "nothing to undo" in message


@pytest.mark.parametrize("verb", ["tally", "undo"])
def test_a_phone_that_never_joined_gets_json_saying_to_scan_the_code(verb):
    night = started_night()
    response = Client().post(reverse(f"games:{verb}", args=[night.code]),
                             {"table": "1", "team": "A", "points": "1", "key": "k"}, headers=HTMX)
    assert response.status_code == 403
    assert "scan your table's QR code" in refusal_of(response)


@pytest.mark.parametrize("verb", ["tally", "undo"])
def test_a_phone_whose_seat_was_handed_over_gets_json_saying_so(verb):
    night = started_night()
    player = seated(night, 2, 0)
    phone = joined_phone(night, player)
    actions.release_seat(night=night, player=player)
    response = phone.post(reverse(f"games:{verb}", args=[night.code]),
                          {"table": "2", "team": "A", "points": "1", "key": "k"}, headers=HTMX)
    assert response.status_code == 403
    assert f"no longer playing as {player.name}" in refusal_of(response)


def test_a_tap_for_a_night_that_does_not_exist_gets_json_saying_so():
    response = tap(Client(), type("Gone", (), {"code": "no-such-night"})(), table=1, team="A", points=1)
    assert response.status_code == 404
    assert "no longer exists" in refusal_of(response)


def test_the_phones_script_shows_the_servers_message_and_says_what_to_do_when_there_is_none():
    script = TALLY_JS.read_text()
    assert "answer.error" in script
    assert '"Not saved."' not in script  # never a bare "Not saved." without what to do
    for status in ("403", "404", "409", "429"):
        assert status in script, f"no message for a {status} without JSON"


def test_a_tap_after_the_table_was_decided_says_it_was_not_added_and_whom_to_ask():
    night = started_night()
    player = seated(night, 2, 0)
    phone = joined_phone(night, player)
    add(night, 2, "A", 2)
    add(night, 1, "A", 21)
    actions.finish_turn(night=night, table_number=2)
    response = tap(phone, night, table="2", team="A", points="1", key="late")
    assert response.status_code == 409
    message = refusal_of(response)
    assert "that tally was not added" in message
    assert "ask the host" in message
