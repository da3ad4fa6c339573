"""Workflows of live play: each is atomic, logs its events and publishes them after commit.

A Bunco night (RULES.md §4): `start_night` seats everyone; the head table's `start_round` opens a
round; phones `record_tally`; a head-table team at 21 or a head-table Bunco rings the bell
(exactly once, by a conditional update); other tables `finish_turn`; ties `finish_roll_off`;
when every table has a winner the round closes and `move_players` seats the next one. After round
24 the night ends and `award_prizes` hands out the pot.

Errors are `NightError`s, or the refusals every app shares (live.refusals: NotNow, SeatTaken,
KeyReused), carrying the HTTP status a view should answer with; they change nothing.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import asdict, replace
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from bunco_club import actions as club_actions
from bunco_club.models import Party
from games.night import taps
from games.night.models import (
    TITLE_MAX,
    CorrectionEffect,
    Night,
    Player,
    PrizeAward,
    Round,
    Seat,
    TableRound,
    Tally,
    night_size_refusal,
)
from games.rules import bunco, dice, prizes
from live.log import log_event, publish_together
from live.models import Event
from live.refusals import KeyReused, NotNow, Refusal, SeatTaken
from live.text import has_control_characters, well_formed_key

POINT_BUTTONS = (1, 2, 5)  # +1, +2, +5 ("baby bunco"); a Bunco is its own button
MAX_CORRECTION = 99


class NightError(Refusal):
    """A request the night cannot take; `status` is the HTTP answer, the message is for people."""

    status = 400


class BadTally(NightError):
    status = 400


class NotYourTable(NightError):
    status = 403


class RoundClosed(NotNow):
    """A tally after its table's round has closed (the bell, a finished turn): told apart from any
    other refusal by the tallies' concurrency proof."""


class StepAlreadyEnded(NotNow):
    """A request to end a step (start a round, finish a turn, end a roll-off, resume after the
    break, end the night) naming a step that has already ended: a double tap, a second phone at
    the table, a late retry. Nothing changes; a view answers with the current state, no error."""


class KeyOfAnotherTable(NightError):
    """A tap's key already recorded at another table: never answered with that table's totals."""

    status = 409


def _key_reused(what: str) -> KeyReused:
    """A request's idempotency key already used for a request with other content (another team,
    other points, a tap where an undo was sent, another player arriving...): refused, never taken
    for a retry of the first, which would answer with what the first did and drop this one."""
    return KeyReused(f"That {what} was sent with the key of an earlier, different one: nothing was changed. "
                     "Reload the page and do it again.")


class NoSuchNight(NightError):
    """A request for a night that does not exist (deleted, or a mistyped link)."""

    status = 404


# --- Starting a night -------------------------------------------------------------------------


NAME_MAX = Player._meta.get_field("name").max_length or 40  # what a Player's name column holds


def clean_names(raw_names: Sequence[str]) -> list[str]:
    """Trimmed, non-empty names, or BadTally for a name too long or on the list twice (in any
    letter case): the rule the start action, its form and the form's live hint all ask."""
    names = [" ".join(name.split()) for name in raw_names]
    names = [name for name in names if name]
    seen: set[str] = set()
    for name in names:
        if len(name) > NAME_MAX:
            raise BadTally(f"“{name[:NAME_MAX]}…” is too long for a name ({NAME_MAX} letters at most).")
        if has_control_characters(name):
            raise BadTally("A name holds a character that is not a letter, a digit or a sign (a control "
                           "character): type it again.")
        if name.casefold() in seen:
            raise BadTally(f"“{name}” is on the list twice: give one of them a surname or initial.")
        seen.add(name.casefold())
    return names


@transaction.atomic
def start_night(
    *,
    names: Sequence[str],
    buy_in_cents: int = 500,
    rules: bunco.Rules = bunco.OFFICIAL,
    prize_rules: prizes.PrizeRules = prizes.OFFICIAL_PRIZE_RULES,
    title: str = "Bunco night",
    club: Any = None,
    party: Any = None,
    host_user: Any = None,
    members: dict[str, Any] | None = None,
    rng: random.Random | None = None,
) -> Night:
    """Create the night, draw the seating (stars at the head table, random teams) and seat round 1."""
    if party is not None:
        # One night per party (issue 16, C5): two starts at once take turns on the party's row.
        type(party).objects.select_for_update().filter(pk=party.pk).first()
        if Night.objects.filter(party=party).exists():
            raise NotNow("This party's night is started already: open it from the party's page.")
    title = " ".join(str(title).split()) or "Bunco night"
    if len(title) > TITLE_MAX:
        raise BadTally(f"A night's title is {TITLE_MAX} letters at most, and this one has {len(title)}: shorten it.")
    players = clean_names(names)
    too_many = night_size_refusal(len(players))
    if too_many is not None:
        raise BadTally(too_many)
    try:
        draw = bunco.draw_seating(players, rng or dice.system_rng())
    except bunco.BuncoError as error:
        raise BadTally(str(error)) from error
    night = Night.objects.create(
        title=title,
        club=club,
        party=party,
        host_user=host_user if getattr(host_user, "is_authenticated", False) else None,
        buy_in_cents=buy_in_cents,
        rules=asdict(rules),
        prize_rules=asdict(prize_rules),
    )
    members = members or {}
    by_name = {
        player.name: player
        for player in Player.objects.bulk_create(
            [Player(night=night, name=name, member=members.get(name)) for name in players]
            + [Player(night=night, name=name, is_ghost=True) for name in draw.ghosts]
        )
    }
    round_one = Round.objects.create(night=night, number=1)
    _seat_round(round_one, draw.seating(), by_name)
    log_event(night.channel, "state", {"round": 1, "what": "started"})
    return night


def _seat_round(round_: Round, seating: list[list[str]], by_name: dict[str, Player]) -> None:
    """Create the round's tables and seats from a seating of names (table 0 = head)."""
    tables = TableRound.objects.bulk_create(
        [TableRound(round=round_, number=index + 1) for index in range(len(seating))]
    )
    Seat.objects.bulk_create(
        [
            Seat(
                table_round=table,
                round=round_,
                position=position,
                team=bunco.team_of_seat(position),
                player=by_name[name],
            )
            for table, names in zip(tables, seating, strict=True)
            for position, name in enumerate(names)
        ]
    )


# --- Phones and their seats ----------------------------------------------------------------------


@transaction.atomic
def claim_seat(*, night: Night, player: Player, phone: str) -> None:
    """The phone whose session token is `phone` plays as `player` from now on.

    Only a seat no other phone holds (or this phone already does): one conditional update, so two
    phones tapping the same name at once cannot both get it. The phone's other seat in the night,
    if it had one, is let go: one phone, one player.
    """
    if not phone or player.night_id != night.pk or player.is_ghost:
        raise BadTally("Tap one of the names on the list.")
    claimed = Player.objects.filter(pk=player.pk, claimed_by__in=("", phone)).update(claimed_by=phone)
    if not claimed:
        raise SeatTaken(f"{player.name} is already playing on another phone. If that's you, ask the host "
                        "to hand your seat over to this phone.")
    Player.objects.filter(night=night, claimed_by=phone).exclude(pk=player.pk).update(claimed_by="")


@transaction.atomic
def release_seat(*, night: Night, player: Player) -> bool:
    """The host hands a seat over: the phone that held `player` plays as them no more (its next tap
    or page says so, and its page is told at once on its private channel); the next phone to tap
    the name gets the seat. False when no phone held it."""
    if player.night_id != night.pk:
        raise BadTally("That player isn't in tonight's game.")
    released = Player.objects.filter(pk=player.pk).exclude(claimed_by="").update(claimed_by="")
    if released:
        log_event(player.private_channel, "state", {"what": "seat_released"})
    return bool(released)


# --- Arriving late and leaving early --------------------------------------------------------------


def _seated_round_to_change(night: Night, round_number: int | None) -> Round:
    """The seated round, locked, if players may still be changed in it: between rounds (seated, not
    started), the night not over. `round_number` is the round the host's page showed."""
    stale = round_number is not None and round_number != night.current_round
    if stale and night.status != Night.Status.FINISHED:
        raise NotNow(f"The night is at round {night.current_round} now, not {round_number}: reload the page.")
    current = _locked_round(night)
    refusal = night.seat_change_refusal(current)  # the rule the host's page follows too
    if refusal is not None:
        raise NotNow(refusal)
    return current


def _done_with_key(night: Night, key: str | None, what: str, **same: object) -> Event | None:
    """The event of a change this key already made (a host's page sending it again). KeyReused
    when the key made another change: another kind of change, or other values of the `same`
    fields of the event's data (None: not known, not compared)."""
    if key is None:
        return None
    if not well_formed_key(key):
        raise BadTally("The request's key is malformed.")
    done = Event.objects.on(night.channel).filter(kind="state", data__what__in=("arrived", "left"),
                                                  data__key=key).first()
    if done is None:
        return None
    if done.data.get("what") != what or any(
        value is not None and done.data.get(field) != value for field, value in same.items()
    ):
        raise _key_reused("arrival" if what == "arrived" else "departure")
    return done


def _reseat(night: Night, round_: Round, seating: list[list[str]]) -> None:
    """Seat a round not started yet again (nothing is recorded in it: no tally, no winner)."""
    round_.tables.all().delete()
    _seat_round(round_, seating, {player.name: player for player in night.players.all()})


@transaction.atomic
def seat_late_arrival(night: Night, *, name: str, ghost: Player | None = None, round_number: int | None = None,
                      key: str | None = None) -> Player:
    """Someone arrives after the start: between rounds they take a ghost's seat (the host's pick,
    or a ghost at a table with two, else the first), and play from the seated round on. A key
    already used returns the player it seated."""
    night = Night.objects.select_for_update().get(pk=night.pk)
    done = _done_with_key(night, key, "arrived", ghost=ghost.pk if ghost is not None else None)
    if done is not None:
        arrived = night.players.get(pk=done.data["player"])
        if arrived.name.casefold() != " ".join(name.split()).casefold():
            raise _key_reused("arrival")
        return arrived
    current = _seated_round_to_change(night, round_number)
    cleaned = clean_names([name])
    if not cleaned:
        raise BadTally("Type the name of the person arriving.")
    newcomer = cleaned[0]
    if night.players.filter(name__iexact=newcomer).exists():
        raise BadTally(f"“{newcomer}” is already on tonight's list: add a surname or an initial.")
    too_many = night_size_refusal(night.players.real().count() + 1)
    if too_many is not None:
        raise BadTally(too_many)
    seating = current.seating()
    ghosts = set(night.players.filter(is_ghost=True).values_list("name", flat=True))
    chosen = ghost.name if ghost is not None else bunco.ghost_for_arrival(seating, ghosts)
    if chosen is None:
        raise NotNow("Every seat has a player: there is no ghost's seat for a late arrival tonight.")
    try:
        new_seating = bunco.seat_late_arrival(seating, ghosts, ghost=chosen, newcomer=newcomer)
    except bunco.IllegalSeating as error:
        raise BadTally(str(error)) from error
    member = night.club.members.filter(name__iexact=newcomer).first() if night.club is not None else None
    player = Player.objects.create(night=night, name=newcomer, member=member)
    _reseat(night, current, new_seating)
    taken = night.players.get(name=chosen)
    log_event(night.channel, "state", {"round": current.number, "what": "arrived", "player": player.pk,
                                       "ghost": taken.pk, "key": key})
    return player


@transaction.atomic
def let_player_leave(night: Night, *, player: Player, round_number: int | None = None,
                     key: str | None = None) -> Player:
    """Someone leaves early: between rounds a new ghost takes their seat (their partner rolls for
    it); what they played stays theirs, prizes included. Their phone is let go. Returns the ghost;
    a key already used returns the ghost it seated."""
    night = Night.objects.select_for_update().get(pk=night.pk)
    done = _done_with_key(night, key, "left", player=player.pk)
    if done is not None:
        return night.players.get(pk=done.data["ghost"])
    if player.night_id != night.pk or player.is_ghost:
        raise BadTally("That player isn't in tonight's game.")
    current = _seated_round_to_change(night, round_number)
    seating = current.seating()
    if not any(player.name in seats for seats in seating):
        raise NotNow(f"{player.name} has no seat in round {current.number}: they have already left.")
    names = list(night.players.values_list("name", flat=True))
    ghosts = set(night.players.filter(is_ghost=True).values_list("name", flat=True))
    ghost_name = bunco.fresh_ghost_name(names)
    try:
        new_seating = bunco.seat_ghost_for_leaver(seating, ghosts, leaver=player.name, ghost=ghost_name)
    except bunco.IllegalSeating as error:
        raise NotNow(str(error)) from error
    ghost = Player.objects.create(night=night, name=ghost_name, is_ghost=True)
    _reseat(night, current, new_seating)
    if Player.objects.filter(pk=player.pk).exclude(claimed_by="").update(claimed_by=""):
        log_event(player.private_channel, "state", {"what": "seat_released"})
    log_event(night.channel, "state", {"round": current.number, "what": "left", "player": player.pk,
                                       "ghost": ghost.pk, "key": key})
    return ghost


# --- A round ----------------------------------------------------------------------------------


def _locked_round(night: Night, number: int | None = None) -> Round:
    return Round.objects.select_for_update().get(night=night, number=number or night.current_round)


def _check_named_round(night: Night, round_number: int | None, what: str) -> None:
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
    _check_named_round(night, round_number, "starting it")
    round_ = _locked_round(night)
    if round_.status != Round.Status.READY:
        if round_number is not None:
            raise StepAlreadyEnded(f"Round {round_.number} has already started.")
        raise NotNow(f"Round {round_.number} has already started.")
    round_.status = Round.Status.PLAYING
    round_.started_at = timezone.now()
    round_.save(update_fields=["status", "started_at"])
    log_event(night.channel, "state", {"round": round_.number, "what": "round_started"})
    return round_


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
        _check_correction_points(points)
    if key is not None and not well_formed_key(key):
        raise BadTally("The tap's key is malformed.")

    number = round_number or night.current_round
    # Plain SQL for the statements every tap runs (games/taps.py says why). The table's row is
    # locked alone: taps at other tables don't wait for this one.
    table = taps.lock_table(night.pk, number, table_number)
    if table is None:
        raise BadTally(f"There is no table {table_number} in round {number}.")
    try:
        _check_open_for_play(table, by_host=by_host)
        if wipeout and not bunco.wipeout_applies(night.bunco_rules(), bunco.target_for_round(number)):
            raise NotNow(f"1s are up in round {number}: three 1s are a Bunco, not a wipeout.")
    except Refusal:
        # A retried tap whose first copy did arrive, before its table closed, still gets its tally.
        existing = _tally_with_key(night, key, table_number) if key else None
        if existing is None:
            raise
        return _same_tap(existing, team=team, points=points, bunco_player=bunco_player, by_host=by_host,
                         wipeout=wipeout, round_number=round_number)
    roll_off = table.roll_off if table.status == TableRound.Status.ROLL_OFF else 0
    if by_host and not is_bunco and points < 0:
        _refuse_below_zero(table, team, roll_off, points)
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
        counted = _tally_with_key(night, key, table_number) if key else None
        if counted is None:  # only a taken key skips the insert
            raise BadTally("That tap could not be recorded: tap again.")
        return _same_tap(counted, team=team, points=points, bunco_player=bunco_player, by_host=by_host,
                         wipeout=wipeout, round_number=round_number)
    tally.pk = recorded.tally_id
    tally._state.adding = False
    tally._state.db = "default"
    _after_tally(night, table, tally, recorded)
    return tally


def _tally_with_key(night: Night, key: str, table_number: int | None = None) -> Tally | None:
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
        raise _key_reused("correction" if by_host else "tap")
    return existing


def _check_open_for_play(table: TableRound, *, by_host: bool = False) -> None:
    """Refuse a tally (or a phone's undo) the table does not take now (`TableRound.tally_refusal`,
    the rule the phone page asks too)."""
    refusal = table.tally_refusal(by_host=by_host)
    if refusal is not None:
        raise NotNow(refusal) if by_host else RoundClosed(refusal)


def _refuse_below_zero(table: TableRound, team: str, roll_off: int, change: int, *, undo: bool = False) -> None:
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
    # The round's row too, as every action that decides a table takes it (see _locked_table): the
    # last table to decide then sees every other one decided, and closes the round.
    round_ = Round.objects.select_for_update().get(pk=table.round_id)
    table.round = round_
    table.winner = winner
    table.status = TableRound.Status.DONE
    table.save(update_fields=["winner", "status"])
    event = log_event(night.channel, "state", {"round": round_.number, "table": table.number, "what": "roll_off"},
                      publish=False)
    _close_round_if_resolved(night, round_)
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
    _decide_table(head, totals)
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
    _close_round_if_resolved(night, head.round)
    return bell


def _decide_table(table: TableRound, totals: dict[str, int]) -> None:
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
    _check_named_round(night, round_number, "finishing its turn")
    table = _locked_table(night, table_number)
    if table.round.status != Round.Status.BELL and table.status != TableRound.Status.DONE:
        raise NotNow("The bell hasn't rung yet: keep playing.")
    if table.status != TableRound.Status.FINISHING:
        message = f"Table {table.number} has already finished its turn."
        raise StepAlreadyEnded(message) if round_number is not None else NotNow(message)
    _decide_table(table, table.totals())
    log_event(night.channel, "state", {"round": table.round.number, "table": table.number, "what": "table_done"})
    _close_round_if_resolved(night, table.round)
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
    _check_named_round(night, round_number, "ending its roll-off")
    table = _locked_table(night, table_number)
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
    _close_round_if_resolved(night, table.round)
    return table


def _locked_table(night: Night, table_number: int, *, with_round: bool = True) -> TableRound:
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


def _close_round_if_resolved(night: Night, round_: Round) -> None:
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
    _seat_round(next_round, next_seating, by_name)
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


# --- Undo and the host's corrections ------------------------------------------------------------


@transaction.atomic
def undo_tally(*, night: Night, table_number: int, entered_by: Player | None = None,
               tally_id: int | None = None, by_host: bool = False, key: str | None = None) -> Tally:
    """Reverse an entry with a new row: a phone its own last entry, the host any entry.

    A key already recorded returns the undo it recorded: a phone that lost the answer and sends
    the same undo again takes back one entry, not two.
    """
    if key is not None and not well_formed_key(key):
        raise BadTally("The undo's key is malformed.")
    # Only the table's row is locked (see _locked_table): an undo never closes a round. The lock
    # also makes two copies of one undo take turns, so the second finds the first's key.
    locked = _locked_table(night, table_number, with_round=False) if tally_id is None else None
    if key:
        already = _tally_with_key(night, key, table_number if tally_id is None else None)
        if already is not None:
            if already.kind != Tally.Kind.UNDO or already.by_host != by_host or (
                already.undoes_id != tally_id if tally_id is not None
                else already.entered_by_id != (entered_by.pk if entered_by is not None else None)
            ):
                raise _key_reused("undo")
            return already
    if tally_id is not None:
        if not by_host:
            raise NotYourTable("Only the host can correct another entry.")
        original = Tally.objects.select_related("table_round__round").filter(night=night, pk=tally_id).first()
        if original is None:
            raise BadTally("That entry does not exist.")
        table = (
            TableRound.objects.select_for_update(of=("self",)).select_related("round").get(pk=original.table_round_id)
        )
    else:
        assert locked is not None  # locked above whenever no entry is named
        table = locked
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
            raise BadTally("Nothing of yours to undo at this table this round.")
    if original.kind == Tally.Kind.UNDO or Tally.objects.filter(undoes=original).exists():
        raise BadTally("That entry was already undone.")
    if table.status == TableRound.Status.DONE and not by_host:
        raise RoundClosed("This table's round is over: ask the host to correct it.")
    if original.points > 0:
        _refuse_below_zero(table, original.team, original.roll_off, -original.points, undo=True)
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
    where = f"Table {table.number} of round {table.round.number}"
    if table.tie_without_roll_off(totals):
        score = f"{totals['A']}–{totals['B']}"
        if table.round.status == Round.Status.BELL:
            table.winner = ""
            table.status = TableRound.Status.ROLL_OFF
            table.roll_off = 1
            table.save(update_fields=["winner", "status", "roll_off"])
            night.awards.all().delete()
            return f"{where} is tied {score} now: it is undecided again and rolls off the tie."
        night.awards.all().delete()
        return (f"{where} is tied {score} now, and no roll-off decided it: team {table.winner} keeps the win "
                f"the score gave it before. To settle the tie, re-open round {table.round.number} at table "
                f"{table.number} (while nobody has started the next round) and roll off.")
    winner = table.winner_after(totals)
    if winner != table.winner:
        table.winner = winner
        table.save(update_fields=["winner"])
        following = _round_to_reseat(night, table.round.number, lock=True)
        if following is not None:
            _seat_again_from(night, table.round, following)
    night.awards.all().delete()
    return ""


def _check_correction_points(points: int) -> None:
    if type(points) is not int or points == 0 or abs(points) > MAX_CORRECTION:
        raise BadTally(f"A correction is between -{MAX_CORRECTION} and +{MAX_CORRECTION}, and not 0.")


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
        raise BadTally("Choose team A or team B.")
    _check_correction_points(points)
    number = round_number or night.current_round
    table = TableRound.objects.select_related("round").filter(round__night=night, round__number=number,
                                                              number=table_number).first()
    if table is None:
        raise BadTally(f"There is no table {table_number} in round {number}.")
    _check_open_for_play(table, by_host=True)
    effect = table.correction_effect(team, points)
    if points < 0:
        _refuse_below_zero(table, team, effect.in_roll_off, points)
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
        raise StepAlreadyEnded(f"Round {round_number} is already re-opened.")
    refusal = night.reopen_refusal(current)
    if refusal is not None:
        raise NotNow(refusal)
    previous = current if night.status == Night.Status.FINISHED else night.round_obj(current.number - 1)
    if round_number is not None and round_number != previous.number:
        raise NotNow(f"Round {previous.number} is the one that can be re-opened now, not round {round_number}: "
                         "reload the page.")
    reopened = previous.tables.exclude(number=1)
    if table_number is not None:
        if not previous.tables.filter(number=table_number).exists():
            raise BadTally(f"There is no table {table_number} in round {previous.number}.")
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
    _close_round_if_resolved(night, previous)
    previous.refresh_from_db(fields=["status", "closed_at"])
    return previous


@transaction.atomic
def resume_after_break(night: Night, *, round_number: int | None = None) -> Night:
    """The host ends the break. `round_number` is the round the break comes before: a second tap
    finds the night playing again and changes nothing (StepAlreadyEnded)."""
    night = Night.objects.select_for_update().get(pk=night.pk)
    if round_number is not None and night.status != Night.Status.BREAK and round_number <= night.current_round:
        raise StepAlreadyEnded("The break is already over.")
    _check_named_round(night, round_number, "resuming")
    if night.status != Night.Status.BREAK:
        raise NotNow("The night is not on a break.")
    night.status = Night.Status.PLAYING
    night.save(update_fields=["status"])
    log_event(night.channel, "state", {"round": night.current_round, "what": "resumed"})
    return night


# --- The end of the night -------------------------------------------------------------------------


@transaction.atomic
def end_night(night: Night, *, round_number: int | None = None) -> Night:
    """The host ends the night early (the sitter is waiting): the rounds played so far count.

    Only between rounds: a round under way is finished first, so no table loses its result.
    `round_number` is the seated round the host saw when ending: a second tap finds the night
    over and changes nothing (StepAlreadyEnded); a page from before a round that has been played
    since is refused (NotNow), so the host sees that round's result before ending.
    """
    night = Night.objects.select_for_update().get(pk=night.pk)
    if round_number is not None and night.status == Night.Status.FINISHED:
        raise StepAlreadyEnded("The night is already over.")
    if round_number is not None and round_number != night.current_round:
        raise NotNow(f"Round {night.current_round - 1} has been played since this page was shown: "
                         "look at its results, then end the night.")
    current = night.round_obj()
    refusal = night.end_refusal(current)
    if refusal is not None:
        raise NotNow(refusal)
    current.delete()  # seated, never started: nothing recorded is lost
    night.current_round = current.number - 1
    night.status = Night.Status.FINISHED
    night.finished_at = timezone.now()
    night.save(update_fields=["current_round", "status", "finished_at"])
    log_event(night.channel, "state", {"round": night.current_round, "what": "night_over"})
    return night



@transaction.atomic
def award_prizes(night: Night, rng: random.Random | None = None) -> list[PrizeAward]:
    """Hand out the pot (RULES.md §4.7), once; ties are rolled off and the dice kept to show."""
    night = Night.objects.select_for_update().get(pk=night.pk)
    if night.status != Night.Status.FINISHED:
        raise NotNow("Prizes come at the end of the night.")
    existing = list(night.awards.select_related("player"))
    if existing:
        return existing
    players = {player.name: player for player in night.players.real().with_figures()}
    sheets = [
        prizes.Sheet(name=player.name, wins=player.wins, losses=player.losses, buncos=player.bunco_count)
        for player in players.values()
    ]
    traveler = night.traveler()
    allocation = prizes.allocate_detailed(
        sheets, pot=night.pot_cents(), traveler=traveler.name if traveler else None,
        rng=rng or night.prize_rng(), rules=night.prize_house_rules(),
    )
    awards = PrizeAward.objects.bulk_create(
        [
            PrizeAward(
                night=night,
                prize=award.prize,
                player=players[award.name],
                amount_cents=award.amount,
                roll_off=[list(map(list, throws)) for throws in allocation.roll_offs.get(award.prize, ())],
                order=order,
            )
            for order, award in enumerate(allocation.awards)
        ]
    )
    log_event(night.channel, "state", {"round": night.current_round, "what": "prizes"})
    if night.party is not None:
        _report_to_the_club(night.party, players.values(), awards)
    return awards


def _report_to_the_club(party: Party, players: Iterable[Player], awards: Sequence[PrizeAward]) -> None:
    """A party's night tells its club how everyone did (the club keeps its own records, from which
    its season standings are derived): plain figures, through the club's own action. Worked out
    again (a re-opened round), the club's records for the party are replaced."""
    won: dict[int, list[PrizeAward]] = {}
    for award in awards:
        won.setdefault(award.player_id, []).append(award)
    sheets = [
        club_actions.NightSheet(
            name=player.name, wins=player.wins, losses=player.losses, buncos=player.bunco_count,
            prize_cents=sum(award.amount_cents for award in won.get(player.pk, [])),
            prizes=tuple(prizes.PRIZE_TITLES[award.prize] for award in won.get(player.pk, [])),
            member_id=player.member_id,
        )
        for player in players
    ]
    club_actions.record_night_results(party, sheets)


# --- Housekeeping -------------------------------------------------------------------------------


def purge_abandoned_nights(now: datetime) -> int:
    """Delete the "just play tonight" nights nobody came back to, with every row of theirs; the
    number deleted.

    Abandoned: no club (nor party), no host account, started before the retention period
    (settings.NIGHT_RETENTION_DAYS) and nothing logged on any of its channels since: every change
    to a night logs an event, so the newest event is when it was last touched. Its players, rounds,
    tables, seats, tallies and prizes go with it (cascade) and its events too. A club's night and
    a night with a host account are kept. Idempotent: the in-process clock, Celery beat and
    `manage.py purge_nights` may all run it; each night is deleted in its own transaction, after
    a last look that nothing touched it meanwhile.
    """
    cutoff = now - timedelta(days=settings.NIGHT_RETENTION_DAYS)
    abandoned = Night.objects.filter(
        club__isnull=True, party__isnull=True, host_user__isnull=True, created_at__lt=cutoff
    )
    purged = 0
    for night_id in list(abandoned.values_list("pk", flat=True)):
        with transaction.atomic():
            night = abandoned.select_for_update().filter(pk=night_id).first()
            if night is None:
                continue  # gone already, or claimed by a host since
            events = Event.objects.filter(Q(channel=night.channel) | Q(channel__startswith=f"{night.channel}:"))
            if events.filter(created_at__gte=cutoff).exists():
                continue  # touched within the retention period
            events.delete()
            night.delete()
            purged += 1
    return purged
