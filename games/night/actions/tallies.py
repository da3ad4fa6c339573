"""A tap: a tally recorded at its table, and what it leads to (the bell, a decided roll-off, the
round closed and the next one seated)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from games.night import taps
from games.night.actions.refusals import BadTally, KeyOfAnotherTable, RoundClosed, key_reused
from games.night.actions.rounds import cannot_seat_again, decide_table, round_in_play, seat_next_round
from games.night.models import (
    Night,
    Player,
    Round,
    TableRound,
    Tally,
)
from games.rules import bunco
from live.log import log_event, publish_together
from live.models import Event
from live.refusals import NotNow, Refusal
from live.text import well_formed_key

POINT_BUTTONS = (1, 2, 5)  # +1, +2, +5 ("baby bunco"); a Bunco is its own button
MAX_CORRECTION = 99


@dataclass(frozen=True)
class Tap:
    """What a tally asks for, as its caller sent it (a phone's tap, the host's correction)."""

    team: str
    points: int
    bunco_player: Player | None
    entered_by: Player | None
    by_host: bool
    key: str | None
    round_number: int | None
    wipeout: bool


@transaction.atomic
def record_tally(*, night: Night, table_number: int, team: str, points: int, bunco_player: Player | None = None,
                 entered_by: Player | None = None, by_host: bool = False, key: str | None = None,
                 round_number: int | None = None, wipeout: bool = False) -> Tally:
    """Add points (or a Bunco, or a wipeout) to a team at a table in the current round.

    The table's row is locked for the few milliseconds of the insert, so tallies at one table are
    applied one after another and the bell check always sees every point before it; tables don't
    wait for each other. A key already recorded returns the tally it recorded (a retried tap).
    What the tally leads to (the bell, a table decided, the round closed and the next one seated)
    is the engine's one answer (`bunco.after_tally`), applied in this transaction; the tap's events
    are published together once it commits.

    A wipeout (house rule: three 1s when 1s are not up) records minus the team's points so far:
    in main play its points for the round, in a roll-off its points in the roll-off under way. An
    undo of it gives them back. Under sudden death the first tally that breaks a roll-off's tie
    decides the table.
    """
    tap = Tap(team, points, bunco_player, entered_by, by_host, key or None, round_number, wipeout)
    _check_tap(night, tap)
    number = round_number or night.current_round
    # Plain SQL for the statements every tap runs (games/night/taps.py says why). The table's row is
    # locked alone: taps at other tables don't wait for this one.
    table = taps.lock_table(night.pk, number, table_number)
    if table is None:
        raise BadTally(f"There is no table {table_number} in round {number}.")
    refusal = _refusal_at(night, table, tap)
    tally = _tally_at(night, table, tap) if refusal is None else None
    channel = night.channel
    recorded = _insert(channel, table, tally) if tally is not None else None
    if tally is None or recorded is None:
        # A retried tap whose first copy did arrive (before its table closed) gets that tally; a
        # taken key is the only reason the insert skips.
        return _retried(night, tap, table_number, refusal or BadTally("That tap could not be recorded: tap again."))
    outcome = _ask_the_engine(night, table, tally, recorded)
    publish_together([recorded.event, *_apply(night, channel, table, tally, outcome)])
    return tally


def _check_tap(night: Night, tap: Tap) -> None:
    """BadTally for a tally that is never right, whatever the table's state."""
    if tap.team not in ("A", "B"):
        raise BadTally("Choose team A or team B.")
    if type(tap.points) is not int:  # True == 1 in Python: a flag is not a number of points
        raise BadTally(f"A tally is +1, +2, +5 or a Bunco, not {tap.points!r}.")
    is_bunco = tap.bunco_player is not None
    if tap.wipeout:
        if is_bunco or tap.by_host or tap.points != 0:
            raise BadTally("A wipeout is its own tap: no points or Bunco with it.")
        if not night.bunco_rules().wipeout:
            raise BadTally("Tonight's house rules have no wipeout: three 1s score as usual.")
    elif not tap.by_host and not is_bunco and tap.points not in POINT_BUTTONS:
        raise BadTally(f"A tally is +1, +2, +5 or a Bunco, not {tap.points!r}.")
    if tap.by_host and not is_bunco:
        check_correction_points(tap.points)
    if tap.key is not None and not well_formed_key(tap.key):
        raise BadTally("The tap's key is malformed.")


def _refusal_at(night: Night, table: TableRound, tap: Tap) -> Refusal | None:
    """Why the table does not take this tally now (its round closed, a wipeout when 1s are up)."""
    try:
        check_open_for_play(table, by_host=tap.by_host)
    except Refusal as refusal:
        return refusal
    number = table.round.number
    if tap.wipeout and not bunco.wipeout_applies(night.bunco_rules(), bunco.target_for_round(number)):
        return NotNow(f"1s are up in round {number}: three 1s are a Bunco, not a wipeout.")
    return None


def _retried(night: Night, tap: Tap, table_number: int, refusal: Refusal) -> Tally:
    """The tally this tap's key already recorded, if this is a copy of that tap; else `refusal`."""
    existing = tally_with_key(night, tap.key, table_number) if tap.key else None
    if existing is None:
        raise refusal
    return _same_tap(existing, team=tap.team, points=tap.points, bunco_player=tap.bunco_player, by_host=tap.by_host,
                     wipeout=tap.wipeout, round_number=tap.round_number)


def _tally_at(night: Night, table: TableRound, tap: Tap) -> Tally:
    """The tally to record (not saved yet), or BadTally (a correction below 0, a Bunco by
    someone not on the team)."""
    roll_off = table.roll_off if table.status == TableRound.Status.ROLL_OFF else 0
    points, kind = tap.points, Tally.Kind.CORRECTION if tap.by_host else Tally.Kind.POINTS
    if tap.by_host and tap.bunco_player is None and points < 0:
        refuse_below_zero(table, tap.team, roll_off, points)
    if tap.bunco_player is not None:
        _check_bunco_player(table, tap.team, tap.bunco_player)
        points, kind = bunco.BUNCO_POINTS, Tally.Kind.BUNCO
    elif tap.wipeout:
        points, kind = -table.totals(roll_off)[tap.team], Tally.Kind.WIPEOUT
    return Tally(
        night=night, table_round=table, kind=kind, team=tap.team, points=points,
        buncos=1 if tap.bunco_player is not None else 0,
        bunco_player=_roller_for(table, tap.bunco_player) if tap.bunco_player is not None else None,
        roll_off=roll_off, entered_by=tap.entered_by, by_host=tap.by_host, key=tap.key, created_at=timezone.now(),
    )


def _insert(channel: str, table: TableRound, tally: Tally) -> taps.RecordedTally | None:
    """Insert the tally with its "tally" event (the table's new totals); None when its key is
    already taken under the table's lock (a retry, or a copy of it that raced here first)."""
    recorded = taps.insert_tally_and_event(
        {
            "night_id": tally.night_id, "table_round_id": table.pk, "kind": tally.kind, "team": tally.team,
            "points": tally.points, "buncos": tally.buncos, "bunco_player_id": tally.bunco_player_id,
            "roll_off": tally.roll_off, "entered_by_id": tally.entered_by_id, "by_host": tally.by_host,
            "undoes_id": None, "key": tally.key, "created_at": tally.created_at,
        },
        channel=channel, round_number=table.round.number, table_number=table.number,
        table_roll_off=table.roll_off, in_roll_off=table.status == TableRound.Status.ROLL_OFF,
    )
    if recorded is not None:
        tally.pk = recorded.tally_id
        tally._state.adding = False
        tally._state.db = "default"
        tally.table_totals = recorded.totals
    return recorded


def _ask_the_engine(night: Night, table: TableRound, tally: Tally, recorded: taps.RecordedTally) -> bunco.AfterTally:
    """The engine's one answer to what the tally leads to, from the table as the insert left it and,
    when the tally may end something, the round read in one go."""
    round_ = table.round
    in_roll_off = recorded.roll_off_totals is not None
    seats: list[str] = []
    played = None
    if bunco.may_end_something(table.number, round_.status != Round.Status.PLAYING, in_roll_off):
        if in_roll_off:
            # The round's row too, as every action that decides a table takes it (see locked_table):
            # the last table to decide then sees every other one decided, and closes the round.
            table.round = round_ = Round.objects.select_for_update().get(pk=table.round_id)
        seats = list(table.seats.order_by("position").values_list("player__name", flat=True))
        played = round_in_play(night, round_.pk, round_.number, closing=True, decided_by=table.number)
    at_table = bunco.TableAtTally(number=table.number, seats=seats, bell_rung=round_.status != Round.Status.PLAYING,
                                  roll_off=table.roll_off, totals=recorded.totals,
                                  roll_off_totals=recorded.roll_off_totals)
    try:
        return bunco.after_tally(at_table, tally.team, tally.points, bunco=tally.kind == Tally.Kind.BUNCO,
                                 round_=played)
    except bunco.IllegalSeating as error:
        raise cannot_seat_again(round_.number, error) from error


def _apply(night: Night, channel: str, table: TableRound, tally: Tally, outcome: bunco.AfterTally) -> list[Event]:
    """What the tally leads to, written in the tap's transaction: the events to publish with it."""
    round_ = table.round
    events: list[Event] = []
    if tally.buncos:
        events.append(log_event(channel, "state", {"round": round_.number, "what": "bunco"}, publish=False))
    if outcome.bell:
        # One conditional update: only the first phone rings it (the head table's lock already
        # makes its taps take turns).
        rung = Round.objects.filter(pk=round_.pk, status=Round.Status.PLAYING).update(
            status=Round.Status.BELL, bell_rung_at=timezone.now()
        )
        if not rung:
            return events
        round_.status = Round.Status.BELL
    if not outcome.bell and outcome.winner is None:  # nothing decided: the bell rings or a table is won
        return events
    decide_table(table, outcome.winner)
    if outcome.bell:
        # Every other table finishes the turn under way, then confirms.
        round_.tables.exclude(pk=table.pk).filter(status=TableRound.Status.PLAYING).update(
            status=TableRound.Status.FINISHING
        )
        events.append(log_event(channel, "bell", {"round": round_.number, "team": outcome.winner or "",
                                                        "winners": list(outcome.bell_winners)}, publish=False))
    else:
        events.append(log_event(channel, "state", {"round": round_.number, "table": table.number,
                                                         "what": "roll_off"}, publish=False))
    return events + _close_round(night, round_, outcome)


def _close_round(night: Night, round_: Round, outcome: bunco.AfterTally) -> list[Event]:
    """The round closed by the tally's table (every table decided): the night over, or the next
    round seated. Its event, to publish with the tap's."""
    if outcome.next_round is None:
        return []
    closed = Round.objects.filter(pk=round_.pk).exclude(status=Round.Status.CLOSED).update(
        status=Round.Status.CLOSED, closed_at=timezone.now()
    )
    if not closed:
        return []
    _next, event = seat_next_round(night, round_.number, outcome.next_round, publish=False)
    return [event]


def tally_with_key(night: Night, key: str, table_number: int | None = None) -> Tally | None:
    """The tally a tap's key recorded in this night (keys are unique in a night), or None.

    With its table and round attached: a phone on bad Wi-Fi retries often, and the answer shows
    the table's totals. A key is bound to the table it was recorded at: sent for another table
    (`table_number`), it is refused, not answered with that table's totals.
    """
    tally = Tally.objects.select_related("table_round__round").filter(night=night, key=key).first()
    if tally is None:
        return None
    if table_number is not None and tally.table_round.number != table_number:
        raise KeyOfAnotherTable("That tap's key was already used at another table: tap again.")
    tally.table_totals = tally.table_round.totals()
    return tally


def _same_tap(existing: Tally, *, team: str, points: int, bunco_player: Player | None, by_host: bool,
              wipeout: bool, round_number: int | None) -> Tally:
    """`existing` (the tally a tap's key recorded) if this request is a copy of the one that
    recorded it; KeyReused if it asks for something else with the same key."""
    if bunco_player is not None:
        kind = Tally.Kind.BUNCO
    elif wipeout:
        kind = Tally.Kind.WIPEOUT
    else:
        kind = Tally.Kind.CORRECTION if by_host else Tally.Kind.POINTS
    same = (
        existing.kind == kind
        and existing.team == team
        and existing.by_host == by_host
        and (kind not in (Tally.Kind.POINTS, Tally.Kind.CORRECTION) or existing.points == points)
        # A ghost's Bunco is recorded for the partner who rolled it.
        and (bunco_player is None or bunco_player.is_ghost or existing.bunco_player_id == bunco_player.pk)
        and (round_number is None or existing.table_round.round.number == round_number)
    )
    if not same:
        raise key_reused("correction" if by_host else "tap")
    return existing


def check_open_for_play(table: TableRound, *, by_host: bool = False) -> None:
    """Refuse a tally (or a phone's undo) the table does not take now (`TableRound.tally_refusal`,
    the rule the phone page asks too)."""
    refusal = table.tally_refusal(by_host=by_host)
    if refusal is not None:
        raise NotNow(refusal) if by_host else RoundClosed(refusal)


def refuse_below_zero(table: TableRound, team: str, roll_off: int, change: int, *, undo: bool = False) -> None:
    """BadTally when `change` would leave `team` below 0 at `table` (in main play, or in the
    roll-off cycle `roll_off`): the engine's `keeps_points_at_or_above_zero`."""
    has = table.totals(roll_off)[team]
    if bunco.keeps_points_at_or_above_zero(has, change):
        return
    where = f"team {team} at table {table.number}" + (f" (roll-off {roll_off})" if roll_off else "")
    points = f"{has} point{'s' if has != 1 else ''}"
    if undo:
        raise BadTally(f"Undoing that entry would leave {where} below 0: it has only {points} now. "
                       "Nothing was changed; the host can correct the score.")
    raise BadTally(f"{where[0].upper()}{where[1:]} has only {points}: a correction can take off at most "
                   f"{has}, never below 0. Nothing was changed.")


def _check_bunco_player(table: TableRound, team: str, player: Player) -> None:
    if not table.seats.filter(player=player, team=team).exists():
        raise BadTally(f"{player.name} isn't on that team at table {table.number}.")


def _roller_for(table: TableRound, player: Player) -> Player:
    """A ghost's Bunco goes to the partner who rolled for it (RULES.md §4.5)."""
    # A real player's own Bunco needs no look at the table (a tap's hot path).
    return player if not player.is_ghost else table.bunco_credit(player)


def check_correction_points(points: int) -> None:
    if type(points) is not int or points == 0 or abs(points) > MAX_CORRECTION:
        raise BadTally(f"A correction is between -{MAX_CORRECTION} and +{MAX_CORRECTION}, and not 0.")
