"""A view that cannot reach its database is answered 503 with a sentence, logged on one line, never
the 500 page (bunco_club/site/unavailable.py). tests/reliability/test_fault_postgres_restart.py sees it
happen with a real PostgreSQL stopped under a real site."""

from __future__ import annotations

import json
import logging

import pytest
from django.test import Client, override_settings

from bunco_club.site.unavailable import MESSAGE
from tests.builders import element_text

pytestmark = [pytest.mark.django_db, pytest.mark.urls("tests.bunco_club.broken_urls")]


@override_settings(DEBUG=False)
def test_a_phone_is_told_in_json_that_the_database_is_unreachable_and_to_try_again(caplog):
    with caplog.at_level(logging.ERROR, logger="bunco_club.site.unavailable"):
        response = Client(raise_request_exception=False).post("/no-database/", headers={"Accept": "application/json"})
    assert response.status_code == 503
    assert json.loads(response.content) == {"error": MESSAGE}
    assert response["Retry-After"] == "5"
    assert [record.getMessage() for record in caplog.records if record.name == "bunco_club.site.unavailable"] == [
        "The database is unreachable: POST /no-database/ answered 503 (OperationalError: connection refused)"
    ]


@override_settings(DEBUG=False)
def test_a_browser_gets_a_page_whose_alert_says_what_happened():
    response = Client(raise_request_exception=False).get("/lost-connection/")
    assert response.status_code == 503
    assert element_text(response.content.decode(), role="alert") == MESSAGE


@override_settings(DEBUG=False)
def test_any_other_error_is_still_the_500_page():
    assert Client(raise_request_exception=False).get("/broken/").status_code == 500
