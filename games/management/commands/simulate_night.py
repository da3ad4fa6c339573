"""`simulate_night`: a whole Bunco night played by bots through the real actions (docs/CONTRACT.md).

    python manage.py simulate_night --players N --seed S [--json] [--buy-in CENTS]
    python manage.py simulate_night --party ID --seed S [--json]     (a club party's night)

The bots throw the dice (`games.rules.dice`, one `random.Random(seed)` for the draw, every roll
and the prize roll-offs) and score them with the pure rules: one `bunco.TableRound` per table and
round, all tables rolling in lock-step, the head table first (the same order as the pure
`bunco.simulate_night`, so a seed gives the same night in both). Every scoring roll is posted as
the phone would post it, `actions.record_tally` with a key (+1/+2/+5, or a Bunco with the roller as
`bunco_player`; a ghost's roll is thrown by its partner). The bell is rung by the action; the other
tables then finish the turn under way and call `finish_turn`, ties roll off through roll-off
tallies and `finish_roll_off`, and the movement happens inside the actions. After round 24,
`award_prizes`.

Nothing is taken from the pure engine's own bookkeeping for the output: the sheets, the traveler,
the pot and the prizes are read back from the database. Where the actions decide a table
differently from the pure rules, the command stops with an error instead of printing a night
that did not follow the rules.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import DEFAULT_DB_ALIAS, connections
from django.db import connection as db_connection
from django.db.backends.base.base import BaseDatabaseWrapper

from bunco_club.models import RSVP, Party
from games.night import actions
from games.night.models import Night, Player, Seat, TableRound
from games.rules import bunco, dice, prizes
from live.commands import require_migrated_database
from live.refusals import Refusal

DEFAULT_BUY_IN_CENTS = 500


def player_names(count: int) -> list[str]:
    """ "Player 01" … zero-padded, so the database's alphabetical order is the numeric one."""
    width = len(str(count))
    return [f"Player {number:0{width}d}" for number in range(1, count + 1)]


def simulate(players: int, seed: int, *, buy_in_cents: int = DEFAULT_BUY_IN_CENTS, party: Party | None = None) -> Night:
    """Play a whole night through the actions and return it (finished, prizes awarded).

    With a club `party`, its night: the members who said yes play, at the club's buy-in and prize
    scheme, and the prizes report the night to the club (its season standings). The bots throw by
    the official rules, so the club's table house rules are not applied here."""
    names = party_names(party) if party is not None else player_names(players)
    try:
        bunco.night_shape(len(names))
    except bunco.BuncoError as error:
        raise CommandError(str(error)) from error
    rng = random.Random(seed)
    try:
        night = actions.start_night(
            names=names,
            buy_in_cents=buy_in_cents,
            rng=rng,
            **(party_night(party) if party is not None else {"title": f"Simulated night (seed {seed})"}),
        )
    except Refusal as refusal:
        # What the action refuses (a party whose night exists already, issue 29 C9) is the
        # command's one-line answer, never a traceback.
        where = f"Party {party.pk}" if party is not None else "The night"
        raise CommandError(f"{where} cannot be simulated: {refusal}") from refusal
    bot = _Bots(night, rng)
    with _tables_at_once() as bot.pool:
        for number in range(1, bunco.ROUNDS + 1):
            bot.play_round(number)
    actions.award_prizes(bot.night, rng=rng)
    return bot.night


def party_names(party: Party) -> list[str]:
    return list(party.rsvps.filter(answer=RSVP.Answer.YES).order_by("member__name").values_list("member__name", flat=True))


def party_night(party: Party) -> dict[str, Any]:
    """start_night's arguments that make the night the party's."""
    club = party.club
    return {
        "club": club, "party": party, "prize_rules": prizes.PrizeRules(**club.prize_rules()),  # type: ignore[arg-type]
        "members": {member.name: member for member in club.members.all()},
        "title": f"{club.name} night (simulated)",
    }


# How many tables post their taps at once on PostgreSQL (a hall's phones do; its pool holds 20).
TABLES_AT_ONCE = 4


@contextmanager
def _tables_at_once() -> Iterator[ThreadPoolExecutor | None]:
    """Threads for the tables' taps where the database takes several writers at once; None on
    SQLite, which takes one at a time (threads would only wait on its lock), and inside a caller's
    transaction, whose rows the threads' own connections could not see."""
    if db_connection.vendor == "sqlite" or db_connection.in_atomic_block:
        yield None
        return
    # Each thread keeps its connection for the whole night (handing it back to the pool after every
    # tap cost a sixth of the night), and this thread closes them all once the threads are done.
    opened: list[BaseDatabaseWrapper] = []

    def remember_the_connection() -> None:
        wrapper = connections[DEFAULT_DB_ALIAS]
        wrapper.inc_thread_sharing()
        opened.append(wrapper)

    try:
        with ThreadPoolExecutor(TABLES_AT_ONCE, thread_name_prefix="bot-table",
                                initializer=remember_the_connection) as pool:
            yield pool
    finally:
        for wrapper in opened:
            wrapper.close()
            wrapper.dec_thread_sharing()


@dataclass(frozen=True)
class _Throw:
    """One throw at one table: the tally it scored (None for a miss) and the confirmation the end
    of its turn calls for (`finish_turn` after the bell, `finish_roll_off`), or None."""

    round_number: int
    table_number: int
    table: bunco.TableRound
    tally: bunco.Tally | None
    then: Callable[..., TableRound] | None


class _Bots:
    """Everyone at the night, rolling and tapping."""

    def __init__(self, night: Night, rng: random.Random) -> None:
        self.night = night
        self.rng = rng
        self.players = {player.name: player for player in night.players.all()}
        self.ghosts = frozenset(name for name, player in self.players.items() if player.is_ghost)
        self.pool: ThreadPoolExecutor | None = None

    def play_round(self, number: int) -> None:
        night = self.night
        if night.status == Night.Status.BREAK:
            self.night = night = actions.resume_after_break(night)
        if night.current_round != number:
            raise CommandError(f"The night is at round {night.current_round}, the bots at round {number}.")
        target = bunco.target_for_round(number)
        tables = [
            bunco.TableRound(seats, target, head=index == 0, ghosts=self.ghosts)
            for index, seats in enumerate(self._seating(number))
        ]
        actions.start_round(night)

        head = tables[0]
        bell = False
        playing = list(enumerate(tables, start=1))
        while playing:
            # The dice are thrown table by table (one seeded generator), then the step's taps are
            # posted, the tables at once where the database takes writers at once.
            self._post_step([self._throw(number, table_number, table) for table_number, table in playing])
            # Lock-step, as in the pure simulator: the tables roll at once, so those after the head
            # table have thrown this step's dice too when they hear the bell the action rang.
            if not bell and head.bell_rung:
                bell = True
                for table_number, table in enumerate(tables[1:], start=2):
                    table.ring_bell()
                    if table.phase is not bunco.Phase.FINISHING:  # nobody was mid-turn
                        self._confirm(actions.finish_turn(night=night, table_number=table_number), table)
            playing = [(table_number, table) for table_number, table in playing if not table.done]

        # The head table was decided inside record_tally: check every winner once a round.
        decided = dict(
            TableRound.objects.filter(round__night=night, round__number=number).values_list(
                "number", "winner"
            )
        )
        expected = {table_number: table.winner for table_number, table in enumerate(tables, start=1)}
        if decided != expected:
            raise CommandError(f"Round {number}: the actions decided {decided}, the rules {expected}.")

    def _seating(self, number: int) -> list[list[str]]:
        """The round's seating as the actions made it (table 1 first, seats in order)."""
        seating: dict[int, list[str]] = {}
        for table_number, name in (
            Seat.objects.filter(round__night=self.night, round__number=number)
            .order_by("table_round__number", "position")
            .values_list("table_round__number", "player__name")
        ):
            seating.setdefault(table_number, []).append(name)
        return [seating[table_number] for table_number in sorted(seating)]

    def _throw(self, number: int, table_number: int, table: bunco.TableRound) -> _Throw:
        """One throw at one table, scored by the pure rules: what its phone posts for it."""
        phase = table.phase
        recorded = len(table.tallies)
        outcome = table.roll(dice.roll(self.rng, 3))
        tally = table.tallies[-1] if len(table.tallies) > recorded else None
        then = None
        if phase is bunco.Phase.FINISHING and table.phase is not bunco.Phase.FINISHING:
            # The player who was mid-turn at the bell has missed: the table's turn is over.
            then = actions.finish_turn
        elif phase is bunco.Phase.ROLL_OFF and not outcome.keeps_turn and table.seat_to_roll == 0:
            # A roll-off cycle starts at seat 0 and is one turn per seat: the dice are back at
            # seat 0 exactly when all four turns of the cycle have been taken.
            then = actions.finish_roll_off
        return _Throw(number, table_number, table, tally, then)

    def _post_step(self, throws: list[_Throw]) -> None:
        """Post one lock-step's throws. Buncos go last, one after another in table order: the
        traveler goes to the last Bunco rolled, so their order is the pure simulator's. The other
        tables' taps don't depend on each other's order (each locks its own table), so on
        PostgreSQL they are posted at once, as a hall's phones post them, and their commits share
        the disk's flushes; SQLite takes one writer at a time, so there they go one by one."""
        posts = [throw for throw in throws if throw.tally is not None or throw.then is not None]
        buncos = [throw for throw in posts if throw.tally is not None and throw.tally.bunco]
        others = [throw for throw in posts if throw.tally is None or not throw.tally.bunco]
        if self.pool is not None and len(others) > 1:
            for _ in self.pool.map(self._post, others):
                pass
        else:
            for throw in others:
                self._post(throw)
        for throw in buncos:
            self._post(throw)

    def _post(self, throw: _Throw) -> None:
        """A throw's tap (when it scored), then the confirmation its turn's end calls for."""
        if throw.tally is not None:
            tally = throw.tally
            roller = self.players[tally.roller]
            actions.record_tally(
                night=self.night,
                table_number=throw.table_number,
                team=tally.team,
                points=tally.points,
                bunco_player=roller if tally.bunco else None,
                entered_by=roller,
                # One key per tap, as a phone sends it: unique in the night.
                key=f"sim-{throw.round_number}-{throw.table_number}-{tally.roll_number}",
            )
        if throw.then is not None:
            self._confirm(throw.then(night=self.night, table_number=throw.table_number), throw.table)

    @staticmethod
    def _confirm(decided: TableRound, table: bunco.TableRound) -> None:
        """The actions and the pure rules must agree on each table's outcome."""
        expected = (TableRound.Status.DONE, table.winner) if table.done else (TableRound.Status.ROLL_OFF, "")
        if (decided.status, decided.winner) != expected:
            raise CommandError(
                f"Table {decided.number}, round {decided.round.number}: the actions decided "
                f"{decided.status} {decided.winner or '-'}, the rules {expected[0]} {expected[1] or '-'}."
            )


def night_report(night: Night, elapsed_s: float) -> dict[str, Any]:
    """The contract's JSON, every figure read back from the database."""
    sheets = [
        {"name": player.name, "wins": player.wins, "losses": player.losses, "buncos": player.bunco_count}
        for player in Player.objects.filter(night=night).real().with_figures()
    ]
    traveler = night.traveler()
    return {
        "players": len(sheets),
        "tables": night.rounds.get(number=1).tables.count(),
        "rounds": bunco.ROUNDS,
        "elapsed_s": round(elapsed_s, 3),
        "sheets": sheets,
        "traveler": traveler.name if traveler else None,
        "pot": night.pot_cents(),
        "prizes": [
            {"prize": award.prize, "name": award.player.name, "amount": award.amount_cents}
            for award in night.awards.select_related("player")
        ],
    }


class Command(BaseCommand):
    help = "Play a whole 24-round Bunco night of N players by bots through the real actions."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--players", type=int, help="real players (3 or more; 5 sit with two ghosts at one table)")
        parser.add_argument("--party", type=int, metavar="ID",
                            help="a club party's night instead: its yes list plays, at the club's buy-in and prize "
                                 "scheme, and the results go to the club's standings")
        parser.add_argument(
            "--seed", type=int, required=True, help="seeds the draw, every roll and the prizes"
        )
        parser.add_argument("--json", action="store_true", help="print the night as one JSON object")
        parser.add_argument(
            "--buy-in",
            type=int,
            default=None,
            dest="buy_in",
            metavar="CENTS",
            help=f"each player's buy-in in cents (default {DEFAULT_BUY_IN_CENTS}, or the party's club's)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        require_migrated_database()
        if options["buy_in"] is not None and options["buy_in"] < 0:
            raise CommandError("The buy-in is a number of cents, 0 or more.")
        party = None
        buy_in = options["buy_in"] if options["buy_in"] is not None else DEFAULT_BUY_IN_CENTS
        if options["party"] is not None:
            party = Party.objects.select_related("club").filter(pk=options["party"]).first()
            if party is None:
                raise CommandError(f"There is no party {options['party']}.")
            if options["players"] is not None and options["players"] != len(party_names(party)):
                raise CommandError(f"Party {party.pk} has {len(party_names(party))} players coming, not {options['players']}.")
            if options["buy_in"] is None:
                buy_in = party.club.buy_in_cents
        elif options["players"] is None:
            raise CommandError("Say how many players (--players N), or which party plays (--party ID).")
        started = time.perf_counter()
        night = simulate(options["players"] or 0, options["seed"], buy_in_cents=buy_in, party=party)
        report = night_report(night, time.perf_counter() - started)
        if options["json"]:
            self.stdout.write(json.dumps(report))
            return
        self.stdout.write(summary(report))


def summary(report: dict[str, Any]) -> str:
    """The night in a few lines, for people (without --json)."""
    sheets = report["sheets"]
    most_wins = max(sheets, key=lambda sheet: sheet["wins"])
    tables = f"{report['tables']} table" + ("s" if report["tables"] != 1 else "")
    lines = [
        f"{report['players']} players at {tables}, {report['rounds']} rounds in {report['elapsed_s']:.2f} s.",
        f"Buncos rolled: {sum(sheet['buncos'] for sheet in sheets)}; most wins: {most_wins['name']} "
        f"({most_wins['wins']}-{most_wins['losses']}); traveler: {report['traveler'] or 'nobody'}.",
        f"Pot {report['pot'] / 100:.2f}:",
        *(
            f"  {award['prize']:<12} {award['name']:<14} {award['amount'] / 100:>8.2f}"
            for award in report["prizes"]
        ),
    ]
    return "\n".join(lines)
