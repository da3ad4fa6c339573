"""`simulate_tournament`: a whole Fill or Bust tournament played by bots through the real actions.

    python manage.py simulate_tournament --players N --format single|double --seed S [--json] [--digital]

Players are registered and checked in, every round is started with `actions.start_round`, and each
group plays on a simulated clock: a turn is played by the pure engine's bot
(`games.rules.fill_or_bust.play_bot_turn`, with one `random.Random(seed)` for every die and card)
and entered as the group's phone enters it, `actions.record_turn` with the points banked, whether a
Vengeance was played and a key. A turn takes 40 s plus 10 s per toss of simulated time; no new turn
starts at the group's `ends_at`, and the turn under way is entered in the grace period. Then the
clock's `deciding.close_round_if_due` closes the round, for this tournament alone: it is marked
`simulated`, so a site running on the same database (its real clock) never closes its groups, and
the simulated clock never closes the site's; players tied at the line play their
one-turn play-offs through `record_turn` too, and the face-off is played like a round.

With `--digital` every round is played on phones: each group at a game table (games.table) on the
server's dice and deck, from a seed derived from S, every seat a bot moving through
`actions.play_group_bot_move` (the table's own bot, `games.table.tasks.play_bot_move`), each
finished turn recorded as the group's Turn. The groups play side by side on one simulated clock:
the group whose clock is furthest behind moves next; turning a turn's first card takes 40 s and a
toss 10 s. From the groups' `ends_at` every move first runs the round's clock
(`deciding.close_round_if_due`), which sounds the buzzer at each table: the turn under way is played
out, then the group is final. Play-offs stay one typed turn each, as above.

The JSON (docs/CONTRACT.md) is read back from the database: one entry per round, the face-off
included as the last (2 players, one group of 2, its loser eliminated), so every player but the
champion is eliminated exactly once.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.rules import fill_or_bust
from live.commands import require_migrated_database
from tournaments import actions, brackets, deciding, digital
from tournaments.models import Entrant, Group, Tournament, TournamentRound

START = datetime(2026, 1, 10, 10, 0, tzinfo=UTC)
TURN_SECONDS = 40
TOSS_SECONDS = 10
BREAK_BETWEEN_ROUNDS = timedelta(minutes=10)


def player_names(count: int) -> list[str]:
    width = len(str(count))
    return [f"Player {number:0{width}d}" for number in range(1, count + 1)]


BOT_LEVEL = "threshold"  # the engine's threshold bot, the one the typed simulation plays


def simulate(players: int, tournament_format: str, seed: int, *, digital: bool = False) -> Tournament:
    if players < 2:
        raise CommandError("A tournament needs at least 2 players.")
    if tournament_format not in Tournament.Format.values:
        raise CommandError("--format is single or double.")
    director, _ = get_user_model().objects.get_or_create(username="tournament-simulator")
    tournament = actions.create_tournament(
        director=director, name=f"Simulated {tournament_format} elimination (seed {seed})",
        format=tournament_format, seed=seed, simulated=True,
    )
    for name in player_names(players):
        actions.register(tournament, name, checked_in=True)
    bots = _Bots(tournament, random.Random(seed), digital=digital)
    now = START
    while tournament.status != Tournament.Status.FINISHED:
        now = bots.play_round(now) + BREAK_BETWEEN_ROUNDS
        tournament.refresh_from_db()
    return tournament


class _Bots:
    def __init__(self, tournament: Tournament, rng: random.Random, *, digital: bool = False) -> None:
        self.tournament = tournament
        self.rng = rng
        self.keys = 0
        self.digital = digital

    def play_round(self, now: datetime) -> datetime:
        """Play one round (and its play-offs) from `now`; the simulated time it ended."""
        if self.digital:
            round_ = actions.start_round(self.tournament, now=now, on_phones=True, bot_level=BOT_LEVEL)
        else:
            round_ = actions.start_round(self.tournament, now=now)
        groups = list(round_.groups.select_related("round__tournament").order_by("number"))
        if self.digital:
            self._play_at_tables(groups, now)
        else:
            for group in groups:
                self._play_timed(group, now)
        latest = max(group.final_at for group in groups if group.final_at is not None)
        deciding.close_round_if_due(latest, tournament=self.tournament)
        round_.refresh_from_db()
        clock = latest
        while round_.status == TournamentRound.Status.PLAY_OFF:
            play_off = round_.groups.filter(play_off__gt=0, status=Group.Status.PLAYING).select_related(
                "round__tournament").first()
            if play_off is None:
                raise CommandError(f"Round {round_.number} waits for a play-off that was never opened.")
            clock = self._play_off(play_off, clock)
            round_.refresh_from_db()
        if round_.status != TournamentRound.Status.DECIDED:
            raise CommandError(f"Round {round_.number} did not close on time ({round_.status}).")
        return clock

    def _key(self) -> str:
        self.keys += 1
        return f"sim-{self.keys}"

    def _play_timed(self, group: Group, start: datetime) -> None:
        players = group.players()
        names = [entrant.name for entrant in players]
        by_name = {entrant.name: entrant for entrant in players}
        scores = dict.fromkeys(names, 0)
        game = fill_or_bust.new_game(names, self.rng, first=names[0])
        penalty = self.tournament.vengeance_penalty
        assert group.ends_at is not None and group.final_at is not None
        clock = start
        while clock < group.ends_at:  # no new turn starts at ends_at
            sheet = tuple(scores[name] for name in game.seats)
            game = replace(game, sheet=sheet, turn_start_sheet=sheet)
            game = fill_or_bust.play_bot_turn(game, self.rng)
            turn = game.turns[-1]
            tosses = sum(1 for step in turn.steps if step[0] == "toss")
            clock += timedelta(seconds=TURN_SECONDS + TOSS_SECONDS * tosses)
            if clock >= group.final_at:
                clock = group.final_at - timedelta(seconds=1)  # the turn under way is played out in time
            # A Vengeance played bites only if the turn filled under it (docs/RULES.md §1.4): the group's
            # phone ticks the box when it took points off the leaders, never for a bust.
            vengeance = ("play",) in turn.steps and any(
                turn.scores_after[name] < turn.scores_before[name] for name in names if name != turn.player)
            banked = turn.scores_after[turn.player] - turn.scores_before[turn.player]
            actions.record_turn(group=group, entrant=by_name[turn.player], points=banked, vengeance=vengeance,
                                now=clock, key=self._key())
            scores = brackets.apply_turn(scores, turn.player, banked, vengeance=vengeance, penalty=penalty)

    def _play_at_tables(self, groups: list[Group], start: datetime) -> None:
        """Every group at its game table, side by side on one clock, until each is final."""
        clocks = {group.pk: start for group in groups}
        playing = {group.pk: group for group in groups}
        buzzer = min(group.ends_at for group in groups if group.ends_at is not None)
        while playing:
            pk = min(playing, key=lambda key: (clocks[key], key))
            group, clock = playing[pk], clocks[pk]
            if clock >= buzzer:  # the round's clock: buzzers, and groups whose game is over are final
                deciding.close_round_if_due(clock, tournament=self.tournament)
            group.refresh_from_db(fields=["status"])
            if group.status == Group.Status.FINAL:
                del playing[pk]
                continue
            assert group.table is not None and group.final_at is not None
            starts_turn = digital.turn_starts(group.table)
            made = actions.play_group_bot_move(group=group, now=clock)
            if made is None:
                raise CommandError(f"No bot moved at {group} of round {group.round.number}.")
            spent = TURN_SECONDS if starts_turn else TOSS_SECONDS if made.move.get("kind") == "toss" else 0
            # The turn under way is played out within the grace period, as a group's phone enters it.
            clocks[pk] = min(clock + timedelta(seconds=spent), group.final_at - timedelta(seconds=1))
            group.table.refresh_from_db()

    def _play_off(self, group: Group, clock: datetime) -> datetime:
        """Each tied player plays one turn, scored alone."""
        for entrant in group.players():
            game = fill_or_bust.new_game([entrant.name, "nobody"], self.rng, first=entrant.name)
            game = fill_or_bust.play_bot_turn(game, self.rng)
            turn = game.turns[-1]
            banked = max(0, turn.scores_after[entrant.name] - turn.scores_before[entrant.name])
            clock += timedelta(seconds=TURN_SECONDS)
            actions.record_turn(group=group, entrant=entrant, points=banked, now=clock, key=self._key())
        return clock


def report(tournament: Tournament, elapsed_s: float) -> dict[str, Any]:
    """The contract's JSON, read back from the database."""
    rounds = []
    face_off: list[str] = []
    for round_ in tournament.rounds.prefetch_related("groups__seats").order_by("number"):
        sizes = [group.seats.count() for group in round_.groups.all() if not group.play_off]
        if round_.is_face_off:
            face_off = list(round_.scores)
            eliminated = [name for name in face_off if name != round_.outcome.get("winner")]
        else:
            eliminated = list(round_.outcome.get("eliminated", []))
        rounds.append({"players": sum(sizes), "group_sizes": sizes, "eliminated": eliminated})
    champion = tournament.entrants.filter(final_place=1).values_list("name", flat=True).first()
    return {
        "players": tournament.entrants.exclude(status=Entrant.Status.NO_SHOW).count(),
        "format": tournament.format,
        "elapsed_s": round(elapsed_s, 3),
        "rounds": rounds,
        "face_off": face_off,
        "champion": champion,
    }


class Command(BaseCommand):
    help = "Play a whole Fill or Bust tournament of N players by bots through the real actions."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--players", type=int, required=True)
        parser.add_argument("--format", choices=list(Tournament.Format.values), default="single")
        parser.add_argument("--seed", type=int, required=True)
        parser.add_argument("--json", action="store_true", help="print the tournament as one JSON object")
        parser.add_argument("--digital", action="store_true",
                            help="every group plays at a game table on the server's dice and deck")

    def handle(self, *args: Any, **options: Any) -> None:
        require_migrated_database()
        started = time.perf_counter()
        tournament = simulate(options["players"], options["format"], options["seed"], digital=options["digital"])
        result = report(tournament, time.perf_counter() - started)
        if options["json"]:
            self.stdout.write(json.dumps(result))
            return
        lines = [f"{result['players']} players, {result['format']} elimination, "
                 f"{len(result['rounds'])} rounds in {result['elapsed_s']:.2f} s."]
        lines += [f"  {entry['players']:>5} players in groups {entry['group_sizes']}: "
                  f"{len(entry['eliminated'])} out" for entry in result["rounds"]]
        lines.append(f"Face-off {' v '.join(result['face_off'])}; champion {result['champion']}.")
        self.stdout.write("\n".join(lines))
