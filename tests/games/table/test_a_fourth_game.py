"""A game is one folder (docs/DESIGN.md §2): a fourth game, registered only here, plays a whole game at a
table through the real views, the bots and the commands, with no line of games/table/ knowing it.

"First to Ten" (tests/games/table/first_to_ten/): each seat on turn rolls 1 to 3 dice, its choice
(a move with an argument, read by the game's own `read_move`), and each seat holds a lucky face
that only its own phone sees (a private hand). Its rules, its `GameRules` record, its templates and
its script are in its folder; the fixture registers it and adds its templates to the search path.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.contrib.staticfiles.finders import FileSystemFinder
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from games.rules import registry
from games.rules.table import GameRules
from games.table import actions
from games.table.models import Table
from games.table.replay import verify
from games.table.tasks import play_bot_move
from live.models import Event
from tests.builders import seated_phone
from tests.builders import table_url as url
from tests.games.table.first_to_ten import FOLDER, STATIC, TEMPLATES
from tests.games.table.first_to_ten.rules import NAME, RULES

pytestmark = pytest.mark.django_db

ROOT = Path(django_settings.BASE_DIR)
# The tests that play the game: the only files outside its folder that name it.
PLAYED_BY = {Path(__file__).resolve(), ROOT / "tests/e2e/test_a_fourth_game.py"}


@pytest.fixture
def first_to_ten(settings: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[GameRules]:
    """The fourth game, in the registry and with its folder's templates and script, for this test only."""
    settings.STATICFILES_DIRS = [*settings.STATICFILES_DIRS, STATIC]
    settings.TEMPLATES = [{**settings.TEMPLATES[0], "DIRS": [*settings.TEMPLATES[0]["DIRS"], TEMPLATES]}]
    monkeypatch.setitem(registry.GAMES, NAME, RULES)
    yield RULES


def page(client: Client, address: str) -> str:
    response = client.get(address)
    assert response.status_code == 200, response.content[:500]
    return response.content.decode()


def started_table(seats: int = 2, target: int = 10) -> Table:
    table = actions.open_table(game=NAME, names=["Ann", "Bob", "Cy", "Di"][:seats], bots=[""] * seats,
                               options={"target": target})
    return actions.start_table(table=table)


def test_a_fourth_game_registered_only_here_plays_a_whole_game_through_the_real_views(first_to_ten: GameRules) -> None:
    opener, ann, bob = Client(), Client(), Client()
    form = page(opener, reverse("tables:new"))
    assert "First to Ten" in form and "Two to four players" in form and "always rolls three" in form

    opened = opener.post(reverse("tables:new"), {"game": NAME, "target": "10", "name_0": "Ann", "who_0": "person",
                                                 "name_1": "Bob", "who_1": "person"})
    assert opened.status_code == 302
    table = Table.objects.get()
    assert table.game == NAME and table.options == {"target": 10}

    for phone, seat in ((ann, 0), (bob, 1)):
        page(phone, url("table", table))
        assert phone.post(url("claim", table), {"seat": seat}).status_code == 302
    assert opener.post(url("start", table)).status_code == 302

    phones = {0: ann, 1: bob}
    said: list[str] = []
    for number in range(1, 100):
        table.refresh_from_db()
        if table.is_over:
            break
        seat = table.loaded().to_move()[0]
        assert "Your roll</p>" in page(phones[seat], url("table", table))
        dice = 1 + number % 3
        answer = phones[seat].post(url("move", table), {"kind": "roll", "dice": str(dice), "key": f"move-{number:04d}"})
        assert answer.status_code == 200, answer.content
        assert len(answer.json()["public"]["last_roll"]) == dice
        said.append(answer.json()["said"])
    table.refresh_from_db()
    assert table.is_over and table.moves_made == len(said)

    totals = table.loaded().view(None).public["scores"]
    winner = "Ann" if totals[0] >= 10 else "Bob"
    assert said[-1].endswith(f"{winner} wins!")
    assert all(re.fullmatch(r"(Ann|Bob) rolled [1-6](, [1-6]){0,2}: \d+ now\.( (Ann|Bob) wins!)?", words)
               for words in said)
    assert "The game is over" in page(ann, url("table", table))

    replay = page(ann, reverse("tables:replay", args=[table.code]))
    assert "Played to 10" in replay and said[-1] in replay and str(table.revealed_seed) in replay
    assert "Verified." in page(ann, reverse("tables:check", args=[table.code]))
    assert verify(table).verified
    assert "First to Ten" in page(opener, reverse("tables:screen", args=[table.code, table.screen_token]))


@pytest.mark.parametrize("fields", [
    {"kind": "roll", "dice": "4"},
    {"kind": "roll", "dice": "0"},
    {"kind": "roll", "dice": "²"},
    {"kind": "roll", "dice": "2", "card": "7"},
    {"kind": "roll", "dice": "2", "box": "ones"},
], ids=["four dice", "no dice", "not a number", "another game's card", "another game's box"])
def test_a_malformed_roll_is_refused_400_with_a_message_and_changes_nothing(first_to_ten: GameRules, fields) -> None:
    table = started_table()
    ann = seated_phone(table, 0)
    before = Table.objects.get(pk=table.pk)
    answer = ann.post(url("move", table), {**fields, "key": "k-1"})
    assert answer.status_code == 400 and answer.json()["error"]
    after = Table.objects.get(pk=table.pk)
    assert (after.moves_made, after.state) == (before.moves_made, before.state)
    assert ann.post(url("move", table), {"kind": "roll", "dice": "3", "key": "k-2"}).status_code == 200


def test_the_number_of_dice_is_read_as_the_site_reads_every_number(first_to_ten: GameRules) -> None:
    table = started_table()
    answer = seated_phone(table, 0).post(url("move", table), {"kind": "roll", "dice": "4"})
    assert answer.json()["error"] == "The number of dice must be a whole number from 1 to 3."
    missing = seated_phone(table, 1)
    assert missing.post(url("move", table), {"kind": "roll"}).status_code == 409  # Bob is not on turn


def test_each_seat_sees_its_own_lucky_face_and_no_one_else_sees_it(first_to_ten: GameRules) -> None:
    table = started_table(3, target=20)  # three rolls of a die: 12 at most each, nobody wins yet
    lucky = table.loaded().to_dict()["lucky"]
    phones = [seated_phone(table, seat) for seat in range(3)]
    for seat, phone in enumerate(phones):
        shown = page(phone, url("table", table))
        assert shown.count("Your lucky face") == 1 and f"Your lucky face: {lucky[seat]}</p>" in shown
        found = re.search(r'<script id="table-data" type="application/json">(.*?)</script>', shown)
        assert found is not None
        data = json.loads(found.group(1))
        assert data["private"] == {"lucky": lucky[seat]} and "lucky" not in json.dumps(data["public"])
        state = phone.get(url("state", table)).json()
        assert state["private"] == {"lucky": lucky[seat]} and "lucky" not in json.dumps(state["public"])
        other = (seat + 1) % 3
        assert phone.get(url("state", table) + f"?seat={other}").status_code == 403
    watcher = page(Client(), url("table", table))
    screen = page(Client(), reverse("tables:screen", args=[table.code, table.screen_token]))
    assert "lucky" not in watcher.lower() and "lucky" not in screen.lower()

    for number in range(1, 4):
        seat = table.loaded().to_move()[0]
        assert phones[seat].post(url("move", table), {"kind": "roll", "dice": "1", "key": f"m{number}"}).status_code == 200
        table.refresh_from_db()
    public = Event.objects.filter(channel=table.channel)
    assert public.exists() and not any("lucky" in json.dumps(event.data) for event in public)
    for seat in range(3):
        private = Event.objects.filter(channel=table.seat_channel(seat))  # a lucky face never changes: none sent
        assert all(event.data.get("private", {}).get("lucky", lucky[seat]) == lucky[seat] for event in private)


def test_a_bot_plays_the_fourth_game_too(first_to_ten: GameRules) -> None:
    table = actions.open_table(game=NAME, names=["Ann", "Robo"], bots=["", "easy"], options={"target": 10})
    ann = Client()
    page(ann, url("table", table))
    ann.post(url("claim", table), {"seat": 0})
    actions.start_table(table=table)
    for number in range(1, 100):
        table.refresh_from_db()
        if table.is_over:
            break
        if table.loaded().to_move() == (0,):
            assert ann.post(url("move", table), {"kind": "roll", "dice": "2", "key": f"move-{number:04d}"}).status_code == 200
        else:
            assert play_bot_move(table, waiting=False) is not None
    assert table.is_over and verify(table).verified


def test_simulate_table_plays_the_fourth_game_with_its_own_option_and_verify_table_confirms_it(
        first_to_ten: GameRules) -> None:
    out = io.StringIO()
    call_command("simulate_table", "--game", NAME, "--players", "3", "--seed", "5", "--target", "20",
                 "--level", "strong", "--json", stdout=out)
    game = json.loads(out.getvalue())
    assert game["game"] == NAME and game["names"] == ["Bot 1", "Bot 2", "Bot 3"]
    assert max(game["totals"].values()) >= 20 and all(len(roll["dice"]) == 3 for roll in game["rolls"])
    assert game["rolls"][-1]["totals"] == list(game["totals"].values())
    said = io.StringIO()
    with pytest.raises(SystemExit) as exit_code:
        call_command("verify_table", game["code"], stdout=said)
    assert exit_code.value.code == 0 and said.getvalue().startswith("verified")
    assert "First to Ten" in said.getvalue()


def test_everything_the_game_needed_is_in_its_own_folder_and_nothing_outside_names_it(first_to_ten: GameRules) -> None:
    table = started_table()
    ann = seated_phone(table, 0)
    rendered = [ann.get(url("table", table)), Client().get(reverse("tables:new")),
                Client().get(reverse("tables:screen", args=[table.code, table.screen_token]))]
    templates = {Path(template.origin.name) for response in rendered for template in response.templates
                 if f"/{NAME}/" in template.origin.name}
    script = FileSystemFinder().find(f"js/games/{NAME}/table.js")
    needed = templates | {Path(RULES.new.__code__.co_filename), Path(str(script))}
    assert len(templates) >= 4  # its page's head and play, its options, its screen
    assert all(path.resolve().is_relative_to(FOLDER) for path in needed), needed

    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.decode()
    naming = [name for name in tracked.split("\0") if name and (ROOT / name).is_file()
              and not (ROOT / name).resolve().is_relative_to(FOLDER) and (ROOT / name).resolve() not in PLAYED_BY
              and re.search(r"first[ _-]?to[ _-]?ten", (ROOT / name).read_text(errors="replace"), re.IGNORECASE)]
    assert naming == []
