"""The Bunco tap and a game-table move as call graphs: which of the project's modules ("rooms")
the action walks through, how many stops it makes on the way, and how often it walks back into a
room it had left (issues 30 and 43).

Run it: `.venv/bin/python scripts/tap_call_graph.py` for a tap, `--game fill_or_bust|kismet|
ninety_nine` for a move (a fresh SQLite database in a temporary directory, migrated; no services).
tests/games/night/test_tap_path.py and tests/games/table/test_move_path.py run the same count
inside the test suite and pin the budgets.

What is measured: one tap of the Bunco button, posted through Django's test client as a phone
posts it (`games:tally`), by a player at the head table in round 1 of a seeded night. With
`--players 12` (the default: three tables) the Bunco rings the bell and decides the head table;
the other tables go on to finish their turn. With `--players 4` (one table) the same Bunco also
closes the round and seats round 2: the longest walk a tap can take.

A move (`--game`): a table of the game for three people (its default options, a seed derived from
`--seed`), started; the phone of the seat on turn claims it through the pages, reads its state as
its page does, and posts its first legal move (`tables:move`), its key and its part of the chance.

How it is counted (`sys.setprofile`, while the view function runs: `tally` of
games/night/views/phone.py for a tap, `move` of games/table/views/phone.py for a move):

- Project code is a function whose source file is under bunco_club/, games/, live/ or
  tournaments/. Django, the standard library and every other library are not counted (what they
  call back in the project is), nor generator expressions (a loop's body, not a step).
- The walk starts where the view hands the tap to the night's action (`record_tally`), or the
  move to the table's (`make_move`), and ends when the action returns to the view. What the view does before (who the phone is, reading
  the form) is the same for every request of a phone and is printed apart, as is the delivery of
  the tap's events when its transaction commits (live's broadcaster, after the action returned).
- The room is the module of the innermost project function running, but for the pure rules
  (games/rules/): once the walk enters them, it stays in the room it entered them by until it
  leaves them. The rules are the game's one answer, however an engine divides its work among its
  modules (its state machine, its table adapter, the shared helpers of games/rules/table.py, the
  dice), as a library's inside is not walked. A tap enters the rules by games/rules/bunco.py and
  never leaves it there, so its figures are the same either way; a move enters them by
  games/rules/table.py's `answer`. The report also prints the walk with every module of the rules
  a room of its own (the engine's inside), which no test pins. The walk is the sequence of rooms
  it is in, a room written once while the walk stays in it.
- It is a call graph, so each road is walked once: a call of a function by the same caller that
  was already made (a loop over the seats of a table, a second event logged) adds nothing, with
  all it calls.
- A stop is one entry of that sequence; the rooms are its distinct modules; a return is a stop in
  a room the walk had already been in (walking back into a room it left). So stops = rooms +
  returns, as in the issue's "34 stops through 9 rooms with 25 returns".

Figures (issue 43): a move was 53 stops and 44 returns for Fill or Bust and Kismet, 57 / 48 for
Ninety-Nine (inside the engines too: 65 / 55, 69 / 59, 69 / 59, the issue's figures); it is now 9
stops and 5 returns in each game (inside the engines: 41 / 34, 45 / 38, 43 / 36, the engines'
own modules calling each other as before). The round-closing tap (`--players 4`) was 23 stops and
16 returns; it is now 9 and 5, as the bell's tap (`--players 12`).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PROJECT_PACKAGES = ("bunco_club", "games", "live", "tournaments")
NOT_A_STOP = ("<genexpr>",)
RULES = "games.rules."  # the pure engines: one room, the one the walk entered them by
TAP_ACTION = "record_tally"  # where the tally view hands the tap to the night's action
MOVE_ACTION = "make_move"  # where the move view hands the move to the table's action


@dataclass(frozen=True)
class Stop:
    module: str
    name: str

    def __str__(self) -> str:
        return f"{self.module}.{self.name}"


@dataclass
class Walk:
    """The rooms one tap's action walked through, in order, and the functions it called."""

    rooms_walked: list[str] = field(default_factory=list)  # the sequence: one entry per stop
    # The same walk with every module of the rules a room of its own (the engine's inside walked too).
    modules_walked: list[str] = field(default_factory=list)
    functions: list[tuple[int, Stop]] = field(default_factory=list)  # (depth, function), first calls
    before: list[Stop] = field(default_factory=list)  # the view's own calls before the action
    at_commit: list[Stop] = field(default_factory=list)  # project code run when the tap committed

    @property
    def stops(self) -> int:
        return len(self.rooms_walked)

    @property
    def rooms(self) -> list[str]:
        return list(dict.fromkeys(self.rooms_walked))

    @property
    def returns(self) -> int:
        return self.stops - len(self.rooms)

    def report(self) -> str:
        modules = len(dict.fromkeys(self.modules_walked))
        lines = [f"stops: {self.stops}  rooms: {len(self.rooms)}  returns: {self.returns}", "",
                 "the walk: " + " -> ".join(self.rooms_walked), "",
                 f"inside the engine too (each module of games/rules/ a room): {len(self.modules_walked)} stops, "
                 f"{modules} rooms, {len(self.modules_walked) - modules} returns", "",
                 "the functions it calls (each road once; indented by caller):"]
        lines += [f"  {'  ' * depth}{stop}" for depth, stop in self.functions]
        lines += ["", "the view before the action (not counted): " + ", ".join(map(str, self.before)),
                  "at commit, the delivery (not counted): " + ", ".join(map(str, self.at_commit))]
        return "\n".join(lines)


class Recorder:
    """A `sys.setprofile` hook that records the walk of the action `action` (a function's name)
    called by the view `view`."""

    def __init__(self, view: CodeType, action: str = TAP_ACTION) -> None:
        self.view = view
        self.action = action
        self.walk = Walk()
        self._modules: dict[CodeType, str | None] = {}
        # Project frames active: (frame, stop, counted, room).
        self._stack: list[tuple[FrameType, Stop, bool, str]] = []
        self._seen_frames: set[FrameType] = set()  # a frame called again is a generator resumed
        self._roads: set[tuple[Stop | None, Stop]] = set()
        self._phase = "outside"  # outside -> before -> action -> after (the view's end)
        self._action: FrameType | None = None

    def module_of(self, code: CodeType) -> str | None:
        """The project module a function's code is in, or None for a library's (or a genexpr)."""
        if code not in self._modules:
            module = None
            path = Path(code.co_filename)
            if path.is_relative_to(ROOT) and code.co_name not in NOT_A_STOP:
                parts = path.relative_to(ROOT).with_suffix("").parts
                if parts and parts[0] in PROJECT_PACKAGES:
                    module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            self._modules[code] = module
        return self._modules[code]

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            self._call(frame)
        elif event == "return":
            self._return(frame)

    def _call(self, frame: FrameType) -> None:
        code = frame.f_code
        if code is self.view and self._phase == "outside":
            self._phase = "before"
        module = self.module_of(code)
        if self._phase == "outside" or module is None:
            return
        stop = Stop(module, code.co_qualname)
        caller = self._stack[-1] if self._stack else None
        # Inside the rules the walk stays in the room it entered them by (the engine's answer).
        room = caller[3] if caller is not None and _in_rules(caller[3]) and _in_rules(module) else module
        resumed = frame in self._seen_frames
        self._seen_frames.add(frame)
        if self._phase == "before" and code.co_name == self.action:
            self._phase, self._action = "action", frame
        counted = self._phase == "action" and (caller is None or caller[2] or frame is self._action)
        if counted and not resumed:
            road = (caller[1] if caller is not None and frame is not self._action else None, stop)
            counted = road not in self._roads  # a road already walked adds nothing, nor what it calls
            self._roads.add(road)
            if counted:
                self._enter(room, module)
                self.walk.functions.append((sum(1 for entry in self._stack if entry[2]), stop))
        elif not resumed and self._phase == "before" and caller is not None and caller[0].f_code is self.view:
            self.walk.before.append(stop)
        elif not resumed and self._phase == "after" and caller is not None and caller[0].f_code is self.view:
            self.walk.at_commit.append(stop)
        self._stack.append((frame, stop, counted and not resumed, room))

    def _return(self, frame: FrameType) -> None:
        if not self._stack or self._stack[-1][0] is not frame:
            if frame.f_code is self.view:
                self._phase = "outside"
            return
        _frame, _stop, counted, _room = self._stack.pop()
        if frame is self._action:
            self._phase = "after"
        elif counted and self._stack:
            self._enter(self._stack[-1][3], self._stack[-1][1].module)  # the walk goes back into the caller's room
        if frame.f_code is self.view:
            self._phase = "outside"

    def _enter(self, room: str, module: str) -> None:
        for walked, where in ((self.walk.rooms_walked, room), (self.walk.modules_walked, module)):
            if not walked or walked[-1] != where:
                walked.append(where)


def _in_rules(module: str) -> bool:
    return module.startswith(RULES)


def walk_of_a_bunco_tap(players: int = 12, seed: int = 1) -> Walk:
    """Start a night of `players` through the actions, start round 1, claim a head-table seat
    through the pages, then post a Bunco by that player and record the walk of its view. Needs a
    database (the caller's: a test's, or `main`'s fresh one)."""
    import inspect
    import random

    from django.test import Client
    from django.urls import reverse

    from games.links import join_path
    from games.night import actions
    from games.night.models import Night, Seat
    from games.night.views import phone as phone_views

    names = [f"Player {number + 1}" for number in range(players)]
    night = actions.start_night(names=names, rng=random.Random(seed))
    actions.start_round(night)
    night = Night.objects.get(pk=night.pk)
    seat = Seat.objects.select_related("player").filter(round__night=night, round__number=1,
                                                        table_round__number=1, player__is_ghost=False).first()
    assert seat is not None  # a head table always seats a real player
    phone = Client()
    assert phone.get(join_path(night.code)).status_code == 200
    assert phone.post(reverse("games:claim", args=[night.code]), {"player": seat.player.pk}).status_code == 302

    recorder = Recorder(inspect.unwrap(phone_views.tally).__code__)
    data = {"team": seat.team, "bunco_player": seat.player.pk, "key": "tap-call-graph"}
    sys.setprofile(recorder)
    try:
        response = phone.post(reverse("games:tally", args=[night.code]), data, headers={"HX-Request": "true"})
    finally:
        sys.setprofile(None)
    assert response.status_code == 200, response.content
    assert night.rounds.get(number=1).bell_rung_at is not None, "the Bunco did not ring the bell"
    return recorder.walk


GAMES = ("fill_or_bust", "kismet", "ninety_nine")  # the games of the tables (games/rules/registry.py)


def walk_of_a_move(game: str, seed: int = 1) -> Walk:
    """Open a table of `game` for three people (its default options, a seed derived from `seed`),
    start it, claim the seat on turn through the pages, then post that seat's first legal move as
    its page posts it and record the walk of the move's view. Needs a database, as above."""
    import inspect

    from django.test import Client
    from django.urls import reverse

    from games.table import actions
    from games.table.views import phone as table_views

    table = actions.open_table(game=game, names=["Ann", "Ben", "Cy"], seed=f"{seed:064x}")
    table = actions.start_table(table=table)
    seat = table.loaded().to_move()[0]
    phone = Client()
    assert phone.post(reverse("tables:claim", args=[table.code]), {"seat": str(seat)}).status_code == 302
    payload = phone.get(reverse("tables:state", args=[table.code])).json()
    assert payload["on_turn"], payload
    move = {name: value for name, value in payload["legal_moves"][0].items() if value not in (None, [])}
    data = {**move, "key": "move-call-graph", "client": "ab" * 16}

    recorder = Recorder(inspect.unwrap(table_views.move).__code__, MOVE_ACTION)
    sys.setprofile(recorder)
    try:
        response = phone.post(reverse("tables:move", args=[table.code]), data)
    finally:
        sys.setprofile(None)
    assert response.status_code == 200, response.content
    assert table.moves.count() == 1, "the move was not recorded"
    return recorder.walk


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--players", type=int, default=12, help="12: three tables (default); 4: one table")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--game", choices=GAMES, help="walk a move at a table of this game instead of a tap")
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="bunco-tap-call-graph-"))
    os.environ.update({
        "DJANGO_SETTINGS_MODULE": "bunco_club.site.settings",
        "SQLITE_PATH": str(workdir / "tap.sqlite3"),
        "DATABASE_URL": "",
        "REDIS_URL": "",
    })
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command
    from django.test.utils import setup_test_environment

    setup_test_environment()  # the test client's host, as in the tests
    call_command("migrate", verbosity=0)
    walk = walk_of_a_move(args.game, args.seed) if args.game else walk_of_a_bunco_tap(args.players, args.seed)
    print(walk.report())
    return 0


if __name__ == "__main__":
    sys.exit(main())
