"""A round: the head table starts it, tables finish their turn and roll off ties, the round closes
and the next one is seated (the movement), the break ends."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from games.night.actions.ending import finish_night
from games.night.actions.refusals import BadTally, StepAlreadyEnded
from games.night.models import (
    Night,
    Round,
    TableRound,
)
from games.night.taps import close_round, decide_table, read_round, seat_following
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
        raise StepAlreadyEnded(_(_STEP_OVER[what]) % {"number": round_number})
    raise NotNow(_("Round %(number)s has not been seated yet: reload the page.") % {"number": round_number})


# check_named_round's sentence for each step, whole, so each language words it its own way.
_STEP_OVER: dict[str, str] = {
    "starting it": gettext_noop("Round %(number)s is over: starting it changes nothing now."),
    "finishing its turn": gettext_noop("Round %(number)s is over: finishing its turn changes nothing now."),
    "ending its roll-off": gettext_noop("Round %(number)s is over: ending its roll-off changes nothing now."),
    "resuming": gettext_noop("Round %(number)s is over: resuming changes nothing now."),
}


@transaction.atomic
def start_round(night: Night, *, round_number: int | None = None) -> Round:
    """The head table starts the round (the bell that opens it). `round_number` is the round the
    request starts: a second tap, or a late one after that round, starts nothing."""
    night = Night.objects.select_for_update().get(pk=night.pk)
    if round_number is not None and round_number < night.current_round:
        raise StepAlreadyEnded(_("Round %(number)s has already been played.") % {"number": round_number})
    if night.status == Night.Status.FINISHED:
        raise NotNow(_("The night is over."))
    if night.status == Night.Status.BREAK:
        raise NotNow(_("It's the break: the host resumes the night first."))
    check_named_round(night, round_number, "starting it")
    round_ = locked_round(night)
    if round_.status != Round.Status.READY:
        if round_number is not None:
            raise StepAlreadyEnded(_("Round %(number)s has already started.") % {"number": round_.number})
        raise NotNow(_("Round %(number)s has already started.") % {"number": round_.number})
    round_.status = Round.Status.PLAYING
    round_.started_at = timezone.now()
    round_.save(update_fields=["status", "started_at"])
    log_event(night.channel, "state", {"round": round_.number, "what": "round_started"})
    return round_

@transaction.atomic
def finish_turn(*, night: Night, table_number: int, round_number: int | None = None) -> TableRound:
    """After the bell, a secondary table says the turn under way is over: decide its winner.

    `round_number` is the round whose turn the request ends: a second tap (or the other phone's),
    or a late one from an earlier round, changes nothing (StepAlreadyEnded)."""
    night.refresh_from_db(fields=["current_round", "status"])
    check_named_round(night, round_number, "finishing its turn")
    table = locked_table(night, table_number)
    if table.round.status != Round.Status.BELL and table.status != TableRound.Status.DONE:
        raise NotNow(_("The bell hasn't rung yet: keep playing."))
    if table.status != TableRound.Status.FINISHING:
        message = _("Table %(number)s has already finished its turn.") % {"number": table.number}
        raise StepAlreadyEnded(message) if round_number is not None else NotNow(message)
    totals = table.totals()
    decide_table(table, bunco.table_winner(totals["A"], totals["B"]))
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
        raise StepAlreadyEnded(_("Roll-off %(roll_off)s at table %(table)s is already over.")
                               % {"roll_off": roll_off, "table": table.number})
    if table.status != TableRound.Status.ROLL_OFF:
        raise NotNow(_("Table %(number)s is not rolling off.") % {"number": table.number})
    if roll_off is not None and roll_off != table.roll_off:
        raise NotNow(_("Table %(table)s is in roll-off %(roll_off)s, not %(named)s: reload the page.")
                     % {"table": table.number, "roll_off": table.roll_off, "named": roll_off})
    rules = night.bunco_rules()
    if rules.sudden_death:
        raise NotNow(_("Sudden death: the first team to score wins. Keep rolling."))
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
        table = (
            TableRound.objects.select_for_update(of=() if with_round else ("self",))
            .select_related("round")
            .get(round__night=night, round__number=night.current_round, number=table_number)
        )
    except TableRound.DoesNotExist:
        raise BadTally(_("There is no table %(number)s this round.") % {"number": table_number}) from None
    if not with_round and table.status != TableRound.Status.PLAYING and table.round.status == Round.Status.PLAYING:
        # A stale round (as in games.night.taps.read_tap): the table's row came as the bell left
        # it, after waiting for its lock, the round's as the statement first saw it. Read it again.
        table.round.refresh_from_db()
    return table


def close_round_if_resolved(night: Night, round_: Round) -> None:
    if round_.tables.unresolved().exists():
        return
    if close_round(round_.pk):
        move_players(night, round_)


def move_players(night: Night, round_: Round) -> Round | None:
    """Seat the next round by the movement of docs/RULES.md §4.4 (or the club's house rule), or end the
    night after the last round (the engine's `after_round`)."""
    played = round_in_play(night, round_.pk, round_.number)
    try:
        following = bunco.after_round(played)
    except bunco.IllegalSeating as error:
        raise cannot_seat_again(round_.number, error) from error
    next_round, _event = seat_next_round(night, round_.number, following, publish=True)
    return next_round


def round_in_play(night: Night, round_id: int, number: int) -> bunco.RoundInPlay:
    """The round as the engine reads it when it closes (`bunco.RoundInPlay`): its tables' winners,
    its seating, the night's ghosts and rules, and the arrivals and departures already made in the
    round after it, which the movement needs (`taps.read_round`, as the tap that closes it reads it)."""
    rules = bunco.Rules(**Night.objects.values_list("rules", flat=True).get(pk=night.pk))
    read = read_round(night.pk, round_id, number).round
    return bunco.RoundInPlay(number=number, rules=rules, winners=read.winners, seating=read.seating,
                             ghosts=read.ghosts, seat_changes=read.seat_changes)


def cannot_seat_again(round_number: int, error: bunco.IllegalSeating) -> NotNow:
    return NotNow(f"Round {round_number + 1} cannot be seated again with tonight's arrivals and "
                  f"departures: {error} Nothing was changed.")


def seat_next_round(night: Night, played: int, following: bunco.NextRound, *,
                    publish: bool) -> tuple[Round | None, Event]:
    """What a closed round `played` leads to, applied: the night over, or the next round seated
    (and the break, when it comes before it). Its event, published at commit unless `publish` is
    False (the caller sends it with others)."""
    if following.night_over:
        finish_night(night)
        return None, log_event(night.channel, "state", {"round": played, "what": "night_over"}, publish=publish)
    next_round = seat_following(night.pk, played, following, dict(night.players.values_list("name", "pk")))
    night.current_round = next_round.number
    night.status = Night.Status.BREAK if following.break_follows else Night.Status.PLAYING
    return next_round, log_event(night.channel, "state", {"round": next_round.number, "what": "moved"},
                                 publish=publish)


@transaction.atomic
def resume_after_break(night: Night, *, round_number: int | None = None) -> Night:
    """The host ends the break. `round_number` is the round the break comes before: a second tap
    finds the night playing again and changes nothing (StepAlreadyEnded)."""
    night = Night.objects.select_for_update().get(pk=night.pk)
    if round_number is not None and night.status != Night.Status.BREAK and round_number <= night.current_round:
        raise StepAlreadyEnded(_("The break is already over."))
    check_named_round(night, round_number, "resuming")
    if night.status != Night.Status.BREAK:
        raise NotNow(_("The night is not on a break."))
    night.status = Night.Status.PLAYING
    night.save(update_fields=["status"])
    log_event(night.channel, "state", {"round": night.current_round, "what": "resumed"})
    return night
