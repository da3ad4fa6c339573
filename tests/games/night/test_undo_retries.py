"""An undo carries an idempotency key like a tap: a phone that lost the answer to its undo and
sends it again takes back one entry, not two (docs/DESIGN.md §3)."""

from __future__ import annotations

import pytest

from games.night.models import Night, Tally
from tests.builders import phone_of, seat_of, someone_at, started_night, tap, undo

pytestmark = pytest.mark.django_db


@pytest.fixture
def night() -> Night:
    """The shared 12-player night with round 1 under way."""
    return started_night()


def test_a_retried_undo_whose_answer_was_lost_takes_back_one_entry(night):
    name = someone_at(night, 2)
    seat = seat_of(night, name)
    phone = phone_of(night, name)
    for points, key in ((1, "t1"), (2, "t2"), (5, "t3")):
        assert tap(phone, night, table=2, team=seat.team, points=points, key=key).status_code == 200

    first = undo(phone, night, key="u1")
    retried = undo(phone, night, key="u1")  # the first answer never reached the phone

    assert first.status_code == retried.status_code == 200
    assert seat.table_round.totals()[seat.team] == 1 + 2  # only the +5 was taken back
    assert retried.json()[seat.team.lower()] == 3
    assert Tally.objects.filter(night=night, kind=Tally.Kind.UNDO).count() == 1


def test_two_undos_with_their_own_keys_take_back_two_entries(night):
    name = someone_at(night, 2)
    seat = seat_of(night, name)
    phone = phone_of(night, name)
    for points, key in ((1, "t1"), (2, "t2"), (5, "t3")):
        tap(phone, night, table=2, team=seat.team, points=points, key=key)

    assert undo(phone, night, key="u1").status_code == 200
    assert undo(phone, night, key="u2").status_code == 200

    assert seat.table_round.totals()[seat.team] == 1
    assert Tally.objects.filter(night=night, kind=Tally.Kind.UNDO).count() == 2


def test_an_undo_cannot_reuse_a_taps_key(night):
    name = someone_at(night, 2)
    seat = seat_of(night, name)
    phone = phone_of(night, name)
    tap(phone, night, table=2, team=seat.team, points=2, key="t1")

    response = undo(phone, night, key="t1")

    assert response.status_code == 409  # a key reused for other content (issue 16, T3)
    assert "key" in response.json()["error"]
    assert seat.table_round.totals()[seat.team] == 2


def test_a_malformed_undo_key_is_refused_and_changes_nothing(night):
    name = someone_at(night, 2)
    seat = seat_of(night, name)
    phone = phone_of(night, name)
    tap(phone, night, table=2, team=seat.team, points=2, key="t1")

    response = undo(phone, night, key="x" * 65)

    assert response.status_code == 400
    assert seat.table_round.totals()[seat.team] == 2
