"""Ninety-Nine or Bust through the site: "Play a game" opens one, a phone plays its cards (a card
not held, past 99 or out of turn is a 4xx with a message), and the commands of docs/CONTRACT.md."""

from __future__ import annotations

import hashlib
import io
import json

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from games.rules import ninety_nine
from games.table.models import Table
from tests.builders import seated_phone
from tests.builders import table_url as url
from tests.games.table.ninety_nine_tables import hand_of, ninety_nine_table, state_of

pytestmark = pytest.mark.django_db


def test_play_a_game_opens_a_ninety_nine_table_with_the_markers_chosen() -> None:
    opener = Client()
    response = opener.post(reverse("tables:new"), {
        "game": "ninety_nine", "goal": "2000", "vengeance": "2500", "markers": "2",
        "name_0": "Ann", "who_0": "person", "name_1": "Bob", "who_1": "easy", "name_2": "Cy", "who_2": "strong"})
    assert response.status_code == 302
    table = Table.objects.get()
    assert table.game == "ninety_nine" and table.options == {"markers": 2}
    assert state_of(table)["markers"] == [2, 2, 2]
    page = opener.get(response["Location"]).content.decode()
    assert "Ninety-Nine or Bust" in page
    # A card game's promise is of the deal, not of dice.
    assert "Fair deal: the seed's SHA-256" in page and "Fair dice" not in page
    assert "check every shuffle and every card dealt" in page


def test_a_phone_plays_a_card_of_its_hand_and_gets_its_refilled_hand_back() -> None:
    table = ninety_nine_table(3)
    phone = seated_phone(table, 1)
    page = phone.get(url("table", table)).content.decode()
    assert "js/games/ninety_nine/table.js" in page
    card = hand_of(table, 1)[0]
    answer = phone.post(url("move", table), {"kind": "play", "card": str(card), "key": "a"})
    assert answer.status_code == 200
    body = answer.json()
    assert body["public"]["top_card"] == card and len(body["private"]["hand"]) == 3
    assert body["private"]["hand"] == hand_of(table, 1)
    again = phone.post(url("move", table), {"kind": "play", "card": str(card), "key": "a"})
    assert again.status_code == 200 and Table.objects.get(pk=table.pk).moves_made == 1


def test_a_card_not_held_past_99_or_out_of_turn_is_a_4xx_with_a_message_and_nothing_changes() -> None:
    table = ninety_nine_table(2, options={"markers": 1, "deck": {"10": 20, "hold": 20}})
    phones = [seated_phone(table, 0), seated_phone(table, 1)]
    before = Table.objects.get(pk=table.pk).state
    out_of_turn = phones[0].post(url("move", table), {"kind": "play", "card": str(hand_of(table, 0)[0])})
    assert out_of_turn.status_code == 409 and "Bea" in out_of_turn.json()["error"]
    missing = phones[1].post(url("move", table), {"kind": "play", "card": "7"})
    assert missing.status_code == 400 and "holds" in missing.json()["error"]
    malformed = phones[1].post(url("move", table), {"kind": "play", "card": "eleven"})
    assert malformed.status_code == 400 and malformed.json()["error"]
    assert Table.objects.get(pk=table.pk).state == before
    for _ in range(200):  # tens up to 90, then holds until the seat on turn holds a 10 too
        seat = state_of(table)["turn"]
        if state_of(table)["count"] >= 90 and 10 in hand_of(table, seat):
            break
        card = "10" if 10 in hand_of(table, seat) and state_of(table)["count"] < 90 else "hold"
        assert phones[seat].post(url("move", table), {"kind": "play", "card": card}).status_code == 200
    assert state_of(table)["count"] >= 90 and 10 in hand_of(table, seat)
    before = Table.objects.get(pk=table.pk).state
    past = phones[seat].post(url("move", table), {"kind": "play", "card": "10"})
    assert past.status_code == 400 and "may not pass 99" in past.json()["error"]
    assert Table.objects.get(pk=table.pk).state == before


def test_the_phone_shows_the_count_each_card_would_make_and_none_for_a_card_past_99() -> None:
    table = ninety_nine_table(2)
    payload = seated_phone(table, 1).get(url("state", table)).json()
    hand = payload["private"]["hand"]
    assert payload["private"]["makes"] == [ninety_nine.play_card(0, card) for card in hand]


def simulate(*args: str) -> dict:
    out = io.StringIO()
    call_command("simulate_table", *args, "--json", stdout=out)
    return json.loads(out.getvalue())


def test_simulate_table_plays_ninety_nine_by_the_contract_and_verify_table_confirms_it() -> None:
    out = simulate("--game", "ninety_nine", "--players", "3", "--seed", "5", "--markers", "2")
    assert out["game"] == "ninety_nine" and out["players"] == 3 and len(out["names"]) == 3
    assert hashlib.sha256(out["seed"].encode()).hexdigest() == out["commitment"]
    assert sorted(out["markers"].values()) == [0, 0, out["markers"][out["winner"]]]
    assert out["markers"][out["winner"]] > 0
    lost = [deal["loser"] for deal in out["deals"]]
    assert len(lost) == 2 * 3 - out["markers"][out["winner"]] - 0 and None not in lost
    for deal in out["deals"]:
        count = 0
        for play in deal["plays"]:
            count = ninety_nine.play_card(count, play["card"])
            assert play["count"] == count
    err = io.StringIO()
    with pytest.raises(SystemExit) as exited:
        call_command("verify_table", out["code"], stdout=err, stderr=err)
    assert exited.value.code == 0 and err.getvalue().startswith("verified")
