"""Someone arrives late or leaves early (games.actions.seat_late_arrival, let_player_leave): between
rounds, a late arrival takes a ghost's seat and someone leaving leaves a ghost in theirs."""

from __future__ import annotations

import random

import pytest
from django.test import Client
from django.urls import reverse

from games.links import join_path
from games.night import actions
from games.night.actions import BadTally, NotNow
from games.night.models import Night, Player
from games.rules import bunco
from tests.builders import (
    fresh,
    ghosts_of,
    joined_phone,
    make_night,
    night_host_browser,
    play_rounds,
    played_night,
    seated_names,
    seating_of,
)

pytestmark = pytest.mark.django_db


def test_a_late_arrival_takes_a_ghosts_seat_in_the_seated_round_and_plays_on_from_there() -> None:
    night = make_night(13, seed=4)
    play_rounds(night, random.Random(4), 3)
    ghost = night.players.filter(is_ghost=True).first()
    assert ghost is not None and ghost.name in seated_names(night, 4)
    nia = actions.seat_late_arrival(fresh(night), name="Nia", ghost=ghost, round_number=4)
    assert "Nia" in seated_names(night, 4)
    assert ghost.name not in seated_names(night, 4)
    play_rounds(night, random.Random(5), 2)
    assert "Nia" in seated_names(night, 6)
    played = nia.seats.filter(table_round__status="done").count()
    assert played == 2  # rounds 4 and 5: nothing before she came


def test_a_late_arrival_adds_her_buy_in_to_the_pot() -> None:
    night = make_night(13, seed=4, buy_in_cents=500)
    actions.seat_late_arrival(night, name="Nia", round_number=1)
    assert fresh(night).pot_cents() == 14 * 500


def test_without_a_ghost_seat_a_late_arrival_is_refused_plainly() -> None:
    night = make_night(12, seed=1)
    with pytest.raises(NotNow, match="no ghost's seat"):
        actions.seat_late_arrival(night, name="Nia", round_number=1)
    assert not night.players.filter(name="Nia").exists()


def test_a_late_arrival_with_a_name_already_on_the_list_is_refused() -> None:
    night = make_night(13, seed=4)
    taken = night.players.real().first()
    assert taken is not None
    with pytest.raises(BadTally, match="already on tonight's list"):
        actions.seat_late_arrival(night, name=taken.name.upper(), round_number=1)


def test_nobody_arrives_or_leaves_while_a_round_is_under_way() -> None:
    night = make_night(13, seed=4)
    actions.start_round(night)
    before = seating_of(night, 1)
    leaver = night.players.real().first()
    assert leaver is not None
    with pytest.raises(NotNow, match="under way"):
        actions.seat_late_arrival(night, name="Nia", round_number=1)
    with pytest.raises(NotNow, match="under way"):
        actions.let_player_leave(night, player=leaver, round_number=1)
    assert seating_of(night, 1) == before


def test_a_page_of_an_earlier_round_changes_nothing() -> None:
    night = make_night(13, seed=4)
    play_rounds(night, random.Random(4), 1)
    with pytest.raises(NotNow, match="reload the page"):
        actions.seat_late_arrival(fresh(night), name="Nia", round_number=1)


def test_the_same_arrival_sent_twice_with_its_key_seats_one_person() -> None:
    night = make_night(13, seed=4)
    first = actions.seat_late_arrival(night, name="Nia", round_number=1, key="k1")
    again = actions.seat_late_arrival(night, name="Nia", round_number=1, key="k1")
    assert first == again
    assert night.players.filter(name="Nia").count() == 1


def test_someone_leaving_leaves_a_ghost_in_their_seat_and_keeps_what_they_played() -> None:
    night = make_night(13, seed=4)
    play_rounds(night, random.Random(4), 9)
    leaver = next(Player.objects.get(night=night, name=name) for name in seating_of(night, 10)[1]
                  if name not in ghosts_of(night))
    assert leaver.seats.count() == 10  # nine played, the tenth seated
    ghost = actions.let_player_leave(fresh(night), player=leaver, round_number=10)
    assert ghost.is_ghost
    assert leaver.name not in seated_names(night, 10)
    assert ghost.name in seated_names(night, 10)
    for seats in seating_of(night, 10):
        partners = {(seats[0], seats[2]), (seats[1], seats[3])}
        assert not any(a in ghosts_of(night) and b in ghosts_of(night) for a, b in partners)
    play_rounds(night, random.Random(9), bunco.ROUNDS - 9)
    night = fresh(night)
    assert night.status == Night.Status.FINISHED
    assert leaver.seats.count() == 9  # the nine played, and no more
    awards = actions.award_prizes(night)
    assert sum(award.amount_cents for award in awards) == night.pot_cents() == 13 * night.buy_in_cents


def test_a_leaver_s_phone_is_let_go_and_their_name_leaves_the_join_page() -> None:
    night = make_night(13, seed=4)
    leaver = night.players.real().first()
    assert leaver is not None
    phone = joined_phone(night, leaver)
    actions.let_player_leave(night, player=leaver, round_number=1)
    assert Player.objects.get(pk=leaver.pk).claimed_by == ""
    page = phone.get(reverse("games:play", args=[night.code]))  # no scoring buttons: she has left
    assert "You have left the game" in page.text and 'id="tally-form"' not in page.text
    newcomer = Client()
    join_page = newcomer.get(join_path(night.code))
    assert join_page.status_code == 200
    assert leaver.name not in join_page.text
    assert night.players.real().exclude(pk=leaver.pk).first().name in join_page.text  # type: ignore[union-attr]


def test_the_host_page_seats_a_late_arrival_and_says_where() -> None:
    night = make_night(13, seed=4)
    host = night_host_browser(night)
    page = host.get(reverse("games:night_host", args=[night.code]))
    assert "Someone arrived" in page.text
    response = host.post(reverse("games:host_arrival", args=[night.code]),
                         {"name": "  Nia  ", "round": "1", "key": "abc"}, headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert "Nia plays from round 1 at table" in response.text
    assert night.players.filter(name="Nia", is_ghost=False).exists()


@pytest.mark.parametrize("name", ["", "x" * 5000])
def test_the_host_page_refuses_a_bad_name_with_a_message_and_changes_nothing(name: str) -> None:
    night = make_night(13, seed=4)
    host = night_host_browser(night)
    before = seating_of(night, 1)
    response = host.post(reverse("games:host_arrival", args=[night.code]),
                         {"name": name, "round": "1"}, headers={"HX-Request": "true"})
    assert response.status_code == 400
    assert "notice-error" in response.text
    assert seating_of(night, 1) == before


def test_the_host_page_lets_someone_leave() -> None:
    night = make_night(13, seed=4)
    leaver = night.players.real().first()
    assert leaver is not None
    host = night_host_browser(night)
    response = host.post(reverse("games:host_leave", args=[night.code]),
                         {"player": str(leaver.pk), "round": "1"}, headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert f"{leaver.name} has left" in response.text
    assert leaver.name not in seated_names(night, 1)


def test_only_the_host_seats_or_lets_go() -> None:
    night = make_night(13, seed=4)
    player = night.players.real().first()
    assert player is not None
    phone = joined_phone(night, player)
    response = phone.post(reverse("games:host_arrival", args=[night.code]), {"name": "Nia", "round": "1"})
    assert response.status_code == 403
    assert not night.players.filter(name="Nia").exists()


def test_no_one_arrives_after_the_night() -> None:
    night = played_night(13, seed=2)
    with pytest.raises(NotNow, match="over"):
        actions.seat_late_arrival(night, name="Nia")


def test_a_tables_code_offers_each_name_seated_there_this_round_once_after_rounds_have_moved_everyone() -> None:
    night = make_night(13, seed=4)
    play_rounds(night, random.Random(4), 5)
    for number, seats in enumerate(seating_of(night, 6), start=1):
        page = Client().get(join_path(night.code, number)).text
        offered = [player.name for player in night.players.real() if f">{player.name}<" in page]
        assert sorted(offered) == sorted(name for name in seats if name not in ghosts_of(night))
        assert all(page.count(f">{name}<") == 1 for name in offered), number
