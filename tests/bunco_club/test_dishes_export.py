"""What issue 45 added to a club's export, in version 3 itself (docs/CLUB_EXPORT.md): the dishes
each party's host asked for and who brings them, attending by default with its cutoff, a late
cancellation and a seat given away unpaid; a file of version 2 comes in without them."""

from __future__ import annotations

import json

import pytest

from bunco_club import actions
from bunco_club.export import VERSION
from bunco_club.models import RSVP, Club, DishSignup, DishSlot
from tests.builders import exported, imported, refused, resealed, soon

pytestmark = pytest.mark.django_db


def dishes_of(club: Club) -> list[tuple]:
    return list(DishSignup.objects.filter(slot__party__club=club).order_by("pk")
                .values_list("slot__party__starts_at", "slot__name", "slot__wanted", "member__name", "signed_at"))


def slots_of(club: Club) -> list[tuple]:
    return list(DishSlot.objects.filter(party__club=club).order_by("pk").values_list("party__starts_at", "name", "wanted"))


def a_potluck(club: Club) -> None:
    """Two parties' dishes: appetizers (two wanted, Ada and Bea bring them), dessert (Cal), and
    drinks nobody signed up for yet."""
    first = actions.add_party(club, starts_at=soon(4))
    second = actions.add_party(club, starts_at=soon(12))
    ada, bea, cal = (club.members.get(name=name) for name in ("Ada", "Bea", "Cal"))
    appetizer = actions.add_dish_slot(first, "Appetizer", 2)
    actions.add_dish_slot(first, "Drinks")
    dessert = actions.add_dish_slot(second, "Dessert")
    actions.sign_up_for_dish(appetizer, ada, key="k-ada")
    actions.sign_up_for_dish(appetizer, bea, key="k-bea")
    actions.sign_up_for_dish(dessert, cal, key="k-cal")


def test_the_dishes_come_back_with_their_parties_and_who_brings_them(host, club, tmp_path):
    a_potluck(club)
    slots, dishes = slots_of(club), dishes_of(club)
    text = exported(club)
    assert json.loads(text)["version"] == VERSION == 3
    Club.objects.filter(pk=club.pk).delete()
    copy = Club.objects.get(pk=imported(tmp_path, text)["club"])
    assert slots_of(copy) == slots and len(slots) == 3
    assert dishes_of(copy) == dishes and len(dishes) == 3
    assert all(signup.member.club_id == copy.pk for signup in DishSignup.objects.filter(slot__party__club=copy))


def test_attending_by_default_its_cutoff_and_the_answers_flags_come_back(host, club, tmp_path):
    club.attending_by_default, club.answer_cutoff_hours, club.paid_keeps_seat = True, 72, True
    club.save()
    party = actions.add_party(club, starts_at=soon(5))
    RSVP.objects.create(party=party, member=club.members.get(name="Ada"), answer="no", cancelled_late=True)
    RSVP.objects.create(party=party, member=club.members.get(name="Bea"), answer="no", gave_up_seat=True,
                        seat_released_unpaid=True)
    text = exported(club)
    Club.objects.filter(pk=club.pk).delete()
    copy = Club.objects.get(pk=imported(tmp_path, text)["club"])
    assert (copy.attending_by_default, copy.answer_cutoff_hours, copy.paid_keeps_seat) == (True, 72, True)
    assert sorted(RSVP.objects.filter(party__club=copy).values_list(
        "member__name", "cancelled_late", "seat_released_unpaid")) == [("Ada", True, False), ("Bea", False, True)]


def test_a_file_of_version_2_comes_in_with_no_dishes_and_members_not_coming_by_default(host, club, tmp_path):
    a_potluck(club)
    club.attending_by_default, club.answer_cutoff_hours = True, 24
    club.save()

    def as_version_2(payload: dict) -> None:
        for name in ("ledger", "box_items", "box_handovers", "dish_slots", "dish_signups"):
            del payload[name]
        for column in ("money_visible_to", "paid_keeps_seat", "attending_by_default", "answer_cutoff_hours"):
            del payload["club"][column]
        for member in payload["members"]:
            del member["is_treasurer"]

    document = json.loads(resealed(exported(club), as_version_2))
    document["version"] = 2
    Club.objects.filter(pk=club.pk).delete()
    copy = Club.objects.get(pk=imported(tmp_path, json.dumps(document))["club"])
    assert slots_of(copy) == [] and dishes_of(copy) == []
    assert (copy.attending_by_default, copy.answer_cutoff_hours) == (False, 48)


@pytest.mark.parametrize(("change", "message"), [
    (lambda p: p["dish_slots"][0].update(wanted=0), "Ask for 1 to 20 of a dish"),
    (lambda p: p["dish_signups"][0].update(slot=999_999), "not in the file"),
    (lambda p: p["dish_signups"][1].update(member=p["dish_signups"][0]["member"]), "contradict each other"),
], ids=["a dish asked for no times", "a sign-up for a slot not in the file", "one member twice on a slot"])
def test_dishes_that_contradict_themselves_are_refused_whole(host, club, tmp_path, change, message):
    a_potluck(club)
    said = refused(tmp_path, resealed(exported(club), change))
    assert said.startswith("Nothing was imported.") and message in said


def test_a_cutoff_longer_than_the_clubs_settings_allow_is_refused(host, club, tmp_path):
    said = refused(tmp_path, resealed(exported(club), lambda p: p["club"].update(answer_cutoff_hours=337)))
    assert said.startswith("Nothing was imported.") and "The answers' cutoff is 0 to 336 hours" in said
