"""`simulate_table`: a whole game at a game table, every seat a bot (docs/CONTRACT.md).

    python manage.py simulate_table --game fill_or_bust --players N --seed S [--goal G] [--json]
    python manage.py simulate_table --game ninety_nine --players N --seed S [--markers M] [--json]
    python manage.py simulate_table ... --phones

Any game of the registry: its options on the command line (`--goal`, `--markers`) and what the JSON
says of a finished game are its `GameRules` record's (`simulated`, `summary`).

The table is opened through the same action as "Play a game" (its seed derived from S, committed
before the first move and revealed at the end, as a real table's), and every move is made through
`make_move`, the action the phones call, chosen by the table's bots. The output is read back from
the table's record.

Chance follows version 2 of docs/FAIRNESS.md: a bot's seat and a bot's move contribute nothing. With
`--phones` every seat is claimed in the lobby by a phone of its own that brings its value, as a real
phone's page does, and sends one with every move (the bots still choose the moves), so that the
record shows what phones bring. The values are derived from S: the same S plays the same game.
"""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.rules.registry import GAMES
from games.rules.table import IllegalMove, Played, SimulatedOption
from games.table import actions, bots, replay
from games.table.models import Move, Table
from games.table.tasks import play_bot_move
from live.commands import require_migrated_database
from live.refusals import Refusal

MOST_MOVES = 100_000  # a game that has not ended by then is a bug, not a long game


def simulated_seed(seed: int) -> str:
    return hashlib.sha256(f"simulate_table:{seed}".encode()).hexdigest()


def phone_value(seed: int, what: str) -> str:
    """What a simulated phone brings (docs/FAIRNESS.md: 32 hex characters), derived from S."""
    return hashlib.sha256(f"simulate_table:{seed}:phone:{what}".encode()).hexdigest()[:32]


def simulate(game: str, players: int, seed: int, *, options: dict[str, Any], level: str = "threshold",
             phones: bool = False) -> Table:
    """Open a table of bots and play it to the end through the actions (with `phones`, each seat's
    moves sent as its phone would send them, each with the phone's value)."""
    names = [f"Bot {number}" for number in range(1, players + 1)]
    try:
        table = actions.open_table(game=game, names=names, bots=[""] * players if phones else [level] * players,
                                   options=options, seed=simulated_seed(seed),
                                   code=Table.objects.free_code(simulated_seed(seed)), simulated=True)
        if phones:
            for number in range(players):
                actions.claim_seat(table=table, number=number, phone=f"simulated-phone-{number}",
                                   contribution=phone_value(seed, f"seat {number}"))
            table = actions.start_table(table=table)
    except Refusal as refusal:
        raise CommandError(refusal.message) from None
    for _ in range(MOST_MOVES):
        if (play_phone_move(table, seed, level) if phones else play_bot_move(table, waiting=False)) is None:
            break
    table.refresh_from_db()
    if not table.is_over:
        raise CommandError(f"The game at table {table.code} did not end.")
    return table


def play_phone_move(table: Table, seed: int, level: str) -> Move | None:
    """The move of the seat whose turn it is, chosen by a bot and sent as its phone sends it."""
    table.refresh_from_db()
    if table.status != Table.Status.PLAYING:
        return None
    game = table.loaded()
    if not game.to_move():
        return None
    seat, number = game.to_move()[0], table.moves_made + 1
    move = bots.choose_move(game, seat, level, bots.bot_rng(table.seed, number))
    return actions.make_move(table=table, seat=seat, move=move, key=f"simulated-{number}",
                             client=phone_value(seed, f"move {number}"))


def summary(table: Table, elapsed: float) -> dict[str, Any]:
    game = table.loaded()
    result = game.result()
    assert result is not None
    names = list(game.seats)
    winners = [names[seat] for seat in result.winners]
    out: dict[str, Any] = {
        "game": table.game, "version": table.fairness, "players": len(names), "code": table.code,
        "elapsed_s": round(elapsed, 3),
        "commitment": table.commitment, "seed": table.revealed_seed, "names": names,
        "winner": winners[0] if len(winners) == 1 else winners,
    }
    steps = ((step.move.move, step.game) for step in replay.replay(table, table.moves.order_by("number")))
    return out | table.engine.summary(Played(replay.deal(table), steps, game))


def simulated_options() -> dict[str, SimulatedOption]:
    """The games' command-line options, each once (the first game of the registry to take a flag
    says its default and help)."""
    flags: dict[str, SimulatedOption] = {}
    for rules in GAMES.values():
        for option in rules.simulated:
            flags.setdefault(option.flag, option)
    return flags


class Command(BaseCommand):
    help = "Play a whole game at a game table, every seat a bot, through the real actions."

    def add_arguments(self, parser: CommandParser) -> None:
        # Every game of the registry when the command runs (alphabetical, as --help lists them).
        parser.add_argument("--game", required=True, choices=sorted(GAMES))
        parser.add_argument("--players", type=int, required=True)
        parser.add_argument("--seed", type=int, default=0)
        for flag, option in simulated_options().items():
            parser.add_argument(f"--{flag}", type=int, default=option.default, help=option.help)
        parser.add_argument("--level", default="threshold", choices=list(bots.LEVELS))
        parser.add_argument("--json", action="store_true")
        parser.add_argument("--phones", action="store_true",
                            help="every seat's phone brings its own value to the chance, as real phones do")

    def handle(self, *args: Any, **options: Any) -> None:
        require_migrated_database()
        game = options["game"]
        if game not in GAMES:
            raise CommandError(f"{game} is not played at the game tables yet.")
        table_options = {option.option: options[option.flag.replace("-", "_")] for option in GAMES[game].simulated}
        started = time.perf_counter()
        try:
            table = simulate(game, options["players"], options["seed"], options=table_options,
                             level=options["level"], phones=options["phones"])
        except IllegalMove as error:
            raise CommandError(str(error)) from None
        out = summary(table, time.perf_counter() - started)
        if options["json"]:
            self.stdout.write(json.dumps(out))
        else:
            self.stdout.write(f"Table {out['code']}: {out['winner']} won. Seed {out['seed']}, "
                              f"commitment {out['commitment']}.")
