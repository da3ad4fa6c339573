"""Rate limits on logging in (docs/DESIGN.md §6): password guesses are refused, with a message, and log
nobody in; other addresses and other doors are not affected. Wrong passwords lock out the pair of an
address and a username (issue 8), not the user everywhere: tests/bunco_club/test_lockouts.py."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.builders import PASSWORD, WRONG_PASSWORD, make_user, post_login

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def small_limits(settings) -> None:
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "login": "3/d"}


def test_it_refuses_a_fourth_try_in_a_minute_even_with_the_right_password():
    make_user()
    client = Client()
    for _ in range(3):
        assert post_login(client, WRONG_PASSWORD).status_code == 400  # the form again, "Please enter a correct…"
    response = post_login(client, PASSWORD)
    assert response.status_code == 429
    assert "Too many attempts to log in" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_the_refusal_keeps_the_username_typed():
    client = Client()
    for _ in range(3):
        post_login(client, WRONG_PASSWORD, username="dana")
    assert 'value="dana"' in post_login(client, WRONG_PASSWORD, username="dana").content.decode()


def test_another_address_still_logs_in():
    make_user()
    for _ in range(4):
        post_login(Client(), WRONG_PASSWORD)
    client = Client()
    response = post_login(client, PASSWORD, address="10.0.0.2")
    assert response.status_code == 302
    assert client.session["_auth_user_id"]


def test_guesses_at_one_username_from_many_addresses_do_not_lock_the_user_out_elsewhere():
    make_user()
    for number in range(5):
        for _ in range(3):
            post_login(Client(), WRONG_PASSWORD, address=f"10.0.1.{number}")
    assert post_login(Client(), PASSWORD, address="10.0.2.1").status_code == 302
    assert post_login(Client(), PASSWORD, address="10.0.1.0").status_code == 429


def test_looking_at_the_form_is_not_a_try():
    client = Client()
    for _ in range(10):
        assert client.get(reverse("login"), REMOTE_ADDR="10.0.0.1").status_code == 200
    make_user()
    assert post_login(client, PASSWORD).status_code == 302


def test_the_admin_log_in_is_limited_the_same_way():
    make_user(is_staff=True, is_superuser=True)
    client = Client()
    for _ in range(3):
        client.post("/admin/login/", {"username": "host", "password": "wrong"}, REMOTE_ADDR="10.0.0.1")
    response = client.post("/admin/login/", {"username": "host", "password": "bunco-night"}, REMOTE_ADDR="10.0.0.1")
    assert response.status_code == 429
    assert "_auth_user_id" not in client.session


def test_behind_the_proxy_the_client_is_the_real_ip_header(settings):
    settings.TRUST_X_REAL_IP = True
    make_user()
    for _ in range(3):  # three guesses from one client behind the proxy
        Client().post(reverse("login"), {"username": "host", "password": "x"}, REMOTE_ADDR="127.0.0.1",
                      headers={"X-Real-IP": "203.0.113.5"})
    client = Client()
    response = client.post(reverse("login"), {"username": "host", "password": "bunco-night"},
                           REMOTE_ADDR="127.0.0.1", headers={"X-Real-IP": "203.0.113.6"})
    assert response.status_code == 302  # the proxy's own address is not one client


def test_without_trusting_the_proxy_a_forged_header_changes_nothing():
    make_user()
    for _ in range(3):
        post_login(Client(), WRONG_PASSWORD)
    response = Client().post(reverse("login"), {"username": "host", "password": "bunco-night"},
                             REMOTE_ADDR="10.0.0.1", headers={"X-Real-IP": "203.0.113.9"})
    assert response.status_code == 429
