"""A party's dishes (issue 45): the host's slots, members signing up, withdrawing, handing a dish
over and trading from their personal link, the fair rotation's suggestion the host may send, the
pages and the mails."""

from __future__ import annotations

import datetime

import pytest
import time_machine
from django.core import mail
from django.urls import reverse

from bunco_club import actions
from bunco_club.links import member_token
from bunco_club.models import DishOffer, DishRequest, DishSignup, DishSlot
from live.refusals import BadInput, KeyReused, NotNow
from tests.builders import member_phone, soon, text

pytestmark = pytest.mark.django_db

KEYS = iter(f"{number:032x}" for number in range(1, 10_000))


def key() -> str:
    """A fresh idempotency key, as the pages make them."""
    return next(KEYS)


@pytest.fixture
def party(club):
    """A party ten days from now hosted by Ada, nobody answered yet; it asks for 2 desserts and drinks."""
    party = actions.add_party(club, starts_at=soon(10), host=club.members.get(name="Ada"))
    actions.add_dish_slot(party, "Dessert", 2)
    actions.add_dish_slot(party, "Drinks", 1)
    return party


def slot(party, name):
    return DishSlot.objects.get(party=party, name=name)


def who(party, name):
    return party.club.members.get(name=name)


def bringing(party):
    return sorted((s.slot.name, s.member.name) for s in DishSignup.objects.filter(slot__party=party))


# --- The host's slots ---------------------------------------------------------------------------------


def test_the_host_asks_for_dishes_with_how_many(party):
    assert [(s.name, s.wanted, s.places_left()) for s in party.dish_slots.all()] == [("Dessert", 2, 2), ("Drinks", 1, 1)]


@pytest.mark.parametrize("name, wanted", [("dessert", 1), ("", 1), ("x" * 61, 1), ("Salad", 0), ("Salad", 21)])
def test_a_dish_twice_an_empty_or_long_name_or_a_count_off_1_to_20_is_refused(party, name, wanted):
    with pytest.raises(BadInput):
        actions.add_dish_slot(party, name, wanted)
    assert party.dish_slots.count() == 2


def test_the_host_cannot_ask_for_fewer_than_are_signed_up_nor_remove_a_dish_someone_brings(party):
    dessert = slot(party, "Dessert")
    actions.sign_up_for_dish(dessert, who(party, "Bea"), key=key())
    actions.sign_up_for_dish(dessert, who(party, "Cal"), key=key())
    with pytest.raises(BadInput, match="2 at least"):
        actions.set_dish_wanted(dessert, 1)
    with pytest.raises(BadInput, match="nobody brings it"):
        actions.remove_dish_slot(dessert)
    assert actions.set_dish_wanted(dessert, 3).wanted == 3
    actions.remove_dish_slot(slot(party, "Drinks"))
    assert [s.name for s in party.dish_slots.all()] == ["Dessert"]


def test_a_cancelled_party_takes_no_dishes(party):
    actions.cancel_party(party)
    with pytest.raises(NotNow):
        actions.add_dish_slot(party, "Salad")
    with pytest.raises(NotNow):
        actions.sign_up_for_dish(slot(party, "Drinks"), who(party, "Bea"), key=key())


# --- Signing up and withdrawing -------------------------------------------------------------------------


def test_members_sign_up_until_the_host_has_enough(party):
    drinks = slot(party, "Drinks")
    actions.sign_up_for_dish(drinks, who(party, "Bea"), key=key())
    with pytest.raises(NotNow, match="Enough members bring Drinks"):
        actions.sign_up_for_dish(drinks, who(party, "Cal"), key=key())
    actions.sign_up_for_dish(slot(party, "Dessert"), who(party, "Dot"), key=key())
    with pytest.raises(NotNow, match="You bring Dessert already"):
        actions.sign_up_for_dish(slot(party, "Dessert"), who(party, "Dot"), key=key())
    assert bringing(party) == [("Dessert", "Dot"), ("Drinks", "Bea")]


def test_a_member_who_said_no_is_asked_to_say_yes_first(party):
    bea = who(party, "Bea")
    actions.answer_rsvp(party, bea, "no")
    with pytest.raises(NotNow, match="say yes first"):
        actions.sign_up_for_dish(slot(party, "Drinks"), bea, key=key())


def test_a_resent_sign_up_is_a_retry_and_its_key_with_other_content_is_refused(party):
    bea, sent = who(party, "Bea"), key()
    first = actions.sign_up_for_dish(slot(party, "Drinks"), bea, key=sent)
    assert actions.sign_up_for_dish(slot(party, "Drinks"), bea, key=sent) == first
    with pytest.raises(KeyReused):
        actions.sign_up_for_dish(slot(party, "Dessert"), bea, key=sent)
    with pytest.raises(BadInput, match="key is not valid"):
        actions.sign_up_for_dish(slot(party, "Dessert"), bea, key="")
    assert bringing(party) == [("Drinks", "Bea")] and DishRequest.objects.count() == 1


def test_a_member_withdraws_and_the_place_is_open_again(party):
    bea, sent = who(party, "Bea"), key()
    signup = actions.sign_up_for_dish(slot(party, "Drinks"), bea, key=key())
    actions.withdraw_from_dish(bea, signup.pk, key=sent)
    actions.withdraw_from_dish(bea, signup.pk, key=sent)  # a retry: nothing more
    assert bringing(party) == [] and slot(party, "Drinks").places_left() == 1


# --- Handing over and trading ------------------------------------------------------------------------------


def test_a_dish_handed_over_moves_only_when_the_other_accepts(party):
    bea, cal = who(party, "Bea"), who(party, "Cal")
    signup = actions.sign_up_for_dish(slot(party, "Drinks"), bea, key=key())
    offer = actions.offer_dish(signup, bea, cal, key=key())
    assert bringing(party) == [("Drinks", "Bea")]
    actions.answer_dish_offer(offer, cal, accept=True, key=key())
    assert bringing(party) == [("Drinks", "Cal")]


def test_a_declined_hand_over_leaves_the_dish_where_it_was(party):
    bea, cal = who(party, "Bea"), who(party, "Cal")
    signup = actions.sign_up_for_dish(slot(party, "Drinks"), bea, key=key())
    offer = actions.offer_dish(signup, bea, cal, key=key())
    assert actions.answer_dish_offer(offer, cal, accept=False, key=key()).status == DishOffer.Status.DECLINED
    assert bringing(party) == [("Drinks", "Bea")]


def test_a_trade_swaps_the_two_dishes(party):
    bea, cal = who(party, "Bea"), who(party, "Cal")
    drinks = actions.sign_up_for_dish(slot(party, "Drinks"), bea, key=key())
    dessert = actions.sign_up_for_dish(slot(party, "Dessert"), cal, key=key())
    offer = actions.offer_dish(drinks, bea, cal, take=dessert, key=key())
    actions.answer_dish_offer(offer, cal, accept=True, key=key())
    assert bringing(party) == [("Dessert", "Bea"), ("Drinks", "Cal")]


def test_an_offer_whose_dish_was_withdrawn_since_changes_nothing(party):
    bea, cal = who(party, "Bea"), who(party, "Cal")
    signup = actions.sign_up_for_dish(slot(party, "Drinks"), bea, key=key())
    offer = actions.offer_dish(signup, bea, cal, key=key())
    actions.withdraw_from_dish(bea, signup.pk, key=key())
    with pytest.raises(NotNow, match="no longer stands"):
        actions.answer_dish_offer(offer, cal, accept=True, key=key())
    assert bringing(party) == [] and DishOffer.objects.get(pk=offer.pk).status == DishOffer.Status.PENDING


def test_only_the_member_asked_answers_an_offer(party):
    bea, cal, dot = who(party, "Bea"), who(party, "Cal"), who(party, "Dot")
    offer = actions.offer_dish(actions.sign_up_for_dish(slot(party, "Drinks"), bea, key=key()), bea, cal, key=key())
    with pytest.raises(BadInput, match="someone else"):
        actions.answer_dish_offer(offer, dot, accept=True, key=key())
    assert bringing(party) == [("Drinks", "Bea")]


def test_a_dish_is_not_handed_to_someone_who_brings_it_already(party):
    bea, cal = who(party, "Bea"), who(party, "Cal")
    mine = actions.sign_up_for_dish(slot(party, "Dessert"), bea, key=key())
    actions.sign_up_for_dish(slot(party, "Dessert"), cal, key=key())
    with pytest.raises(NotNow, match="Cal brings Dessert already"):
        actions.offer_dish(mine, bea, cal, key=key())


# --- The fair rotation's suggestion ------------------------------------------------------------------------


def brought_before(club, **dishes):
    """Past dishes brought (`name=count`), at a party a month ago."""
    past = actions.add_party(club, starts_at=soon(-30))
    for index, (name, count) in enumerate(dishes.items()):
        for turn in range(count):
            old = DishSlot.objects.create(party=past, name=f"Old {index}.{turn}", wanted=1)
            DishSignup.objects.create(slot=old, member=club.members.get(name=name))


def test_nothing_is_suggested_until_a_few_days_before(party):
    party.club.attending_by_default = True
    party.club.save()
    assert actions.suggested_dishes(party) == []
    with time_machine.travel(party.starts_at - datetime.timedelta(days=4), tick=False):
        assert len(actions.suggested_dishes(party)) == 3


def test_the_suggestion_asks_the_fewest_turns_first_skipping_those_not_coming_then_roster_order(party):
    club = party.club
    brought_before(club, Ada=2, Bea=1, Cal=1, Dot=0, Eve=3)
    for name in ("Ada", "Bea", "Cal", "Dot", "Eve"):
        actions.answer_rsvp(party, who(party, name), "yes")
    actions.answer_rsvp(party, who(party, "Fay"), "no")
    actions.sign_up_for_dish(slot(party, "Drinks"), who(party, "Dot"), key=key())
    with time_machine.travel(party.starts_at - datetime.timedelta(days=3), tick=False):
        suggested = [(s.slot.name, s.member.name) for s in actions.suggested_dishes(party)]
    # Dot brings the drinks already; Fay can't come; the others haven't said they're coming.
    assert suggested == [("Dessert", "Bea"), ("Dessert", "Cal")]


def test_the_host_sends_a_suggestion_which_the_member_accepts_from_their_link(party, django_capture_on_commit_callbacks):
    bea = who(party, "Bea")
    with django_capture_on_commit_callbacks(execute=True):
        offer = actions.send_dish_suggestion(slot(party, "Drinks"), bea, key=key(), host_id=1)
    assert [m.to for m in mail.outbox] == [["bea@example.com"]]
    with pytest.raises(NotNow, match="asked for Drinks already"):
        actions.send_dish_suggestion(slot(party, "Drinks"), bea, key=key(), host_id=1)
    actions.answer_dish_offer(offer, bea, accept=True, key=key())
    assert bringing(party) == [("Drinks", "Bea")]


def test_a_sent_suggestion_is_not_suggested_again(party):
    party.club.attending_by_default = True
    party.club.save()
    with time_machine.travel(party.starts_at - datetime.timedelta(days=3), tick=False):
        first = actions.suggested_dishes(party)
        actions.send_dish_suggestion(first[0].slot, first[0].member, key=key(), host_id=1)
        again = actions.suggested_dishes(party)
    assert len(again) == 2 and first[0].member not in [s.member for s in again]


# --- The mails, in each member's language -------------------------------------------------------------------


def test_the_offers_mails_are_in_each_members_language(party, django_capture_on_commit_callbacks):
    bea, cal = who(party, "Bea"), who(party, "Cal")
    actions.set_member_language(cal, "es")
    with django_capture_on_commit_callbacks(execute=True):
        actions.send_dish_suggestion(slot(party, "Drinks"), bea, key=key(), host_id=1)
        actions.send_dish_suggestion(slot(party, "Dessert"), cal, key=key(), host_id=1)
    english = next(m for m in mail.outbox if m.to == ["bea@example.com"])
    spanish = next(m for m in mail.outbox if m.to == ["cal@example.com"])
    assert "could you bring Drinks?" in english.subject and "Accept or decline here" in english.body
    assert "¿podrías traer Dessert?" in spanish.subject and "Acepta o rechaza aquí" in spanish.body
    assert member_token(cal.code) in spanish.body


def test_a_hand_over_and_a_trade_are_mailed_to_the_member_asked(party, django_capture_on_commit_callbacks):
    bea, cal = who(party, "Bea"), who(party, "Cal")
    drinks = actions.sign_up_for_dish(slot(party, "Drinks"), bea, key=key())
    dessert = actions.sign_up_for_dish(slot(party, "Dessert"), cal, key=key())
    with django_capture_on_commit_callbacks(execute=True):
        actions.offer_dish(drinks, bea, cal, key=key())
        actions.offer_dish(drinks, bea, cal, take=dessert, key=key())
    subjects = [m.subject for m in mail.outbox if m.to == ["cal@example.com"]]
    assert any("Bea asks you to bring Drinks" in s for s in subjects)
    assert any("Bea offers a trade of dishes" in s for s in subjects)


# --- The pages ------------------------------------------------------------------------------------------------


def test_the_party_page_shows_the_dishes_and_the_hosts_suggestion(party, host_client):
    actions.sign_up_for_dish(slot(party, "Drinks"), who(party, "Bea"), key=key())
    party.club.attending_by_default = True
    party.club.save()
    url = reverse("clubs:party", args=[party.club.slug, party.pk])
    with time_machine.travel(party.starts_at - datetime.timedelta(days=3), tick=True):
        page = text(host_client.get(url))
    assert "Dessert" in page and "(0 of 2)" in page and "(1 of 1)" in page and "Bea" in page
    assert "Who could bring what is missing" in page and "Dessert: Ada" in page


def test_a_member_signs_up_from_their_link_and_a_resent_tap_counts_once(party):
    bea = who(party, "Bea")
    phone = member_phone(bea)
    assert "I'll bring Drinks" in text(phone.get(bea.my_club_path))
    url = reverse("clubs:my_dish_signup", args=[member_token(bea.code), slot(party, "Drinks").pk])
    sent = key()
    assert phone.post(url, {"key": sent}).status_code == 302
    assert phone.post(url, {"key": sent}).status_code == 302
    assert bringing(party) == [("Drinks", "Bea")]
    assert "I can't bring it after all" in text(phone.get(bea.my_club_path))


def test_a_member_accepts_an_offer_from_their_page(party):
    bea = who(party, "Bea")
    offer = actions.send_dish_suggestion(slot(party, "Drinks"), bea, key=key(), host_id=1)
    phone = member_phone(bea)
    assert "It's your turn: could you bring Drinks?" in text(phone.get(bea.my_club_path))
    response = phone.post(reverse("clubs:my_dish_accept", args=[member_token(bea.code), offer.pk]), {"key": key()})
    assert response.status_code == 302 and bringing(party) == [("Drinks", "Bea")]


def test_a_forged_or_retired_link_changes_nothing(party, client):
    bea = who(party, "Bea")
    drinks = slot(party, "Drinks")
    forged = member_token(bea.code)[:-2] + "xx"
    assert client.post(reverse("clubs:my_dish_signup", args=[forged, drinks.pk]), {"key": key()}).status_code == 404
    old = member_token(bea.code)
    actions.reset_member_link(bea)
    assert client.post(reverse("clubs:my_dish_signup", args=[old, drinks.pk]), {"key": key()}).status_code == 404
    assert bringing(party) == []


def test_a_member_cannot_withdraw_or_give_away_someone_elses_dish(party):
    bea, cal = who(party, "Bea"), who(party, "Cal")
    signup = actions.sign_up_for_dish(slot(party, "Drinks"), bea, key=key())
    phone = member_phone(cal)
    token = member_token(cal.code)
    assert phone.post(reverse("clubs:my_dish_withdraw", args=[token, signup.pk]), {"key": key()}).status_code == 302
    assert phone.post(reverse("clubs:my_dish_give", args=[token, signup.pk]),
                      {"key": key(), "member": cal.pk}).status_code == 404
    assert bringing(party) == [("Drinks", "Bea")]


def test_a_member_of_the_club_cannot_set_the_dishes(party, member_client):
    response = member_client.post(reverse("clubs:party_dish_add", args=[party.club.slug, party.pk]),
                                  {"name": "Salad", "wanted": "1"})
    assert response.status_code == 403 and party.dish_slots.count() == 2


def test_the_host_adds_a_dish_from_the_party_page(party, host_client):
    response = host_client.post(reverse("clubs:party_dish_add", args=[party.club.slug, party.pk]),
                                {"name": "Salad", "wanted": "3"})
    assert response.status_code == 302
    assert slot(party, "Salad").wanted == 3
