"""Undo and the host's corrections: a decided table follows the corrected record; re-opening
the last round."""

from __future__ import annotations

from dataclasses import replace

from django.db import transaction
from django.utils.translation import gettext as _

from games.night.actions.refusals import BadTally, NotYourTable, RoundClosed, StepAlreadyEnded, key_reused
from games.night.actions.rounds import close_round_if_resolved, locked_table, move_players
from games.night.actions.tallies import (
    check_correction_points,
    check_open_for_play,
    record_tally,
    refuse_below_zero,
    tally_with_key,
)
from games.night.models import (
    CorrectionEffect,
    Night,
    Player,
    Round,
    TableRound,
    Tally,
)
from live.log import log_event
from live.refusals import NotNow
from live.text import well_formed_key


@transaction.atomic
def undo_tally(*, night: Night, table_number: int, entered_by: Player | None = None,
               tally_id: int | None = None, by_host: bool = False, key: str | None = None) -> Tally:
    """Reverse an entry with a new row: a phone its own last entry, the host any entry.

    A key already recorded returns the undo it recorded: a phone that lost the answer and sends
    the same undo again takes back one entry, not two.
    """
    if key is not None and not well_formed_key(key):
        raise BadTally(_("The undo's key is malformed."))
    # Only the table's row is locked (see locked_table): an undo never closes a round. The lock
    # also makes two copies of one undo take turns, so the second finds the first's key.
    locked = locked_table(night, table_number, with_round=False) if tally_id is None else None
    if key:
        already = _undo_with_key(night, key, table_number, entered_by=entered_by, tally_id=tally_id, by_host=by_host)
        if already is not None:
            return already
    if tally_id is not None:
        original, table = _entry_the_host_names(night, tally_id, by_host=by_host)
    else:
        assert locked is not None  # locked above whenever no entry is named
        table = locked
        original = _last_entry_of(table, entered_by, by_host=by_host)
    _check_undoable(original, table, by_host=by_host)
    return _reverse(night, table, original, entered_by=entered_by, by_host=by_host, key=key)


def _undo_with_key(night: Night, key: str, table_number: int, *, entered_by: Player | None, tally_id: int | None,
                   by_host: bool) -> Tally | None:
    """The undo this key recorded already (a retry), or None; refused when the key is another
    request's (another entry's tally, another undo, another phone or the host)."""
    already = tally_with_key(night, key, table_number if tally_id is None else None)
    if already is None:
        return None
    if already.kind != Tally.Kind.UNDO or already.by_host != by_host or (
        already.undoes_id != tally_id if tally_id is not None
        else already.entered_by_id != (entered_by.pk if entered_by is not None else None)
    ):
        raise key_reused("undo")
    return already


def _entry_the_host_names(night: Night, tally_id: int, *, by_host: bool) -> tuple[Tally, TableRound]:
    """The entry the host picked (any table, any round) and its table, locked."""
    if not by_host:
        raise NotYourTable(_("Only the host can correct another entry."))
    original = Tally.objects.select_related("table_round__round").filter(night=night, pk=tally_id).first()
    if original is None:
        raise BadTally(_("That entry does not exist."))
    table = (
        TableRound.objects.select_for_update(of=("self",)).select_related("round").get(pk=original.table_round_id)
    )
    return original, table


def _last_entry_of(table: TableRound, entered_by: Player | None, *, by_host: bool) -> Tally:
    """The last entry still standing that `entered_by` made at this table this round (its phone's undo)."""
    if not by_host:
        refusal = table.undo_refusal()
        if refusal is not None:
            raise RoundClosed(refusal)
    # During a roll-off only the cycle under way: the tie in main play was settled when the
    # turn was finished, and taking a point off it would leave a winner the totals contradict.
    cycle = table.roll_off if table.status == TableRound.Status.ROLL_OFF else 0
    original = (
        table.tallies.filter(entered_by=entered_by, roll_off=cycle, undoes__isnull=True, undone_by__isnull=True)
        .exclude(kind=Tally.Kind.UNDO)
        .order_by("-id")
        .first()
    )
    if original is None:
        raise BadTally(_("Nothing of yours to undo at this table this round."))
    return original


def _check_undoable(original: Tally, table: TableRound, *, by_host: bool) -> None:
    """Refuse an undo of an undo, of an entry undone already, of a decided table's entry from a
    phone, and of points that would take a team below zero."""
    if original.kind == Tally.Kind.UNDO or Tally.objects.filter(undoes=original).exists():
        raise BadTally(_("That entry was already undone."))
    if table.status == TableRound.Status.DONE and not by_host:
        raise RoundClosed(_("This table's round is over: ask the host to correct it."))
    if original.points > 0:
        refuse_below_zero(table, original.team, original.roll_off, -original.points, undo=True)


def _reverse(night: Night, table: TableRound, original: Tally, *, entered_by: Player | None, by_host: bool,
             key: str | None) -> Tally:
    """Append the undo's row, log the table's new totals, and let a decided table follow them."""
    undo = Tally.objects.create(
        night=night,
        table_round=table,
        kind=Tally.Kind.UNDO,
        team=original.team,
        points=-original.points,
        buncos=-original.buncos,
        bunco_player=original.bunco_player,
        roll_off=original.roll_off,
        entered_by=entered_by,
        by_host=by_host,
        undoes=original,
        key=key or None,
    )
    totals = table.totals()
    undo.table_totals = totals
    log_event(night.channel, "tally", {"round": table.round.number, "table": table.number,
                                       "a": totals["A"], "b": totals["B"], "roll_off": table.roll_off})
    # A decided table follows the corrected record whether or not its round has closed yet: the
    # head table is decided at the bell while the others still finish, and a host undoing the
    # mistaken Bunco that rang it must change its winner before the movement is made from it.
    if table.status == TableRound.Status.DONE:
        undo.result_note = _follow_the_corrected_record(night, table, totals)
    log_event(night.channel, "state", {"round": table.round.number, "what": "corrected"})
    return undo


def _follow_the_corrected_record(night: Night, table: TableRound, totals: dict[str, int]) -> str:
    """A correction (or a host's undo) after a table was decided: the winner follows the corrected
    record; if it changes and the round seated from this one has not started, that round is seated
    again from the corrected result (rounds already played stay as they were played); prizes
    already worked out are worked out again (the same draw: it is seeded by the night).

    A tie at a table no roll-off decided (the last entry of a 5-0 struck out): while its round is
    still at the bell the table is undecided again and rolls off the tie; once the round is over,
    it keeps its winner and the host is told why and what to do. Returns what to tell the host
    ("" when the winner simply follows the score)."""
    values = {"table": table.number, "number": table.round.number, "a": totals["A"], "b": totals["B"],
              "team": table.winner}
    if table.tie_without_roll_off(totals):
        if table.round.status == Round.Status.BELL:
            table.winner = ""
            table.status = TableRound.Status.ROLL_OFF
            table.roll_off = 1
            table.save(update_fields=["winner", "status", "roll_off"])
            night.awards.all().delete()
            return _("Table %(table)s of round %(number)s is tied %(a)s–%(b)s now: it is undecided again and rolls "
                     "off the tie.") % values
        night.awards.all().delete()
        return _("Table %(table)s of round %(number)s is tied %(a)s–%(b)s now, and no roll-off decided it: team "
                 "%(team)s keeps the win the score gave it before. To settle the tie, re-open round %(number)s at "
                 "table %(table)s (while nobody has started the next round) and roll off.") % values
    winner = table.winner_after(totals)
    if winner != table.winner:
        table.winner = winner
        table.save(update_fields=["winner"])
        following = _round_to_reseat(night, table.round.number, lock=True)
        if following is not None:
            _seat_again_from(night, table.round, following)
    night.awards.all().delete()
    return ""

def _round_to_reseat(night: Night, round_number: int, *, lock: bool = False) -> Round | None:
    """The round seated from `round_number`'s result that nobody has started yet, if any: a
    correction that changes a winner of `round_number` seats it again. `lock` (in a transaction
    that will seat it again) holds the night's row, as `start_round` does: the head table cannot
    start that round, nor tap in it, while it is being seated again."""
    if lock:
        night = Night.objects.select_for_update().get(pk=night.pk)
    if night.status == Night.Status.FINISHED or night.current_round != round_number + 1:
        return None
    following = night.round_obj()
    return following if following.status == Round.Status.READY else None


def describe_correction(*, night: Night, table_number: int, team: str, points: int,
                        round_number: int | None = None) -> CorrectionEffect:
    """What a correction would change, refused as `correct_tally` would refuse it: shown to the
    host before it is applied. Changes nothing."""
    if team not in ("A", "B"):
        raise BadTally(_("Choose team A or team B."))
    check_correction_points(points)
    number = round_number or night.current_round
    table = TableRound.objects.select_related("round").filter(round__night=night, round__number=number,
                                                              number=table_number).first()
    if table is None:
        raise BadTally(_("There is no table %(table)s in round %(number)s.") % {"table": table_number, "number": number})
    check_open_for_play(table, by_host=True)
    effect = table.correction_effect(team, points)
    if points < 0:
        refuse_below_zero(table, team, effect.in_roll_off, points)
    current = night.round_obj()
    last_started = current.number if current.status != Round.Status.READY else current.number - 1
    changes_seats = effect.changes_winner
    return replace(
        effect,
        reseats_round=(following.number if changes_seats and (following := _round_to_reseat(night, number)) else 0),
        played_since=(number + 1, last_started) if changes_seats and last_started > number else None,
        prizes_again=night.awards.exists(),
    )


@transaction.atomic
def correct_tally(*, night: Night, table_number: int, team: str, points: int,
                  round_number: int | None = None, key: str | None = None) -> Tally:
    """The host adds or removes points at any table of any started round (a mistaken tally). A
    decided table's winner follows the corrected totals (a tie keeps the roll-off's result). If
    that changes a winner of the round just played and nobody has started the next one, the next
    round is seated again from the corrected result; rounds already played stay as they were
    played. Prizes already worked out are worked out again. A key already used (the host's page
    sending it again) returns the correction it made."""
    tally = record_tally(night=night, table_number=table_number, team=team, points=points,
                         by_host=True, round_number=round_number, key=key)
    table = tally.table_round
    if table.status == TableRound.Status.DONE and tally.roll_off == 0:
        tally.result_note = _follow_the_corrected_record(night, table, table.totals())
        log_event(night.channel, "state", {"round": table.round.number, "what": "corrected"})
    return tally


def _seat_again_from(night: Night, played: Round, following: Round) -> None:
    """Seat `following` (not started) again by the movement from `played`'s corrected winners."""
    status = Night.objects.values_list("status", flat=True).get(pk=night.pk)
    following.delete()
    move_players(night, played)
    Night.objects.filter(pk=night.pk).update(status=status)  # a break already over stays over
    night.status = status


@transaction.atomic
def reopen_last_round(night: Night, *, table_number: int | None = None, round_number: int | None = None) -> Round:
    """Undo the last movement to correct one table: the next round is removed (if nobody has
    scored in it yet) and the table the host picked (`table_number`) waits for its winner again;
    every other table keeps its winner and the roll-offs that decided it. Picking the head table
    (decided at the bell, its winner follows the corrections) re-opens no table: the round closes
    again at once and the next round is seated from the corrected record. `table_number=None`
    (code only) re-opens every table but the head.

    `round_number` names the round to re-open: a second tap finds it re-opened already and
    changes nothing (StepAlreadyEnded)."""
    night = Night.objects.select_for_update().get(pk=night.pk)
    current = night.round_obj()
    if round_number is not None and round_number == current.number and current.status != Round.Status.READY \
            and night.status != Night.Status.FINISHED:
        raise StepAlreadyEnded(_("Round %(number)s is already re-opened.") % {"number": round_number})
    refusal = night.reopen_refusal(current)
    if refusal is not None:
        raise NotNow(refusal)
    previous = current if night.status == Night.Status.FINISHED else night.round_obj(current.number - 1)
    if round_number is not None and round_number != previous.number:
        raise NotNow(_("Round %(number)s is the one that can be re-opened now, not round %(named)s: reload the "
                       "page.") % {"number": previous.number, "named": round_number})
    reopened = previous.tables.exclude(number=1)
    if table_number is not None:
        if not previous.tables.filter(number=table_number).exists():
            raise BadTally(_("There is no table %(table)s in round %(number)s.")
                           % {"table": table_number, "number": previous.number})
        reopened = reopened.filter(number=table_number)
    if previous is not current:
        current.delete()
    previous.status = Round.Status.BELL
    previous.closed_at = None
    previous.save(update_fields=["status", "closed_at"])
    reopened.update(status=TableRound.Status.FINISHING, winner="")
    Night.objects.filter(pk=night.pk).update(current_round=previous.number, status=Night.Status.PLAYING,
                                             finished_at=None)
    night.awards.all().delete()
    log_event(night.channel, "state", {"round": previous.number, "table": table_number, "what": "reopened"})
    # With the head table picked (or a single table) there is nothing left to finish, and no
    # action could ever close the round again: close it now, seating the next round from the
    # corrected record.
    close_round_if_resolved(night, previous)
    previous.refresh_from_db(fields=["status", "closed_at"])
    return previous
