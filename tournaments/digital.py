"""Groups played on phones: a tournament group at a game table (games.table), docs/RULES.md §1.7.

When a round is played on phones, each of its groups gets a game table of Fill or Bust, its players
as the seats, timed (no point goal: the round's clock ends it) and with the tournament's options;
the server rolls every die and turns every card (games.table). Each finished turn at the table
becomes the group's `Turn`, the same record a group's phone types in, so standings, cuts and
brackets know no difference: `record_table_turns` reads the table's finished turns (the engine's
`turns`) and records those not yet recorded, each under a key of its own (the table and the turn's
number), so a second call records nothing new.

The table knows nothing of tournaments (games never imports tournaments): the tournament reads it.
`tournaments.actions.play_group_move` records after every move it makes, and the clock
(`deciding.close_round_if_due`) reads every table that has moved since it was last read, sounds
the buzzer at a group's `ends_at` (the turn under way plays out) and makes the group final once
its game is over.

This module sits on deciding's floor: deciding and the actions import it; it imports neither.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.urls import reverse
from django.utils.translation import gettext

from games.rules import fill_or_bust
from games.table import actions as table_actions
from games.table.models import Move, Table, TableSeat
from live.log import log_event
from tournaments import brackets
from tournaments.links import group_path
from tournaments.models import Entrant, Group, Tournament, Turn

GAME = "fill_or_bust"
BOT_LEVEL = "threshold"  # a bot the director hands a seat to: the engine's threshold bot


def table_path(table: Table) -> str:
    """The game table's phone page, where a group on phones plays."""
    return reverse("tables:table", args=[table.code])


def table_options(tournament: Tournament) -> dict[str, Any]:
    """A group's game: timed (docs/RULES.md §1.7: tournament play is always timed, the round's clock
    sounds the buzzer), with the tournament's Vengeance penalty and Must Bust penalty."""
    return {"goal": None, "timed": True, "vengeance": tournament.vengeance_penalty,
            "must_bust_penalty": tournament.must_bust_penalty}


def simulated_seed(tournament: Tournament, group: Group) -> str:
    """A simulated tournament's table seed, from its own seed: the same simulation plays the same
    games. A real tournament's tables draw theirs from the operating system (games.table)."""
    return hashlib.sha256(f"tournament:{tournament.seed}:{group.round.number}:{group.number}".encode()).hexdigest()


def open_group_table(group: Group, players: list[Entrant], *, bot_level: str = "") -> Table:
    """The group's game table, its players in seat order, started at once (the round's clock is
    running). `bot_level`: every seat a bot at that level (a simulation)."""
    tournament = group.round.tournament
    table = table_actions.open_table(
        game=GAME, names=[entrant.name for entrant in players], bots=[bot_level] * len(players),
        options=table_options(tournament), host_user=tournament.director,
        seed=simulated_seed(tournament, group) if tournament.simulated else None,
        code=Table.objects.free_code(simulated_seed(tournament, group)) if tournament.simulated else None,
        simulated=tournament.simulated,
        home=(group_path(group.code), gettext("Back to %(group)s's scores and the round") % {"group": group}),
    )
    if table.status == Table.Status.SEATING:
        table = table_actions.start_table(table=table)
    table_actions.set_clock(table=table, ends_at=group.ends_at, paused=group.round.paused_at is not None)
    group.table = table
    group.save(update_fields=["table"])
    return table


def _vengeance_bit(turn: fill_or_bust.TurnResult) -> bool:
    """Whether the turn played a Vengeance that took points off others (what the group's phone
    ticks: docs/RULES.md §1.4, a Vengeance bites only on a Fill)."""
    return any(step[0] == "play" for step in turn.steps) and any(
        turn.scores_after[name] < turn.scores_before[name] for name in turn.scores_before if name != turn.player)


def _key_prefix(table_id: int) -> str:
    return f"table:{table_id}:turn:"


def turn_key(table: Table, number: int) -> str:
    """The key of the table's `number`-th finished turn (from 1) as the group's Turn."""
    return f"{_key_prefix(table.pk)}{number}"


def finished_turns(table: Table) -> list[fill_or_bust.TurnResult]:
    """The finished turns at a Fill or Bust table, in order (the engine's `turns`, read from the
    stored state without rebuilding the whole game: the clock and every move read them)."""
    data = table.state["state"]["turns"]
    return [fill_or_bust.TurnResult(player=t["player"], steps=tuple(tuple(step) for step in t["steps"]),
                                    outcome=fill_or_bust.TurnOutcome(t["outcome"]),
                                    scores_before=t["scores_before"], scores_after=t["scores_after"])
            for t in data]


def record_table_turns(group: Group, now: datetime) -> list[Turn]:
    """Record every finished turn at the group's table not yet recorded, in order: the Turns made.

    A turn is entered as the group's phone would enter it: the points the player banked (negative
    under the Must Bust penalty) and whether a Vengeance bit. Where the scoresheet the brackets
    replay would differ from the table's (a turn that banked, continued and drew a second
    Vengeance), a correction per player makes them agree, under the turn's key too. Idempotent:
    a turn whose key is recorded is skipped. Call it inside the transaction that locked the group."""
    if group.table_id is None:
        return []
    table = Table.objects.get(pk=group.table_id)
    tournament = group.round.tournament
    made: list[Turn] = []
    count = len(table.state["state"]["turns"])
    # Turns are recorded in order, each once under its key: those recorded are the first `done`.
    done = Turn.objects.filter(group=group, kind=Turn.Kind.TURN, key__startswith=_key_prefix(table.pk)).count()
    if count > done:
        by_name = {entrant.name: entrant for entrant in group.players()}
        for number, turn in enumerate(finished_turns(table)[done:], done + 1):
            made += _record(tournament, group, by_name, turn_key(table, number), turn, now)
    Group.objects.filter(pk=group.pk).update(table_moves_read=table.moves_made)
    group.table_moves_read = table.moves_made
    if made:
        log_totals(group, group.players())
    return made


def _record(tournament: Tournament, group: Group, by_name: dict[str, Entrant], key: str,
            turn: fill_or_bust.TurnResult, now: datetime) -> list[Turn]:
    gained = turn.gained
    vengeance = _vengeance_bit(turn) and gained > 0
    made = [Turn.objects.create(tournament=tournament, group=group, entrant=by_name[turn.player], points=gained,
                                vengeance=vengeance, key=key, created_at=now)]
    expected = brackets.apply_turn(dict(turn.scores_before), turn.player, gained, vengeance=vengeance,
                                   penalty=tournament.vengeance_penalty)
    for number, name in enumerate(turn.scores_before):
        difference = turn.scores_after[name] - expected[name]
        if difference:
            made.append(Turn.objects.create(
                tournament=tournament, group=group, entrant=by_name[name], kind=Turn.Kind.CORRECTION,
                points=difference, key=f"{key}:fix:{number}", created_at=now))
    return made


def log_totals(group: Group, players: list[Entrant], scores: dict[str, int] | None = None) -> None:
    """The group's new totals to every page showing them (`scores`: when the caller has them)."""
    scores = group.scores(players) if scores is None else scores
    log_event(group.round.tournament.channel, "tournament_turn", {
        "round": group.round.number, "group": group.pk,
        "totals": [[entrant.pk, scores[entrant.name]] for entrant in players],
    })


def game_over(group: Group) -> bool:
    """Whether the group's game at its table is over (the buzzer sounded and the turn under way
    was played out)."""
    return group.table_id is not None and Table.objects.filter(pk=group.table_id, status=Table.Status.OVER).exists()


def turn_starts(table: Table) -> bool:
    """Whether the next move at the table turns the first card of a turn (read from the stored
    state: a simulation's clock asks before every move)."""
    state = table.state["state"]
    return state["phase"] == fill_or_bust.Phase.DRAW.value and not state["steps"]


def sound_buzzer(group: Group) -> None:
    """Time is up at the group's table: no new turn starts there, the turn under way plays out."""
    if group.table_id is not None:
        table_actions.sound_buzzer(table=Table.objects.get(pk=group.table_id))


def keep_table_clocks(groups: Iterable[Group]) -> None:
    """After the director moved or paused the clock: each group's table counts down to its group's
    `ends_at` again (paused while its round is)."""
    for group in groups:
        if group.table_id is not None:
            table = Table.objects.get(pk=group.table_id)
            table_actions.set_clock(table=table, ends_at=group.ends_at, paused=group.round.paused_at is not None)


# --- Who holds the seats (the director's dashboard, the start of the clock) ---------------------


@dataclass(frozen=True)
class Seat:
    """A seat at a group's game table and who holds it: "phone", "bot" or "" (nobody)."""

    number: int
    name: str
    holder: str


@dataclass(frozen=True)
class Watch:
    """What the director sees of a group's game table: its seats, whose move it waits on (None
    while the clock waits for the seats, or once the game is over) and since when."""

    seats: list[Seat]
    waiting_on: Seat | None
    since: datetime | None

    @property
    def unheld(self) -> list[Seat]:
        return [seat for seat in self.seats if not seat.holder]


def _holder(seat: TableSeat) -> str:
    return "bot" if seat.is_bot else "phone" if seat.claimed_by else ""


def seats_of(table: Table) -> list[Seat]:
    return [Seat(seat.number, seat.name, _holder(seat)) for seat in table.seats.order_by("number")]


def watch(group: Group) -> Watch | None:
    """The group's game table as the director watches it (None: the group types its turns)."""
    if group.table_id is None:
        return None
    table = Table.objects.get(pk=group.table_id)
    seats = seats_of(table)
    if table.status != Table.Status.PLAYING or group.status != Group.Status.PLAYING or group.round.seating:
        return Watch(seats, None, None)
    to_move = table.loaded().to_move()
    last = Move.objects.filter(table=table).order_by("-number").values_list("created_at", flat=True).first()
    return Watch(seats, seats[to_move[0]] if to_move else None, last or table.started_at)


def unheld_seats(groups: Iterable[Group]) -> list[tuple[Group, Seat]]:
    """Every seat nobody holds (no phone, no bot) at the game tables of `groups`, table by table."""
    return [(group, seat) for group in groups if group.table_id is not None
            for seat in seats_of(Table.objects.get(pk=group.table_id)) if not seat.holder]


def hand_seat_to_bot(group: Group, number: int) -> None:
    """A seat of the group's table is played by a bot from now on (games.table's own action)."""
    assert group.table_id is not None
    table_actions.hand_seat_to_bot(table=Table.objects.get(pk=group.table_id), number=number, level=BOT_LEVEL)


def was_stopped(group: Group) -> bool:
    """Whether the group's table was stopped with a turn under way (its grace period ran out,
    games.table.actions.end_table): that turn counts nothing."""
    if group.table_id is None:
        return False
    table = Table.objects.get(pk=group.table_id)
    return table.status == Table.Status.OVER and not table.loaded().is_over
