"""Issue 42 (G2): a refused form of a table's page (a seat tapped, the opener's buttons) is answered
with the table's page itself, the refusal said on it, at the refusal's status: the phone stays on a
live page (its stream, its "still here"), never on a separate page that a reload turns into a 405."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from django.urls import reverse

from games.phones import PHONE_TOKEN_KEY
from tests.builders import make_table, seated_phone
from tests.builders import table_url as url

pytestmark = pytest.mark.django_db


def urls_of(page: str) -> dict[str, str]:
    found = re.search(r'<script id="table-urls" type="application/json">(.*?)</script>', page, re.S)
    assert found, page
    return dict(json.loads(found.group(1)))


def test_a_refused_seat_tap_shows_the_table_page_with_the_refusal_and_its_stream() -> None:
    table = make_table(2, started=False)
    seated_phone(table, 1)
    refused = Client().post(url("claim", table), {"seat": "1"})  # another phone holds Bea
    page = refused.content.decode()
    assert refused.status_code == 409
    assert re.search(r'id="refusal"[^>]*role="alert">Bea is already playing on another phone', page), page
    assert "Can't do that" not in page
    assert urls_of(page)["page"] == reverse("tables:table", args=[table.code])  # the address to put back
    assert urls_of(page)["events"] == reverse("tables:events", args=[table.code])  # the page stays live


def test_a_refused_button_of_the_opener_shows_the_table_page_with_the_refusal_and_its_buttons() -> None:
    table = make_table(2, patience_seconds=60)
    seated_phone(table, 0)
    opener = Client()
    opener.get(url("table", table))  # the page gives the phone its token
    table.opener_token = opener.session[PHONE_TOKEN_KEY]
    table.save(update_fields=["opener_token"])
    refused = opener.post(url("free", table, 1))  # nobody holds Bea's seat
    assert refused.status_code == 409
    page = refused.content.decode()
    assert re.search(r'id="refusal"[^>]*>No phone holds that seat.', page), page
    assert "Hand Ada to a bot" in page  # the opener's own page, its buttons and all
