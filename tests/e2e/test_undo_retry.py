"""A phone that loses the answer to its undo sends it again with the same key, and the server
takes back one entry, not two (issue: a retried undo after a lost answer removed two entries)."""

from __future__ import annotations

from urllib.parse import parse_qs

import pytest
from playwright.sync_api import Route, expect

from games.night.models import Tally
from tests.builders import started_night
from tests.conftest import ServerProcess
from tests.e2e.pages import join_night

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

NAMES = ["Alice", "Bea", "Carmen", "Dana", "Eve", "Fran", "Gwen", "Hana"]


def test_an_undo_whose_answer_is_lost_is_retried_and_takes_back_one_entry(
    night_site: ServerProcess, new_phone
) -> None:
    night = started_night(names=NAMES, seed=3)
    name = night.round_obj().seating()[1][0]  # someone at table 2
    # Live: the page's scripts run (a tap before they do would be a click on a plain button).
    phone = join_night(new_phone(device_scale_factor=1), night_site.url, night.code, name, table=2)
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

    expect(phone.locator("#tap-status")).to_have_text("✓ Undone")
    assert Tally.objects.filter(night=night, kind=Tally.Kind.UNDO).count() == 1
    assert sum(table.totals().values()) == 1  # the +2 was taken back, the +1 stays
    assert len(keys) == 2 and keys[0] == keys[1] and keys[0], keys  # the retry was the same undo


def _key_of(body: str) -> str:
    """The `key` field of a tap's or an undo's body, urlencoded as the page sends it (tally.js)."""
    return parse_qs(body).get("key", [""])[0]
