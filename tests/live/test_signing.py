"""live/signing.py, the site's one signing of tokens (issue 17): a value comes back as it was signed;
a token altered, cut short, made with another salt or another key is ForgedToken; one older than
its maximum age is ExpiredToken; one dated in the future (beyond the clock skew allowed) is
FutureToken (issue 21), for every kind of link: join links, group links, check rooms."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from live import signing
from live.actions import RoomNotFound, find_room, open_room

SALT = "tests.signing"


def test_a_signed_value_reads_back_as_it_was_signed():
    token = signing.sign({"c": "abc", "t": 2}, salt=SALT)
    assert signing.read(token, salt=SALT, max_age=60) == {"c": "abc", "t": 2}
    text = signing.sign("room-id", salt=SALT, text=True)
    assert "room-id." in text and ":" not in text  # readable in a URL path
    assert signing.read(text, salt=SALT, max_age=60, text=True) == "room-id"
    undated = signing.sign({"m": "x"}, salt=SALT, dated=False)
    assert signing.read(undated, salt=SALT, dated=False) == {"m": "x"}


@pytest.mark.parametrize("forge", [
    lambda token: token[:-2] + ("AA" if token[-2:] != "AA" else "BB"),
    lambda token: token[:-5],
    lambda token: "letmein",
    lambda token: "9" * 5000,
    lambda token: "é.٣.²",
    lambda token: signing.sign({"c": "abc"}, salt="another.salt"),
], ids=["altered", "cut short", "made up", "5,000 characters", "not ASCII", "another salt"])
def test_a_token_not_signed_here_with_this_salt_is_forged(forge):
    token = signing.sign({"c": "abc"}, salt=SALT)
    with pytest.raises(signing.ForgedToken):
        signing.read(forge(token), salt=SALT, max_age=60)


def test_a_token_signed_with_another_key_is_forged(settings):
    token = signing.sign({"c": "abc"}, salt=SALT)
    settings.SECRET_KEY = "another key, not this site's" * 2
    with pytest.raises(signing.ForgedToken):
        signing.read(token, salt=SALT, max_age=60)


def test_a_token_older_than_its_age_has_expired():
    token = signing.sign({"c": "abc"}, salt=SALT)
    with time_machine.travel(timezone.now() + timedelta(minutes=2), tick=False):
        with pytest.raises(signing.ExpiredToken):
            signing.read(token, salt=SALT, max_age=60)
        assert signing.read(token, salt=SALT, max_age=timedelta(minutes=3)) == {"c": "abc"}


@pytest.mark.parametrize("text", [False, True])
def test_a_token_dated_in_the_future_is_refused_but_a_few_seconds_of_skew_are_not(text):
    value = "abc" if text else {"c": "abc"}
    with time_machine.travel(timezone.now() + timedelta(hours=1), tick=False):
        future = signing.sign(value, salt=SALT, text=text)
    with time_machine.travel(timezone.now() + timedelta(seconds=30), tick=False):
        ahead = signing.sign(value, salt=SALT, text=text)
    with pytest.raises(signing.FutureToken):
        signing.read(future, salt=SALT, max_age=None, text=text)
    assert signing.read(ahead, salt=SALT, max_age=60, text=text) == value


def test_an_undated_token_never_expires_and_cannot_be_given_an_age():
    token = signing.sign({"m": "x"}, salt=SALT, dated=False)
    with time_machine.travel(timezone.now() + timedelta(days=3650), tick=False):
        assert signing.read(token, salt=SALT, dated=False) == {"m": "x"}
    with pytest.raises(ValueError):
        signing.read(token, salt=SALT, dated=False, max_age=60)


def test_a_check_room_link_dated_in_the_future_is_not_found():
    with time_machine.travel(timezone.now() + timedelta(hours=2), tick=False):
        future = open_room()
    with pytest.raises(RoomNotFound):
        find_room(future.token)
    assert find_room(open_room().token)
