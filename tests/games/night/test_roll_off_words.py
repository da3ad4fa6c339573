"""What a phone says of a table decided by a roll-off (issue 42): the roll-off's score and the round's,
never "You won this round, 2 to 2". The visible line and the screen reader's sentence are one
source (templates/games/play.html#result)."""

from __future__ import annotations

import html
import re

import pytest
from django.urls import reverse

from games.night import actions
from games.night.models import Night
from tests.builders import add, joined_phone, real_seat, started_night, tally

pytestmark = pytest.mark.django_db


def phone_page(night: Night, table_number: int, team: str) -> str:
    """The play page of a real player of `team` at `table_number`, with its tags taken out."""
    phone = joined_phone(night, real_seat(night, table_number, team))
    response = phone.get(reverse("games:play", args=[night.code]))
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def said(page: str) -> str:
    """The sentence a screen reader is told (the page's data-announce="table" paragraph)."""
    found = re.search(r'data-announce="table"[^>]*>(.*?)</p>', page, re.S)
    assert found is not None
    return re.sub(r"<[^>]+>", "", found.group(1)).strip()


def shown_result(page: str) -> str:
    found = re.search(r'<p class="result[^"]*">(.*?)</p>', page, re.S)
    assert found is not None
    return " ".join(re.sub(r"<[^>]+>", "", found.group(1)).split())


def rolled_off(night: Night) -> None:
    """Table 2 ties 2 to 2 when the bell rings; team A wins its roll-off 3 to 1."""
    add(night, 2, "A", 2)
    add(night, 2, "B", 2)
    add(night, 1, "A", 21)  # the bell
    actions.finish_turn(night=night, table_number=2)
    tally(night, 2, "A", 2)
    tally(night, 2, "B", 1)
    tally(night, 2, "A", 1)
    actions.finish_roll_off(night=night, table_number=2)


def test_after_a_roll_off_the_phone_says_the_roll_offs_score_and_the_rounds():
    night = started_night(seed=3)
    add(night, 3, "A", 1)  # table 3 still plays: the round stays at the bell
    rolled_off(night)

    winner = phone_page(night, 2, "A")
    loser = phone_page(night, 2, "B")

    assert said(winner) == "You won the roll-off, 3 to 1 (the round ended 2 to 2). Waiting for the other tables."
    assert said(loser) == "You lost the roll-off, 1 to 3 (the round ended 2 to 2). Waiting for the other tables."
    assert shown_result(winner) == "You won the roll-off, 3 to 1 (the round ended 2 to 2)! Waiting for the other tables…"
    assert shown_result(loser) == "You lost the roll-off, 1 to 3 (the round ended 2 to 2). Waiting for the other tables…"


def test_a_table_won_on_points_still_says_the_rounds_score():
    night = started_night(seed=3)
    add(night, 2, "A", 4)
    add(night, 2, "B", 2)
    add(night, 3, "A", 1)
    add(night, 1, "A", 21)
    actions.finish_turn(night=night, table_number=2)

    winner = phone_page(night, 2, "A")

    assert said(winner) == "You won this round, 4 to 2. Waiting for the other tables."
    assert shown_result(winner) == "You won this round! Waiting for the other tables…"
