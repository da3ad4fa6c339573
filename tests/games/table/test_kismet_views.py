"""Kismet's pages through Django's client: opening a table with a seat of real dice, a phone's
roll, hold and score, the options best first and the 0-only boxes, refusals as 4xx with nothing
changed, the hint, the screen, the replay with its printable sheet."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from games.table.models import Table
from tests.builders import make_table, play_out, seated_phone
from tests.builders import table_url as url
from tests.games.table.test_views import move, unchanged

pytestmark = pytest.mark.django_db

NEW_KISMET = {"game": "kismet", "goal": "2000", "vengeance": "2500",
              "name_0": "Ann", "who_0": "person", "real_0": "on",
              "name_1": "Bob", "who_1": "person",
              "name_2": "Robo", "who_2": "strong", "real_2": "on"}


def kismet_table(**fields) -> Table:
    fields.setdefault("options", {"real_seats": [0]})
    return make_table(2, game="kismet", **fields)


def test_play_a_game_opens_a_kismet_table_with_a_seat_of_real_dice_and_a_bot_on_server_dice() -> None:
    opener = Client()
    page = opener.get(reverse("tables:new")).content.decode()
    assert "Kismet" in page and "rolls real dice" in page
    response = opener.post(reverse("tables:new"), NEW_KISMET)
    table = Table.objects.get()
    assert response.status_code == 302 and table.game == "kismet"
    assert table.options == {"real_seats": [0], "no_straight": False, "hint": False}
    assert table.loaded().view(None).public["real_dice"] == [True, False, False]


def test_a_solo_kismet_table_opens() -> None:
    response = Client().post(reverse("tables:new"), {"game": "kismet", "goal": "2000", "vengeance": "2500",
                                                     "name_0": "Solo", "who_0": "person"})
    assert response.status_code == 302


def test_a_phone_types_in_real_dice_and_sees_the_options_best_first_and_the_zero_boxes() -> None:
    table = kismet_table()
    ann = seated_phone(table, 0)
    page = ann.get(url("table", table)).content.decode()
    assert "js/games/kismet/table.js" in page and "types in real dice" in page
    answer = move(ann, table, "enter", dice=["4", "5", "5", "5", "5"]).json()
    assert answer["public"]["options"][0] == ["four_of_a_kind", 49]
    assert ["fives", 20] in answer["public"]["options"] and "sixes" in answer["public"]["zeros"]
    assert {"kind": "enter"} in answer["legal_moves"] and len(answer["legal_moves"]) == 16
    scored = move(ann, table, "score", box="four_of_a_kind").json()
    assert scored["public"]["scores"] == [49, 0]


def test_a_phone_of_server_dice_rolls_holds_and_scores() -> None:
    table = kismet_table(options={})
    ann = seated_phone(table, 0)
    first = move(ann, table, "roll").json()["public"]["dice"]
    second = move(ann, table, "roll", keep=[str(first[0])]).json()["public"]
    assert second["rolls"] == 2 and first[0] in second["dice"]
    assert move(ann, table, "score", box="yarborough").json()["public"]["turn"] == 1


@pytest.mark.parametrize("fields", [
    {"kind": "enter", "dice": ["1", "2", "3", "4", "5", "6"]},
    {"kind": "enter", "dice": ["7", "1", "1", "1", "1"]},
    {"kind": "enter", "dice": ["1", "2", "3", "4", "5", "6", "1"]},
    {"kind": "score", "box": "Ones!"},
    {"kind": "roll"},
], ids=["six dice", "a 7", "seven dice", "a malformed box", "a roll on a seat of real dice"])
def test_bad_input_is_a_400_with_a_message_and_changes_nothing(fields) -> None:
    table = kismet_table()
    ann = seated_phone(table, 0)
    before = Table.objects.get(pk=table.pk)
    response = ann.post(url("move", table), fields)
    assert response.status_code == 400 and response.json()["error"]
    assert unchanged(table, before)


def test_a_box_already_filled_and_a_move_out_of_turn_are_refused_and_change_nothing() -> None:
    table = make_table(1, game="kismet", options={"real_seats": [0]})
    ann = seated_phone(table, 0)
    move(ann, table, "enter", dice=["1", "1", "1", "2", "2"])
    move(ann, table, "score", box="full_house")
    move(ann, table, "enter", dice=["1", "1", "1", "2", "2"])
    before = Table.objects.get(pk=table.pk)
    refused = move(ann, table, "score", box="full_house")
    assert refused.status_code == 400 and "already filled" in refused.json()["error"]
    assert unchanged(table, before)
    two = kismet_table()
    bob = seated_phone(two, 1)
    before = Table.objects.get(pk=two.pk)
    assert move(bob, two, "roll").status_code == 409 and unchanged(two, before)


def test_the_hint_is_shown_only_on_a_table_that_asks_for_it() -> None:
    plain, hinted = kismet_table(), kismet_table(options={"real_seats": [0], "hint": True})
    phones = [seated_phone(table, 0) for table in (plain, hinted)]
    for phone, table in zip(phones, (plain, hinted), strict=True):
        move(phone, table, "enter", dice=["3", "3", "3", "3", "3"])
    assert "hint" not in phones[0].get(url("state", plain)).json()
    assert phones[1].get(url("state", hinted)).json()["hint"] == "kismet"


def test_the_screen_and_the_replay_with_its_printable_sheet() -> None:
    table = play_out(make_table(2, game="kismet", options={}, bots=["threshold", "easy"], seed=8))
    screen = Client().get(url("screen", table, table.screen_token)).content.decode()
    assert 'id="sheets"' in screen and "js/games/kismet/table.js" in screen
    replay = Client().get(url("replay", table)).content.decode()
    assert "The sheets" in replay and "Basic total" in replay and "Print the sheets" in replay
    assert "rolled" in replay and "scored" in replay
    check = Client().get(url("check", table)).content.decode()
    assert "Verified." in check
