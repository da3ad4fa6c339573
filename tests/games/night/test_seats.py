"""Seats (issue 8): one phone per player. A second phone cannot take a name another phone holds;
the host hands a seat over and the old phone is signed out of it; a table's code offers and accepts
only that table's names this round; a tap's key is bound to the table it was recorded at."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from games.links import join_path
from games.night import actions
from games.night.models import Night, Player, Tally
from live.models import Event
from tests.builders import night_host_browser, phone_of, seat_of, someone_at, started_night, tap, text

pytestmark = pytest.mark.django_db


@pytest.fixture
def night() -> Night:
    """A 12-player night (3 tables) whose round 1 is under way: phones can score."""
    return started_night()


def claim(phone: Client, night: Night, player: Player):
    return phone.post(reverse("games:claim", args=[night.code]), {"player": player.pk})


def scanned(night: Night, table: int | None = None) -> Client:
    phone = Client()
    assert phone.get(join_path(night.code, table)).status_code == 200
    return phone


# One phone per seat


def test_a_second_phone_cannot_claim_a_seat_another_phone_holds(night):
    name = someone_at(night, 2)
    first = phone_of(night, name)
    second = scanned(night)
    response = claim(second, night, night.players.get(name=name))
    assert response.status_code == 409
    assert f"{name} is already playing on another phone" in text(response)
    assert "ask the host" in text(response)
    assert f"player:{night.code}" not in second.session
    seat = seat_of(night, name)
    assert tap(second, night, table=2, team=seat.team, points=1, key="k2").status_code == 403
    assert tap(first, night, table=2, team=seat.team, points=1, key="k1").status_code == 200


def test_the_join_page_marks_the_names_other_phones_hold(night):
    name = someone_at(night, 2)
    phone_of(night, name)
    page = text(Client().get(join_path(night.code, 2)))
    assert f'<span class="player-name">{name}</span> <span class="name-note">· taken</span>' in page
    free = next(player.name for player in seat_of(night, name).table_round.seated()
                if player.name != name and not player.is_ghost)
    assert f'<span class="player-name">{free}</span></button>' in page  # not marked


def test_the_phone_that_holds_a_seat_can_tap_its_name_again(night):
    name = someone_at(night, 2)
    phone = phone_of(night, name)
    assert claim(phone, night, night.players.get(name=name)).status_code == 302


def test_a_phone_that_claims_another_name_lets_its_first_seat_go(night):
    first_name, second_name = (seat_of(night, someone_at(night, 2)).table_round.seated()[i].name for i in (0, 1))
    phone = phone_of(night, first_name)
    assert claim(phone, night, night.players.get(name=second_name)).status_code == 302
    assert night.players.get(name=first_name).claimed_by == ""
    assert claim(scanned(night), night, night.players.get(name=first_name)).status_code == 302


# The host hands a seat over


def test_the_host_hands_a_seat_over_and_the_old_phone_is_signed_out_of_it(night):
    name = someone_at(night, 2)
    player = night.players.get(name=name)
    seat = seat_of(night, name)
    old = phone_of(night, name)
    host = night_host_browser(night)

    response = host.post(reverse("games:host_release", args=[night.code, player.pk]))
    assert response.status_code == 302
    player.refresh_from_db()
    assert player.claimed_by == ""
    # The old phone's page is told at once, on its own channel...
    assert Event.objects.on(player.private_channel).filter(kind="state").exists()
    # ... and its next tap and its next page say it no longer plays as that player.
    refused = tap(old, night, table=2, team=seat.team, points=1, key="k-old")
    assert refused.status_code == 403
    assert f"no longer playing as {name}" in text(refused)
    assert "Scan your table's QR code again" in text(refused)
    page = old.get(reverse("games:play", args=[night.code]))
    assert page.status_code == 403
    assert f"no longer playing as {name}" in text(page)
    refresh = old.get(reverse("games:play", args=[night.code]), headers={"HX-Request": "true"})
    assert refresh.headers["HX-Refresh"] == "true"  # the live page reloads to say so
    assert not Tally.objects.exists()

    # The name is free again: the new phone takes the seat and scores.
    new = scanned(night, 2)
    assert claim(new, night, player).status_code == 302
    assert tap(new, night, table=2, team=seat.team, points=2, key="k-new").status_code == 200
    # The old phone cannot take it back while the new one holds it.
    assert claim(old, night, player).status_code == 409


def test_only_the_host_can_hand_a_seat_over(night):
    name = someone_at(night, 2)
    player = night.players.get(name=name)
    phone_of(night, name)
    other = phone_of(night, someone_at(night, 3))
    assert other.post(reverse("games:host_release", args=[night.code, player.pk])).status_code == 403
    player.refresh_from_db()
    assert player.claimed_by != ""


def test_the_hosts_table_page_offers_to_hand_over_the_seats_held(night):
    name = someone_at(night, 2)
    player = night.players.get(name=name)
    phone_of(night, name)
    page = text(night_host_browser(night).get(reverse("games:night_table", args=[night.code, 2])))
    assert reverse("games:host_release", args=[night.code, player.pk]) in page
    player.refresh_from_db()
    assert player.claimed_by and player.claimed_by not in page  # the phone's token stays secret


# A table's code


def test_a_tables_link_shows_only_that_tables_names_this_round(night):
    page = text(Client().get(join_path(night.code, 2)))
    at_two = set(night.round_obj().tables.get(number=2).seats.filter(player__is_ghost=False)
                 .values_list("player__name", flat=True))
    elsewhere = set(night.players.real().values_list("name", flat=True)) - at_two
    assert all(f'<span class="player-name">{name}</span>' in page for name in at_two)
    assert not any(f'<span class="player-name">{name}</span>' in page for name in elsewhere)


def test_a_tables_link_refuses_another_tables_player(night):
    phone = scanned(night, 2)
    elsewhere = night.players.get(name=someone_at(night, 1))
    response = claim(phone, night, elsewhere)
    assert response.status_code == 403
    assert "isn't at table 2 this round" in text(response)
    elsewhere.refresh_from_db()
    assert elsewhere.claimed_by == ""
    assert f"player:{night.code}" not in phone.session


def test_the_nights_link_accepts_any_name(night):
    phone = scanned(night)
    assert claim(phone, night, night.players.get(name=someone_at(night, 3))).status_code == 302


# A tap's key is bound to its table


def test_a_tap_key_reused_at_another_table_is_refused_not_answered_with_that_tables_totals(night):
    at_one, at_two = someone_at(night, 1), someone_at(night, 2)
    first = tap(phone_of(night, at_one), night, table=1, team=seat_of(night, at_one).team, points=5, key="shared")
    assert first.status_code == 200
    reused = tap(phone_of(night, at_two), night, table=2, team=seat_of(night, at_two).team, points=1, key="shared")
    assert reused.status_code == 409
    assert set(reused.json()) == {"error"}
    assert "another table" in reused.json()["error"]
    assert Tally.objects.count() == 1


def test_the_tally_action_refuses_a_key_of_another_table(night):
    actions.record_tally(night=night, table_number=1, team="A", points=2, key="k")
    with pytest.raises(actions.KeyOfAnotherTable):
        actions.record_tally(night=night, table_number=2, team="A", points=2, key="k")
    # At its own table the key is still a retry, answered with that table's tally.
    again = actions.record_tally(night=night, table_number=1, team="A", points=2, key="k")
    assert again.table_round.number == 1 and Tally.objects.count() == 1
