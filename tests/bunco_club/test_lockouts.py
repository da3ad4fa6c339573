"""Lock-outs that a hall's shared address survives (issue 8), at the site's own limits: bad join
links are counted, never good ones, and a good link is always admitted; wrong passwords lock out the
pair of an address and a username (django-axes's [["ip_address", "username"]]), not the user
everywhere nor everybody at the address."""

from __future__ import annotations

import pytest
from django.test import Client

from games.links import join_path
from tests.builders import PASSWORD, WRONG_PASSWORD, forged_path, make_night, make_user, post_login

pytestmark = pytest.mark.django_db

HALL = "203.0.113.10"  # the public address every phone in the hall shares


# Join links


def test_twenty_bad_links_from_one_address_do_not_block_a_genuine_link_from_it():
    night = make_night()
    for _ in range(20):
        assert Client().get(forged_path(night.code), REMOTE_ADDR=HALL).status_code == 403
    phone = Client()
    assert phone.get(join_path(night.code, 1), REMOTE_ADDR=HALL).status_code == 200
    assert phone.session.get(f"joined:{night.pk}")


def test_a_genuine_link_is_admitted_even_while_its_address_is_refused_bad_ones():
    night = make_night()
    for _ in range(30):
        Client().get(forged_path(night.code), REMOTE_ADDR=HALL)
    assert Client().get(forged_path(night.code), REMOTE_ADDR=HALL).status_code == 429
    for table in (1, 2, 3):
        assert Client().get(join_path(night.code, table), REMOTE_ADDR=HALL).status_code == 200


def test_genuine_links_are_never_counted_against_their_address():
    night = make_night()
    for _ in range(50):
        assert Client().get(join_path(night.code), REMOTE_ADDR=HALL).status_code == 200
    assert Client().get(forged_path(night.code), REMOTE_ADDR=HALL).status_code == 403  # not 429


# Logging in


def test_ten_wrong_passwords_for_a_user_from_one_address_do_not_block_that_user_from_another_address():
    make_user("host", "bunco-night")
    for _ in range(10):
        assert post_login(Client(), WRONG_PASSWORD, address="198.51.100.1").status_code == 400  # the form again
    elsewhere = Client()
    assert post_login(elsewhere, PASSWORD, address="198.51.100.2").status_code == 302
    assert elsewhere.session["_auth_user_id"]
    # The pair that guessed is locked out, even with the right password.
    locked = Client()
    response = post_login(locked, PASSWORD, address="198.51.100.1")
    assert response.status_code == 429
    assert "Too many attempts to log in" in response.content.decode()
    assert "_auth_user_id" not in locked.session


def test_wrong_passwords_for_one_user_do_not_lock_out_another_user_at_the_same_address():
    make_user("host", "bunco-night")
    make_user("dana", "bunco-night")
    for _ in range(10):
        post_login(Client(), WRONG_PASSWORD, address=HALL, username="host")
    assert post_login(Client(), PASSWORD, address=HALL, username="dana").status_code == 302


def test_logging_in_successfully_is_not_counted_as_a_wrong_password():
    make_user("host", "bunco-night")
    for _ in range(12):
        assert post_login(Client(), PASSWORD, address=HALL).status_code == 302


def test_the_username_is_one_pair_whatever_its_case_and_spaces():
    make_user("host", "bunco-night")
    for username in ["host", "Host", " HOST "] * 4:
        post_login(Client(), WRONG_PASSWORD, address=HALL, username=username)
    assert post_login(Client(), PASSWORD, address=HALL).status_code == 429
