"""A tap: a tally recorded at its table, and what it leads to (the bell, a decided roll-off, the
round closed and the next one seated)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.utils.translation import gettext as _

from games.night import taps
from games.night.actions.refusals import BadTally, KeyOfAnotherTable, RoundClosed, key_reused
from games.night.actions.rounds import cannot_seat_again, seat_next_round
from games.night.models import Night, Player, TableRound, Tally
from games.rules import bunco
from live.refusals import NotNow, Refusal
from live.text import WELL_FORMED_KEY

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

    A read, one judgement, one write: `taps.read_tap` locks the table (taps at one table take
    turns, so the bell sees every point before it; tables don't wait for each other) and reads
    what the engine needs; `bunco.rule_on_tap` answers once (refused, or the tally and what it
    leads to: the bell, the table decided, the round closed and the next seating; a wipeout takes
    the team back to 0); `taps.write_tap` writes it all (the next round's seats too), its events through the event log's one
    insert, and they go out together at commit. A key already recorded returns the tally it
    recorded (a retried tap).
    """
    tap = Tap(team, points, bunco_player, entered_by, by_host, key or None, round_number, wipeout)
    _check_tap(tap)
    number = round_number or night.current_round
    # The read is this block's first statement and the write its last: when the block is the
    # outermost, PostgreSQL gets the BEGIN with the read and a tally that leads to nothing more
    # with the COMMIT (taps.read_tap, taps.write_tap).
    scene = taps.read_tap(night.pk, number, table_number, tap.key, begin=True)
    if scene is None:
        raise BadTally(_("There is no table %(table)s in round %(number)s.") % {"table": table_number, "number": number})
    if scene.key_taken:
        return _retried(night, tap, table_number, BadTally("That tap could not be recorded: tap again."))
    asked = bunco.TapAsked(team="A" if team == "A" else "B", points=points, wipeout=wipeout, by_host=by_host,
                           bunco_by=bunco_player.name if bunco_player else None)
    try:
        ruling = bunco.rule_on_tap(scene.at_tap, asked, scene.closing.round if scene.closing else None)
    except bunco.IllegalSeating as error:
        raise cannot_seat_again(number, error) from error
    if ruling.refusal is not None:
        raise REFUSALS[ruling.refused_for](ruling.refusal)
    written = taps.write_tap(scene, ruling, night_id=night.pk, entered_by_id=entered_by.pk if entered_by else None,
                             by_host=by_host, key=tap.key, commit=True)
    if written is None:  # a copy of this tap, at another table's lock, took the key first
        return _retried(night, tap, table_number, BadTally("That tap could not be recorded: tap again."))
    if written.closed is not None:  # the round closed: the next one seated, or the night to end
        _after_the_round(night, number, written)
    return written.tally


# How the engine's refusal of a tap is told: the round over at a phone's table, not now (the
# host's correction before the round, a wipeout when 1s are up), or a tap that is never right.
REFUSALS: dict[str, type[Refusal]] = {"closed": RoundClosed, "not_now": NotNow, "bad": BadTally}


def _check_tap(tap: Tap) -> None:
    """BadTally for a tally that is never right, whatever the table's state."""
    if tap.team not in ("A", "B"):
        raise BadTally(_("Choose team A or team B."))
    if type(tap.points) is not int:  # True == 1 in Python: a flag is not a number of points
        raise BadTally(_("A tally is +1, +2, +5 or a Bunco, not %(points)s.") % {"points": repr(tap.points)})
    is_bunco = tap.bunco_player is not None
    if tap.wipeout:
        if is_bunco or tap.by_host or tap.points != 0:
            raise BadTally(_("A wipeout is its own tap: no points or Bunco with it."))
    elif not tap.by_host and not is_bunco and tap.points not in POINT_BUTTONS:
        raise BadTally(_("A tally is +1, +2, +5 or a Bunco, not %(points)s.") % {"points": repr(tap.points)})
    if tap.by_host and not is_bunco:
        check_correction_points(tap.points)
    # The pattern itself, not live.text's well_formed_key: this is the hot path of a night.
    if tap.key is not None and WELL_FORMED_KEY.fullmatch(tap.key) is None:
        raise BadTally(_("The tap's key is malformed."))


def _retried(night: Night, tap: Tap, table_number: int, refusal: Refusal) -> Tally:
    """The tally this tap's key already recorded, if this is a copy of that tap; else `refusal`."""
    existing = tally_with_key(night, tap.key, table_number) if tap.key else None
    if existing is None:
        raise refusal
    return _same_tap(existing, team=tap.team, points=tap.points, bunco_player=tap.bunco_player, by_host=tap.by_host,
                     wipeout=tap.wipeout, round_number=tap.round_number)


def _after_the_round(night: Night, played: int, written: taps.WrittenTap) -> None:
    """The round `played` closed by the tap: the night on to the round `write_tap` seated (or its
    break), or the night over, its event going out with the tap's (`written.events`, at commit)."""
    assert written.closed is not None
    if written.closed.night_over:
        _next, event = seat_next_round(night, played, written.closed, publish=False)
        written.events.append(event)
        return
    night.current_round = played + 1
    night.status = Night.Status.BREAK if written.closed.break_follows else Night.Status.PLAYING


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
        raise KeyOfAnotherTable(_("That tap's key was already used at another table: tap again."))
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
    roll-off cycle `roll_off`): the engine's `below_zero_refusal`."""
    refusal = bunco.below_zero_refusal(table.number, team, roll_off, table.totals(roll_off)[team], change, undo=undo)
    if refusal is not None:
        raise BadTally(refusal)


def check_correction_points(points: int) -> None:
    if type(points) is not int or points == 0 or abs(points) > MAX_CORRECTION:
        raise BadTally(_("A correction is between -%(most)s and +%(most)s, and not 0.") % {"most": MAX_CORRECTION})
