"""What the checks walked from the URLconf found (issue 21), each mended; each test here fails
without its mend (the walked checks in test_walked_*.py find them too, among everything else)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from bunco_club import actions as club_actions
from bunco_club.links import member_token
from bunco_club.models import RSVP
from games.night.models import Player
from games.rules.fill_or_bust_table import SHORT_GOAL
from live.models import Event
from tests.builders import (
    alert_of,
    logged_in,
    make_club,
    make_member,
    make_night,
    make_table,
    make_user,
    night_host_browser,
    seated_phone,
    soon,
    table_url,
)

pytestmark = pytest.mark.django_db

KEY = "0123456789abcdef0123456789abcdef"


def said(response) -> str:
    """The refusal's message: the page's alert or the phone's JSON error, or the error a form post
    was sent back with."""
    if response.status_code in (301, 302):
        return " ".join(str(message) for message in response.wsgi_request._messages)
    return alert_of(response)


# --- NUL and other control characters in text taken straight from a request ---------------------
# A form's CharField refuses NUL; a key, a late arrival's name or a member's note read without one
# went on to the database: SQLite stored the NUL, PostgreSQL refused it (a 500).


def test_a_members_note_or_key_with_nul_is_refused_and_nothing_is_stored():
    club = make_club()
    member = make_member(club, name="Ada")
    season = club_actions.create_season(club, name="Next", starts=[soon(10)])
    party = season.parties.get()
    phone = Client()
    url = reverse("clubs:my_rsvp", args=[member_token(member.code), party.pk])
    for spoiled in ({"note": "late\x00"}, {"key": "k\x00"}, {"note": "late\x01"}):
        response = phone.post(url, {"answer": "yes", "note": "late", "key": KEY, **spoiled})
        assert response.status_code == 302
        assert "not a letter" in said(response) or "key is not valid" in said(response)
    assert not RSVP.objects.exists()


def test_a_late_arrivals_name_or_key_with_nul_is_refused_and_nothing_is_stored():
    night = make_night(6)  # 2 tables, 2 ghost seats; round 1 seated, not started: between rounds
    host = night_host_browser(night)
    players = night.players.count()
    events = Event.objects.count()
    url = reverse("games:host_arrival", args=[night.code])
    for spoiled in ({"name": "Zoe\x00"}, {"key": "k\x00"}, {"name": "Zo\x1be"}):
        response = host.post(url, {"name": "Zoe", "round": "1", "key": KEY, **spoiled}, headers={"HX-Request": "true"})
        assert response.status_code == 400
        assert "control character" in said(response) or "key is malformed" in said(response)
    leaving = night.players.real().first()
    assert leaving is not None
    response = host.post(reverse("games:host_leave", args=[night.code]),
                         {"player": str(leaving.pk), "round": "1", "key": "k\x00"}, headers={"HX-Request": "true"})
    assert response.status_code == 400 and "key is malformed" in said(response)
    assert (night.players.count(), Event.objects.count()) == (players, events)
    assert not Player.objects.filter(name__startswith="Zo").exists()


@pytest.mark.parametrize("game", ["fill_or_bust", "kismet", "ninety_nine"])
def test_a_move_with_nul_in_its_key_is_refused_and_nothing_is_stored(game):
    table = make_table(3, game=game, options={"goal": SHORT_GOAL} if game == "fill_or_bust" else {})
    phone = seated_phone(table, table.loaded().to_move()[0])
    moves = table.moves.count()
    response = phone.post(table_url("move", table), {"kind": "roll" if game == "kismet" else "draw", "key": "k\x00"})
    assert response.status_code == 400
    assert "key is malformed" in said(response)
    assert table.moves.count() == moves


# --- Forms sent back: a 4xx, with what is wrong said ------------------------------------------------


def test_a_log_in_that_logs_nobody_in_is_a_400_that_says_why():
    make_user("host")
    empty = Client().post(reverse("login"), {})
    assert empty.status_code == 400
    assert "Username: This field is required." in said(empty)  # the form showed nothing before
    wrong = Client().post(reverse("login"), {"username": "host", "password": "wrong"})
    assert wrong.status_code == 400
    assert "correct username and password" in said(wrong)


@pytest.mark.parametrize("form_page", ["clubs:club_new", "tournaments:new"])
def test_a_form_page_posted_empty_gets_its_form_back_with_what_is_missing(form_page):
    """An empty POST (or a body that is no form) was taken for a GET: the blank form, 200 (or a
    400 without a word), nothing said."""
    browser = logged_in(make_user("host"))
    for response in (browser.post(reverse(form_page), {}), browser.post(reverse(form_page), "{}", content_type="application/json")):
        assert response.status_code == 400
        assert "This field is required." in response.content.decode()


def test_a_body_django_cannot_read_gets_a_page_that_says_so():
    """Over DATA_UPLOAD_MAX_MEMORY_SIZE (a megabyte) Django refuses to read a form, answered with
    its bare "Bad Request (400)": the site's own page says what happened and what to do. (Served by
    uvicorn such a body is refused before Django with a 413: bunco_club/site/asgi.py.)"""
    response = Client().post(reverse("login"), "username=" + "9" * (1024 * 1024 + 1),
                             content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400
    assert "too large" in alert_of(response)


def test_the_night_form_says_what_is_wrong_with_its_house_rules():
    """It showed the errors of the names, the buy-in and the title alone: a tie break or prize
    amounts that are none of the choices came back 400 with nothing said."""
    names = {"names": "Ada\nBea\nCal\nDot", "buy_in": "5"}
    for spoiled in ({"tie_break": "coin"}, {"prize_amounts": "all"}, {"title": "Friday\x00"}):
        response = Client().post(reverse("games:night_new"), {**names, **spoiled})
        assert response.status_code == 400
        assert alert_of(response), spoiled


# --- Numbers: the ASCII digits only ------------------------------------------------------------------


def arabic_indic(number: int) -> str:
    return str(number).translate(str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩"))


def test_a_choice_of_a_record_is_its_id_in_ascii_digits_only():
    """Every number the site is sent is read by live.http.parse_int (ASCII digits only); Django's
    ModelChoiceField read a record's id with int(), which takes Arabic-Indic or fullwidth digits:
    a party's host chosen as "٣" was member 3."""
    host = make_user("host")
    club = make_club(hosts=[host])
    member = make_member(club, name="Ada")
    browser = logged_in(host)
    party = {"date": "2031-02-07", "time": "19:00"}
    for spelled in (arabic_indic(member.pk), str(member.pk).translate(str.maketrans("0123456789", "０１２３４５６７８９"))):
        response = browser.post(reverse("clubs:party_new", args=[club.slug]), {**party, "host": spelled})
        assert response.status_code == 400, spelled
        assert "Pick a member of the club." in response.content.decode()
    assert not club.parties.exists()
    taken = browser.post(reverse("clubs:party_new", args=[club.slug]), {**party, "host": str(member.pk)})
    assert taken.status_code == 302
    assert club.parties.get().host == member
