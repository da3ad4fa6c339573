"""A phone that loses the answer to its undo sends it again with the same key, and the server
takes back one entry, not two (issue: a retried undo after a lost answer removed two entries)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Route, expect

from games import actions
from games.links import join_path
from games.models import Tally
from tests.conftest import ServerProcess, start_server

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

NAMES = ["Alice", "Bea", "Carmen", "Dana", "Eve", "Fran", "Gwen", "Hana"]


@pytest.fixture
def site(transactional_db: None, tmp_path: Path) -> Iterator[ServerProcess]:
    server = start_server(tmp_path, extra_env={"REDIS_URL": "", "EVENTS_STREAM_MAX_SECONDS": "300"})
    yield server
    server.stop()


def test_an_undo_whose_answer_is_lost_is_retried_and_takes_back_one_entry(site: ServerProcess, new_phone) -> None:
    night = actions.start_night(names=NAMES, rng=random.Random(3))
    actions.start_round(night)
    name = night.round_obj().seating()[1][0]  # someone at table 2
    phone = new_phone(device_scale_factor=1)
    phone.goto(site.url + join_path(night.pk, 2))
    phone.get_by_role("button", name=name, exact=True).click()
    expect(phone.locator("#tally-form")).to_be_visible()

    for points in ("1", "2"):
        phone.get_by_role("button", name=f"Add {points} point").first.click()
        expect(phone.locator("#tap-status")).to_contain_text(f"+{points}")
    table = night.round_obj().tables.get(number=2)
    assert sum(table.totals().values()) == 3

    keys: list[str] = []

    def lose_the_first_answer(route: Route) -> None:
        keys.append(_key_of(route.request.post_data or ""))
        if len(keys) == 1:
            route.fetch()  # the server takes the undo...
            route.abort("connectionreset")  # ...and the phone never hears back
        else:
            route.continue_()

    phone.route(f"**/n/{night.code}/undo/", lose_the_first_answer)
    phone.get_by_role("button", name="Undo my last entry").click()

    expect(phone.locator("#tap-status")).to_have_text("✓ Undone", timeout=15_000)
    assert Tally.objects.filter(night=night, kind=Tally.Kind.UNDO).count() == 1
    assert sum(table.totals().values()) == 1  # the +2 was taken back, the +1 stays
    assert len(keys) == 2 and keys[0] == keys[1] and keys[0], keys  # the retry was the same undo


def _key_of(multipart: str) -> str:
    """The `key` field of a multipart form body (FormData)."""
    marker = 'name="key"'
    at = multipart.find(marker)
    if at < 0:
        return ""
    return multipart[at + len(marker):].strip().split("\r\n")[0].strip()
