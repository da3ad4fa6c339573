"""A game is one folder (docs/DESIGN.md §2): a fourth game, registered only here, plays a whole game at a
table through the real views, with no line of games/table/ knowing it.

"First to Ten": each seat on turn rolls one die, from the table's own chance, and adds it to its
total; the first to reach the target (10 unless the table says otherwise) wins. Its pure side is
the `TableGame` and the `GameRules` record below; its templates are written to a folder of its
own (templates/games/table/first_to_ten/) in a temporary template directory.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Self

import pytest
from django.test import Client
from django.urls import reverse

from games.rules import dice, registry
from games.rules.dice import Chance
from games.rules.table import GameRules, IllegalMove, OptionField, Result, TableGame, View, move_kind
from games.table.models import Table
from games.table.replay import verify
from tests.builders import table_url as url

pytestmark = pytest.mark.django_db

NAME = "first_to_ten"


@dataclass(frozen=True)
class FirstToTen(TableGame):
    game: ClassVar[str] = NAME

    names: tuple[str, ...]
    totals: tuple[int, ...]
    target: int
    turn: int = 0
    last_roll: int | None = None

    @property
    def seats(self) -> tuple[str, ...]:
        return self.names

    @property
    def is_over(self) -> bool:
        return max(self.totals) >= self.target

    def to_move(self) -> tuple[int, ...]:
        return () if self.is_over else (self.turn,)

    def legal_moves(self, seat: int) -> list[dict[str, Any]]:
        return [{"kind": "roll"}] if seat in self.to_move() else []

    def apply(self, seat: int, move: Mapping[str, Any], rng: Chance) -> Self:
        self.check_turn(seat)
        move_kind(move, ["roll"])
        roll = dice.roll(rng, 1)[0]
        totals = tuple(total + roll if n == seat else total for n, total in enumerate(self.totals))
        return type(self)(self.names, totals, self.target, (seat + 1) % len(self.names), roll)

    def view(self, seat: int | None) -> View:
        return View({"game": NAME, "seats": list(self.names), "scores": list(self.totals),
                     "turn": None if self.is_over else self.turn, "last_roll": self.last_roll,
                     "target": self.target})

    def result(self) -> Result | None:
        if not self.is_over:
            return None
        best = max(self.totals)
        return Result(tuple(n for n, total in enumerate(self.totals) if total == best), self.totals)

    def to_dict(self) -> dict[str, Any]:
        return {"game": NAME, "names": list(self.names), "totals": list(self.totals), "target": self.target,
                "turn": self.turn, "last_roll": self.last_roll}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        return cls(tuple(data["names"]), tuple(data["totals"]), data["target"], data["turn"], data["last_roll"])


def new(names: Sequence[str], options: Mapping[str, Any], rng: Chance) -> TableGame:
    target = options.get("target", 10)
    if target not in (10, 20):
        raise IllegalMove(f"Play to 10 or 20, not {target!r}.")
    return FirstToTen(tuple(names), (0,) * len(names), target)


def chance(before: TableGame, after: TableGame) -> list[list[Any]]:
    assert isinstance(after, FirstToTen) and isinstance(before, FirstToTen)
    return [] if after.totals == before.totals else [["roll", [after.last_roll]]]


def said(move: Mapping[str, Any], view: Mapping[str, Any]) -> str:
    name = view["seats"][move["seat"]]
    text = f"{name} rolled a {view['last_roll']}: {view['scores'][move['seat']]} now."
    return text + f" {name} wins!" if view["turn"] is None else text


FIRST_TO_TEN = GameRules(
    name=NAME, label="First to Ten", min_seats=2, max_seats=4, new=new, load=FirstToTen.from_dict,
    chance=chance, scores=lambda game: list(game.view(None).public["scores"]), said=said,
    bot_move=lambda game, seat, level, rng: {"kind": "roll"},
    options=(OptionField("target", "Play to", "choice", choices=((10, "10"), (20, "20")), default=10),),
    seats_note="Two to four players: first to the target wins.",
)

# The game's own folder: the same partial names as every game's.
TEMPLATES = {
    "_head.html": "",
    "_play.html": (
        '<section id="play" class="play first-to-ten">'
        "{% for name in payload.public.seats %}<p class=\"total\">{{ name }}</p>{% endfor %}"
        '<p class="scores">{{ payload.public.scores|join:" - " }}</p>'
        '{% if payload.on_turn %}<p class="on-turn">Your roll</p>{% endif %}'
        '<p class="said">{{ payload.said }}</p>'
        '{% if table.status == "over" %}<p class="over">The game is over</p>{% endif %}</section>'
    ),
    "_screen.html": '<section id="play" class="play">First to Ten: {{ payload.public.scores|join:" - " }}</section>',
    "_options.html": ('<fieldset data-for-game="first_to_ten"><legend>First to Ten</legend>'
                      "{% for field in fields %}{{ field.label_tag }} {{ field }}{% endfor %}</fieldset>"),
    "_replay_head.html": "",
    "_replay_top.html": '<p class="first-to-ten-target">Played to {{ final.target }}</p>',
    "_replay_step.html": "",
}


@pytest.fixture
def first_to_ten(settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[GameRules]:
    """The fourth game, in the registry and with its template folder, for this test only."""
    folder = tmp_path / "games" / "table" / NAME
    folder.mkdir(parents=True)
    for name, text in TEMPLATES.items():
        (folder / name).write_text(text)
    settings.TEMPLATES = [{**settings.TEMPLATES[0], "DIRS": [*settings.TEMPLATES[0]["DIRS"], tmp_path]}]
    monkeypatch.setitem(registry.GAMES, NAME, FIRST_TO_TEN)
    yield FIRST_TO_TEN


def page(client: Client, address: str) -> str:
    response = client.get(address)
    assert response.status_code == 200, response.content[:500]
    return response.content.decode()


def test_a_fourth_game_registered_only_here_plays_a_whole_game_through_the_real_views(first_to_ten: GameRules) -> None:
    opener, ann, bob = Client(), Client(), Client()
    form = page(opener, reverse("tables:new"))
    assert "First to Ten" in form and "Two to four players" in form

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
        assert "Your roll" in page(phones[seat], url("table", table))
        answer = phones[seat].post(url("move", table), {"kind": "roll", "key": f"move-{number:04d}"})
        assert answer.status_code == 200, answer.content
        said.append(answer.json()["said"])
    table.refresh_from_db()
    assert table.is_over and table.moves_made == len(said)

    totals = table.loaded().view(None).public["scores"]
    winner = "Ann" if totals[0] >= 10 else "Bob"
    assert said[-1].endswith(f"{winner} wins!")
    assert all(re.fullmatch(r"(Ann|Bob) rolled a [1-6]: \d+ now\.( (Ann|Bob) wins!)?", words) for words in said)
    assert "The game is over" in page(ann, url("table", table))

    replay = page(ann, reverse("tables:replay", args=[table.code]))
    assert "Played to 10" in replay and said[-1] in replay and str(table.revealed_seed) in replay
    assert "Verified." in page(ann, reverse("tables:check", args=[table.code]))
    assert verify(table).verified
    assert "First to Ten" in page(opener, reverse("tables:screen", args=[table.code, table.screen_token]))


def test_a_bot_plays_the_fourth_game_too(first_to_ten: GameRules) -> None:
    from games.table import actions
    from games.table.tasks import play_bot_move

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
            assert ann.post(url("move", table), {"kind": "roll", "key": f"move-{number:04d}"}).status_code == 200
        else:
            assert play_bot_move(table, waiting=False) is not None
    assert table.is_over and verify(table).verified
