"""Workflows of a Fill or Bust tournament (docs/RULES.md §1.7): atomic, logged, published on commit.

A director `create_tournament`s, `register`s players, `check_in`s them and `start_round`s; each
group's phone `record_turn`s (and `undo_last_turn`s); the clock's one idempotent
`close_round_if_due` makes groups final when their time and grace are over and decides the round
(brackets.cut / brackets.double_elimination); players tied at the line play off
(`record_turn` in a play-off group) or the director decides (`decide_tie`); at two players the
face-off; then a champion and everyone's final place.

Every function takes `now` where time matters, so the simulation and the tests run on a clock of
their own. Errors are the refusals every app shares (live.refusals: BadEntry is BadInput, NotYourGroup
NotYours; NotNow, KeyReused), carrying the HTTP status a view answers with; they change nothing. Closing and deciding
rounds, which the clock calls too, is in tournaments.deciding, one floor down (docs/DESIGN.md §2): these
actions import it and the tasks, the tasks only it.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import Any, Protocol

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from bunco_club.models import NightRecord
from games.table import actions as table_actions
from games.table import tasks as table_tasks
from games.table.models import Move
from live.log import log_event
from live.models import Event
from live.refusals import BadInput, KeyReused, NotNow, NotYours, Refusal
from live.text import well_formed_key
from tournaments import brackets, deciding, digital, tasks
from tournaments import check_in as check_in_codes
from tournaments.models import (
    ENTRANT_NAME_MAX,
    NAME_MAX,
    CheckIn,
    Entrant,
    Group,
    GroupSeat,
    ResultEntry,
    Tournament,
    TournamentRound,
    Turn,
    round_length,
)

MAX_POINTS = 1_000_000  # far beyond any Fill or Bust turn: a typo, not a score
POINT_STEP = 50  # every Fill or Bust score is a multiple of 50
MAX_EXTENSION_MINUTES = 30
PRACTICE_MINUTES = range(2, 11)  # a practice round lasts 2-10 minutes


# The tournament's names for the refusals every app gives alike (live.refusals): the same classes.
BadEntry = BadInput  # a turn, a name, a setting the tournament cannot take as sent (400)
NotYourGroup = NotYours  # another group's turn, a phone that plays in no group (403)


class SeatsNobodyHolds(NotNow):
    """The director's "Start the clock" while seats nobody holds (no phone, no bot): `seats` names
    them with their groups, so the dashboard shows the refusal beside those seats and their
    "Hand … to a bot" buttons."""

    def __init__(self, message: str, seats: list[tuple[Group, digital.Seat]]) -> None:
        super().__init__(message)
        self.seats = seats


# --- Setting up -----------------------------------------------------------------------------------


@transaction.atomic
def create_tournament(
    *,
    director: Any,
    name: str,
    format: str = Tournament.Format.SINGLE,
    round_minutes: int = 20,
    per_player_minutes: int | None = None,
    face_off_minutes: int = 15,
    grace_seconds: int = 120,
    ties: str = Tournament.Ties.PLAY_OFF,
    grouping: str = Tournament.Grouping.RANDOM,
    seed: int | None = None,
    point_goal: int = 10000,
    vengeance_penalty: int = brackets.fill_or_bust.VENGEANCE_PENALTY,
    must_bust_penalty: bool = False,
    date: date | None = None,
    club: Any = None,
    simulated: bool = False,
    practice_minutes: int | None = None,
    confirm_results: bool = False,
) -> Tournament:
    name = " ".join(name.split())
    if not name or len(name) > NAME_MAX:
        raise BadEntry(_("Give the tournament a name (%(most)s letters at most).") % {"most": NAME_MAX})
    _check_choices(format=format, ties=ties, grouping=grouping)
    _check_clock(round_minutes=round_minutes, per_player_minutes=per_player_minutes,
                 practice_minutes=practice_minutes, face_off_minutes=face_off_minutes, grace_seconds=grace_seconds)
    _check_sheets(point_goal=point_goal, vengeance_penalty=vengeance_penalty)
    _check_open_tournaments(director)
    tournament = Tournament.objects.create(
        director=director, name=name, format=format, round_minutes=round_minutes,
        per_player_minutes=per_player_minutes, face_off_minutes=face_off_minutes, grace_seconds=grace_seconds,
        ties=ties, grouping=grouping, seed=random.SystemRandom().randrange(2**31) if seed is None else seed,
        point_goal=point_goal, vengeance_penalty=vengeance_penalty, must_bust_penalty=must_bust_penalty,
        date=date, club=club, simulated=simulated,
        practice_minutes=practice_minutes, confirm_results=confirm_results,
    )
    log_event(tournament.channel, "tournament_state", {"what": "created"})
    return tournament


def _check_choices(*, format: str, ties: str, grouping: str) -> None:
    """Refuse a format, a way of settling ties or a draw that is not one of the tournament's choices."""
    if format not in Tournament.Format.values:
        raise BadEntry(_("Choose single or double elimination."))
    if ties not in Tournament.Ties.values:
        raise BadEntry(_("Choose play-offs or the director's decision for ties."))
    if grouping not in Tournament.Grouping.values:
        raise BadEntry(_("Choose a random or a seeded draw."))


def _check_clock(*, round_minutes: int, per_player_minutes: int | None, practice_minutes: int | None,
                 face_off_minutes: int, grace_seconds: int) -> None:
    """Refuse a round's, a practice round's or the face-off's length, or a grace period, out of bounds."""
    if round_minutes not in brackets.ROUND_MINUTES:
        raise BadEntry(_("A round lasts %(low)s to %(high)s minutes.")
                       % {"low": brackets.ROUND_MINUTES.start, "high": brackets.ROUND_MINUTES.stop - 1})
    if per_player_minutes is not None and per_player_minutes not in brackets.PER_PLAYER_MINUTES:
        raise BadEntry(_("Minutes per player are %(low)s to %(high)s.")
                       % {"low": brackets.PER_PLAYER_MINUTES.start, "high": brackets.PER_PLAYER_MINUTES.stop - 1})
    if practice_minutes is not None and practice_minutes not in PRACTICE_MINUTES:
        raise BadEntry(_("A practice round lasts %(low)s to %(high)s minutes (leave it empty for none).")
                       % {"low": PRACTICE_MINUTES.start, "high": PRACTICE_MINUTES.stop - 1})
    if not 1 <= face_off_minutes <= 60:
        raise BadEntry(_("The face-off lasts 1 to 60 minutes (officially 15)."))
    if not 0 <= grace_seconds <= 15 * 60:
        raise BadEntry(_("The grace period for the turn under way is 0 to 15 minutes."))


def _check_sheets(*, point_goal: int, vengeance_penalty: int) -> None:
    """Refuse a point goal or a Vengeance penalty the sheets can't take."""
    if not 1000 <= point_goal <= 100000:
        raise BadEntry(_("The point goal on the sheets is 1,000 to 100,000 (usually 5,000 or 10,000)."))
    if not 0 <= vengeance_penalty <= 10000 or vengeance_penalty % POINT_STEP:
        raise BadEntry(_("The Vengeance penalty is a multiple of 50 up to 10,000 (officially 2,500)."))


def _check_open_tournaments(director: Any) -> None:
    """Refuse a new tournament to a director who has settings.TOURNAMENT_MAX_OPEN not finished."""
    get_user_model().objects.select_for_update().filter(pk=director.pk).first()  # one new tournament at a time
    most = settings.TOURNAMENT_MAX_OPEN
    if Tournament.objects.filter(director=director).exclude(status=Tournament.Status.FINISHED).count() >= most:
        raise NotNow(_("You have %(most)s tournaments open (not finished), the most one director may: play one "
                       "to the end, or delete one that has not begun, before you start another.") % {"most": most})


def clean_name(raw: str) -> str:
    name = " ".join(str(raw).split())
    if not name:
        raise BadEntry(_("Type the player's name."))
    if len(name) > ENTRANT_NAME_MAX:
        raise BadEntry(_("“%(name)s…” is too long for a name (%(most)s letters at most).")
                       % {"name": name[:ENTRANT_NAME_MAX], "most": ENTRANT_NAME_MAX})
    return name


@transaction.atomic
def register(
    tournament: Tournament, name: str, *, member: Any = None, seed_rank: int | None = None, checked_in: bool = False
) -> Entrant:
    """A player from the club roster or a walk-in; late arrivals are welcome until round 1 starts."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    refusal = tournament.registration_refusal()
    if refusal is not None:
        raise NotNow(refusal)
    name = clean_name(name)
    most = settings.TOURNAMENT_MAX_ENTRANTS
    if tournament.entrants.count() >= most:
        raise NotNow(_("%(most)s players are registered, the most a tournament takes: start a second "
                       "tournament for the others.") % {"most": number_format(most, force_grouping=True)})
    if tournament.entrants.filter(name__iexact=name).exists():
        raise BadEntry(_("“%(name)s” is already registered: give one of them a surname or initial.") % {"name": name})
    entrant = Entrant.objects.create(tournament=tournament, name=name, member=member, seed_rank=seed_rank,
                                     checked_in=checked_in)
    log_event(tournament.channel, "tournament_state", {"what": "registered"})
    return entrant


@transaction.atomic
def register_member(tournament: Tournament, member: Any) -> Entrant:
    """A player from the tournament's club roster (by the member's name)."""
    if tournament.club_id is None or member.club_id != tournament.club_id:
        raise BadEntry(_("That member isn't on this tournament's club roster."))
    return register(tournament, member.name[:ENTRANT_NAME_MAX], member=member)


@transaction.atomic
def seed_by_club_standings(tournament: Tournament) -> list[Entrant]:
    """Seeds for a seeded draw from the tournament's club's standings: its latest season that has
    results (else every counting night of the club), the club's own derived table. Players with a
    place there come first, in its order; everyone else after them, by name. Before round 1 only."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if tournament.club is None:
        raise BadEntry(_("This tournament has no club: enter each player's seed by hand."))
    refusal = tournament.registration_refusal()
    if refusal is not None:
        raise NotNow(refusal)
    records = NightRecord.objects.filter(party__club=tournament.club).counting()
    season = tournament.club.seasons.filter(parties__records__isnull=False).first()
    if season is not None:
        records = records.filter(party__season=season)
    places = {row.name: place for place, row in enumerate(records.standings(), start=1)}
    unplaced = len(places) + 1
    entrants = sorted(
        tournament.entrants.select_related("member"),
        key=lambda entrant: (places.get(entrant.member.name if entrant.member else entrant.name, unplaced),
                             entrant.name),
    )
    for rank, entrant in enumerate(entrants, start=1):
        entrant.seed_rank = rank
    Entrant.objects.bulk_update(entrants, ["seed_rank"])
    log_event(tournament.channel, "tournament_state", {"what": "seeded"})
    return entrants


@transaction.atomic
def check_in(tournament: Tournament, entrant: Entrant, *, present: bool = True) -> Entrant:
    """The player is here on the day (or, with present=False, not after all)."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    _check_entrant(tournament, entrant)
    refusal = tournament.registration_refusal()
    if refusal is not None:
        raise NotNow(refusal)
    Entrant.objects.filter(pk=entrant.pk).update(checked_in=present)
    entrant.checked_in = present
    if present:
        # One the director dropped as a no-show who turns up after all is back in play.
        Entrant.objects.filter(pk=entrant.pk, status=Entrant.Status.NO_SHOW).update(status=Entrant.Status.REGISTERED)
        CheckIn.objects.create(tournament=tournament, entrant=entrant, how=CheckIn.How.DIRECTOR,
                               created_at=timezone.now())
    log_event(tournament.channel, "tournament_state", {"what": "checked_in"})
    return entrant


@transaction.atomic
def delete_tournament(tournament: Tournament) -> None:
    """A tournament that has not begun is deleted with its players and its events: the director's
    way back under settings.TOURNAMENT_MAX_OPEN for one that will not be played."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    refusal = tournament.deletion_refusal()
    if refusal is not None:
        raise NotNow(refusal)
    Event.objects.filter(channel=tournament.channel).delete()
    tournament.delete()


@transaction.atomic
def drop_entrant(tournament: Tournament, entrant: Entrant) -> Entrant:
    """A player leaves: before round 1, or between rounds (never during one: their group plays on).
    A dropped player is never counted as eliminated by score and gets no place."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    _check_entrant(tournament, entrant)
    entrant = Entrant.objects.get(pk=entrant.pk)
    if tournament.status == Tournament.Status.FINISHED:
        raise NotNow(_("The tournament is over."))
    if not entrant.is_in_play:  # what the dashboard's Drop button asks too
        raise NotNow(_("%(name)s is already out of the tournament.") % {"name": entrant.name})
    if not tournament.takes_drops():
        raise NotNow(_("%(round)s is under way: %(name)s can drop once it is decided.")
                     % {"round": tournament.round_under_way(), "name": entrant.name})
    current = tournament.current_round()
    entrant.status = Entrant.Status.DROPPED
    entrant.out_in_round = current.number if current and not current.is_practice else None
    entrant.save(update_fields=["status", "out_in_round"])
    log_event(tournament.channel, "tournament_state", {"what": "dropped"})
    left = list(tournament.players_in()) if tournament.status == Tournament.Status.PLAYING else []
    if len(left) == 1:  # everyone else has gone: the last player standing wins
        deciding.finish(tournament, left[0], None, timezone.now())
    return entrant


def _check_entrant(tournament: Tournament, entrant: Entrant) -> None:
    if entrant.tournament_id != tournament.pk:
        raise BadEntry(_("That player isn't in this tournament."))


# --- A round --------------------------------------------------------------------------------------


@transaction.atomic
def start_round(
    tournament: Tournament, *, now: datetime | None = None, length: timedelta | None = None,
    on_phones: bool = False, bot_level: str = "", seating: bool = False, bots_take_unheld: bool = False,
) -> TournamentRound:
    """Draw the next round's groups (brackets.group_sizes; random or seeded snake order) and start
    its clock: each group's `ends_at`, then the grace period for the turn under way.

    Before round 1, checked-in players are in and the others are no-shows. With two players
    left the round is the face-off. `length` overrides the tournament's round length (a
    shortened clock for a demonstration or a test). `on_phones`: every group plays at a game table
    (tournaments.digital), every seat a bot at `bot_level` if one is given (a simulation).
    `seating` (the director's Start): on phones, the clock waits while the phones take their seats,
    until the director starts it (`start_clock`), bots taking the seats nobody holds then if
    `bots_take_unheld`.
    """
    now = now or timezone.now()
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    refusal = tournament.start_refusal()  # the rule the dashboard's Start button follows too
    if refusal is not None:
        raise NotNow(refusal)
    current = tournament.current_round()
    if tournament.status == Tournament.Status.REGISTRATION:
        tournament.entrants.filter(status=Entrant.Status.REGISTERED, checked_in=True).update(status=Entrant.Status.IN)
        tournament.entrants.filter(status=Entrant.Status.REGISTERED).update(status=Entrant.Status.NO_SHOW)
        tournament.status = Tournament.Status.PLAYING
        tournament.save(update_fields=["status"])
    players = list(tournament.players_in().order_by("seed_rank", "name"))
    number = current.number + 1 if current else 1
    by_name = {entrant.name: entrant for entrant in players}
    names = list(by_name)
    face_off = len(players) == 2
    if face_off:
        groups = [names]
        lengths = [length or timedelta(minutes=tournament.face_off_minutes)]
    else:
        if tournament.grouping == Tournament.Grouping.SEEDED:
            groups = brackets.seeded_groups(names)
        else:
            groups = brackets.random_groups(names, random.Random(f"{tournament.seed}:{number}"))
        sizes = [len(group) for group in groups]
        lengths = [length] * len(groups) if length else round_length(tournament, sizes)
    kind = TournamentRound.Kind.FACE_OFF if face_off else TournamentRound.Kind.ROUND
    return _open_round(tournament, number, kind, groups, lengths, by_name, now, on_phones=on_phones,
                       bot_level=bot_level, seating=seating, bots_take_unheld=bots_take_unheld)


def _open_round(tournament: Tournament, number: int, kind: str, groups: list[list[str]], lengths: list[timedelta],
                by_name: dict[str, Entrant], now: datetime, *, on_phones: bool = False,
                bot_level: str = "", seating: bool = False, bots_take_unheld: bool = False) -> TournamentRound:
    """The round's groups, seats and clock: each group's `ends_at`, then the grace period; on
    phones, each group's game table."""
    grace = timedelta(seconds=tournament.grace_seconds)
    if bot_level and not on_phones:
        raise BadEntry(_("Bots play only at the game tables of a round played on phones."))
    # Phones take their seats before the clock runs (a table of bots needs no seating).
    seating = seating and on_phones and not bot_level
    round_ = TournamentRound.objects.create(
        tournament=tournament, number=number, kind=kind, started_at=now, ends_at=now + max(lengths),
        on_phones=on_phones, seating=seating, bots_take_unheld=seating and bots_take_unheld,
        paused_at=now if seating else None,
    )
    created = Group.objects.bulk_create([
        Group(round=round_, number=index + 1, ends_at=now + span, final_at=now + span + grace)
        for index, span in enumerate(lengths)
    ])
    GroupSeat.objects.bulk_create([
        GroupSeat(group=group, entrant=by_name[name], position=position)
        for group, group_names in zip(created, groups, strict=True)
        for position, name in enumerate(group_names)
    ])
    if on_phones:
        for group, group_names in zip(created, groups, strict=True):
            group.round = round_
            try:
                digital.open_group_table(group, [by_name[name] for name in group_names], bot_level=bot_level)
            except Refusal as error:  # a table the game can't seat (a bad bot level): nothing was made
                raise BadEntry(error.message) from error
    log_event(tournament.channel, "tournament_state", {"what": "round_started", "round": number})
    _schedule_close(round_)
    return round_


@transaction.atomic
def start_practice_round(
    tournament: Tournament, *, now: datetime | None = None, length: timedelta | None = None, on_phones: bool = False,
    seating: bool = False, bots_take_unheld: bool = False,
) -> TournamentRound:
    """The practice round (round 0), before round 1, for the checked-in players to learn the
    group phones: drawn and timed like a round (the tournament's practice length), but it counts
    for nothing: no cut, no strikes, its scores are not carried, and registration stays open."""
    now = now or timezone.now()
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    refusal = tournament.practice_refusal()
    if refusal is not None:
        raise NotNow(refusal)
    assert tournament.practice_minutes is not None
    players = list(tournament.entrants.filter(checked_in=True).order_by("seed_rank", "name"))
    by_name = {entrant.name: entrant for entrant in players}
    groups = brackets.random_groups(list(by_name), random.Random(f"{tournament.seed}:practice"))
    span = length or timedelta(minutes=tournament.practice_minutes)
    return _open_round(tournament, 0, TournamentRound.Kind.PRACTICE, groups, [span] * len(groups), by_name, now,
                       on_phones=on_phones, seating=seating, bots_take_unheld=bots_take_unheld)


def _round_for_clock(tournament: Tournament, number: int) -> TournamentRound:
    """The round a clock button was pressed for, locked, after its groups (in id order, as
    `record_turn` locks a group before its round): the round under way, else a refusal."""
    current = tournament.current_round()
    if current is None or current.number != number:
        if current is None:
            raise NotNow(_("That button was for the practice round. Look at the dashboard again.") if number == 0
                         else _("That button was for round %(number)s. Look at the dashboard again.") % {"number": number})
        raise NotNow(_("That button was for the practice round: %(current)s is the current round. Look at the "
                       "dashboard again.") % {"current": current} if number == 0
                     else _("That button was for round %(number)s: %(current)s is the current round. Look at the "
                            "dashboard again.") % {"number": number, "current": current})
    list(Group.objects.select_for_update().filter(round_id=current.pk).order_by("pk").values_list("pk", flat=True))
    return TournamentRound.objects.select_for_update().select_related("tournament").get(pk=current.pk)


@transaction.atomic
def pause_round(tournament: Tournament, *, number: int, now: datetime | None = None) -> TournamentRound:
    """The director stops the round's clock (a dispute, an announcement): no turn is entered and
    no table is made final until `resume_round`. Pausing a paused round changes nothing (the same
    button pressed twice, a retried request)."""
    now = now or timezone.now()
    round_ = _round_for_clock(tournament, number)
    refusal = round_.clock_refusal()
    if refusal is not None:
        raise NotNow(refusal)
    if round_.is_paused:
        return round_
    round_.paused_at = now
    round_.save(update_fields=["paused_at"])
    log_event(round_.tournament.channel, "tournament_state", {"what": "paused", "round": round_.number})
    digital.keep_table_clocks(round_.groups.filter(status=Group.Status.PLAYING, table__isnull=False))
    return round_


@transaction.atomic
def resume_round(tournament: Tournament, *, number: int, now: datetime | None = None) -> TournamentRound:
    """The clock runs again: every table still playing gets its end (and grace) moved by the
    pause's length, so paused time does not count. Resuming a running round changes nothing."""
    now = now or timezone.now()
    round_ = _round_for_clock(tournament, number)
    refusal = round_.clock_refusal()
    if refusal is not None:
        raise NotNow(refusal)
    if round_.seating:
        raise NotNow(_("%(round)s's clock has not started yet: start it once every seat is held.") % {"round": round_})
    return _resume(round_, now, "resumed")


def _resume(round_: TournamentRound, now: datetime, what: str) -> TournamentRound:
    if round_.paused_at is None:
        return round_
    pause = max(now - round_.paused_at, timedelta(0))
    open_groups = list(round_.groups.filter(status=Group.Status.PLAYING, ends_at__isnull=False))
    for group in open_groups:
        assert group.ends_at is not None and group.final_at is not None
        group.ends_at += pause
        group.final_at += pause
    Group.objects.bulk_update(open_groups, ["ends_at", "final_at"])
    round_.ends_at += pause
    round_.paused_at = None
    round_.seating = False
    round_.save(update_fields=["ends_at", "paused_at", "seating"])
    log_event(round_.tournament.channel, "tournament_state", {"what": what, "round": round_.number})
    digital.keep_table_clocks(round_.groups.filter(status=Group.Status.PLAYING, table__isnull=False))
    _schedule_close(round_)
    return round_


@transaction.atomic
def start_clock(tournament: Tournament, *, number: int, now: datetime | None = None) -> TournamentRound:
    """The director starts the clock of a round on phones whose phones have taken their seats: a
    seat nobody holds (no phone, no bot) stops it, with the seats named, unless the director chose
    that bots take them (then they do, now). Its groups' time counts from now. Pressed twice, or
    retried, nothing more."""
    now = now or timezone.now()
    round_ = _round_for_clock(tournament, number)
    refusal = round_.clock_refusal()
    if refusal is not None:
        raise NotNow(refusal)
    if not round_.seating:
        return round_
    open_groups = list(round_.groups.filter(status=Group.Status.PLAYING).select_related("round__tournament"))
    unheld = digital.unheld_seats(open_groups)
    if unheld and not round_.bots_take_unheld:
        seats = ", ".join(_("%(name)s's seat at %(group)s") % {"name": seat.name, "group": group}
                          for group, seat in unheld)
        raise SeatsNobodyHolds(
            _("Nobody holds %(seats)s yet: wait for their phones, or hand each seat to a bot; then start the clock.")
            % {"seats": seats}, unheld)
    for group, seat in unheld:
        digital.hand_seat_to_bot(group, seat.number)
    return _resume(round_, now, "clock_started")


@transaction.atomic
def hand_group_seat_to_bot(*, group: Group, number: int) -> Group:
    """The director hands a seat of a group's game table to a bot (a seat nobody holds, or a phone
    gone quiet): the table's own action (games.table.actions.hand_seat_to_bot); the dashboards are
    told. A seat a bot plays already changes nothing."""
    group = _locked_group(group)
    if not group.on_phones:
        raise NotNow(_("This table types its turns on its phone: it has no game table."))
    if group.status == Group.Status.FINAL:
        raise NotNow(_("%(group)s's scores are final.") % {"group": group})
    assert group.table is not None
    if not any(seat.number == number and seat.holder != "bot" for seat in digital.seats_of(group.table)):
        return group
    try:
        digital.hand_seat_to_bot(group, number)
    except Refusal as error:
        raise NotNow(error.message) from error
    log_event(group.round.tournament.channel, "tournament_state",
              {"what": "seat_to_bot", "round": group.round.number, "group": group.number})
    return group


@transaction.atomic
def end_round_now(tournament: Tournament, *, number: int, now: datetime | None = None) -> TournamentRound:
    """The director's "End round now": the round closes as if its time and grace were over, by the
    clock's own path (`close_round_if_due`): its tables' scores are final and the round is
    decided (or its play-off opens). Ending a round that has ended changes nothing."""
    now = now or timezone.now()
    round_ = _round_for_clock(tournament, number)
    if round_.status != TournamentRound.Status.PLAYING:
        return round_  # already closed: the button pressed twice, or the clock got there first
    round_.groups.filter(status=Group.Status.PLAYING, play_off=0, final_at__gt=now).update(ends_at=now, final_at=now)
    round_.paused_at = None
    round_.seating = False
    round_.ended_now = True
    round_.save(update_fields=["paused_at", "seating", "ended_now"])
    log_event(round_.tournament.channel, "tournament_state", {"what": "ended_now", "round": round_.number})
    digital.keep_table_clocks(round_.groups.filter(status=Group.Status.PLAYING, table__isnull=False))
    deciding.close_round_if_due(now)
    round_.refresh_from_db()
    return round_


def _schedule_close(round_: TournamentRound) -> None:
    """Scaled layout: a Celery task at the round's end plus grace, enqueued after commit (beat's
    sweep covers a lost task). The embedded default's in-process clock needs nothing queued."""
    if not settings.REDIS_URL or round_.tournament.simulated:  # a simulation closes its own rounds
        return
    eta = round_.ends_at + timedelta(seconds=round_.tournament.grace_seconds)
    transaction.on_commit(lambda: tasks.close_round_at.apply_async(eta=eta))


def _locked_group(group: Group) -> Group:
    return Group.objects.select_for_update().select_related("round__tournament").get(pk=group.pk)


def _check_key(key: str | None) -> None:
    if key is not None and not well_formed_key(key):
        raise BadEntry(_("The entry's key is malformed."))


KEY_REUSED = gettext_noop("That entry's key was already used for another entry, so nothing was changed: "
                          "check the scoresheet and enter it again if it is missing.")


def _turn_with_key(tournament: Tournament, key: str | None, group: Group, **content: object) -> Turn | None:
    """The entry a key already stands for: the same request retried (same group, same content) is
    answered with it; a key reused with anything else is refused (KeyReused), never taken for a
    retry. `content` is what the request asks for: kind, entrant_id, points, vengeance."""
    if not key:
        return None
    turn = Turn.objects.filter(tournament=tournament, key=key).first()
    if turn is None:
        return None
    if turn.group_id != group.pk:
        raise NotYourGroup(_("That entry's key was already used by another group: enter the turn again."))
    if any(getattr(turn, field) != value for field, value in content.items()):
        raise KeyReused(_(KEY_REUSED))
    return turn


@transaction.atomic
def record_turn(
    *,
    group: Group,
    entrant: Entrant,
    points: int,
    vengeance: bool = False,
    now: datetime | None = None,
    key: str | None = None,
    phone: str = "",
) -> Turn:
    """A turn entered on the group's phone (`phone`, its games.phones token: that phone reported
    the group's result, so it does not confirm it): points banked (0 for a bust; negative only for a Must
    Bust penalty, where the tournament plays it), and whether a Vengeance was played (the
    tournament's penalty off the leaders as they stood, brackets.apply_turn).

    At `ends_at` no new turn may start: the turn under way may still be entered until the grace
    period ends, and entering it makes the group's scores final. A key already recorded for the
    same turn returns it (a retried request); for any other entry it is refused (KeyReused, 409).
    """
    now = now or timezone.now()
    _check_key(key)
    if type(points) is not int or abs(points) > MAX_POINTS or points % POINT_STEP:
        raise BadEntry(_("Points are a whole multiple of 50 (0 for a bust)."))
    group = _locked_group(group)
    tournament = group.round.tournament
    existing = _turn_with_key(tournament, key, group, kind=Turn.Kind.TURN, entrant_id=entrant.pk, points=points,
                              vengeance=vengeance)
    if existing is not None:
        return existing
    refusal = group.turn_refusal(now)
    if refusal is not None:
        raise NotNow(_("%(refusal)s That turn was not added.") % {"refusal": refusal})
    players = group.players()
    if entrant.pk not in {player.pk for player in players}:
        raise BadEntry(_("%(name)s doesn't play at %(group)s.") % {"name": entrant.name, "group": group})
    if points < 0 and not tournament.must_bust_penalty:
        raise BadEntry(_("Points can't be negative: this tournament plays no Must Bust penalty."))
    if points < 0 and vengeance:
        raise BadEntry(_("A turn that played a Vengeance banked points: they can't be negative."))
    scores = group.scores(players)
    if group.play_off and vengeance:
        raise BadEntry(_("A play-off turn is scored alone: no Vengeance."))
    try:
        after = brackets.apply_turn(scores, entrant.name, points, vengeance=vengeance,
                                    penalty=tournament.vengeance_penalty)
    except ValueError as error:
        raise BadEntry(error.args[0]) from error
    if group.play_off and group.live_turns().filter(entrant=entrant).exists():
        raise BadEntry(_("%(name)s has played their play-off turn.") % {"name": entrant.name})
    turn = Turn.objects.create(tournament=tournament, group=group, entrant=entrant, points=points,
                               vengeance=vengeance, key=key or None, phone=phone, created_at=now)
    _log_totals(group, players, after)
    overtime = group.ends_at is not None and now >= group.ends_at
    if overtime or (group.play_off and group.turn_refusal(now) is not None):
        try:
            deciding.make_final(group, now)
        except ValueError as error:  # a play-off's scores brackets cannot settle
            raise BadEntry(error.args[0]) from error
    return turn


ON_PHONES = Group.ON_PHONES


def _sound_buzzer_if_time_is_up(group: Group, now: datetime) -> None:
    """Once a group's time is up, the buzzer sounds at its table before any move (no new turn
    starts at `ends_at`; the turn under way plays out), in a transaction of its own: a move refused
    after it (the game ended between turns) leaves the buzzer sounded, as the clock would."""
    if group.ends_at is None or now < group.ends_at:
        return
    with transaction.atomic():
        group = _locked_group(group)
        if group.on_phones and group.status == Group.Status.PLAYING and not group.round.is_paused:
            digital.sound_buzzer(group)
            _after_move(group, now)


def _group_for_move(group: Group, now: datetime) -> Group:
    """The group on phones, locked, if a move may be made at its table now."""
    group = _locked_group(group)
    if not group.on_phones:
        raise NotNow(_("This table types its turns on its phone: it has no game table."))
    if group.status == Group.Status.FINAL:
        raise NotNow(_("Time is up: %(group)s's scores are final.") % {"group": group})
    if group.round.is_paused:
        raise NotNow(_("The director has paused the clock: play on once it resumes."))
    return group


def _after_move(group: Group, now: datetime) -> None:
    digital.record_table_turns(group, now)
    deciding.close_group_if_over(group, now)


def play_group_move(*, group: Group, seat: int, move: dict[str, Any], key: str | None = None,
                    now: datetime | None = None) -> Move:
    """A move at the game table of a group on phones (games.table.actions.make_move), and the turn
    it finished recorded as the group's Turn; the group is final once its game is over. The
    table's refusals (out of turn, an illegal keep, a move after the game) change nothing."""
    now = now or timezone.now()
    _sound_buzzer_if_time_is_up(group, now)
    with transaction.atomic():
        group = _group_for_move(group, now)
        assert group.table is not None
        made = table_actions.make_move(table=group.table, seat=seat, move=move, key=key)
        _after_move(group, now)
    return made


def play_group_bot_move(*, group: Group, now: datetime | None = None) -> Move | None:
    """The move of the bot whose turn it is at the group's table, made at once (a simulation's
    clock, which waits for no pause); None if no bot is to move. Recorded as `play_group_move`."""
    now = now or timezone.now()
    _sound_buzzer_if_time_is_up(group, now)
    with transaction.atomic():
        group = _group_for_move(group, now)
        assert group.table is not None
        made = table_tasks.play_bot_move(group.table, waiting=False)
        _after_move(group, now)
    return made


@transaction.atomic
def put_group_on_phones(*, group: Group, now: datetime | None = None) -> Group:
    """The director sets one group of the round under way to play on phones: it gets its game
    table now (before any turn is entered), its clock unchanged. Pressed twice, nothing more."""
    now = now or timezone.now()
    group = _locked_group(group)
    if group.on_phones:
        return group
    refusal = group.phones_refusal(now)
    if refusal is not None:
        raise NotNow(refusal)
    digital.open_group_table(group, group.players())
    log_event(group.round.tournament.channel, "tournament_state",
              {"what": "on_phones", "round": group.round.number, "group": group.number})
    return group


@transaction.atomic
def undo_last_turn(*, group: Group, now: datetime | None = None, key: str | None = None) -> Turn:
    """The group's phone takes back its last entry with a new row; the same key undoes once."""
    now = now or timezone.now()
    _check_key(key)
    group = _locked_group(group)
    tournament = group.round.tournament
    existing = _turn_with_key(tournament, key, group, kind=Turn.Kind.UNDO)
    if existing is not None:
        return existing
    if group.on_phones:
        raise NotNow(_(ON_PHONES))
    if group.status == Group.Status.FINAL or (group.final_at is not None and now >= group.final_at):
        raise NotNow(_("%(group)s's scores are final: ask the director to correct them.") % {"group": group})
    last = group.live_turns().order_by("-id").first()
    if last is None:
        raise BadEntry(_("There is nothing to undo."))
    return _undo(group, last, now, key=key)


def _undo(group: Group, original: Turn, now: datetime, *, key: str | None = None, by_director: bool = False) -> Turn:
    undo = Turn.objects.create(tournament_id=group.round.tournament_id, group=group, entrant_id=original.entrant_id,
                               kind=Turn.Kind.UNDO, points=-original.points, undoes=original, key=key or None,
                               by_director=by_director, created_at=now)
    _log_totals(group, group.players())
    return undo


@transaction.atomic
def correct_turn(*, turn: Turn, now: datetime | None = None, key: str | None = None) -> Turn:
    """The director strikes out any entry of a group whose round is not decided yet (its scores
    are replayed without it, Vengeances re-scored from the leaders as they then stood). The same
    key strikes once; a key already used for another entry is refused (KeyReused)."""
    now = now or timezone.now()
    _check_key(key)
    group = _locked_group(turn.group)
    existing = _turn_with_key(group.round.tournament, key, group, kind=Turn.Kind.UNDO, undoes_id=turn.pk)
    if existing is not None:
        return existing
    round_ = TournamentRound.objects.select_for_update().get(pk=group.round_id)
    _check_correctable(group, round_)
    turn = Turn.objects.get(pk=turn.pk)
    if turn.kind == Turn.Kind.UNDO or Turn.objects.filter(undoes=turn).exists():
        raise BadEntry(_("That entry was already undone."))
    undo = _undo(group, turn, now, key=key, by_director=True)
    log_event(group.round.tournament.channel, "tournament_state", {"what": "corrected", "round": round_.number})
    return undo


def _check_correctable(group: Group, round_: TournamentRound) -> None:
    """The predicate the group's page shows its Strike and Correct buttons by, on the locked round."""
    refusal = group.correction_refusal(round_)
    if refusal is not None:
        raise NotNow(refusal)


@transaction.atomic
def add_correction(
    *, group: Group, entrant: Entrant, points: int, now: datetime | None = None, key: str | None = None,
) -> Turn:
    """The director adds or takes off points for a player (a mistaken entry), before the round
    is decided. The same key adds it once; a key already used for another entry is refused."""
    now = now or timezone.now()
    _check_key(key)
    if type(points) is not int or points == 0 or abs(points) > MAX_POINTS or points % POINT_STEP:
        raise BadEntry(_("A correction is a multiple of 50, not 0."))
    group = _locked_group(group)
    existing = _turn_with_key(group.round.tournament, key, group, kind=Turn.Kind.CORRECTION,
                              entrant_id=entrant.pk, points=points)
    if existing is not None:
        return existing
    _check_correctable(group, group.round)
    players = group.players()
    if entrant.pk not in {player.pk for player in players}:
        raise BadEntry(_("%(name)s doesn't play at %(group)s.") % {"name": entrant.name, "group": group})
    turn = Turn.objects.create(tournament=group.round.tournament, group=group, entrant=entrant,
                               kind=Turn.Kind.CORRECTION, points=points, by_director=True, key=key or None,
                               created_at=now)
    _log_totals(group, players)
    return turn


@transaction.atomic
def extend_group(*, group: Group, minutes: int, now: datetime | None = None) -> Group:
    """The director gives a group more time (a dispute, a spilled drink)."""
    now = now or timezone.now()
    if type(minutes) is not int or not 1 <= minutes <= MAX_EXTENSION_MINUTES:
        raise BadEntry(_("Extend by 1 to %(most)s minutes.") % {"most": MAX_EXTENSION_MINUTES})
    group = _locked_group(group)
    refusal = group.extend_refusal(now)  # what the dashboard's "+2 min" button asks too
    if refusal is not None:
        raise NotNow(refusal)
    assert group.ends_at is not None and group.final_at is not None
    extra = timedelta(minutes=minutes)
    group.ends_at = max(group.ends_at, now) + extra
    group.final_at = group.ends_at + timedelta(seconds=group.round.tournament.grace_seconds)
    group.save(update_fields=["ends_at", "final_at"])
    TournamentRound.objects.filter(pk=group.round_id, ends_at__lt=group.ends_at).update(ends_at=group.ends_at)
    log_event(group.round.tournament.channel, "tournament_state",
              {"what": "extended", "round": group.round.number, "group": group.number})
    digital.keep_table_clocks([group])
    return group


_log_totals = digital.log_totals


@transaction.atomic
def decide_tie(*, round_: TournamentRound, order: Sequence[Entrant], now: datetime | None = None) -> TournamentRound:
    """The director decides the players tied at the line: `order` lists exactly them, best first."""
    now = now or timezone.now()
    list(Group.objects.select_for_update().filter(round_id=round_.pk, play_off__gt=0, status=Group.Status.PLAYING)
         .order_by("pk").values_list("pk", flat=True))
    round_ = TournamentRound.objects.select_for_update().select_related("tournament").get(pk=round_.pk)
    if round_.status != TournamentRound.Status.PLAY_OFF:
        raise NotNow(_("Nobody is tied at the line in this round."))
    names = [entrant.name for entrant in order]
    if sorted(names) != sorted(round_.tied()) or len(set(names)) != len(names):
        raise BadEntry(_("Put every tied player in order, each once: %(names)s.") % {"names": ", ".join(round_.tied())})
    # Close any play-off group still open: the director's decision replaces it. (Its rows were
    # locked before the round's, as record_turn locks them.)
    # A play-off result still waiting for its confirmation is replaced by the decision too.
    round_.groups.filter(play_off__gt=0).exclude(result=Group.Result.CONFIRMED).update(
        status=Group.Status.FINAL, result=Group.Result.CONFIRMED)
    try:
        deciding.resolve(round_, {name: len(names) - index for index, name in enumerate(names)}, now)
    except ValueError as error:
        raise BadEntry(error.args[0]) from error
    return round_


# --- A group's result: confirmed by a second phone, disputed, settled (issue 46) -------------------


class ResultAnswer(Protocol):
    """A player's answer to a reported result (`confirm_result`, `dispute_result`)."""

    def __call__(self, *, group: Group, entrant: Entrant, phone: str, key: str | None = None,
                 now: datetime | None = None) -> ResultEntry: ...


def _entry_with_key(tournament: Tournament, key: str | None, group: Group, **content: object) -> ResultEntry | None:
    """The log entry a key already stands for: the same request retried (same group, same content)
    is answered with it; a key reused with anything else is refused (KeyReused)."""
    if not key:
        return None
    entry = ResultEntry.objects.filter(tournament=tournament, key=key).first()
    if entry is None:
        return None
    if entry.group_id != group.pk or any(getattr(entry, field) != value for field, value in content.items()):
        raise KeyReused(_("That key was already used for another answer, so nothing was changed: "
                          "look at the result again and answer once more."))
    return entry


def _player_answer(group: Group, entrant: Entrant, phone: str, kind: str, key: str | None) -> ResultEntry | None:
    """What a player's phone may answer about its group's result: the entry a retried key stands
    for, else None once every rule is met (the result is reported, not locked by a dispute; the
    player plays in the group; the phone did not enter the group's turns; the player answers for
    themself on their own phone). Refuses otherwise, changing nothing."""
    _check_key(key)
    tournament = group.round.tournament
    existing = _entry_with_key(tournament, key, group, kind=kind, entrant_id=entrant.pk)
    if existing is not None:
        return existing
    refusal = group.confirm_refusal()
    if refusal is not None:
        raise NotNow(refusal)
    if not group.seats.filter(entrant_id=entrant.pk).exists():
        raise NotYourGroup(_("%(name)s doesn't play at %(group)s: only its players confirm its result.")
                           % {"name": entrant.name, "group": group})
    if not phone:
        raise NotYourGroup(_("Open your table's QR code on your own phone to answer for its result."))
    if phone in group.reporting_phones():
        raise NotYourGroup(_("This phone entered %(group)s's turns: another player of the table confirms the "
                             "result on their own phone (or the director does).") % {"group": group})
    holder = Entrant.objects.select_for_update().get(pk=entrant.pk)
    if holder.phone and holder.phone != phone:
        raise NotYourGroup(_("%(name)s answers from their own phone: choose your own name.") % {"name": holder.name})
    other = tournament.entrants.filter(phone=phone).exclude(pk=entrant.pk).first()
    if other is not None:
        raise NotYourGroup(_("This phone is %(name)s's: answer as %(name)s.") % {"name": other.name})
    if not holder.phone:  # the phone answers for this player from now on, and no other phone does
        Entrant.objects.filter(pk=holder.pk).update(phone=phone)
    return None


@transaction.atomic
def confirm_result(*, group: Group, entrant: Entrant, phone: str, key: str | None = None,
                   now: datetime | None = None) -> ResultEntry:
    """Another player of the group confirms its reported result on their own phone: it counts
    (a play-off resolves; the round is decided once every table's result counts). The same key
    confirms once; a key used for anything else is refused."""
    now = now or timezone.now()
    group = _locked_group(group)
    existing = _player_answer(group, entrant, phone, ResultEntry.Kind.CONFIRMED, key)
    if existing is not None:
        return existing
    return _count(group, ResultEntry(kind=ResultEntry.Kind.CONFIRMED, entrant=entrant, phone=phone, key=key or None),
                  now)


@transaction.atomic
def dispute_result(*, group: Group, entrant: Entrant, phone: str, key: str | None = None,
                   now: datetime | None = None) -> ResultEntry:
    """A player of the group disputes its reported result on their own phone: it is locked (no
    phone confirms it) until the director settles it."""
    now = now or timezone.now()
    group = _locked_group(group)
    existing = _player_answer(group, entrant, phone, ResultEntry.Kind.DISPUTED, key)
    if existing is not None:
        return existing
    Group.objects.filter(pk=group.pk).update(result=Group.Result.DISPUTED)
    group.result = Group.Result.DISPUTED
    entry = ResultEntry.objects.create(tournament_id=group.round.tournament_id, group=group,
                                       kind=ResultEntry.Kind.DISPUTED, entrant=entrant, phone=phone, key=key or None,
                                       created_at=now)
    log_event(group.round.tournament.channel, "tournament_state",
              {"what": "result_disputed", "round": group.round.number, "group": group.number})
    return entry


@transaction.atomic
def settle_result(*, group: Group, director: Any, key: str | None = None, now: datetime | None = None) -> ResultEntry:
    """The director confirms a group's result (reported, or disputed and corrected as need be on
    the group's page): it counts. Logged: who, when, and each score that changed since it was
    reported. The same key settles once."""
    now = now or timezone.now()
    _check_key(key)
    group = _locked_group(group)
    existing = _entry_with_key(group.round.tournament, key, group, kind=ResultEntry.Kind.SETTLED)
    if existing is not None:
        return existing
    if not group.result_waits:
        raise NotNow(group.confirm_refusal() or _("%(group)s's result is confirmed.") % {"group": group})
    reported = group.result_entries.filter(kind=ResultEntry.Kind.REPORTED).order_by("-id").first()
    before = reported.scores if reported is not None else {}
    after = group.scores()
    changed = {name: [before.get(name), score] for name, score in after.items() if before.get(name) != score}
    return _count(group, ResultEntry(kind=ResultEntry.Kind.SETTLED, director=director, scores=changed,
                                     key=key or None), now)


def _count(group: Group, entry: ResultEntry, now: datetime) -> ResultEntry:
    """The result is confirmed and counts: the entry logged, the pages told, then the play-off
    resolved or the round decided (deciding.count_result)."""
    Group.objects.filter(pk=group.pk).update(result=Group.Result.CONFIRMED)
    group.result = Group.Result.CONFIRMED
    entry.tournament_id = group.round.tournament_id
    entry.group = group
    entry.created_at = now
    entry.save()
    log_event(group.round.tournament.channel, "tournament_state",
              {"what": "result_confirmed", "round": group.round.number, "group": group.number})
    try:
        deciding.count_result(group, now)
    except ValueError as error:  # a play-off's scores brackets cannot settle
        raise BadEntry(error.args[0]) from error
    return entry


# --- Check-in (issue 46) -------------------------------------------------------------------------

CHECK_IN_MINUTES = range(5, 241)  # the window opens 5 minutes to 4 hours before the start


@transaction.atomic
def set_check_in_window(tournament: Tournament, *, starts_at: datetime | None, minutes: int) -> Tournament:
    """The director sets when round 1 is due (None: no check-in on phones) and how long before it
    players may check themselves in. Before round 1 only."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    refusal = tournament.registration_refusal()
    if refusal is not None:
        raise NotNow(refusal)
    if type(minutes) is not int or minutes not in CHECK_IN_MINUTES:
        raise BadEntry(_("Check-in opens %(low)s to %(high)s minutes before the start.")
                       % {"low": CHECK_IN_MINUTES.start, "high": CHECK_IN_MINUTES.stop - 1})
    tournament.starts_at = starts_at
    tournament.check_in_minutes = minutes
    tournament.save(update_fields=["starts_at", "check_in_minutes"])
    log_event(tournament.channel, "tournament_state", {"what": "check_in_window"})
    return tournament


def _check_in_with_key(tournament: Tournament, key: str | None, entrant: Entrant, how: str) -> CheckIn | None:
    """The check-in a key already stands for: the same request retried is answered with it; the
    key reused for another player or another way is refused (KeyReused)."""
    _check_key(key)
    if not key:
        return None
    done = CheckIn.objects.filter(tournament=tournament, key=key).first()
    if done is None:
        return None
    if done.entrant_id != entrant.pk or done.how != how:
        raise KeyReused(_("That check-in's key was already used for another check-in, so nothing was changed: "
                          "check in again."))
    return done


def _self_check_in(tournament: Tournament, entrant: Entrant, *, how: str, phone: str, key: str | None,
                   now: datetime, takes_over: bool) -> CheckIn:
    """A player checks themself in on their own phone, in the window: the phone answers for the
    player from now on (`takes_over`: even if another phone did, as a personal link proves who
    holds it). Refused, nothing recorded, outside the window or for a player out of play."""
    _check_entrant(tournament, entrant)
    existing = _check_in_with_key(tournament, key, entrant, how)
    if existing is not None:
        return existing
    refusal = tournament.check_in_refusal(now)
    if refusal is not None:
        raise NotNow(refusal)
    entrant = Entrant.objects.select_for_update().get(pk=entrant.pk)
    if entrant.status != Entrant.Status.REGISTERED:
        raise NotNow(_("%(name)s was dropped as a no-show: ask the director to check you in.") % {"name": entrant.name}
                     if entrant.status == Entrant.Status.NO_SHOW
                     else _("%(name)s is out of the tournament.") % {"name": entrant.name})
    if not phone:
        raise NotYourGroup(_("Check in on your own phone."))
    if not takes_over and entrant.phone and entrant.phone != phone:
        raise NotYourGroup(_("%(name)s has checked in on another phone. If that is you, ask the director.")
                           % {"name": entrant.name})
    other = tournament.entrants.filter(phone=phone).exclude(pk=entrant.pk).first()
    if other is not None:
        raise NotYourGroup(_("This phone checked %(name)s in: each player checks in on their own phone.")
                           % {"name": other.name})
    Entrant.objects.filter(pk=entrant.pk).update(checked_in=True, phone=phone)
    done = CheckIn.objects.create(tournament=tournament, entrant=entrant, how=how, phone=phone, key=key or None,
                                  created_at=now)
    log_event(tournament.channel, "tournament_state", {"what": "checked_in"})
    return done


@transaction.atomic
def check_in_by_code(tournament: Tournament, entrant: Entrant, *, token: str, phone: str, key: str | None = None,
                     now: datetime | None = None) -> CheckIn:
    """A player scanned the projector's rotating code and chose their name: checked in, if the code
    is this tournament's and recent (tournaments.check_in) and the window is open."""
    now = now or timezone.now()
    check_in_codes.read_code(token, tournament.code, now, steps=check_in_codes.MAX_STEPS_OLD_TO_CHOOSE)
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    return _self_check_in(tournament, entrant, how=CheckIn.How.CODE, phone=phone, key=key, now=now, takes_over=False)


@transaction.atomic
def check_in_by_link(tournament: Tournament, entrant: Entrant, *, phone: str, key: str | None = None,
                     now: datetime | None = None) -> CheckIn:
    """A player checks in from their personal link, in the window."""
    now = now or timezone.now()
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    return _self_check_in(tournament, entrant, how=CheckIn.How.LINK, phone=phone, key=key, now=now, takes_over=True)


@transaction.atomic
def drop_no_shows(tournament: Tournament) -> list[Entrant]:
    """The director confirms, at the start, that the players who have not checked in are no-shows:
    they are out before round 1 is drawn (the groups are drawn from those checked in). The
    director may still check one in who turns up."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    refusal = tournament.registration_refusal()
    if refusal is not None:
        raise NotNow(refusal)
    absent = list(tournament.entrants.filter(status=Entrant.Status.REGISTERED, checked_in=False))
    Entrant.objects.filter(pk__in=[entrant.pk for entrant in absent]).update(status=Entrant.Status.NO_SHOW)
    log_event(tournament.channel, "tournament_state", {"what": "no_shows_dropped"})
    return absent


# --- The desk (issue 46) --------------------------------------------------------------------------

ALERT_MINUTES = range(1, 31)


@transaction.atomic
def set_alert_minutes(tournament: Tournament, *, minutes: int) -> Tournament:
    """The director sets how many minutes of silence flag a table on the desk's board."""
    if type(minutes) is not int or minutes not in ALERT_MINUTES:
        raise BadEntry(_("A table is flagged after %(low)s to %(high)s minutes without a report.")
                       % {"low": ALERT_MINUTES.start, "high": ALERT_MINUTES.stop - 1})
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    tournament.alert_minutes = minutes
    tournament.save(update_fields=["alert_minutes"])
    log_event(tournament.channel, "tournament_state", {"what": "alert_minutes"})
    return tournament
