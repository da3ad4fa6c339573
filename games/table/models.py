"""Game tables: a table playing one game, its seats, and every move made at it (docs/DESIGN.md §2, §3).

The server rolls and shuffles from the table's `seed`, a secret drawn when the table opens, mixed
with what every phone brings (docs/FAIRNESS.md, version 2): the value it sent when it claimed
its seat (`TableSeat.contribution`, step 0: the deal at the start) and the one it sends with every
move (`Move.client`, step n: the n-th move). The seed's SHA-256 (`commitment`) is shown before any
phone speaks; the seed itself is revealed once the game is over, and with it anyone can re-derive
every die and card (`games.table.record`, `scripts/verify_record.py`). Tables opened before version
2 (`fairness` 1) drew each step from `random.Random(f"{seed}:{step}")`, and still replay so.

`state` is the engine's `to_dict()`: the server's copy, deck order included. It never leaves the
server; phones and screens get `TableGame.view(seat)` only.
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy

from games.codes import new_code, new_token
from games.rules import dice
from games.rules.registry import bot_level_word, game_rules
from games.rules.table import GameRules, TableGame, chance_of
from live.bilingual import screen_languages

FAIRNESS_VERSION = 2  # docs/FAIRNESS.md: how a new table derives its chance


def new_seed() -> str:
    """A fresh secret seed (games.rules.dice, where chance is made): the field's default, named here
    by the migrations."""
    return dice.new_server_seed()


# A phone's contribution: "" (none) or 32 lowercase hex characters (docs/FAIRNESS.md).
WELL_FORMED_CONTRIBUTION = re.compile(f"(?:[0-9a-f]{{{dice.CONTRIBUTION_LENGTH}}})?")

# The channels of a table's events: everyone's, and one seat's own (`Table.channel`, `seat_channel`).
TABLE_CHANNEL = "table:{}"
SEAT_CHANNEL = "table:{}:seat:{}"


def well_formed_contribution(value: object) -> bool:
    """A phone's contribution: "" (none) or 32 lowercase hex characters (docs/FAIRNESS.md)."""
    return isinstance(value, str) and WELL_FORMED_CONTRIBUTION.fullmatch(value) is not None


class TableQuerySet(models.QuerySet["Table"]):
    def free_code(self, seed: str) -> str:
        """A code for a simulation's table made from its seed (so that the same seed on a fresh
        database plays the same game: docs/FAIRNESS.md mixes the code into every step's chance), and
        numbered on when an earlier simulation took it."""
        base = "sim" + hashlib.sha256(seed.encode("ascii")).hexdigest()[:8]
        taken = set(self.filter(code__startswith=base).values_list("code", flat=True))
        return next(code for code in (base, *(f"{base}n{number}" for number in range(2, len(taken) + 3)))
                    if code not in taken)

    def bots_due(self, now: datetime) -> TableQuerySet:
        """Tables where a bot is to move and its pause is over."""
        return self.filter(status=Table.Status.PLAYING, bot_due_at__lte=now, simulated=False)


# How long a quiet phone keeps its seat before a bot covers it, as the opener may choose.
PATIENCE = [(0, gettext_lazy("Never: the game waits for the phone")), (60, gettext_lazy("1 minute")),
            (120, gettext_lazy("2 minutes")), (300, gettext_lazy("5 minutes"))]
DEFAULT_PATIENCE = 120


class Table(models.Model):
    """One game at one table, from its deal to its end."""

    class Status(models.TextChoices):
        SEATING = "seating", gettext_lazy("Taking seats")
        PLAYING = "playing", gettext_lazy("Playing")
        OVER = "over", gettext_lazy("Over")

    code = models.CharField(max_length=16, unique=True, default=new_code)
    game = models.CharField(max_length=20)
    options = models.JSONField(default=dict, blank=True)
    seed = models.CharField(max_length=64, default=new_seed)
    commitment = models.CharField(max_length=64)
    # Which derivation of docs/FAIRNESS.md the table's chance follows (1: tables opened before
    # version 2, kept as they were dealt).
    fairness = models.PositiveSmallIntegerField(default=FAIRNESS_VERSION)
    state = models.JSONField(default=dict)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.SEATING)
    # Moves recorded so far (the last Move's number): a phone's page says which it has seen.
    moves_made = models.PositiveIntegerField(default=0)
    # The seats bots play (kept beside TableSeat.bot_level so that a move needs no query for them).
    bot_seats = models.JSONField(default=list, blank=True)
    # When the seat to move is a bot's: when it moves (after a short pause people can follow).
    bot_due_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # Who may start the game and hand seats to bots: the phone that opened the table (its
    # games.phones token) or, for a table opened for a party or a group, a logged-in host.
    opener_token = models.CharField(max_length=64, blank=True)
    host_user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    party = models.ForeignKey("bunco_club.Party", null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="game_tables")
    screen_token = models.CharField(max_length=40, default=new_token)
    # A clock the table plays against (a tournament round's), as its page counts it down: when
    # time is up, or paused. Kept by whoever runs the clock (`actions.set_clock`).
    clock_ends_at = models.DateTimeField(null=True, blank=True)
    clock_paused = models.BooleanField(default=False)
    # Where the players go back to once the game is over (a tournament group's scoresheet), and the
    # link's words: the table knows no more of what it was opened for.
    home_path = models.CharField(max_length=200, blank=True)
    home_label = models.CharField(max_length=80, blank=True)
    # A table of `simulate_table` (or a simulated tournament): it moves its own bots, never the clock.
    simulated = models.BooleanField(default=False)
    # How long a seat's phone may go quiet mid-game (asleep, out of the room, off the Wi-Fi) before
    # a bot plays the seat until the phone is back (0: never), as the opener chose (PATIENCE).
    patience_seconds = models.PositiveIntegerField(default=0, choices=PATIENCE)
    # Which seat each phone (its games.phones token) has held since the game started, at a game
    # whose seats hold hidden hands: a phone that saw one hand never takes another seat's.
    hands_seen = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    objects = TableQuerySet.as_manager()
    _stored_game: tuple[Any, TableGame]  # `stands_at`: the state last stored, and its game


    def __str__(self) -> str:
        return f"{self.engine.label} ({self.code})"

    @property
    def channel(self) -> str:
        """What everyone at the table and its screen may see."""
        return TABLE_CHANNEL.format(self.pk)

    def seat_channel(self, number: int) -> str:
        """What only the phone of seat `number` may see (a hand)."""
        return SEAT_CHANNEL.format(self.pk, number)

    @property
    def engine(self) -> GameRules:
        return game_rules(self.game)

    def loaded(self) -> TableGame:
        """The game as it stands (the server's copy): the game an action just stored (`stands_at`),
        or read from `state`."""
        stored = self.__dict__.get("_stored_game")
        if stored is not None and stored[0] is self.state:
            return stored[1]
        return self.engine.load(self.state)

    def stands_at(self, game: TableGame) -> None:
        """The game now stands at `game` (what a move led to): kept as `state`, and given back by
        `loaded()` as it is, not read again from `state` for the move's answer."""
        self.state = game.to_dict()
        self._stored_game = (self.state, game)

    def chance_for(self, step: int, contribution: str = "", seed: str | None = None) -> dice.Chance:
        """The chance of step `step` (0: the deal at the start, n: the n-th move), mixed with what
        the phones brought to it (`contribution`: the step's input X); `seed` to replay with
        another (a check of the revealed one)."""
        return chance_of(self.fairness, seed if seed is not None else self.seed, self.code, step, contribution)

    def deal_inputs(self) -> tuple[list[str], str]:
        """What the deal at the start is made from, in one query: the seats' names in seat order,
        and step 0's input X0, their lobby contributions in seat order joined by commas."""
        seats = list(self.seats.order_by("number").values_list("name", "contribution"))
        return [name for name, _part in seats], ",".join(part for _name, part in seats)

    def languages_for_a_screen(self, own: str) -> list[str]:
        """The languages the table's screen says the moves in: its own first, then every other one
        its phones read the table in (one query)."""
        return screen_languages(own, self.seats.exclude(claimed_by="").values_list("language", flat=True))

    def last_move(self) -> Move | None:
        return self.moves.order_by("-number").first()

    @property
    def is_over(self) -> bool:
        return self.status == self.Status.OVER

    @property
    def revealed_seed(self) -> str | None:
        """The seed, once the game is over; None while it is played (or before)."""
        return self.seed if self.is_over else None


class TableSeatQuerySet(models.QuerySet["TableSeat"]):
    def gone_quiet(self, now: datetime) -> TableSeatQuerySet:
        """Seats of games under way whose phone has not been heard from within the table's patience."""
        return (self.filter(quiet_at__lte=now, bot_level="", table__status=Table.Status.PLAYING)
                .exclude(claimed_by=""))

    def kept_for(self, phone: str) -> TableSeatQuerySet:
        """The seat a bot plays for `phone` (its phone went quiet, or the opener handed it to a
        bot), which that phone takes back with one tap; none without a phone."""
        return self.exclude(bot_level="").filter(held_before_bot=phone) if phone else self.none()


class TableSeat(models.Model):
    """One seat at a table, in the game's seat order: a person's phone or a bot."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=40)
    bot_level = models.CharField(max_length=16, blank=True)  # "" for a person
    # The games.phones token of the phone that plays this seat ("" while nobody holds it).
    claimed_by = models.CharField(max_length=64, blank=True)
    # The id of the event that logged the claim: the seat's private events up to it were its
    # previous holder's, and never reach this phone (live.streams.PrivateChannel).
    held_since = models.BigIntegerField(default=0)
    # The phone that held the seat when a bot took it over: it gets the seat back when the bot
    # hands it back to a person.
    held_before_bot = models.CharField(max_length=64, blank=True)
    # The language that phone reads the table in: the table's screen says the moves in every
    # language of its phones (Table.languages_for_a_screen, live/bilingual.py).
    language = models.CharField(max_length=8, blank=True, default="")
    # When the phone holding the seat counts as gone quiet, unless it is heard from before (its
    # page, a move, its "still here" every few seconds): then a bot covers the seat
    # (actions.cover_quiet_seats). While a bot keeps the seat for a phone (`held_before_bot`), when
    # that phone counts as away again: None from the moment the bot covered it for being quiet
    # until the phone is heard from. None too when nobody holds it or the table has no patience.
    quiet_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # What the phone that claimed the seat in the lobby brought to the deal (docs/FAIRNESS.md: 32 hex
    # characters from its crypto.getRandomValues; "" for a bot or nobody), frozen at the start.
    contribution = models.CharField(max_length=32, blank=True)

    objects = TableSeatQuerySet.as_manager()

    class Meta:
        ordering = ["number"]
        constraints = [models.UniqueConstraint(fields=["table", "number"], name="table_seat_number")]

    def __str__(self) -> str:
        return f"{self.name} (seat {self.number + 1})"

    @property
    def is_bot(self) -> bool:
        return bool(self.bot_level)

    @property
    def bot_word(self) -> str:
        """The bot's level as people read it ("steady"; the stored name is "threshold")."""
        return gettext(bot_level_word(self.bot_level))

    def keeps_for_a_phone_away(self, now: datetime) -> bool:
        """Whether a bot plays this seat for a phone that is away: at a table with patience, the
        phone has not been heard from since the bot covered it for going quiet, nor within the
        patience since (its page, its "still here"). Such a seat goes back to its phone only once
        the phone is heard from: handed back now, the game would wait a whole patience for a phone
        that isn't there. A table without patience waits for its phones by choice, and in the lobby
        nobody waits: never away there."""
        table = self.table
        if not (self.is_bot and self.held_before_bot and table.patience_seconds and not table.simulated
                and table.status == Table.Status.PLAYING):
            return False
        return self.quiet_at is None or self.quiet_at <= now

    def held_since_for(self, phone: str) -> int | None:
        """For `phone`'s stream: the id from which on it may see this seat's private events, None
        when it holds the seat no more (another phone took it, a bot, or nobody)."""
        if not phone:
            return None
        return (TableSeat.objects.filter(pk=self.pk, claimed_by=phone, bot_level="")
                .values_list("held_since", flat=True).first())


class Move(models.Model):
    """One move, as made (append-only): who, what, what chance produced, and the scores after.

    An undo is a move too ({"kind": "undo"}): it takes back the seat's last move, which chance had
    no part in. Replaying the moves in order, undos included, gives the game as it stands.
    """

    # No index of its own: (table, number) and (table, key) lead with it, and a third led
    # PostgreSQL to plan a move's key lookup on the table alone (as a tap's did: Tally.night).
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="moves", db_index=False)
    number = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField()
    move = models.JSONField()
    chance = models.JSONField(default=list)
    scores = models.JSONField(default=list)
    by_bot = models.BooleanField(default=False)
    key = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001  (keyless bot moves: NULLs never collide)
    # What the phone that sent the move brought to its chance (docs/FAIRNESS.md's X_n; "" for a bot's
    # move and one the server makes), kept with the key: a retry sends the same.
    client = models.CharField(max_length=32, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="table_move_number"),
            models.UniqueConstraint(fields=["table", "key"], name="table_move_key"),
        ]

    def __str__(self) -> str:
        return f"#{self.number} seat {self.seat} {self.move}"

    def as_data(self) -> dict[str, Any]:
        """The move as everyone may see it, once made."""
        return {name: getattr(self, name) for name in MOVE_DATA}


# A move as everyone may see it, once made (`Move.as_data`; a move's event, its chance hidden at a
# game of hidden hands).
MOVE_DATA = ("number", "seat", "move", "chance", "scores", "by_bot", "client")
