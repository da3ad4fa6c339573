"""A round: the head table starts it, tables finish their turn and roll off ties, the round closes
and the next one is seated (the movement), the break ends."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from games.night.actions import (
    BadTally,
    StepAlreadyEnded,
)
from games.night.actions.starting import seat_round
from games.night.models import (
    Night,
    Player,
    Round,
    TableRound,
)
from games.rules import bunco
from live.log import log_event
from live.models import Event
from live.refusals import NotNow


def locked_round(night: Night, number: int | None = None) -> Round:
    return Round.objects.select_for_update().get(night=night, number=number or night.current_round)


def check_named_round(night: Night, round_number: int | None, what: str) -> None:
    """A step-ending request names the round it ends a step of (None: an action called from code,
    for the current round). An earlier round than the night's current one: that step is long
    over (StepAlreadyEnded); a later one: the request is ahead of the night (NotNow)."""
    if round_number is None or round_number == night.current_round:
        return
    if round_number < night.current_round or night.status == Night.Status.FINISHED:
        raise StepAlreadyEnded(f"Round {round_number} is over: {what} changes nothing now.")
    raise NotNow(f"Round {round_number} has not been seated yet: reload the page.")


@transaction.atomic
def start_round(night: Night, *, round_number: int | None = None) -> Round:
    """The head table starts the round (the bell that opens it). `round_number` is the round the
    request starts: a second tap, or a late one after that round, starts nothing."""
    night = Night.objects.select_for_update().get(pk=night.pk)
    if round_number is not None and round_number < night.current_round:
        raise StepAlreadyEnded(f"Round {round_number} has already been played.")
    if night.status == Night.Status.FINISHED:
        raise NotNow("The night is over.")
    if night.status == Night.Status.BREAK:
        raise NotNow("It's the break: the host resumes the night first.")
    check_named_round(night, round_number, "starting it")
    round_ = locked_round(night)
    if round_.status != Round.Status.READY:
        if round_number is not None:
            raise StepAlreadyEnded(f"Round {round_.number} has already started.")
        raise NotNow(f"Round {round_.number} has already started.")
    round_.status = Round.Status.PLAYING
    round_.started_at = timezone.now()
    round_.save(update_fields=["status", "started_at"])
    log_event(night.channel, "state", {"round": round_.number, "what": "round_started"})
    return round_

def decide_table(table: TableRound, totals: dict[str, int]) -> None:
    """Winner by points (the engine's `table_winner`), or a roll-off when tied."""
    winner = bunco.table_winner(totals["A"], totals["B"])
    if winner is not None:
        table.winner = winner
        table.status = TableRound.Status.DONE
    else:
        table.status = TableRound.Status.ROLL_OFF
        table.roll_off += 1
    table.save(update_fields=["winner", "status", "roll_off"])


@transaction.atomic
def finish_turn(*, night: Night, table_number: int, round_number: int | None = None) -> TableRound:
    """After the bell, a secondary table says the turn under way is over: decide its winner.

    `round_number` is the round whose turn the request ends: a second tap (or the other phone's),
    or a late one from an earlier round, changes nothing (StepAlreadyEnded)."""
    night.refresh_from_db(fields=["current_round", "status"])
    check_named_round(night, round_number, "finishing its turn")
    table = locked_table(night, table_number)
    if table.round.status != Round.Status.BELL and table.status != TableRound.Status.DONE:
        raise NotNow("The bell hasn't rung yet: keep playing.")
    if table.status != TableRound.Status.FINISHING:
        message = f"Table {table.number} has already finished its turn."
        raise StepAlreadyEnded(message) if round_number is not None else NotNow(message)
    decide_table(table, table.totals())
    log_event(night.channel, "state", {"round": table.round.number, "table": table.number, "what": "table_done"})
    close_round_if_resolved(night, table.round)
    return table


@transaction.atomic
def finish_roll_off(*, night: Night, table_number: int, round_number: int | None = None,
                    roll_off: int | None = None) -> TableRound:
    """Every seat has taken its roll-off turn: the higher roll-off total wins, or roll again.

    Not under sudden death: there the first tally that breaks the tie decides the table.
    `round_number` and `roll_off` name the roll-off the request ends: a second tap on the same
    roll-off (or the other phone's) finds it over and changes nothing (StepAlreadyEnded), where it
    used to end the next roll-off before anyone had rolled in it."""
    night.refresh_from_db(fields=["current_round", "status"])
    check_named_round(night, round_number, "ending its roll-off")
    table = locked_table(night, table_number)
    if roll_off is not None and (table.status == TableRound.Status.DONE or table.roll_off > roll_off):
        raise StepAlreadyEnded(f"Roll-off {roll_off} at table {table.number} is already over.")
    if table.status != TableRound.Status.ROLL_OFF:
        raise NotNow(f"Table {table.number} is not rolling off.")
    if roll_off is not None and roll_off != table.roll_off:
        raise NotNow(f"Table {table.number} is in roll-off {table.roll_off}, not {roll_off}: reload the page.")
    rules = night.bunco_rules()
    if rules.sudden_death:
        raise NotNow("Sudden death: the first team to score wins. Keep rolling.")
    totals = table.totals(table.roll_off)
    winner = bunco.roll_off_winner(rules, totals["A"], totals["B"], cycle_over=True)
    if winner is None:
        table.roll_off += 1  # still tied: another turn each
        table.save(update_fields=["roll_off"])
    else:
        table.winner = winner
        table.status = TableRound.Status.DONE
        table.save(update_fields=["winner", "status"])
    log_event(night.channel, "state", {"round": table.round.number, "table": table.number, "what": "roll_off"})
    close_round_if_resolved(night, table.round)
    return table


def locked_table(night: Night, table_number: int, *, with_round: bool = True) -> TableRound:
    # The plain FOR UPDATE locks the joined round row too, on purpose: tables deciding at the
    # same moment take turns, so the last of them sees every other table decided and closes the
    # round (each would otherwise see the other still unresolved, and nobody would close it).
    # An action that decides nothing takes only the table's row (`with_round=False`): holding
    # the table while waiting for the round deadlocks against the bell, which holds the round
    # while it marks every other table "finishing".
    try:
        return (
            TableRound.objects.select_for_update(of=() if with_round else ("self",))
            .select_related("round")
            .get(round__night=night, round__number=night.current_round, number=table_number)
        )
    except TableRound.DoesNotExist:
        raise BadTally(f"There is no table {table_number} this round.") from None


def close_round_if_resolved(night: Night, round_: Round) -> None:
    if round_.tables.unresolved().exists():
        return
    closed = Round.objects.filter(pk=round_.pk).exclude(status=Round.Status.CLOSED).update(
        status=Round.Status.CLOSED, closed_at=timezone.now()
    )
    if closed:
        move_players(night, round_)


def move_players(night: Night, round_: Round) -> Round | None:
    """Seat the next round by the movement of RULES.md §4.4 (or the club's house rule)."""
    seating, ghosts = _seating_of(round_)
    winners = list(round_.tables.order_by("number").values_list("winner", flat=True))
    if round_.number == bunco.ROUNDS:
        Night.objects.filter(pk=night.pk).update(status=Night.Status.FINISHED, finished_at=timezone.now())
        log_event(night.channel, "state", {"round": round_.number, "what": "night_over"})
        return None
    next_seating = bunco.next_seating_with(seating, winners, night.bunco_rules(), ghosts=ghosts)
    by_name = {player.name: player for player in night.players.all()}
    # Seated again (a re-open, a correction): the arrivals and departures made in that round stay.
    changes = _seat_changes_in(night, round_.number + 1, by_name)
    if changes:
        try:
            next_seating = bunco.seat_changes_again(next_seating, ghosts, changes)
        except bunco.IllegalSeating as error:
            raise NotNow(f"Round {round_.number + 1} cannot be seated again with tonight's arrivals and "
                             f"departures: {error} Nothing was changed.") from error
    next_round = Round.objects.create(night=night, number=round_.number + 1)
    seat_round(next_round, next_seating, by_name)
    status = Night.Status.BREAK if round_.number == bunco.BREAK_AFTER_ROUND else Night.Status.PLAYING
    Night.objects.filter(pk=night.pk).update(current_round=next_round.number, status=status)
    night.current_round, night.status = next_round.number, status
    log_event(night.channel, "state", {"round": next_round.number, "what": "moved"})
    return next_round


def _seat_changes_in(night: Night, round_number: int, by_name: dict[str, Player]) -> list[bunco.SeatChange]:
    """The arrivals and departures the host made in round `round_number` (their events), oldest
    first: a round seated again applies them again (`bunco.seat_changes_again`)."""
    events = Event.objects.on(night.channel).filter(kind="state", data__round=round_number,
                                                    data__what__in=("arrived", "left")).order_by("id")
    names = {player.pk: name for name, player in by_name.items()}
    changes: list[bunco.SeatChange] = []
    for event in events:
        name, ghost = names.get(event.data.get("player")), names.get(event.data.get("ghost"))
        if name is not None and ghost is not None:
            changes.append(bunco.SeatChange(kind=event.data["what"], name=name, ghost=ghost))
    return changes


def _seating_of(round_: Round) -> tuple[list[list[str]], set[str]]:
    ghosts = set(Player.objects.filter(night_id=round_.night_id, is_ghost=True).values_list("name", flat=True))
    return round_.seating(), ghosts

@transaction.atomic
def resume_after_break(night: Night, *, round_number: int | None = None) -> Night:
    """The host ends the break. `round_number` is the round the break comes before: a second tap
    finds the night playing again and changes nothing (StepAlreadyEnded)."""
    night = Night.objects.select_for_update().get(pk=night.pk)
    if round_number is not None and night.status != Night.Status.BREAK and round_number <= night.current_round:
        raise StepAlreadyEnded("The break is already over.")
    check_named_round(night, round_number, "resuming")
    if night.status != Night.Status.BREAK:
        raise NotNow("The night is not on a break.")
    night.status = Night.Status.PLAYING
    night.save(update_fields=["status"])
    log_event(night.channel, "state", {"round": night.current_round, "what": "resumed"})
    return night
