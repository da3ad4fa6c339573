"""The live hint under the names of the night form speaks proper English and flags what the form
would refuse, from the same rule the form and the start action use (issue 9, fault 12: "1 players
… 1 table(s)"; duplicate or over-long names passed the hint and were refused only on submit)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from games.night.forms import NewNightForm
from games.night.models import Night
from tests.builders import NAMES

pytestmark = pytest.mark.django_db

LONG = "Bartholomew Fitzgerald-Montgomery the Third"  # 43 letters: a name takes at most 40


def hint(names: list[str]) -> str:
    return Client().post(reverse("games:night_shape"), {"names": "\n".join(names)}).content.decode()


def test_the_hint_says_one_player_and_one_table_in_the_singular():
    page = hint(NAMES[:4])
    assert "4 players · 1 table · no ghosts" in page
    assert "table(s)" not in page and "1 tables" not in page
    page = hint(NAMES[:3])
    assert "3 players · 1 table · 1 ghost seat" in page


@pytest.mark.parametrize("count", [1, 2])
def test_too_few_players_are_flagged_in_words_without_a_plural_for_one(count):
    page = hint(NAMES[:count])
    assert "at least 3 players" in page
    assert "1 players" not in page and "table(s)" not in page
    assert "shape-problem" in page


def test_a_name_on_the_list_twice_is_flagged_by_the_hint_as_the_form_refuses_it():
    names = [*NAMES[:6], "ada"]
    page = hint(names)
    assert "“ada” is on the list twice" in page
    assert "shape-problem" in page
    form = NewNightForm({"names": "\n".join(names), "buy_in": "5"})
    assert not form.is_valid()
    assert "“ada” is on the list twice" in form.errors["names"][0]


def test_an_over_long_name_is_flagged_by_the_hint_as_the_form_refuses_it():
    names = [*NAMES[:6], LONG]
    page = hint(names)
    assert "too long for a name" in page
    assert "shape-problem" in page
    response = Client().post(reverse("games:night_new"), {"names": "\n".join(names), "buy_in": "5"})
    assert response.status_code == 400
    assert "too long for a name" in response.content.decode()
    assert not Night.objects.exists()


def test_a_good_list_is_not_flagged():
    assert "shape-problem" not in hint(NAMES[:13])
    assert "13 players · 4 tables · 3 ghost seats" in hint(NAMES[:13])
