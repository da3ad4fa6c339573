"""games/phones.py: a phone's seat as its session keeps it, the same for every kind of place."""

from __future__ import annotations

from django.contrib.sessions.backends.db import SessionStore
from django.http import HttpRequest
from django.test import RequestFactory

from games import phones


def _request() -> HttpRequest:
    request = RequestFactory().get("/")
    request.session = SessionStore()
    return request


def test_it_gives_a_phone_no_token_until_it_claims_then_always_the_same_one(db: None) -> None:
    request = _request()
    assert phones.phone_token(request) == ""
    token = phones.phone_token(request, create=True)
    assert token and phones.phone_token(request) == token
    assert phones.phone_token(request, create=True) == token


def test_it_remembers_a_claimed_seat_per_place_and_forgets_it_when_let_go(db: None) -> None:
    request = _request()
    seats = phones.Seats("player")
    seats.remember(request, "ABC", 7)
    assert seats.claimed(request, "ABC") == 7
    assert seats.claimed(request, "XYZ") is None
    assert phones.Seats("seat").claimed(request, "ABC") is None  # another kind of place: its own keys
    seats.let_go(request, "ABC", "Dana")
    assert seats.claimed(request, "ABC") is None
    assert seats.let_go_name(request, "ABC") == "Dana"
    seats.remember(request, "ABC", 8)  # tapping a name again: the let-go name is forgotten
    assert seats.let_go_name(request, "ABC") is None
