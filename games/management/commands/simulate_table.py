"""`simulate_table`: a whole game at a game table, every seat a bot (docs/CONTRACT.md).

    python manage.py simulate_table --game fill_or_bust --players N --seed S [--goal G] [--json]
    python manage.py simulate_table --game ninety_nine --players N --seed S [--markers M] [--json]
    python manage.py simulate_table ... --phones


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

from games.rules import fill_or_bust, kismet_table
from games.rules.table import IllegalMove
from games.table import actions, bots, replay
from games.table.engines import ENGINES
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
    if table.game == "fill_or_bust":
        state = game.state  # type: ignore[attr-defined]
        out["turns"] = [
            {"player": turn.player, "steps": fill_or_bust.step_lists(turn.steps), "scores": dict(turn.scores_after)}
            for turn in state.turns
        ]
        out["scores"] = dict(zip(names, state.sheet, strict=True))
        out["goal"] = state.goal
    elif table.game == "ninety_nine":
        out["deals"] = ninety_nine_deals(table, names)
        out["markers"] = dict(zip(names, game.state.markers, strict=True))  # type: ignore[attr-defined]
    elif table.game == "kismet":
        out |= kismet_table.summary([(step.move.move, step.game)
                                     for step in replay.replay(table, table.moves.order_by("number"))])
    return out


def ninety_nine_deals(table: Table, names: list[str]) -> list[dict[str, Any]]:
    """Each deal of a finished Ninety-Nine or Bust table, from its record: who dealt, every card
    played with the count it made, and who lost the deal."""
    deals: list[dict[str, Any]] = []
    current: dict[str, Any] = {"dealer": names[replay.deal(table).state.dealer], "plays": [], "loser": None}  # type: ignore[attr-defined]
    for step in replay.replay(table, table.moves.order_by("number")):
        state = step.game.state  # type: ignore[attr-defined]
        if step.move.move.get("kind") == "deal":
            deals.append(current)
            current = {"dealer": names[state.dealer], "plays": [], "loser": None}
            continue
        for event in state.events:
            if event.kind == "played":
                current["plays"].append({"player": names[event.seat], "card": event.card, "count": event.count})
            elif event.kind == "lost_round":
                current["loser"] = names[event.seat]
    deals.append(current)
    return deals


class Command(BaseCommand):
    help = "Play a whole game at a game table, every seat a bot, through the real actions."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--game", required=True, choices=["fill_or_bust", "kismet", "ninety_nine"])
        parser.add_argument("--players", type=int, required=True)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--goal", type=int, default=5000, help="Fill or Bust's point goal")
        parser.add_argument("--markers", type=int, default=4, help="Ninety-Nine or Bust's markers")
        parser.add_argument("--level", default="threshold", choices=list(bots.LEVELS))
        parser.add_argument("--json", action="store_true")
        parser.add_argument("--phones", action="store_true",
                            help="every seat's phone brings its own value to the chance, as real phones do")

    def handle(self, *args: Any, **options: Any) -> None:
        require_migrated_database()
        game = options["game"]
        if game not in ENGINES:
            raise CommandError(f"{game} is not played at the game tables yet.")
        table_options: dict[str, Any] = {"goal": options["goal"]} if game == "fill_or_bust" else {}
        if game == "ninety_nine":
            table_options = {"markers": options["markers"]}
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
