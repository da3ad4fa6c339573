"""A tap: a tally recorded at its table, and what it leads to (the bell, a decided roll-off, the
round closed and the next one seated)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from games.night import taps
from games.night.actions import (
    MAX_CORRECTION,
    POINT_BUTTONS,
    BadTally,
    KeyOfAnotherTable,
    RoundClosed,
    key_reused,
)
from games.night.actions.rounds import close_round_if_resolved, decide_table
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


@transaction.atomic
def record_tally(
    *,
    night: Night,
    table_number: int,
    team: str,
    points: int,
    bunco_player: Player | None = None,
    entered_by: Player | None = None,
    by_host: bool = False,
    key: str | None = None,
    round_number: int | None = None,
    wipeout: bool = False,
) -> Tally:
    """Add points (or a Bunco, or a wipeout) to a team at a table in the current round.

    The table's row is locked for the few milliseconds of the insert, so tallies at one table are
    applied one after another and the bell check always sees every point before it; tables don't
    wait for each other. A key already recorded returns the tally it recorded (a retried tap).

    A wipeout (house rule: three 1s when 1s are not up) records minus the team's points so far:
    in main play its points for the round, in a roll-off its points in the roll-off under way
    (the tie in main play was already settled). An undo of it gives them back. Under sudden death
    the first tally that breaks a roll-off's tie decides the table.
    """
    if team not in ("A", "B"):
        raise BadTally("Choose team A or team B.")
    if type(points) is not int:  # True == 1 in Python: a flag is not a number of points
        raise BadTally(f"A tally is +1, +2, +5 or a Bunco, not {points!r}.")
    is_bunco = bunco_player is not None
    if wipeout:
        if is_bunco or by_host or points != 0:
            raise BadTally("A wipeout is its own tap: no points or Bunco with it.")
        if not night.bunco_rules().wipeout:
            raise BadTally("Tonight's house rules have no wipeout: three 1s score as usual.")
    elif not by_host and not is_bunco and points not in POINT_BUTTONS:
        raise BadTally(f"A tally is +1, +2, +5 or a Bunco, not {points!r}.")
    if by_host and not is_bunco:
        check_correction_points(points)
    if key is not None and not well_formed_key(key):
        raise BadTally("The tap's key is malformed.")

    number = round_number or night.current_round
    # Plain SQL for the statements every tap runs (games/taps.py says why). The table's row is
    # locked alone: taps at other tables don't wait for this one.
    table = taps.lock_table(night.pk, number, table_number)
    if table is None:
        raise BadTally(f"There is no table {table_number} in round {number}.")
    try:
        check_open_for_play(table, by_host=by_host)
        if wipeout and not bunco.wipeout_applies(night.bunco_rules(), bunco.target_for_round(number)):
            raise NotNow(f"1s are up in round {number}: three 1s are a Bunco, not a wipeout.")
    except Refusal:
        # A retried tap whose first copy did arrive, before its table closed, still gets its tally.
        existing = tally_with_key(night, key, table_number) if key else None
        if existing is None:
            raise
        return _same_tap(existing, team=team, points=points, bunco_player=bunco_player, by_host=by_host,
                         wipeout=wipeout, round_number=round_number)
    roll_off = table.roll_off if table.status == TableRound.Status.ROLL_OFF else 0
    if by_host and not is_bunco and points < 0:
        refuse_below_zero(table, team, roll_off, points)
    kind = Tally.Kind.CORRECTION if by_host else Tally.Kind.POINTS
    if bunco_player is not None:
        _check_bunco_player(table, team, bunco_player)
        points, kind = bunco.BUNCO_POINTS, Tally.Kind.BUNCO
    elif wipeout:
        points, kind = -table.totals(roll_off)[team], Tally.Kind.WIPEOUT

    tally = Tally(
        night=night,
        table_round=table,
        kind=kind,
        team=team,
        points=points,
        buncos=1 if is_bunco else 0,
        bunco_player=_roller_for(table, bunco_player) if bunco_player is not None else None,
        roll_off=roll_off,
        entered_by=entered_by,
        by_host=by_host,
        key=key or None,
        created_at=timezone.now(),
    )
    recorded = taps.insert_tally_and_event(
        {
            "night_id": night.pk, "table_round_id": table.pk, "kind": tally.kind, "team": tally.team,
            "points": tally.points, "buncos": tally.buncos, "bunco_player_id": tally.bunco_player_id,
            "roll_off": tally.roll_off, "entered_by_id": tally.entered_by_id, "by_host": tally.by_host,
            "undoes_id": None, "key": tally.key, "created_at": tally.created_at,
        },
        channel=night.channel, round_number=table.round.number, table_number=table.number,
        table_roll_off=table.roll_off, in_roll_off=table.status == TableRound.Status.ROLL_OFF,
    )
    if recorded is None:
        # The key is taken under the table's lock: this tap was already counted (a retry, or a
        # copy of it that raced here first).
        counted = tally_with_key(night, key, table_number) if key else None
        if counted is None:  # only a taken key skips the insert
            raise BadTally("That tap could not be recorded: tap again.")
        return _same_tap(counted, team=team, points=points, bunco_player=bunco_player, by_host=by_host,
                         wipeout=wipeout, round_number=round_number)
    tally.pk = recorded.tally_id
    tally._state.adding = False
    tally._state.db = "default"
    _after_tally(night, table, tally, recorded)
    return tally


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


def _after_tally(night: Night, table: TableRound, tally: Tally, recorded: taps.RecordedTally) -> None:
    totals = recorded.totals
    tally.table_totals = totals
    # The tap's events go out together once it commits: the phones wake once for all of them.
    events: list[Event] = [recorded.event]
    publish_together(events)
    if tally.buncos:
        events.append(log_event(night.channel, "state", {"round": table.round.number, "what": "bunco"},
                                publish=False))
    if (
        table.is_head
        and table.round.status == Round.Status.PLAYING
        and tally.points > 0
        and bunco.rings_bell(totals[tally.team], tally.kind == Tally.Kind.BUNCO)
    ):
        bell = _ring_bell(night, table, totals)
        if bell is not None:
            events.append(bell)
    if recorded.roll_off_totals is not None:
        decided = _end_sudden_death(night, table, recorded.roll_off_totals)
        if decided is not None:
            events.append(decided)


def _end_sudden_death(night: Night, table: TableRound, roll_off_totals: dict[str, int]) -> Event | None:
    """Under sudden death the first tally that breaks a roll-off's tie decides the table (and
    closes the round when it was the last table to decide). The event, for the caller to publish;
    None when the roll-off goes on (or the night plays full-turn roll-offs)."""
    winner = bunco.roll_off_winner(night.bunco_rules(), roll_off_totals["A"], roll_off_totals["B"], cycle_over=False)
    if winner is None:
        return None
    # The round's row too, as every action that decides a table takes it (see locked_table): the
    # last table to decide then sees every other one decided, and closes the round.
    round_ = Round.objects.select_for_update().get(pk=table.round_id)
    table.round = round_
    table.winner = winner
    table.status = TableRound.Status.DONE
    table.save(update_fields=["winner", "status"])
    event = log_event(night.channel, "state", {"round": round_.number, "table": table.number, "what": "roll_off"},
                      publish=False)
    close_round_if_resolved(night, round_)
    return event


def _ring_bell(night: Night, head: TableRound, totals: dict[str, int]) -> Event | None:
    """Close the round for everyone: one conditional update, so only the first phone rings it.

    The bell's event, for the caller to publish; None when another phone rang it first.
    """
    rung = Round.objects.filter(pk=head.round_id, status=Round.Status.PLAYING).update(
        status=Round.Status.BELL, bell_rung_at=timezone.now()
    )
    if not rung:
        return None
    head.round.status = Round.Status.BELL
    decide_table(head, totals)
    # Every other table finishes the turn under way, then confirms.
    head.round.tables.exclude(pk=head.pk).filter(status=TableRound.Status.PLAYING).update(
        status=TableRound.Status.FINISHING
    )
    winner_names = list(head.seats.filter(team=head.winner).values_list("player__name", flat=True))
    bell = log_event(
        night.channel,
        "bell",
        {"round": head.round.number, "team": head.winner, "winners": winner_names},
        publish=False,
    )
    close_round_if_resolved(night, head.round)
    return bell

def check_correction_points(points: int) -> None:
    if type(points) is not int or points == 0 or abs(points) > MAX_CORRECTION:
        raise BadTally(f"A correction is between -{MAX_CORRECTION} and +{MAX_CORRECTION}, and not 0.")
