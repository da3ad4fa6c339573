"""Workflows of a game table: each is atomic, logs its events and publishes them after commit.

`open_table` deals a new game from a fresh secret seed and publishes its SHA-256; phones
`claim_seat`; the opener (or the host) `start_table`s; every seat then plays with `make_move`
(a person's phone or a bot, games/table/bots.py), and may `undo_move` a move chance had no part in.
When the game ends the seed is revealed, and `games.table.replay.verify` can check every toss and
card against it.

Each move locks and reads the table row with its game, asks the game once for its answer
(games.rules.table `answer`: the game after it, what chance produced, the views, the scores, the
end), is appended as a `Move` with what chance produced and the scores after, and is published: the
public view on the table's channel, each seat's private view on that seat's own channel (docs/DESIGN.md
§3: a hand never travels on a channel another phone follows). Errors are the refusals every app
shares (live.refusals: BadMove is BadInput, NotYourSeat NotYours; NotNow, SeatTaken, KeyReused), and
change nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.rules.dice import commitment_of
from games.rules.registry import GAMES
from games.rules.registry import game_rules as engine
from games.rules.table import Answer, IllegalMove, NotYourTurn, TableGame, answer, chance_of
from games.rules.table import answered as answered_by
from games.table import bots as bot_levels
from games.table import statements
from games.table.models import (
    MOVE_DATA,
    PATIENCE,
    SEAT_CHANNEL,
    TABLE_CHANNEL,
    WELL_FORMED_CONTRIBUTION,
    Move,
    Table,
    TableSeat,
    new_seed,
    well_formed_contribution,
)
from games.table.replay import TIME_UP, UNDO, deal, replayed_state
from live.log import Said, log_event
from live.refusals import BadInput, KeyReused, NotNow, NotYours, SeatTaken
from live.streams import WRITTEN_FOR
from live.text import WELL_FORMED_KEY

MAX_NAME = 40



# The table's names for the refusals every app gives alike (live.refusals): the same classes.
BadMove = BadInput  # a move, a seat list, an option the table cannot take as sent (400)
NotYourSeat = NotYours  # another seat's move, a phone that holds no seat (403)


def _check_bot_level(level: str) -> None:
    if level not in bot_levels.LEVELS:
        raise BadMove(_("A bot plays at one of the levels %(levels)s, not %(level)s.")
                      % {"levels": ", ".join(bot_levels.LEVELS), "level": repr(level)})


# --- Opening a table ------------------------------------------------------------------------------


def _checked_seats(game: str, names: Sequence[str], levels: Sequence[str]) -> list[tuple[str, str]]:
    rules = engine(game)
    names = [" ".join(str(name).split()) for name in names]
    if len(levels) != len(names):
        raise BadMove(_("Say for every seat whether a person or a bot plays it."))
    if not rules.min_seats <= len(names) <= rules.max_seats:
        raise BadMove(_("%(game)s takes %(least)s to %(most)s seats, not %(seats)s.") % {
            "game": rules.label, "least": rules.min_seats, "most": rules.max_seats, "seats": len(names)})
    for name in names:
        if not name:
            raise BadMove(_("Give every seat a name."))
        if len(name) > MAX_NAME:
            raise BadMove(_("A name has at most %(most)s letters: %(name)s…") % {"most": MAX_NAME, "name": name[:MAX_NAME]})
    if len({name.casefold() for name in names}) != len(names):
        raise BadMove(_("Give every seat a different name."))
    for level in levels:
        if level:
            _check_bot_level(level)
    return list(zip(names, levels, strict=True))


@transaction.atomic
def open_table(
    *,
    game: str,
    names: Sequence[str],
    bots: Sequence[str] | None = None,
    options: Mapping[str, Any] | None = None,
    opener_token: str = "",
    host_user: Any = None,
    party: Any = None,
    seed: str | None = None,
    code: str | None = None,
    simulated: bool = False,
    home: tuple[str, str] | None = None,
    patience_seconds: int = 0,
) -> Table:
    """A table for `game` with a seat per name (in playing order as dealt: the engine may roll for
    who starts), each played by a person's phone or, where `bots[n]` names a level, by a bot.

    The seed is drawn now and only its commitment is ever shown before the end; `seed` is for
    simulations, which derive theirs from their own (and, `simulated`, move their own bots: the
    clock leaves them alone), and `code` for tests that replay a deal (the code names every step's
    chance). `home`: (path, words) of the page the players go back to once the
    game is over. A table of bots only starts at once. `patience_seconds`: how long a seat's phone
    may go quiet mid-game before a bot covers the seat (one of models.PATIENCE; 0: never).

    The game is dealt as the lobby stands (no phone has brought anything yet), so that the options
    are checked now; the start deals it again with the phones' contributions (`_start`)."""
    rules = engine(game)
    seats = _checked_seats(game, names, bots or [""] * len(names))
    options = dict(options or {})
    seed = seed or new_seed()
    table = Table(
        **({"code": code} if code else {}), game=game, options=options, seed=seed, commitment=commitment_of(seed),
        opener_token=opener_token, host_user=host_user, party=party, simulated=simulated,
        bot_seats=[number for number, (_, level) in enumerate(seats) if level],
        home_path=home[0] if home else "", home_label=home[1] if home else "",
        patience_seconds=_checked_patience(patience_seconds),
    )
    try:
        state = rules.new([name for name, _ in seats], options, table.chance_for(0, ",".join([""] * len(seats))))
    except IllegalMove as error:
        raise BadMove(error.args[0]) from None
    table.state = state.to_dict()
    table.save(force_insert=True)
    TableSeat.objects.bulk_create(
        TableSeat(table=table, number=number, name=name, bot_level=level)
        for number, (name, level) in enumerate(seats)
    )
    log_event(table.channel, "table_state", {"what": "opened"})
    if all(level for _, level in seats):
        _start(table)
    return table


def _start(table: Table) -> None:
    """The game begins, dealt from the seed and the contributions the seats' phones brought to the
    lobby (docs/FAIRNESS.md step 0), frozen from now on."""
    if table.fairness != 1:  # a version 1 table was dealt once and for all when it opened
        table.state = deal(table).to_dict()
    table.status = Table.Status.PLAYING
    table.started_at = timezone.now()
    table.bot_due_at = _bot_due_now(table)
    if table.engine.private_hands:  # the hands show from now on: each phone has seen its seat's
        table.hands_seen = {seat.claimed_by: seat.number for seat in table.seats.exclude(claimed_by="")}
    table.save(update_fields=["state", "status", "started_at", "bot_due_at", "hands_seen"])
    table.seats.exclude(claimed_by="").update(quiet_at=_quiet_at(table))  # every phone's patience starts
    log_event(table.channel, "table_state", {"what": "started", "view": table.loaded().view(None).public})


@transaction.atomic
def start_table(*, table: Table) -> Table:
    """The game begins: the first move may be made (a bot to move moves after its pause)."""
    table = _locked(table)
    if table.status != Table.Status.SEATING:
        raise NotNow(_("The game has already started.") if table.status == Table.Status.PLAYING
                     else _("The game is over."))
    _start(table)
    return table


# --- Seats and phones -----------------------------------------------------------------------------


def _seat(table: Table, number: object) -> TableSeat:
    if type(number) is not int:
        raise BadMove(_("Tap one of the seats."))
    seat = table.seats.filter(number=number).first()
    if seat is None:
        raise BadMove(_("There is no such seat at this table."))
    return seat


@transaction.atomic
def claim_seat(*, table: Table, number: int, phone: str, contribution: str = "", language: str = "") -> TableSeat:
    """The phone whose games.phones token is `phone` plays seat `number` from now on: one
    conditional update, so two phones tapping one seat cannot both get it. A phone plays one seat
    at a table (the one it held is freed); a bot's seat is not for phones (the host takes it back
    first). Once a game of hidden hands is under way, a phone that held one seat never takes
    another: it has seen that seat's hand (`hands_seen`).

    In the lobby the phone's `contribution` (docs/FAIRNESS.md) becomes the seat's part of the deal,
    replacing what an earlier claim brought; once the game has started the deal is made and a
    claim brings nothing to it."""
    table = _locked(table)
    seat = _seat(table, number)
    if not phone:
        raise BadMove(_("Tap one of the seats."))
    if not well_formed_contribution(contribution):
        raise BadMove(_("This phone's part of the dice is malformed: reload the page and tap your seat again."))
    if seat.is_bot:
        raise SeatTaken(_("A bot plays %(name)s. The host can give the seat back to a person.") % {"name": seat.name})
    seen = table.hands_seen.get(phone) if _hands_are_dealt(table) else None
    if seen is not None and seen != seat.number:
        held = table.seats.filter(number=seen).values_list("name", flat=True).first() or _("another seat")
        raise SeatTaken(_("This phone has played %(held)s in this game and has seen that hand, so it can't take "
                          "%(name)s's seat too. %(name)s joins on their own phone.") % {"held": held, "name": seat.name})
    claimed = log_event(table.channel, "table_state", {"what": "seat_claimed", "seat": seat.number})
    in_lobby = table.status == Table.Status.SEATING
    taken = (TableSeat.objects.filter(pk=seat.pk, claimed_by__in=("", phone))
             .update(claimed_by=phone, held_since=claimed.id, language=language,
                     contribution=contribution if in_lobby else seat.contribution))
    if not taken:
        raise SeatTaken(_("%(name)s is already playing on another phone. If that's you, ask whoever opened the "
                          "table to hand your seat over to this phone.") % {"name": seat.name})
    for left in table.seats.filter(claimed_by=phone).exclude(pk=seat.pk):
        _free(table, left)
    if _hands_are_dealt(table):
        table.hands_seen = {**table.hands_seen, phone: seat.number}
        table.save(update_fields=["hands_seen"])
    seat.claimed_by, seat.held_since = phone, claimed.id
    if in_lobby:
        seat.contribution = contribution
    else:
        hear_from_phone(table=table, phone=phone)
    return seat


def _hands_are_dealt(table: Table) -> bool:
    """Whether the seats hold hands a phone may see: a game of hidden hands, under way (in the
    lobby no page shows a hand: seat_payload)."""
    return table.status == Table.Status.PLAYING and table.engine.private_hands


def _free(table: Table, seat: TableSeat) -> None:
    """Nobody holds `seat` now; its old phone is told on the seat's own channel (its stream ends
    there: live.streams.PrivateChannel) and everyone on the table's."""
    # In the lobby the seat's part of the deal leaves with its phone (the next claim brings its own).
    changes: dict[str, str] = {"contribution": ""} if table.status == Table.Status.SEATING else {}
    TableSeat.objects.filter(pk=seat.pk).update(claimed_by="", **changes)
    log_event(table.seat_channel(seat.number), "table_state", {"what": "seat_released"})
    log_event(table.channel, "table_state", {"what": "seat_released", "seat": seat.number})


@transaction.atomic
def release_seat(*, table: Table, number: int) -> bool:
    """The seat is free for another phone (a hand-over, or "That's not me"); its old phone is told on
    its own channel. False when no phone held it."""
    table = _locked(table)  # one change of hands at a time (claim_seat locks it too)
    seat = _seat(table, number)
    if not seat.claimed_by:
        return False
    _free(table, seat)
    return True


@transaction.atomic
def hand_seat_to_bot(*, table: Table, number: int, level: str, quiet: bool = False) -> TableSeat:
    """A seat whose phone has gone quiet is played by a bot (at `level`) until it is taken back:
    by the opener's choice, or (`quiet`) the table's patience with the phone being over."""
    table = _locked(table)
    if table.is_over:
        raise NotNow(_("The game is over."))
    _check_bot_level(level)
    seat = _seat(table, number)
    if seat.claimed_by:
        seat.held_before_bot = seat.claimed_by
    # The phone it keeps the seat for counts as away from now on when it went quiet; handed over by
    # the opener, it stays here as long as it was heard from lately (TableSeat.keeps_for_a_phone_away).
    if quiet or not seat.claimed_by:
        seat.quiet_at = None
    seat.bot_level, seat.claimed_by = level, ""
    if table.status == Table.Status.SEATING:
        seat.contribution = ""  # a bot brings nothing to the deal (docs/FAIRNESS.md)
    seat.save(update_fields=["bot_level", "claimed_by", "held_before_bot", "contribution", "quiet_at"])
    table.bot_seats = sorted({*table.bot_seats, seat.number})
    table.bot_due_at = _bot_due_now(table) if table.status == Table.Status.PLAYING else None
    table.save(update_fields=["bot_seats", "bot_due_at"])
    log_event(table.seat_channel(seat.number), "table_state", {"what": "seat_released"})
    log_event(table.channel, "table_state", {"what": "seat_to_bot", "seat": seat.number, "level": level,
                                             **({"quiet": True} if quiet else {})})
    return seat


@transaction.atomic
def take_seat_back(*, table: Table, number: int) -> TableSeat:
    """A bot's seat goes back to a person (the opener's "Take back for a person"): to the phone that
    held it before the bot, unless that phone plays another seat by now; otherwise the next phone
    to tap it plays it. Refused while that phone is away (it went quiet and has not been heard
    from since): the bot plays on, and the seat goes back once the phone is back."""
    table = _locked(table)
    seat = _seat(table, number)
    if not seat.is_bot:
        raise NotNow(_("%(name)s is played by a person already.") % {"name": seat.name})
    if (seat.keeps_for_a_phone_away(timezone.now())
            and not table.seats.filter(claimed_by=seat.held_before_bot).exists()):
        raise NotNow(_("%(name)s's phone is away: it hasn't been heard from since the bot took over, so the bot "
                       "keeps playing %(name)s. Once that phone is back it taps “I'm back”, or you take the seat "
                       "back for it then.") % {"name": seat.name})
    return _give_back(table, seat)


def _give_back(table: Table, seat: TableSeat) -> TableSeat:
    """`seat`, a bot's, goes back to the phone that held it before the bot, or to nobody when that
    phone plays another seat by now (the next phone to tap it plays it)."""
    back_to = seat.held_before_bot
    if back_to and table.seats.filter(claimed_by=back_to).exists():
        back_to = ""
    back = log_event(table.channel, "table_state", {"what": "seat_to_person", "seat": seat.number})
    seat.bot_level, seat.held_before_bot, seat.claimed_by = "", "", back_to
    if back_to:
        seat.held_since = back.id
        seat.quiet_at = _quiet_at(table) if table.status == Table.Status.PLAYING else None
    seat.save(update_fields=["bot_level", "held_before_bot", "claimed_by", "held_since", "quiet_at"])
    table.bot_seats = [number for number in table.bot_seats if number != seat.number]
    table.bot_due_at = _bot_due_now(table) if table.status == Table.Status.PLAYING else None
    table.save(update_fields=["bot_seats", "bot_due_at"])
    return seat


@transaction.atomic
def take_my_seat_back(*, table: Table, phone: str) -> TableSeat:
    """The phone a bot covers for (it went quiet, or the opener handed its seat to a bot) is back:
    one tap and it plays its seat again, its hand as the bot left it."""
    table = _locked(table)
    if table.is_over:
        raise NotNow(_("The game is over."))
    playing = table.seats.filter(claimed_by=phone, bot_level="").values_list("name", flat=True).first() if phone else None
    if playing:
        raise NotNow(_("This phone plays %(name)s already: no bot is playing for it.") % {"name": playing})
    seat = table.seats.kept_for(phone).first()
    if seat is None:
        raise NotYourSeat(_("No seat here is kept for this phone: tap your name under Seats."))
    return _give_back(table, seat)  # the phone is here: it tapped


# --- Patience with quiet phones -------------------------------------------------------------------

# The bot that covers a quiet phone's seat: it plays sensibly, as a player would want.
QUIET_SEAT_BOT = "threshold"


def _checked_patience(seconds: int) -> int:
    if seconds not in dict(PATIENCE):
        raise BadMove(_("Choose how long a quiet phone keeps its seat from the list."))
    return seconds


def _quiet_at(table: Table) -> datetime | None:
    """When a phone heard from now counts as gone quiet at `table` (None: the game waits for it)."""
    if not table.patience_seconds or table.simulated:
        return None
    return timezone.now() + timedelta(seconds=table.patience_seconds)


def hear_from_phone(*, table: Table, phone: str) -> bool:
    """`phone` is here (its page, a move, the "still here" its page sends while it is shown): the
    seat it holds in a game under way keeps it for another whole patience, and a seat a bot keeps
    for it counts it as here for as long (the opener may hand it back: TableSeat
    .keeps_for_a_phone_away). One UPDATE. False when there was nothing to note."""
    quiet_at = _quiet_at(table)
    if quiet_at is None or not phone or table.status != Table.Status.PLAYING:
        return False
    return statements.note_phone_heard(table, phone, quiet_at)


def cover_quiet_seats(now: datetime | None = None) -> int:
    """A bot plays every seat whose phone has gone quiet for longer than its table's patience,
    until the phone is back (`take_my_seat_back`); how many seats it took. Run by the bots' clock
    (games/table/tasks.py) every second: one indexed query when no phone is quiet."""
    now = now or timezone.now()
    return sum(_cover_if_still_quiet(seat.table_id, seat.number, now)
               for seat in TableSeat.objects.gone_quiet(now).only("table_id", "number"))


@transaction.atomic
def _cover_if_still_quiet(table_pk: int, number: int, now: datetime) -> bool:
    table = Table.objects.select_for_update().get(pk=table_pk)
    if not TableSeat.objects.gone_quiet(now).filter(table=table, number=number).exists():
        return False  # heard from (or the game ended) since the sweep read it
    hand_seat_to_bot(table=table, number=number, level=QUIET_SEAT_BOT, quiet=True)
    return True


# --- Moves ----------------------------------------------------------------------------------------


def _locked(table: Table) -> Table:
    return statements.lock_table(table.pk)


def _check_key_and_client(key: str | None, client: str) -> None:
    # The patterns themselves (as a tap asks them): a move is the hot path of a game table.
    if key is not None and WELL_FORMED_KEY.fullmatch(key) is None:
        raise BadMove(_("The move's key is malformed."))
    if not isinstance(client, str) or WELL_FORMED_CONTRIBUTION.fullmatch(client) is None:
        raise BadMove(_("The move's part of the dice is malformed: reload the page and make your move again."))


def _same_move(done: Move, seat: int, move: Mapping[str, Any], client: str) -> Move:
    """The move a key already recorded, if this is a copy of it (a phone that lost the answer sent
    it again, with the same contribution). KeyReused when the key recorded another move, or the
    same move with another contribution: never taken for a retry."""
    if done.seat != seat or done.move != dict(move) or done.client != client:
        raise KeyReused(_("That move was sent with the key of an earlier, different one: nothing was "
                          "changed. Make your move again."))
    return done


def _bot_due_now(table: Table) -> Any:
    """When a bot is to move next at `table` as its game stands."""
    game = table.loaded()
    return _bot_due(table, game.to_move(), game.is_over)


def _bot_due(table: Table, to_move: Sequence[int], is_over: bool) -> Any:
    """When a bot is to move next (after a pause people can follow), or None if no bot is."""
    if is_over or not set(table.bot_seats).intersection(to_move):
        return None
    return timezone.now() + timedelta(seconds=settings.TABLE_BOT_PAUSE_SECONDS)


def _record(table: Table, answer: Answer, *, seat: int, move: dict[str, Any], key: str | None, by_bot: bool,
            client: str = "", phone: str = "", holders: Mapping[int, int] | None = None) -> Move:
    """The game's answer written as it is: the move appended, the game stored as it now stands,
    and what each may see published (the public view on the table's channel, each changed hand
    on its seat's own), in one write (statements.write_move). `holders`: the seats phones hold
    now (number: held_since, read under the table's lock); each hand says the holding it was
    written for, and its holder's stream sends it without a read (live.streams.PrivateChannel)."""
    number = table.moves_made + 1
    recorded = Move(table=table, number=number, seat=seat, move=move, chance=answer.chance, scores=answer.scores,
                    by_bot=by_bot, key=key, client=client)
    table.state, table.moves_made = answer.state, number
    if answer.is_over:
        table.status, table.ended_at = Table.Status.OVER, timezone.now()
    table.bot_due_at = _bot_due(table, answer.to_move, answer.is_over)
    channel = TABLE_CHANNEL.format(table.pk)
    public_move = {**{name: getattr(recorded, name) for name in MOVE_DATA}, "chance": answer.shown_chance}
    said: list[Said] = [(channel, "moved", {"move": public_move, "view": answer.public})]
    held = holders or {}
    said += [(SEAT_CHANNEL.format(table.pk, hand), "hand",
              {"private": private, **({WRITTEN_FOR: held[hand]} if hand in held else {})})
             for hand, private in answer.hands.items()]
    if answer.is_over:
        said.append((channel, "table_state", {"what": "over", "seed": table.seed, "commitment": table.commitment,
                                              "winners": list(answer.winners)}))
    quiet_at = _quiet_at(table) if phone else None
    return statements.write_move(table, recorded, answer.game, said, (phone, quiet_at) if quiet_at else None)


@transaction.atomic
def make_move(*, table: Table, seat: int, move: Mapping[str, Any], key: str | None = None,
              by_bot: bool = False, client: str = "", phone: str = "") -> Move:
    """Seat `seat` makes `move` (a mapping such as {"kind": "toss"}). The engine rolls and draws
    with this move's own chance, mixed with the `client` value its phone sent (docs/FAIRNESS.md; "" for
    a bot); a key already recorded for the same move and value returns that move (a retry counts
    once); out of turn, an illegal move or a move after the game: refused, nothing changed.
    `phone`: the phone that sent it, heard from (`hear_from_phone`) in the move's transaction.

    A read, one answer, a write: the table locked and read with its game (and the key's move, if
    this is a retry), the game's one `answer` (games.rules.table: the game after the move, what
    chance produced, the views, the scores, the end), and `_record` writing it as it is."""
    _check_key_and_client(key, client)
    table, done, holders = statements.read_move(table.pk, key, holders=GAMES[table.game].private_hands)
    move = dict(move)
    if done is not None or move.get("kind") == UNDO:
        hear_from_phone(table=table, phone=phone)
        return _same_move(done, seat, move, client) if done is not None else _undo(table, seat, key, client)
    if move.get("kind") == TIME_UP:
        raise BadMove(_("Only the round's clock says when time is up."))
    if table.status != Table.Status.PLAYING:
        raise NotNow(_("The game hasn't started yet.") if table.status == Table.Status.SEATING
                     else _("The game is over."))
    chance = partial(chance_of, table.fairness, table.seed, table.code, table.moves_made + 1, client)
    try:
        answered = answer(GAMES[table.game], table.state, seat, move, chance)
    except NotYourTurn as error:
        raise NotNow(error.args[0]) from None
    except IllegalMove as error:
        raise BadMove(error.args[0]) from None
    return _record(table, answered, seat=seat, move=move, key=key, by_bot=by_bot, client=client, phone=phone,
                   holders=holders)


def undo_refusal(table: Table, seat: int, *, last: Move | None = None, game: TableGame | None = None) -> str | None:
    """Why `seat` may not undo now (None if it may): only its own last move, and only while chance
    has had no part since (Board Game Arena's rule: never undo past a toss or a card). `last` and
    `game`, the table's last move and its game, when the caller has them already."""
    if table.status != Table.Status.PLAYING:
        return _("There is nothing to undo.")
    last = last if last is not None else table.last_move()
    if last is None or last.move.get("kind") == UNDO:
        return _("There is nothing to undo.")
    if last.seat != seat or last.by_bot:
        return _("Only the player who made the last move can undo it.")
    if last.chance:
        return _("The dice have been tossed (or a card turned): that can't be undone.")
    if seat not in (game or table.loaded()).to_move():
        return _("Your turn is over: it can't be undone.")
    return None


def _undo(table: Table, seat: int, key: str | None, client: str) -> Move:
    refusal = undo_refusal(table, seat)
    if refusal is not None:
        raise NotNow(refusal)
    before = table.loaded()
    moves = list(table.moves.order_by("number"))
    after = replayed_state(table, moves + [Move(number=table.moves_made + 1, seat=seat, move={"kind": UNDO})])
    undo = {"kind": UNDO}
    return _record(table, answered_by(table.engine, before, after, seat, undo), seat=seat, move=undo, key=key,
                   by_bot=False, client=client)


@transaction.atomic
def sound_buzzer(*, table: Table) -> Move | None:
    """Time is up (a tournament round's clock): no new turn starts, the turn under way is played
    out, then the game ends (docs/RULES.md §1.2). Recorded as a move so that a replay sounds it too.
    None when there is nothing to do (the game is over, or the buzzer has sounded)."""
    table = _locked(table)
    time_up = table.engine.time_up
    if time_up is None:
        raise NotNow(_("%(game)s is not a timed game.") % {"game": table.engine.label})
    if table.status != Table.Status.PLAYING:
        return None
    before = table.loaded()
    after = time_up(before)
    if after.to_dict() == before.to_dict():
        return None
    seat = before.to_move()[0] if before.to_move() else 0
    time_up_move = {"kind": TIME_UP}
    return _record(table, answered_by(table.engine, before, after, seat, time_up_move), seat=seat, move=time_up_move,
                   key=None, by_bot=False)


@transaction.atomic
def end_table(*, table: Table) -> bool:
    """The game stops where it stands (a tournament group made final when its grace period ran out
    with a turn never finished): no move is taken any more, and the seed is revealed, so the moves
    made can be checked like any finished game's. False if it had ended already."""
    table = _locked(table)
    if table.is_over:
        return False
    table.status, table.ended_at, table.bot_due_at = Table.Status.OVER, timezone.now(), None
    table.save(update_fields=["status", "ended_at", "bot_due_at"])
    log_event(table.channel, "table_state", {"what": "over", "stopped": True, "seed": table.seed,
                                             "commitment": table.commitment, "winners": []})
    return True


@transaction.atomic
def set_clock(*, table: Table, ends_at: Any, paused: bool = False) -> None:
    """The clock the table plays against (a tournament round's) now says `ends_at`, or is paused:
    its pages count down to it. The clock's owner decides what time up means (`sound_buzzer`)."""
    if table.clock_ends_at == ends_at and table.clock_paused == paused:
        return
    Table.objects.filter(pk=table.pk).update(clock_ends_at=ends_at, clock_paused=paused)
    table.clock_ends_at, table.clock_paused = ends_at, paused
    log_event(table.channel, "table_state", {"what": "clock"})
