"""A key reused with different content is refused (409, with a message) and changes nothing; the
same key with the same content is a retry, counted once (issue 16, T3; docs/DESIGN.md §3): taps,
undos, the host's corrections, arrivals and departures."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse

from games.night import actions
from games.night.models import Night, Player, Tally
from tests.builders import (
    fresh,
    make_night,
    night_host_browser,
    phone_of,
    play_rounds,
    seat_of,
    someone_at,
    started_night,
    tap,
)

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.fixture
def night() -> Night:
    return started_night()


def points_at_table_2(night: Night) -> list[tuple[str, int]]:
    return sorted(Tally.objects.filter(night=night, table_round__number=2).values_list("team", "points"))


@pytest.mark.parametrize("other", [{"points": 1}, {"team": "other"}, {"bunco": True}])
def test_it_refuses_a_tap_that_reuses_a_key_with_other_content(night, other):
    name = someone_at(night, 2)
    seat = seat_of(night, name)
    phone = phone_of(night, name)
    assert tap(phone, night, table=2, team=seat.team, points=2, key="k1").status_code == 200

    data: dict[str, object] = {"table": 2, "team": seat.team, "points": 2, "key": "k1"}
    if "points" in other:
        data["points"] = other["points"]
    if "team" in other:
        data["team"] = "B" if seat.team == "A" else "A"
    if "bunco" in other:
        del data["points"]
        data["bunco_player"] = seat.player.pk
    response = tap(phone, night, **data)

    assert response.status_code == 409
    assert "key of an earlier, different one" in response.json()["error"]
    assert points_at_table_2(night) == [(seat.team, 2)]


def test_the_same_tap_sent_again_is_a_retry_counted_once(night):
    name = someone_at(night, 2)
    seat = seat_of(night, name)
    phone = phone_of(night, name)
    answers = [tap(phone, night, table=2, team=seat.team, points=2, key="k1") for _ in range(2)]
    assert [answer.status_code for answer in answers] == [200, 200]
    assert answers[1].json()[seat.team.lower()] == 2
    assert points_at_table_2(night) == [(seat.team, 2)]


def test_it_refuses_an_undo_that_reuses_the_key_of_another_undo_of_the_host(night):
    seat = seat_of(night, someone_at(night, 2))
    first = actions.record_tally(night=night, table_number=2, team=seat.team, points=2)
    second = actions.record_tally(night=night, table_number=2, team=seat.team, points=5)
    actions.undo_tally(night=night, table_number=2, tally_id=first.pk, by_host=True, key="u1")
    again = actions.undo_tally(night=night, table_number=2, tally_id=first.pk, by_host=True, key="u1")
    assert again.undoes_id == first.pk
    with pytest.raises(actions.KeyReused):
        actions.undo_tally(night=night, table_number=2, tally_id=second.pk, by_host=True, key="u1")
    assert not Tally.objects.filter(undoes=second).exists()
    assert Tally.objects.filter(night=night, kind=Tally.Kind.UNDO).count() == 1


def correct(host, night: Night, **data):
    return host.post(reverse("games:host_correct", args=[night.code]), {"round": 1, "table": 2, **data},
                     headers=HTMX)


def test_it_refuses_a_correction_that_reuses_a_key_with_other_points_and_counts_a_retry_once(night):
    host = night_host_browser(night)
    assert correct(host, night, team="A", points=3, key="c1").status_code == 200
    assert correct(host, night, team="A", points=3, key="c1").status_code == 200  # the answer was lost
    refused = correct(host, night, team="A", points=4, key="c1")
    assert refused.status_code == 409
    assert "key of an earlier, different one" in refused.text
    assert correct(host, night, team="B", points=3, key="c1").status_code == 409
    assert points_at_table_2(night) == [("A", 3)]


@pytest.fixture
def between_rounds() -> Night:
    """13 players (3 ghosts), round 2 seated and not started."""
    night = make_night(13, seed=4)
    play_rounds(night, random.Random(4), 1)
    return fresh(night)


def arrive(host, night: Night, name: str, key: str):
    return host.post(reverse("games:host_arrival", args=[night.code]), {"name": name, "round": 2, "key": key},
                     headers=HTMX)


def leave(host, night: Night, player: Player, key: str):
    return host.post(reverse("games:host_leave", args=[night.code]), {"player": player.pk, "round": 2, "key": key},
                     headers=HTMX)


def test_it_refuses_an_arrival_or_a_departure_that_reuses_the_key_of_another(between_rounds):
    night = between_rounds
    host = night_host_browser(night)
    assert arrive(host, night, "Nia", "a1").status_code == 200
    assert arrive(host, night, "Nia", "a1").status_code == 200  # a retry: Nia arrives once
    refused = arrive(host, night, "Zoe", "a1")
    assert refused.status_code == 409 and "key of an earlier, different one" in refused.text
    leaver = night.players.get(name=someone_at(fresh(night), 2))
    assert leave(host, night, leaver, "a1").status_code == 409
    assert list(night.players.filter(name__in=["Nia", "Zoe"]).values_list("name", flat=True)) == ["Nia"]
    assert leaver.name in {name for seats in fresh(night).round_obj().seating() for name in seats}

    assert leave(host, night, leaver, "l1").status_code == 200
    other = night.players.get(name=someone_at(fresh(night), 1))
    assert leave(host, night, other, "l1").status_code == 409
    assert other.name in {name for seats in fresh(night).round_obj().seating() for name in seats}
    assert night.players.filter(is_ghost=True).count() == 3 + 1  # one new ghost: the leaver's, once
