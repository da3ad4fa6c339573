"""The phone page's words and its "That's not me" (the 13-phone trial): the break says one thing,
a seat is explained, the score sheet explains its marks, and a phone that tapped the wrong name
lets go of that seat and picks again."""

from __future__ import annotations

import random

import pytest
from django.test import Client
from django.urls import reverse

from games.links import read_join_token
from games.night.models import Night, Player
from games.rules import bunco
from tests.builders import joined_phone, make_night, play_rounds, seated, tally

pytestmark = pytest.mark.django_db


def not_me_url(night: Night) -> str:
    return reverse("games:not_me", args=[night.code])


# --- That's not me ---------------------------------------------------------------------------


def test_a_phone_that_tapped_the_wrong_name_lets_go_of_the_seat_and_goes_back_to_its_tables_names(
    night, player_client
) -> None:
    player = player_client.player

    response = player_client.post(not_me_url(night))

    assert response.status_code == 302
    token = response["Location"].rstrip("/").rsplit("/", 1)[-1]
    ticket = read_join_token(token)
    assert (ticket.code, ticket.table) == (night.code, 2)  # the table the wrong name sits at
    player.refresh_from_db()
    assert player.claimed_by == ""
    assert f"player:{night.code}" not in player_client.session
    names = player_client.get(response["Location"])
    assert names.status_code == 200
    text = names.content.decode()
    assert "tap your own name" in text
    assert f'value="{player.pk}" disabled' not in text  # the name is free to tap again
    assert player_client.get(reverse("games:play", args=[night.code])).status_code == 302  # back to the names


def test_the_names_say_which_name_the_phone_let_go_even_after_its_own_page_was_refreshed_on_the_way(
    night, player_client
) -> None:
    """The phone's live page hears that the seat is free and refreshes as the phone goes to the
    names: that refresh lands on the names page too, and must not use up what it says."""
    player = player_client.player
    names_page = player_client.post(not_me_url(night))["Location"]
    assert player_client.get(reverse("games:play", args=[night.code]), follow=True).status_code == 200
    assert f"This phone no longer plays as {player.name}" in player_client.get(names_page).content.decode()
    own = seated(night, 2, 1)
    player_client.post(reverse("games:claim", args=[night.code]), {"player": own.pk})
    assert "no longer plays as" not in player_client.get(names_page).content.decode()


def test_after_that_is_not_me_the_phone_can_tap_its_own_name(night, player_client) -> None:
    response = player_client.post(not_me_url(night))
    player_client.get(response["Location"])
    own = seated(night, 2, 1)

    claimed = player_client.post(reverse("games:claim", args=[night.code]), {"player": own.pk})

    assert claimed.status_code == 302 and claimed["Location"] == reverse("games:play", args=[night.code])
    own.refresh_from_db()
    assert own.claimed_by and own.claimed_by == player_client.session["phone-token"]


def test_that_is_not_me_is_a_post_only(night, player_client) -> None:
    assert player_client.get(not_me_url(night)).status_code == 405
    player = Player.objects.get(pk=player_client.player.pk)
    assert player.claimed_by


def test_that_is_not_me_needs_the_csrf_token(night) -> None:
    player = seated(night, 2, 0)
    phone = joined_phone(night, player)
    phone.handler.enforce_csrf_checks = True

    assert phone.post(not_me_url(night)).status_code == 403
    player.refresh_from_db()
    assert player.claimed_by


def test_only_the_phone_holding_the_seat_can_let_it_go(night, player_client) -> None:
    other = joined_phone(night, seated(night, 2, 2))
    assert Client().post(not_me_url(night)).status_code == 403
    assert joined_phone(night).post(not_me_url(night)).status_code == 403  # scanned, tapped no name

    other.post(not_me_url(night))  # lets go of its own seat only

    player = Player.objects.get(pk=player_client.player.pk)
    assert player.claimed_by  # the first phone still plays as its player


def test_the_phone_page_offers_that_is_not_me_with_a_confirm_step(night, player_client) -> None:
    page = player_client.get(reverse("games:play", args=[night.code])).content.decode()
    assert "That's not me" in page
    assert f'action="{not_me_url(night)}"' in page
    assert f"I'm not {player_client.player.name}: pick my name again" in page


# --- What the phone says -----------------------------------------------------------------------


def test_the_seat_is_explained_as_opposite_the_partner(night, player_client) -> None:
    page = player_client.get(reverse("games:play", args=[night.code])).content.decode()
    partner = seated(night, 2, 2)
    assert f"Your partner is <strong>{partner.name}</strong>." in page
    assert "Seat 1 — opposite your partner, who sits in seat 3" in page


def test_my_score_sheet_is_a_button_sized_link(night, player_client) -> None:
    page = player_client.get(reverse("games:play", args=[night.code])).content.decode()
    sheet = reverse("games:sheet", args=[night.code])
    assert f'<a class="button button-secondary button-block" href="{sheet}">My score sheet</a>' in page


def test_the_break_says_it_is_the_break_and_where_to_sit_after_it() -> None:
    night = make_night(8, seed=4)
    play_rounds(night, random.Random(4), bunco.BREAK_AFTER_ROUND)
    night.refresh_from_db()
    assert night.status == Night.Status.BREAK
    player = night.players.real().order_by("name").first()
    assert player is not None
    phone = joined_phone(night, player)

    page = phone.get(reverse("games:play", args=[night.code])).content.decode()

    seat = player.seats.get(round__number=night.current_round)
    assert "Break time" in page
    assert (f"After the break: <strong>Table {seat.table_round.number}</strong>, seat {seat.position + 1}."
            in page)
    assert "opposite your partner" in page
    # One thing only: no "go to" card, no waiting for the head table, no scores of a round not begun.
    assert "Go to <strong>" not in page
    assert "Waiting for the head table" not in page
    assert 'id="scoreboard"' not in page


def test_the_score_sheet_explains_its_marks(night, player_client) -> None:
    from games.night import actions

    actions.start_round(night)
    tally(night, 2, "A", 0, bunco_player=player_client.player)
    page = player_client.get(reverse("games:sheet", args=[night.code])).content.decode()
    assert "What the marks mean" in page
    for meaning in ("Your team won the round", "Your team lost the round", "the break, after round "
                    f"{bunco.BREAK_AFTER_ROUND}", "The traveler", "You hold the traveler."):
        assert meaning in page

