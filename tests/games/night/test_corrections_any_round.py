"""The host corrects any round of the night, not only the last, and sees before applying it what the
correction changes: the scores, the winner, everyone's wins and losses, the next round's seats and
the prizes (games.actions.describe_correction, correct_tally)."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse

from games.night import actions
from games.night.models import Night, Tally
from games.rules import bunco
from tests.builders import (
    alert_of,
    fresh,
    make_night,
    night_host_browser,
    play_round,
    play_rounds,
    seating_of,
    table,
)

pytestmark = pytest.mark.django_db


def flipping(night: Night, table_number: int, round_number: int) -> dict[str, object]:
    """A correction that gives the losers of a decided table one point more than the winners."""
    decided = table(night, table_number, round_number)
    loser = "B" if decided.winner == "A" else "A"
    totals = decided.totals()
    return {"table_number": table_number, "team": loser, "points": totals[decided.winner] - totals[loser] + 1,
            "round_number": round_number}


def test_the_check_of_a_correction_in_an_earlier_round_names_the_new_winners_and_the_rounds_that_stay() -> None:
    night = make_night(12, seed=8)
    play_rounds(night, random.Random(8), 5)
    correction = flipping(night, 2, 2)
    effect = actions.describe_correction(night=fresh(night), **correction)  # type: ignore[arg-type]
    assert effect.changes_winner
    assert effect.winner_after == correction["team"]
    assert effect.played_since == (3, 5)
    assert effect.reseats_round == 0
    winners = {player.name for player in effect.teams[str(correction["team"])]}
    assert set(effect.new_winners.split(" & ")) == winners
    assert not Tally.objects.filter(night=night, by_host=True).exists()  # a check changes nothing


def test_a_check_refuses_what_the_correction_would_refuse() -> None:
    night = make_night(12, seed=8)
    play_rounds(night, random.Random(8), 2)
    with pytest.raises(actions.BadTally, match="below 0"):
        actions.describe_correction(night=night, table_number=2, team="A", points=-99, round_number=1)
    with pytest.raises(actions.BadTally, match="no table 9"):
        actions.describe_correction(night=night, table_number=9, team="A", points=2, round_number=1)
    with pytest.raises(actions.NotNow, match="not started"):
        actions.describe_correction(night=night, table_number=2, team="A", points=2, round_number=3)


def test_a_correction_of_the_round_just_played_seats_the_next_round_again_from_the_corrected_result() -> None:
    night = make_night(12, seed=8)
    play_round(night, random.Random(8))
    correction = flipping(night, 2, 1)
    assert actions.describe_correction(night=fresh(night), **correction).reseats_round == 2  # type: ignore[arg-type]
    actions.correct_tally(night=fresh(night), **correction)  # type: ignore[arg-type]
    winners = [table(night, number, 1).winner for number in range(1, 4)]
    expected = bunco.next_seating_with(seating_of(night, 1), winners, bunco.OFFICIAL)
    assert seating_of(night, 2) == expected
    assert fresh(night).current_round == 2


def test_a_correction_of_an_earlier_round_leaves_the_rounds_played_since_as_they_were() -> None:
    night = make_night(12, seed=8)
    play_rounds(night, random.Random(8), 5)
    seats = {number: seating_of(night, number) for number in range(2, 7)}
    actions.correct_tally(night=fresh(night), **flipping(night, 2, 2))  # type: ignore[arg-type]
    assert {number: seating_of(night, number) for number in range(2, 7)} == seats


def test_a_correction_after_the_prizes_works_them_out_again_from_the_corrected_record() -> None:
    night = make_night(12, seed=8)
    play_rounds(night, random.Random(8), bunco.ROUNDS)
    night = fresh(night)
    actions.award_prizes(night)
    correction = flipping(night, 3, 10)
    assert actions.describe_correction(night=night, **correction).prizes_again  # type: ignore[arg-type]
    actions.correct_tally(night=night, **correction)  # type: ignore[arg-type]
    assert not night.awards.exists()
    awards = actions.award_prizes(night)
    assert sum(award.amount_cents for award in awards) == night.pot_cents()


def test_a_correction_sent_twice_with_its_key_is_applied_once() -> None:
    night = make_night(12, seed=8)
    play_rounds(night, random.Random(8), 2)
    actions.correct_tally(night=night, table_number=2, team="A", points=3, round_number=1, key="fix-1")
    actions.correct_tally(night=night, table_number=2, team="A", points=3, round_number=1, key="fix-1")
    assert Tally.objects.filter(night=night, by_host=True).count() == 1


def test_the_host_page_shows_the_check_then_applies_it() -> None:
    night = make_night(12, seed=8)
    play_rounds(night, random.Random(8), 3)
    correction = flipping(night, 2, 1)
    host = night_host_browser(night)
    form = {"round": "1", "table": "2", "team": correction["team"], "points": str(correction["points"])}
    check = host.post(reverse("games:host_correct_check", args=[night.code]), form, headers={"HX-Request": "true"})
    assert check.status_code == 200
    assert "The winner changes from team" in check.text
    assert "Rounds 2–3 were played from the old result" in check.text
    assert "Apply correction" in check.text
    assert not Tally.objects.filter(night=night, by_host=True).exists()
    applied = host.post(reverse("games:host_correct", args=[night.code]), {**form, "key": "k-7"},
                        headers={"HX-Request": "true"})
    assert applied.status_code == 200
    assert "Correction applied: round 1, table 2" in applied.text
    assert table(night, 2, 1).winner == correction["team"]


def test_the_check_of_a_bad_correction_says_why_with_a_4xx() -> None:
    night = make_night(12, seed=8)
    play_rounds(night, random.Random(8), 1)
    host = night_host_browser(night)
    response = host.post(reverse("games:host_correct_check", args=[night.code]),
                         {"round": "1", "table": "2", "team": "A", "points": "²"}, headers={"HX-Request": "true"})
    assert response.status_code == 400
    assert alert_of(response) == "The points must be a whole number, written with the digits 0 to 9."


def test_the_host_strikes_out_an_entry_of_an_earlier_round_from_that_round_s_entries() -> None:
    night = make_night(12, seed=8)
    play_rounds(night, random.Random(8), 3)
    mistaken = Tally.objects.filter(night=night, table_round__round__number=1, table_round__number=1).first()
    assert mistaken is not None, "the head table always scores"
    number = mistaken.table_round.number
    host = night_host_browser(night)
    page = host.get(reverse("games:night_table", args=[night.code, number]) + "?round=1")
    assert page.status_code == 200
    assert f"Table {number}, round 1" in page.text
    assert reverse("games:host_undo", args=[night.code, mistaken.pk]) in page.text
    struck = host.post(reverse("games:host_undo", args=[night.code, mistaken.pk]))
    assert struck.status_code == 302
    assert struck["Location"].endswith("?round=1")
    assert Tally.objects.filter(undoes=mistaken).exists()


@pytest.mark.parametrize("bad", ["0", "99", "²", "9" * 5000])
def test_the_entries_of_a_round_that_is_not_there_are_refused_plainly(bad: str) -> None:
    night = make_night(12, seed=8)
    play_rounds(night, random.Random(8), 1)
    response = night_host_browser(night).get(reverse("games:night_table", args=[night.code, 2]) + f"?round={bad}")
    assert response.status_code == 400
    assert alert_of(response).startswith("The round must be a whole number")  # 1 to 2, or in digits
