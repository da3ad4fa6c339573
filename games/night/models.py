"""Models for playing games at tables: a Bunco night (the event log lives in `live`)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import connection, models
from django.db.models.functions import Coalesce
from django.utils.crypto import constant_time_compare
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.codes import new_code, new_token
from games.rules import bunco, dice, prizes
from live.bilingual import screen_languages

# --- A Bunco night ----------------------------------------------------------------------------

TITLE_MAX = 80  # a night's title, as its host types it: the column, the form and start_night read it
NIGHT_CHANNEL = "night:{}"  # a night's event channel by its id (`Night.channel`; a tap formats it by itself)


def max_tables() -> int:
    """The most tables a night on this site can have: settings.NIGHT_MAX_PLAYERS seated four a
    table (100 for the default 400 players)."""
    return bunco.tables_and_ghosts(settings.NIGHT_MAX_PLAYERS)[0]


def night_size_refusal(players: int) -> str | None:
    """Why this site cannot seat a night of `players` real players; None if it can. The one rule
    the start form, its live hint and `start_night` all ask (settings.NIGHT_MAX_PLAYERS)."""
    most = settings.NIGHT_MAX_PLAYERS
    if players <= most:
        return None
    return _("A night takes at most %(most)s players (%(tables)s tables), and there are %(players)s names: start a "
             "second night for the others.") % {"most": most, "tables": max_tables(), "players": players}


class Team(models.TextChoices):
    A = "A", gettext_lazy("Team A")
    B = "B", gettext_lazy("Team B")


class NightQuerySet(models.QuerySet["Night"]):
    def hosted_by(self, user: object) -> NightQuerySet:
        if not getattr(user, "is_authenticated", False):
            return self.none()
        return self.filter(models.Q(host_user=user) | models.Q(club__hosts=user)).distinct()

    def listed(self) -> NightQuerySet:
        """Newest first, each with its real players counted (`real_players`), its pot in cents
        (`pot`, as `Night.pot_cents` works it out) and its prizes with their winners: a host's
        list of nights in three queries, however many nights."""
        real = models.Count("players", filter=models.Q(players__is_ghost=False), distinct=True)
        return (
            self.annotate(real_players=real, pot=models.F("buy_in_cents") * real)
            .select_related("club")
            .prefetch_related(models.Prefetch("awards", queryset=PrizeAward.objects.select_related("player")))
            .order_by("-created_at", "-pk")
        )


class Night(models.Model):
    """One Bunco night: 24 rounds at ceil(players / 4) tables."""

    class Status(models.TextChoices):
        PLAYING = "playing", gettext_lazy("Playing")
        BREAK = "break", gettext_lazy("Break")
        FINISHED = "finished", gettext_lazy("Finished")

    code = models.CharField(max_length=16, unique=True, default=new_code)
    title = models.CharField(max_length=TITLE_MAX, default="Bunco night")
    club = models.ForeignKey("bunco_club.Club", null=True, blank=True, on_delete=models.SET_NULL, related_name="nights")
    party = models.ForeignKey("bunco_club.Party", null=True, blank=True, on_delete=models.SET_NULL, related_name="nights")
    host_user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    # The creator's browser holds this in its session when nobody logged in ("just play tonight").
    host_key = models.CharField(max_length=40, default=new_token)
    # The read-only projector link.
    screen_token = models.CharField(max_length=40, default=new_token)
    buy_in_cents = models.PositiveIntegerField(default=500)
    # House rules (games.rules.bunco.Rules and games.rules.prizes.PrizeRules), as field: value.
    rules = models.JSONField(default=dict, blank=True)
    prize_rules = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLAYING)
    current_round = models.PositiveSmallIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = NightQuerySet.as_manager()

    # Set on the nights of NightQuerySet.listed() (derived, never stored).
    real_players: int
    pot: int

    def __str__(self) -> str:
        return f"{self.title} ({self.code})"

    @property
    def channel(self) -> str:
        return NIGHT_CHANNEL.format(self.pk)

    def bunco_rules(self) -> bunco.Rules:
        return bunco.Rules(**self.rules)

    def prize_house_rules(self) -> prizes.PrizeRules:
        return prizes.PrizeRules(**self.prize_rules)

    def prize_rng(self) -> random.Random:
        """The dice of the night's prize roll-offs and draw, seeded by the night's own secret (so
        nobody can work the draw out beforehand): working the prizes out again from the same record,
        after a re-opened round changed nothing, gives the same winners."""
        return dice.seeded_rng(f"prizes:{self.host_key}")

    def unclaimed_prizes(self) -> list[tuple[str, int]]:
        """Each prize that went to nobody, with the money it added to the draw (prizes.PRIZES order),
        read off the awards given: a prize nobody qualified for has no award."""
        given = set(self.awards.values_list("prize", flat=True))
        if not given:
            return []
        amounts = prizes.prize_amounts(self.pot_cents(), self.prize_house_rules())
        return [(prize, amounts[prize]) for prize in prizes.PRIZES[:-1] if prize not in given]

    def pot_cents(self) -> int:
        return self.buy_in_cents * self.players.filter(is_ghost=False).count()

    def languages_for_a_screen(self, own: str) -> list[str]:
        """The languages a shared screen says its words in: its own first, then every other one the
        night's phones read the night in (one query)."""
        return screen_languages(own, self.players.exclude(claimed_by="").values_list("language", flat=True))

    def round_obj(self, number: int | None = None) -> Round:
        return self.rounds.get(number=number or self.current_round)

    def traveler(self) -> Player | None:
        """Who holds the traveler: the roller of the last Bunco that still stands."""
        last = (
            self.tallies.filter(buncos=1, undone_by__isnull=True)
            .exclude(kind=Tally.Kind.UNDO)
            .select_related("bunco_player")
            .order_by("-id")
            .first()
        )
        return last.bunco_player if last else None

    def standings(self) -> list[Player]:
        """The real players, most wins first (then most Buncos, then by name), with their figures."""
        return list(self.players.standings())

    def end_refusal(self, current: Round | None = None) -> str | None:
        """Why the host cannot end the night now; None if they can. Only between rounds, after
        at least one round: a round under way is finished first, so no table loses its result.
        `current` is the night's current round, when the caller already has it."""
        if self.status == Night.Status.FINISHED:
            return _("The night is already over.")
        current = current or self.round_obj()
        if current.status != Round.Status.READY:
            return _("Round %(number)s is under way: finish it first, then end the night.") % {"number": current.number}
        if current.number == 1:
            return _("No round has been played yet.")
        return None

    def can_end(self) -> bool:
        return self.end_refusal() is None

    def reopen_refusal(self, current: Round | None = None) -> str | None:
        """Why the last round cannot be re-opened now; None if it can: after the night, or while
        the next round is seated and nobody has scored in it."""
        if self.status == Night.Status.FINISHED:
            return None
        current = current or self.round_obj()
        if current.status != Round.Status.READY or current.number == 1:
            return _("Only a round that has not started yet can be undone back to the last one.")
        return None

    def can_reopen_last_round(self) -> bool:
        return self.reopen_refusal() is None

    def seat_change_refusal(self, current: Round | None = None) -> str | None:
        """Why nobody can arrive late or leave early now; None between rounds (the current round
        seated and not started, the night not over). The one rule the arrival and leaving actions
        enforce and the host's page follows. `current` as for `end_refusal`."""
        if self.status == Night.Status.FINISHED:
            return _("The night is over.")
        current = current or self.round_obj()
        if current.status != Round.Status.READY:
            return (_("Round %(number)s is under way: seat players between rounds, when it is over.")
                    % {"number": current.number})
        return None

    def is_between_rounds(self) -> bool:
        """Whether players may be changed now (`seat_change_refusal`): what the host's page offers."""
        return self.seat_change_refusal() is None

    def round_to_reopen(self) -> int | None:
        """The number of the round "Re-open" would re-open (the last one played); None when no
        round can be re-opened now (`reopen_refusal`)."""
        if not self.can_reopen_last_round():
            return None
        return self.current_round if self.status == Night.Status.FINISHED else self.current_round - 1

    def join_refusal(self) -> str | None:
        """Why a join link of this night admits no new phone now; None while it does. A link
        lives as long as its night (games/links.py): once the night is over, nobody new joins."""
        if self.status == Night.Status.FINISHED:
            return _("Tonight's game is over. See the prizes on the host's screen.")
        return None

    def is_hosted_by(self, user: AbstractBaseUser | AnonymousUser, session: Any) -> bool:
        """The host: the creator's browser, the night's host user, or a host of its club."""
        if session.get(f"host:{self.pk}") == self.host_key:
            return True
        if not user.is_authenticated:
            return False
        if self.host_user_id == user.pk:
            return True
        return self.club is not None and self.club.hosts.filter(pk=user.pk).exists()


class PlayerQuerySet(models.QuerySet["Player"]):
    def real(self) -> PlayerQuerySet:
        return self.filter(is_ghost=False)

    def with_figures(self) -> PlayerQuerySet:
        """Each player's wins, losses and Buncos, derived from seats, winners and tallies."""
        decided = models.Q(seats__table_round__status=TableRound.Status.DONE)
        won = decided & models.Q(seats__table_round__winner=models.F("seats__team"))
        lost = decided & ~models.Q(seats__table_round__winner=models.F("seats__team"))
        buncos = (
            Tally.objects.filter(bunco_player=models.OuterRef("pk"))
            .values("bunco_player")
            .annotate(total=models.Sum("buncos"))
            .values("total")
        )
        return self.annotate(
            wins=models.Count("seats", filter=won),
            losses=models.Count("seats", filter=lost),
            bunco_count=Coalesce(models.Subquery(buncos), 0),
        )

    def standings(self) -> PlayerQuerySet:
        """The real players with their figures, most wins first, then most Buncos, then by name."""
        # The stubs cannot follow with_figures()'s annotations through a method of its own.
        return self.real().with_figures().order_by("-wins", "-bunco_count", "name")  # type: ignore[misc]


class Player(models.Model):
    """Someone seated at the night; ghosts fill empty seats and are rolled for by their partner."""

    night = models.ForeignKey(Night, on_delete=models.CASCADE, related_name="players")
    name = models.CharField(max_length=40)
    is_ghost = models.BooleanField(default=False)
    member = models.ForeignKey("bunco_club.Member", null=True, blank=True, on_delete=models.SET_NULL)
    # The phone playing as this player: the random token its session keeps ("phone"), or "" while
    # nobody holds the seat. One phone per seat; the host hands a seat over by clearing it.
    claimed_by = models.CharField(max_length=64, blank=True, default="")
    # The language that phone reads the night in ("" before a phone claims the seat): the projector
    # says its words in every language of the night's phones (live/bilingual.py).
    language = models.CharField(max_length=8, blank=True, default="")

    # Set on the players of PlayerQuerySet.with_figures() (derived, never stored).
    wins: int
    losses: int
    bunco_count: int

    objects = PlayerQuerySet.as_manager()

    class Meta:
        ordering = ["is_ghost", "name"]
        constraints = [models.UniqueConstraint(fields=["night", "name"], name="player_unique_name_in_night")]

    def __str__(self) -> str:
        return self.name

    def score_sheet_rows(self) -> list[dict[str, Any]]:
        """The player's score sheet, one row per round of the night (all of them, played or not):
        the number up, the table, W or L once the table is decided, and their own Buncos."""
        seats = {
            seat.round.number: seat
            for seat in Seat.objects.filter(player=self).select_related("round", "table_round")
        }
        buncos_by_round: dict[int, int] = dict(
            self.bunco_tallies.values_list("table_round__round__number").annotate(total=models.Sum("buncos"))
        )
        rows = []
        for number in range(1, bunco.ROUNDS + 1):
            seat = seats.get(number)
            mark = ""
            if seat is not None and seat.table_round.status == TableRound.Status.DONE:
                mark = "W" if seat.table_round.winner == seat.team else "L"
            rows.append({
                "number": number,
                "target": bunco.target_for_round(number),
                "mark": mark,
                "table": seat.table_round.number if seat else None,
                "buncos": buncos_by_round.get(number, 0),
                "after_break": number == bunco.BREAK_AFTER_ROUND + 1,
            })
        return rows

    @property
    def private_channel(self) -> str:
        """This seat's own channel for the night: only this player's phone may follow it."""
        return f"night:{self.night_id}:player:{self.pk}"

    def is_held_by(self, phone: str) -> bool:
        """Whether the phone whose session token is `phone` plays as this player."""
        return bool(phone) and constant_time_compare(self.claimed_by, phone)

    def is_taken_for(self, phone: str) -> bool:
        """Whether another phone than `phone` holds this seat (the join page marks it taken)."""
        return bool(self.claimed_by) and not self.is_held_by(phone)

    def has_left(self) -> bool:
        """Whether this player left the game early: a real player with no seat in the night's
        current round (everyone else has one, from the round they arrive in to the night's end)."""
        return not self.is_ghost and not Seat.objects.filter(
            player=self, round__night_id=self.night_id, round__number=self.night.current_round
        ).exists()


class Round(models.Model):
    """One of the night's 24 rounds. The bell closes it for everyone, exactly once."""

    class Status(models.TextChoices):
        READY = "ready", gettext_lazy("Ready to start")  # seated; waiting for the head table to start
        PLAYING = "playing", gettext_lazy("Playing")
        BELL = "bell", gettext_lazy("Bell rung")  # tables finish their turn, roll off ties
        CLOSED = "closed", gettext_lazy("Closed")  # every table has a winner; the movement is made

    night = models.ForeignKey(Night, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.READY)
    started_at = models.DateTimeField(null=True, blank=True)
    bell_rung_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["number"]
        constraints = [models.UniqueConstraint(fields=["night", "number"], name="round_unique_number")]

    def __str__(self) -> str:
        return f"Round {self.number}"

    @property
    def target(self) -> int:
        return bunco.target_for_round(self.number)

    @property
    def set_number(self) -> int:
        return bunco.set_of_round(self.number)

    @property
    def round_in_set(self) -> int:
        return (self.number - 1) % bunco.ROUNDS_PER_SET + 1

    def takes_wipeouts(self) -> bool:
        """Whether a phone can record a wipeout this round: the night plays the house rule and
        1s are not up (the engine's `wipeout_applies`)."""
        return bunco.wipeout_applies(self.night.bunco_rules(), self.target)

    def tables_at_a_glance(self) -> list[dict[str, Any]]:
        """Every table of the round, head table first, with its derived team points and its
        teams' players in seat order: [{"table": …, "a": [players], "b": [players]}, …]."""
        tables = list(self.tables.with_totals().order_by("number"))
        players: dict[int, dict[str, list[Player]]] = {table.pk: {"A": [], "B": []} for table in tables}
        for seat in Seat.objects.filter(round=self).select_related("player").order_by("position"):
            players[seat.table_round_id][bunco.team_of_seat(seat.position)].append(seat.player)
        return [{"table": table, "a": players[table.pk]["A"], "b": players[table.pk]["B"]} for table in tables]

    def seats_in_order(self) -> list[Seat]:
        """Who sits where this round, with their players and tables: head table first, seat order."""
        return list(self.seats.select_related("player", "table_round").order_by("table_round__number", "position"))

    def seating(self) -> list[list[str]]:
        """The round's seating as names: the head table first, each table in seat order."""
        tables: dict[int, list[str]] = {}
        for table, name in (
            self.seats.order_by("table_round__number", "position").values_list("table_round__number", "player__name")
        ):
            tables.setdefault(table, []).append(name)
        return [tables[number] for number in sorted(tables)]


class _TableTotal(models.Func):
    """One main-play total (`column` "a" or "b" of `table_totals_sql`) of the table in the row: the
    pages read a table's points by the very statement a tap reads them with, not by a copy. The
    row's id is the expression, so Django names its table (an alias inside a subquery too)."""

    output_field = models.IntegerField()

    def __init__(self, column: str) -> None:
        sql = table_totals_sql(columns=(column,), table_round="%(expressions)s", roll_off="0")
        super().__init__(models.F("pk"), template=f"({sql})")


class TableRoundQuerySet(models.QuerySet["TableRound"]):
    def with_totals(self) -> TableRoundQuerySet:
        """Each table's team points, derived from its tallies (main play, not roll-offs) by
        `table_totals_sql`, the statement a tap uses."""
        return self.annotate(points_a=_TableTotal("a"), points_b=_TableTotal("b"))

    def unresolved(self) -> TableRoundQuerySet:
        return self.exclude(status=TableRound.Status.DONE)


class TableRound(models.Model):
    """One table in one round: its tallies and, once decided, its winner."""

    class Status(models.TextChoices):
        PLAYING = "playing", gettext_lazy("Playing")
        FINISHING = "finishing", gettext_lazy("Finishing the turn")  # bell rung elsewhere: finish the turn
        ROLL_OFF = "roll_off", gettext_lazy("Roll-off")
        DONE = "done", gettext_lazy("Done")

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveSmallIntegerField()  # 1 = the head table
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLAYING)
    roll_off = models.PositiveSmallIntegerField(default=0)  # the roll-off cycle under way, 0 = none

    # Set on the tables of TableRoundQuerySet.with_totals() (derived, never stored).
    points_a: int
    points_b: int
    winner = models.CharField(max_length=1, choices=Team.choices, blank=True)

    objects = TableRoundQuerySet.as_manager()

    class Meta:
        ordering = ["number"]
        constraints = [models.UniqueConstraint(fields=["round", "number"], name="table_round_unique_number")]

    def __str__(self) -> str:
        return f"Table {self.number}, round {self.round.number}"

    @property
    def is_head(self) -> bool:
        return self.number == 1

    def tally_refusal(self, *, by_host: bool = False) -> str | None:
        """Why this table does not take a tally now; None if it does: the engine's `tally_refusal`,
        the one rule for the tap and the phone page that offers the buttons. Uses `self.round`
        (select it with the table)."""
        round_ = self.round
        return bunco.tally_refusal(round_.number, self.number, round_.status, self.status, by_host=by_host)

    def undo_refusal(self) -> str | None:
        """Why a phone cannot undo its entry at this table now; None if it can: the moments a
        phone takes a tally (`tally_refusal`), said of an undo, with what to do instead. Uses
        `self.round` (select it with the table)."""
        if self.tally_refusal() is None:
            return None
        round_ = self.round
        if round_.status == Round.Status.READY:
            return _("Round %(number)s hasn't started: there is nothing to undo yet.") % {"number": round_.number}
        if self.is_head and round_.status == Round.Status.BELL:
            return _("The bell has rung: the head table's score stands, so that undo was not made. If an entry "
                     "was wrong, ask the host to correct it.")
        return _("Round %(number)s is over at table %(table)s: its score stands, so that undo was not made. If an "
                 "entry was wrong, ask the host to correct it.") % {"number": round_.number, "table": self.number}

    def seated(self) -> list[Player]:
        """The table's players (ghosts too) in seat order: `seated()[position]`."""
        return [seat.player for seat in self.seats.select_related("player").order_by("position")]

    def bunco_credits(self, seated: list[Player] | None = None) -> list[tuple[Player, Player]]:
        """Each player at the table (ghosts too), in seat order, with whom a Bunco rolled for them
        is credited to: themselves, or for a ghost the partner who rolls for it (the engine's
        `bunco_credit_seat`, docs/RULES.md §4.5). The tally action and the phone's "Who rolled it?" both
        read it. `seated` saves the query when the caller has it."""
        seated = self.seated() if seated is None else seated
        ghosts = {position for position, player in enumerate(seated) if player.is_ghost}
        return [(player, seated[bunco.bunco_credit_seat(position, ghosts)]) for position, player in enumerate(seated)]

    def bunco_credit(self, player: Player) -> Player:
        """Whom a Bunco rolled for `player` (seated at this table) is credited to (`bunco_credits`)."""
        for rolled_for, credited in self.bunco_credits():
            if rolled_for.pk == player.pk:
                return credited
        raise Seat.DoesNotExist(f"{player.name} has no seat at {self}.")

    def bunco_chooser(self, seated: list[Player] | None = None) -> dict[str, list[tuple[Player, Player]]]:
        """The phone's "Who rolled it?": each team's players in seat order, each with whom its
        Bunco is credited to (`bunco_credits`). `seated` saves the query when the caller has it."""
        chooser: dict[str, list[tuple[Player, Player]]] = {team: [] for team in bunco.TEAMS}
        for position, pair in enumerate(self.bunco_credits(seated)):
            chooser[bunco.team_of_seat(position)].append(pair)
        return chooser

    def teams(self, seated: list[Player] | None = None) -> dict[str, list[Player]]:
        """The table's players by team, each in seat order: {"A": […], "B": […]} (the engine
        says which seat plays for which team). `seated` saves the query when the caller has it."""
        teams: dict[str, list[Player]] = {team: [] for team in bunco.TEAMS}
        for position, player in enumerate(self.seated() if seated is None else seated):
            teams[bunco.team_of_seat(position)].append(player)
        return teams

    def totals(self, roll_off: int = 0) -> dict[str, int]:
        """Team points at this table ({"A": …, "B": …}), in main play or in one roll-off cycle."""
        return Tally.objects.team_totals(self.pk, roll_off)

    def deciding_roll_off(self) -> int:
        """The roll-off cycle that decided this table (its totals: `totals(cycle)`), 0 when its
        score did. `roll_off` keeps the last cycle once the table is done; a host's correction
        that unties the score makes the score the decider again (`winner_after`). Uses the
        totals of `TableRoundQuerySet.with_totals()`."""
        if self.status != TableRound.Status.DONE or self.roll_off == 0:
            return 0
        return self.roll_off if bunco.table_winner(self.points_a, self.points_b) is None else 0

    def tie_without_roll_off(self, totals: dict[str, int]) -> bool:
        """Whether a corrected record `totals` ties this decided table and no roll-off ever
        decided it: its winner no longer follows from the record (games.actions says what then)."""
        return totals["A"] == totals["B"] and self.roll_off == 0

    def winner_after(self, totals: dict[str, int]) -> str:
        """The winner of this decided table by a corrected record: the team with more points; a
        tie keeps the winner its roll-off gave."""
        return bunco.table_winner(totals["A"], totals["B"]) or self.winner

    def correction_effect(self, team: str, points: int) -> CorrectionEffect:
        """What adding `points` to `team` here would change: the scores, the winner, and so the
        players' wins and losses. Uses `self.round` (select it with the table)."""
        roll_off = self.roll_off if self.status == TableRound.Status.ROLL_OFF else 0
        before = self.totals(roll_off)
        after = {**before, team: before[team] + points}
        decided = self.status == TableRound.Status.DONE and roll_off == 0
        return CorrectionEffect(
            round_number=self.round.number, table_number=self.number, team=team, points=points,
            teams=self.teams(), before=before, after=after, in_roll_off=roll_off,
            winner_before=self.winner if decided else "", winner_after=self.winner_after(after) if decided else "",
            unsettled_tie=decided and self.tie_without_roll_off(after),
            rolls_off_now=decided and self.tie_without_roll_off(after) and self.round.status == Round.Status.BELL,
        )


@dataclass(frozen=True)
class CorrectionEffect:
    """What a host's correction would change at one table (`TableRound.correction_effect`): shown
    to the host before it is applied."""

    round_number: int
    table_number: int
    team: str
    points: int
    teams: dict[str, list[Player]]
    before: dict[str, int]
    after: dict[str, int]
    in_roll_off: int  # the roll-off cycle the points go to, 0 = main play
    winner_before: str  # "" while the table is undecided (its winner comes later)
    winner_after: str
    # A tie no roll-off decided: while the round is at the bell the table rolls off the tie (its
    # winner is "" until then); after, it keeps its winner and the host may re-open it.
    unsettled_tie: bool = False
    rolls_off_now: bool = False
    # What follows for the night (games.actions.describe_correction fills these in):
    reseats_round: int = 0  # the next round, seated from the old result and not started: seated again
    played_since: tuple[int, int] | None = None  # rounds already played after it: they stay as played
    prizes_again: bool = False  # the prizes were worked out: they will be worked out again

    @property
    def other_team(self) -> str:
        return "B" if self.team == "A" else "A"

    @property
    def changes_winner(self) -> bool:
        return self.winner_before != self.winner_after

    @property
    def is_tie_after(self) -> bool:
        return self.after["A"] == self.after["B"]

    def _real_names(self, team: str) -> str:
        return " & ".join(player.name for player in self.teams.get(team, []) if not player.is_ghost)

    @property
    def new_winners(self) -> str:
        """Who gets a win instead of a loss ("Ann & Cat"), when the winner changes."""
        return self._real_names(self.winner_after) if self.changes_winner else ""

    @property
    def new_losers(self) -> str:
        return self._real_names(self.winner_before) if self.changes_winner else ""


class Seat(models.Model):
    """Who sits where in a round; seats 0 & 2 are team A, 1 & 3 team B."""

    table_round = models.ForeignKey(TableRound, on_delete=models.CASCADE, related_name="seats")
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField()
    team = models.CharField(max_length=1, choices=Team.choices)
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="seats")

    class Meta:
        ordering = ["table_round__number", "position"]
        constraints = [
            models.UniqueConstraint(fields=["table_round", "position"], name="seat_unique_position"),
            models.UniqueConstraint(fields=["round", "player"], name="seat_one_per_player_per_round"),
        ]

    def __str__(self) -> str:
        return f"{self.player} at {self.table_round}, seat {self.position + 1}"

    @property
    def partner_position(self) -> int:
        return bunco.partner_seat(self.position)

    @property
    def opponent_positions(self) -> tuple[int, int]:
        return bunco.opponent_seats(self.position)

    @property
    def other_team(self) -> str:
        return bunco.other_team(bunco.team_of_seat(self.position))


class TallyQuerySet(models.QuerySet["Tally"]):
    def team_totals(self, table_round_id: int, roll_off: int = 0) -> dict[str, int]:
        """{"A": …, "B": …}: the team points at a table, derived from its tallies.

        One plain statement: every tap and every page asks it, and the ORM's query building
        costs more than SQLite's answer.
        """
        with connection.cursor() as cursor:
            cursor.execute(table_totals_sql(), {"table_round_id": table_round_id, "roll_off": roll_off})
            _a, _b, in_cycle_a, in_cycle_b = cursor.fetchone()
        # Cycle 0 is main play, so the cycle's columns answer either question.
        return {"A": int(in_cycle_a), "B": int(in_cycle_b)}


class Tally(models.Model):
    """One entry on a table's score sheet. Append-only: an undo or a correction is a new row.

    Team points, Buncos, wins and the traveler are all derived from these rows, so two phones
    tapping at once can never overwrite each other.
    """

    class Kind(models.TextChoices):
        POINTS = "points", gettext_lazy("Points")
        BUNCO = "bunco", gettext_lazy("Bunco")
        UNDO = "undo", gettext_lazy("Undo")
        CORRECTION = "correction", gettext_lazy("Host correction")
        WIPEOUT = "wipeout", gettext_lazy("Wipeout")  # three 1s (house rule): minus the team's points so far

    # No index of its own: the key's (night, key) and the Buncos' (night, bunco_player) lead with it.
    # With a third, PostgreSQL planned a tap's key lookup once per connection on the night alone,
    # while the night was young, and every later tap then read all of the night's tallies (a
    # 400-player bot night took 354 s, not 38: issue 34).
    night = models.ForeignKey(Night, on_delete=models.CASCADE, related_name="tallies", db_index=False)
    table_round = models.ForeignKey(TableRound, on_delete=models.CASCADE, related_name="tallies")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    team = models.CharField(max_length=1, choices=Team.choices)
    points = models.SmallIntegerField()
    # +1 for a Bunco, -1 for undoing one: a player's Buncos are the sum.
    buncos = models.SmallIntegerField(default=0)
    bunco_player = models.ForeignKey(
        Player, null=True, blank=True, on_delete=models.CASCADE, related_name="bunco_tallies"
    )
    roll_off = models.PositiveSmallIntegerField(default=0)
    entered_by = models.ForeignKey(Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    by_host = models.BooleanField(default=False)
    undoes = models.OneToOneField("self", null=True, blank=True, on_delete=models.CASCADE, related_name="undone_by")
    # One per tap: a retried request carries the same key and is counted once.
    # NULL, not "", when a tally has no key: the unique constraint ignores NULLs.
    key = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001
    created_at = models.DateTimeField(auto_now_add=True)

    objects = TallyQuerySet.as_manager()

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["night", "key"], name="tally_unique_key_per_night"),
        ]
        indexes = [models.Index(fields=["night", "bunco_player"], name="tally_night_bunco_player")]
        verbose_name_plural = "tallies"

    # The table's team totals right after this entry, when the action computed them (not stored:
    # totals are always derived from the rows).
    table_totals: dict[str, int] | None = None
    # What a host's correction or strike-out did to a decided table's result, for the host (set
    # by the action, never stored): "" when the winner simply follows the corrected score.
    result_note: str = ""

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.points:+d} team {self.team}"


# A table's points, defined once: each total is the sum of one team's tally points in main play
# (cycle 0) or in the roll-off cycle under way. Every reader is built on these two functions: the
# pages (TableRoundQuerySet.with_totals), team_totals, and a tap's statement (games/night/taps.py).
TOTALS: Final = {"a": ("A", False), "b": ("B", False), "ra": ("A", True), "rb": ("B", True)}


def tally_counts_sql(column: str, *, roll_off: str = "%(roll_off)s", tally: str = "") -> str:
    """The condition under which a tally's points count toward the total `column` (a key of
    TOTALS); `tally` is the tally row's alias with its dot ("new." in a tap's statement)."""
    team, in_roll_off = TOTALS[column]
    return f"{tally}team = '{team}' AND {tally}roll_off = {roll_off if in_roll_off else 0}"


def table_totals_sql(
    *, columns: Sequence[str] = tuple(TOTALS), table_round: str = "%(table_round_id)s", roll_off: str = "%(roll_off)s"
) -> str:
    """The one statement that derives a table's team totals from its tallies (pages and taps, on
    either database): a, b in main play and ra, rb in roll-off cycle `%(roll_off)s` (0: main play
    again) at the table `%(table_round_id)s`. games/night/taps.py builds a tap's statement on it;
    with_totals asks it for `columns` a and b of each row's table."""
    sums = ", ".join(
        f"COALESCE(SUM(CASE WHEN {tally_counts_sql(column, roll_off=roll_off)} THEN points END), 0) AS {column}"
        for column in columns
    )
    return (
        f"SELECT {sums} "
        f"FROM {Tally._meta.db_table} WHERE table_round_id = {table_round} AND roll_off IN (0, {roll_off})"
    )


class PrizeAward(models.Model):
    """A prize given at the end of the night, with the roll-off that decided it, if any.

    Stored, not derived: the draw and the roll-offs are chance, rolled once.
    """

    night = models.ForeignKey(Night, on_delete=models.CASCADE, related_name="awards")
    prize = models.CharField(max_length=20)
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="awards")
    amount_cents = models.PositiveIntegerField()
    roll_off = models.JSONField(default=list, blank=True)  # [[[name, total], …], …] per throw round
    order = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["order"]

    def __str__(self) -> str:
        return f"{self.prize}: {self.player} {self.amount_cents / 100:.2f}"
