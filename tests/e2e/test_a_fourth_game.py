"""A fourth game, one folder (tests/games/table/first_to_ten/), in the browser: its own script and
templates, served from its folder by a server that registers it (its folder's settings module);
a phone taps its seat, sees its own lucky face and rolls two dice by tapping."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from games.rules import registry
from games.table.models import Move
from tests.builders import make_table
from tests.conftest import ServerPool, ServerProcess, shared_server
from tests.e2e.pages import join_table, moved_past
from tests.games.table.first_to_ten.rules import NAME, RULES

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SETTINGS = "tests.games.table.first_to_ten.settings"


@pytest.fixture
def fourth_game_site(transactional_db: None, server_pool: ServerPool, request: pytest.FixtureRequest,
                     monkeypatch: pytest.MonkeyPatch) -> Iterator[ServerProcess]:
    """The tables' server with the fourth game registered, and the game registered here too."""
    monkeypatch.setitem(registry.GAMES, NAME, RULES)
    with shared_server(server_pool, {"REDIS_URL": "", "EVENTS_STREAM_MAX_SECONDS": "300",
                                     "DJANGO_SETTINGS_MODULE": SETTINGS}, request) as server:
        yield server


def test_a_phone_rolls_two_dice_of_the_fourth_game_by_tapping(fourth_game_site: ServerProcess, new_phone) -> None:
    table = make_table(2, game=NAME, names=["Ann", "Bob"], options={"target": 20}, seed=43)
    lucky = table.loaded().to_dict()["lucky"][0]
    ann = join_table(new_phone(), fourth_game_site.url, table.code, "Ann")
    expect(ann.locator("#lucky")).to_have_text(f"Your lucky face: {lucky}")
    expect(ann.locator("#ftt-on-turn")).to_be_visible()

    ann.get_by_role("button", name="Roll 2 dice").click()
    moved_past(ann, 0)
    rolled = Move.objects.get(table=table, number=1)
    assert rolled.move == {"kind": "roll", "dice": 2} and len(rolled.chance[0][1]) == 2
    table.refresh_from_db()
    total = table.loaded().view(None).public["scores"][0]
    faces = ", ".join(str(face) for face in rolled.chance[0][1])
    # The phone's own part of the chance is fresh each move, so the faces are not known beforehand:
    # two lucky faces doubled (up to 24) reach the target of 20 and win the game on this roll.
    won = " Ann wins!" if total >= 20 else ""
    expect(ann.locator("#said")).to_have_text(f"Ann rolled {faces}: {total} now.{won}")
    expect(ann.locator("#ftt-scores")).to_have_text(f"{total} - 0")
    if not won:
        expect(ann.get_by_role("button", name="Roll 2 dice")).to_be_disabled()
