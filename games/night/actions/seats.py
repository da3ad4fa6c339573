"""Phones and their seats, and players arriving late or leaving early (between rounds)."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from games.night.actions.refusals import BadTally, key_reused
from games.night.actions.rounds import locked_round
from games.night.actions.starting import clean_names, seat_round
from games.night.models import (
    Night,
    Player,
    Round,
    night_size_refusal,
)
from games.rules import bunco
from live.log import log_event
from live.models import Event
from live.refusals import NotNow, SeatTaken
from live.text import well_formed_key


@transaction.atomic
def claim_seat(*, night: Night, player: Player, phone: str, language: str = "") -> None:
    """The phone whose session token is `phone` plays as `player` from now on, reading the night in
    `language` (what the projector says its words in: Night.languages_for_a_screen).

    Only a seat no other phone holds (or this phone already does): one conditional update, so two
    phones tapping the same name at once cannot both get it. The phone's other seat in the night,
    if it had one, is let go: one phone, one player.
    """
    if not phone or player.night_id != night.pk or player.is_ghost:
        raise BadTally(_("Tap one of the names on the list."))
    claimed = Player.objects.filter(pk=player.pk, claimed_by__in=("", phone)).update(claimed_by=phone,
                                                                                      language=language)
    if not claimed:
        raise SeatTaken(_("%(name)s is already playing on another phone. If that's you, ask the host to hand "
                          "your seat over to this phone.") % {"name": player.name})
    Player.objects.filter(night=night, claimed_by=phone).exclude(pk=player.pk).update(claimed_by="")


@transaction.atomic
def release_seat(*, night: Night, player: Player) -> bool:
    """The host hands a seat over: the phone that held `player` plays as them no more (its next tap
    or page says so, and its page is told at once on its private channel); the next phone to tap
    the name gets the seat. False when no phone held it."""
    if player.night_id != night.pk:
        raise BadTally(_("That player isn't in tonight's game."))
    released = Player.objects.filter(pk=player.pk).exclude(claimed_by="").update(claimed_by="")
    if released:
        log_event(player.private_channel, "state", {"what": "seat_released"})
    return bool(released)


def _seated_round_to_change(night: Night, round_number: int | None) -> Round:
    """The seated round, locked, if players may still be changed in it: between rounds (seated, not
    started), the night not over. `round_number` is the round the host's page showed."""
    stale = round_number is not None and round_number != night.current_round
    if stale and night.status != Night.Status.FINISHED:
        raise NotNow(_("The night is at round %(number)s now, not %(named)s: reload the page.")
                     % {"number": night.current_round, "named": round_number})
    current = locked_round(night)
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
        raise BadTally(_("The request's key is malformed."))
    done = Event.objects.on(night.channel).filter(kind="state", data__what__in=("arrived", "left"),
                                                  data__key=key).first()
    if done is None:
        return None
    if done.data.get("what") != what or any(
        value is not None and done.data.get(field) != value for field, value in same.items()
    ):
        raise key_reused("arrival" if what == "arrived" else "departure")
    return done


def _reseat(night: Night, round_: Round, seating: list[list[str]]) -> None:
    """Seat a round not started yet again (nothing is recorded in it: no tally, no winner)."""
    round_.tables.all().delete()
    seat_round(round_, seating, {player.name: player for player in night.players.all()})


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
            raise key_reused("arrival")
        return arrived
    current = _seated_round_to_change(night, round_number)
    cleaned = clean_names([name])
    if not cleaned:
        raise BadTally(_("Type the name of the person arriving."))
    newcomer = cleaned[0]
    if night.players.filter(name__iexact=newcomer).exists():
        raise BadTally(_("“%(name)s” is already on tonight's list: add a surname or an initial.") % {"name": newcomer})
    too_many = night_size_refusal(night.players.real().count() + 1)
    if too_many is not None:
        raise BadTally(too_many)
    seating = current.seating()
    ghosts = set(night.players.filter(is_ghost=True).values_list("name", flat=True))
    chosen = ghost.name if ghost is not None else bunco.ghost_for_arrival(seating, ghosts)
    if chosen is None:
        raise NotNow(_("Every seat has a player: there is no ghost's seat for a late arrival tonight."))
    try:
        new_seating = bunco.seat_late_arrival(seating, ghosts, ghost=chosen, newcomer=newcomer)
    except bunco.IllegalSeating as error:
        raise BadTally(error.args[0]) from error
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
        raise BadTally(_("That player isn't in tonight's game."))
    current = _seated_round_to_change(night, round_number)
    seating = current.seating()
    if not any(player.name in seats for seats in seating):
        raise NotNow(_("%(name)s has no seat in round %(number)s: they have already left.")
                     % {"name": player.name, "number": current.number})
    names = list(night.players.values_list("name", flat=True))
    ghosts = set(night.players.filter(is_ghost=True).values_list("name", flat=True))
    ghost_name = bunco.fresh_ghost_name(names)
    try:
        new_seating = bunco.seat_ghost_for_leaver(seating, ghosts, leaver=player.name, ghost=ghost_name)
    except bunco.IllegalSeating as error:
        raise NotNow(error.args[0]) from error
    ghost = Player.objects.create(night=night, name=ghost_name, is_ghost=True)
    _reseat(night, current, new_seating)
    if Player.objects.filter(pk=player.pk).exclude(claimed_by="").update(claimed_by=""):
        log_event(player.private_channel, "state", {"what": "seat_released"})
    log_event(night.channel, "state", {"round": current.number, "what": "left", "player": player.pk,
                                       "ghost": ghost.pk, "key": key})
    return ghost
