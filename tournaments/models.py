"""Fill or Bust tournaments (docs/RULES.md §1.7): entrants, timed rounds of groups, entered turns.

Scores are never stored: a group's scoresheet is replayed from its append-only `Turn` rows by the
pure `brackets.replay_turns` (a Vengeance hits the leaders as they stood, so the order matters and
a correction anywhere in the sheet re-scores what follows). What a round decided (who went
through, strikes, who was eliminated) is stored on the round once its scores are final, like the
night's prizes: it is a decision, taken once.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import models
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop, pgettext

from games import codes
from games.rules import fill_or_bust
from tournaments import brackets, check_in

# How long the names a director types may be (issue 21): read by the columns, the form and the actions.
NAME_MAX = 80  # a tournament's name
ENTRANT_NAME_MAX = 40  # a player's name (a group sheet's column)


def new_code() -> str:
    return codes.new_code()  # named here too: the migrations refer to it


def new_token() -> str:
    return secrets.token_urlsafe(18)


class Tournament(models.Model):
    class Format(models.TextChoices):
        SINGLE = "single", gettext_lazy("Single elimination")
        DOUBLE = "double", gettext_lazy("Double elimination")

    class Grouping(models.TextChoices):
        RANDOM = "random", gettext_lazy("Random draw")
        SEEDED = "seeded", gettext_lazy("Seeded (snake order)")

    class Ties(models.TextChoices):
        PLAY_OFF = "play_off", gettext_lazy("Play-offs at the cut line")
        DIRECTOR = "director", gettext_lazy("The director decides")

    class Status(models.TextChoices):
        REGISTRATION = "registration", gettext_lazy("Registration")
        PLAYING = "playing", gettext_lazy("Playing")
        FINISHED = "finished", gettext_lazy("Finished")

    code = models.CharField(max_length=16, unique=True, default=new_code)
    name = models.CharField(max_length=NAME_MAX)
    date = models.DateField(null=True, blank=True)
    director = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tournaments")
    club = models.ForeignKey("bunco_club.Club", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    format = models.CharField(max_length=10, choices=Format.choices, default=Format.SINGLE)
    round_minutes = models.PositiveSmallIntegerField(default=20)
    # A practice round before round 1 (2-10 minutes; None: none). It counts for nothing.
    practice_minutes = models.PositiveSmallIntegerField(null=True, blank=True)
    # When set (5-10) and the groups of a round differ in size, each group gets this per player.
    per_player_minutes = models.PositiveSmallIntegerField(null=True, blank=True)
    face_off_minutes = models.PositiveSmallIntegerField(default=15)
    grace_seconds = models.PositiveIntegerField(default=120)
    ties = models.CharField(max_length=10, choices=Ties.choices, default=Ties.PLAY_OFF)
    grouping = models.CharField(max_length=10, choices=Grouping.choices, default=Grouping.RANDOM)
    seed = models.BigIntegerField(default=0)  # the random draws' seed: a tournament can be replayed
    point_goal = models.PositiveIntegerField(default=10000)  # shown on the group sheets
    vengeance_penalty = models.PositiveIntegerField(default=fill_or_bust.VENGEANCE_PENALTY)
    must_bust_penalty = models.BooleanField(default=False)
    screen_token = models.CharField(max_length=40, default=new_token)
    status = models.CharField(max_length=14, choices=Status.choices, default=Status.REGISTRATION)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Each typed table's result waits, "reported", until another player of the group confirms it
    # on their own phone or the director does (issue 46); a result from a game table needs none.
    confirm_results = models.BooleanField(default=False)
    # When round 1 is due to start: players check themselves in (the projector's rotating code,
    # their personal link) from `check_in_minutes` before it until it (issue 46). None: only the
    # director checks players in.
    starts_at = models.DateTimeField(null=True, blank=True)
    check_in_minutes = models.PositiveSmallIntegerField(default=60)
    # The desk (issue 46): a table that has reported no turn for this many minutes of its round's
    # clock is flagged on the director's board, and the board rings.
    alert_minutes = models.PositiveSmallIntegerField(default=5)
    # Played by `simulate_tournament` on a clock of its own: the real clock's sweep never closes
    # its groups (its simulated times are long past), only the simulation's own calls do.
    simulated = models.BooleanField(default=False)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.name

    @property
    def channel(self) -> str:
        return f"tournament:{self.pk}"

    def is_directed_by(self, user: AbstractBaseUser | AnonymousUser) -> bool:
        return bool(user.is_authenticated and self.director_id == user.pk)

    def current_round(self) -> TournamentRound | None:
        return self.rounds.order_by("-number").first()

    def round_under_way(self) -> TournamentRound | None:
        """The round being played (not yet decided), if any: players may drop only outside one."""
        current = self.current_round()
        return current if current is not None and current.status != TournamentRound.Status.DECIDED else None

    def takes_drops(self) -> bool:
        """Whether a player may drop out now: before round 1 or between rounds, never during one
        (their group plays on) nor after the end. The drop action and the dashboard both ask."""
        return self.status != self.Status.FINISHED and self.round_under_way() is None

    def players_in(self) -> models.QuerySet[Entrant]:
        """Entrants still in the bracket (checked in once play began, not eliminated, not dropped)."""
        return self.entrants.filter(status=Entrant.Status.IN)

    def start_refusal(self) -> str | None:
        """Why the director can't start the next round now; None if they can. `start_round` and
        the dashboard's Start button both ask."""
        if self.status == Tournament.Status.FINISHED:
            return _("The tournament is over.")
        under_way = self.round_under_way()
        if under_way is not None:
            return _("%(round)s is still under way.") % {"round": under_way}
        if self.status == Tournament.Status.REGISTRATION:
            if self.entrants.filter(checked_in=True).count() < 2:
                return _("Check in at least two players first.")
            # Round 1 takes the checked-in players in (start_round); the others are no-shows.
            playing = self.entrants.filter(
                models.Q(status=Entrant.Status.IN) | models.Q(status=Entrant.Status.REGISTERED, checked_in=True))
        else:
            playing = self.players_in()
        if playing.count() < 2:  # (a drop that leaves one player finishes the tournament)
            return _("Fewer than two players are left.")
        return None

    def practice_refusal(self) -> str | None:
        """Why the director can't start the practice round now; None if they can. The action and
        the dashboard's button both ask."""
        if not self.practice_minutes:
            return _("This tournament has no practice round: its length was not set.")
        if self.status != Tournament.Status.REGISTRATION or self.rounds.filter(number__gt=0).exists():
            return _("The practice round comes before round 1: round 1 has begun.")
        practice = self.rounds.filter(number=0).first()
        if practice is not None:
            if practice.status != TournamentRound.Status.DECIDED:
                return _("The practice round is under way.")
            return _("The practice round has been played: start round 1.")
        if self.entrants.filter(checked_in=True).count() < 2:
            return _("Check in at least two players first.")
        return None

    def check_in_opens_at(self) -> datetime | None:
        return self.starts_at - timedelta(minutes=self.check_in_minutes) if self.starts_at is not None else None

    def check_in_refusal(self, now: datetime) -> str | None:
        """Why a player can't check themself in at `now` (the projector's code, their link); None
        if they can: in the window from `check_in_minutes` before the start until the start. The
        actions, the projector's code and the player's page all ask. (The director checks anyone
        in until round 1.)"""
        if self.status != Tournament.Status.REGISTRATION:
            return _("Check-in is over: round 1 has begun. Ask the director.")
        opens = self.check_in_opens_at()
        if self.starts_at is None or opens is None:
            return _("Check-in on phones is not open: the director checks players in.")
        if now < opens:
            return _("Check-in opens at %(time)s.") % {"time": formats.time_format(timezone.localtime(opens))}
        if now >= self.starts_at:
            return _("Check-in closed at the start, %(time)s: ask the director.") % {
                "time": formats.time_format(timezone.localtime(self.starts_at))}
        return None

    def strikes(self) -> dict[str, int]:
        """Double elimination: every player's strikes after the last decided round (by name)."""
        last = (self.rounds.filter(kind=TournamentRound.Kind.ROUND, status=TournamentRound.Status.DECIDED)
                .order_by("-number").first())
        return dict(last.outcome.get("strikes", {})) if last is not None else {}

    def champion(self) -> Entrant | None:
        return self.entrants.filter(final_place=1).first()

    def registration_refusal(self) -> str | None:
        if self.status != Tournament.Status.REGISTRATION:
            return _("Registration is closed: round 1 has begun.")
        return None

    def deletion_refusal(self) -> str | None:
        """Why the director can't delete the tournament; None if they can: before any round has
        begun (the practice round included), when nothing but its players would go. The action and
        the dashboard's button both ask."""
        if self.status != Tournament.Status.REGISTRATION or self.rounds.exists():
            return _("A tournament can be deleted only before its first round (the practice round included): "
                     "play this one to the end.")
        return None


class Entrant(models.Model):
    class Status(models.TextChoices):
        REGISTERED = "registered", gettext_lazy("Registered")  # before round 1 (checked in or not)
        IN = "in", gettext_lazy("In")
        ELIMINATED = "eliminated", gettext_lazy("Eliminated")
        DROPPED = "dropped", gettext_lazy("Dropped")
        NO_SHOW = "no_show", gettext_lazy("No-show")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entrants")
    name = models.CharField(max_length=ENTRANT_NAME_MAX)
    member = models.ForeignKey("bunco_club.Member", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    seed_rank = models.PositiveIntegerField(null=True, blank=True)  # 1 = top seed (seeded groups)
    checked_in = models.BooleanField(default=False)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.REGISTERED)
    out_in_round = models.PositiveSmallIntegerField(null=True, blank=True)  # eliminated or dropped
    final_place = models.PositiveIntegerField(null=True, blank=True)  # set when the tournament ends
    # The phone that answers for this player (its games.phones token), from the first time it
    # confirmed or disputed a result for them or checked them in: no other phone answers for them.
    phone = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["tournament", "name"], name="entrant_unique_name")]

    def __str__(self) -> str:
        return self.name

    def personal_path(self) -> str:
        """The player's personal link (tournaments.check_in): their page, and their check-in."""
        return check_in.player_path(self.tournament.code, self.pk)

    @property
    def is_in_play(self) -> bool:
        """Registered or still in: not out of the tournament (eliminated, dropped, a no-show), so
        one who may still drop out. The drop action and the dashboard's Drop button both ask."""
        return self.status in (Entrant.Status.REGISTERED, Entrant.Status.IN)


class TournamentRound(models.Model):
    class Kind(models.TextChoices):
        ROUND = "round", gettext_lazy("Round")
        FACE_OFF = "face_off", gettext_lazy("Face-off")
        PRACTICE = "practice", gettext_lazy("Practice round")  # number 0, before round 1: counts for nothing

    class Status(models.TextChoices):
        PLAYING = "playing", gettext_lazy("Playing")
        PLAY_OFF = "play_off", gettext_lazy("Play-off at the line")  # scores final, tied players play off
        DECIDED = "decided", gettext_lazy("Decided")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.ROUND)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLAYING)
    started_at = models.DateTimeField()
    ends_at = models.DateTimeField()  # the latest of its groups' ends (a group's time may be extended)
    decided_at = models.DateTimeField(null=True, blank=True)
    # Played on phones: each group of the round plays at a game table (games.table) on the
    # server's dice and deck, and its finished turns become its Turns (tournaments.digital).
    on_phones = models.BooleanField(default=False)
    # Played on phones and started by the director: the clock waits (paused) while the phones take
    # their seats, until the director starts it (actions.start_clock): a seat nobody holds (no
    # phone, no bot) is the director's to settle first, or, with `bots_take_unheld`, a bot's.
    seating = models.BooleanField(default=False)
    bots_take_unheld = models.BooleanField(default=False)
    # Set while the director has paused the clock: on resuming, every open group's end moves by
    # the pause's length (paused time does not count) and no turn is entered meanwhile.
    paused_at = models.DateTimeField(null=True, blank=True)
    # The director's "End round now" closed it (not its clock): the phones say so.
    ended_now = models.BooleanField(default=False)
    # The round's final scores by name, once every group is final (kept: the play-off applies to them).
    scores = models.JSONField(default=dict, blank=True)
    # The pure brackets' answer: {"advancing"|"eliminated"|"tied": [names], "strikes": {name: n},
    # "strikes_before": {name: n}, "advance": n, "winner": name} as it applies.
    outcome = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["number"]
        constraints = [models.UniqueConstraint(fields=["tournament", "number"], name="tround_unique_number")]

    def __str__(self) -> str:
        if self.is_practice:
            return _("Practice round")
        return _("Face-off") if self.is_face_off else pgettext("tournament", "Round %(number)s") % {"number": self.number}

    @property
    def is_face_off(self) -> bool:
        return self.kind == TournamentRound.Kind.FACE_OFF

    @property
    def is_practice(self) -> bool:
        return self.kind == TournamentRound.Kind.PRACTICE

    @property
    def is_paused(self) -> bool:
        return self.paused_at is not None

    def clock_refusal(self) -> str | None:
        """Why the director can't pause, resume or end this round's clock now; None if they can.
        The actions and the dashboard's buttons both ask."""
        if self.status == TournamentRound.Status.PLAY_OFF:
            return _("%(round)s's tables are final: the play-off at the line has no clock.") % {"round": self}
        if self.status != TournamentRound.Status.PLAYING:
            return _("%(round)s is over: its clock has stopped.") % {"round": self}
        return None

    def tied(self) -> list[str]:
        return list(self.outcome.get("tied", []))

    def struck_now(self) -> list[str]:
        """Double elimination: who took a strike in this round and is still in (their first)."""
        after, before = self.outcome.get("strikes", {}), self.outcome.get("strikes_before", {})
        out = set(self.outcome.get("eliminated", []))
        return [name for name, count in after.items() if count > before.get(name, 0) and name not in out]

    def mark(self, name: str) -> str:
        """What the decided part of this round did to a player, as a word for a page's class:
        "through", "struck" (a first strike, still in), "out", "tied", "champion", "runner-up",
        or "" (not decided yet, or the practice round: it counts for nothing)."""
        outcome = self.outcome
        if self.is_practice:
            return ""
        if self.is_face_off and outcome.get("winner"):
            return "champion" if outcome["winner"] == name else "runner-up"
        if name in outcome.get("tied", []):
            return "tied"
        if name in outcome.get("eliminated", []):
            return "out"
        if name in outcome.get("advancing", []):
            return "through"
        if name in outcome.get("strikes", {}):
            return "struck" if name in self.struck_now() else "through"
        return ""

    def sheets(self, *, play_offs: bool = True) -> dict[int, list[tuple[int, str, int]]]:
        """Every group's scoresheet, {group id: [(entrant id, name, score), ...] in seat order},
        replayed from the turns: two queries for the whole round, however many groups."""
        groups = GroupSeat.objects.filter(group__round=self)
        turns_of = Turn.objects.filter(group__round=self, undone_by__isnull=True).exclude(kind=Turn.Kind.UNDO)
        if not play_offs:
            groups, turns_of = groups.filter(group__play_off=0), turns_of.filter(group__play_off=0)
        seats: dict[int, list[tuple[int, str]]] = {}
        for group_id, entrant_id, name in (
            groups.order_by("group__number", "position").values_list("group_id", "entrant_id", "entrant__name")
        ):
            seats.setdefault(group_id, []).append((entrant_id, name))
        names = {entrant_id: name for table in seats.values() for entrant_id, name in table}
        turns: dict[int, list[brackets.TurnEntry]] = {}
        for group_id, entrant_id, points, vengeance in (
            turns_of.order_by("id").values_list("group_id", "entrant_id", "points", "vengeance")
        ):
            turns.setdefault(group_id, []).append(brackets.TurnEntry(names[entrant_id], points, vengeance))
        penalty = self.tournament.vengeance_penalty
        sheets = {}
        for group_id, table in seats.items():
            scores = brackets.replay_turns([name for _, name in table], turns.get(group_id, []), penalty=penalty)
            sheets[group_id] = [(entrant_id, name, scores[name]) for entrant_id, name in table]
        return sheets

    def table_scores(self) -> dict[str, int]:
        """Every player's score at their table this round (play-offs aside)."""
        return {name: score for sheet in self.sheets(play_offs=False).values() for _, name, score in sheet}


class GroupQuerySet(models.QuerySet["Group"]):
    def of_clock(self, tournament: Tournament | None) -> GroupQuerySet:
        """Those of one `tournament` (a simulation's clock), or of every real tournament."""
        if tournament is not None:
            return self.filter(round__tournament=tournament)
        return self.filter(round__tournament__simulated=False)

    def for_the_clock(self, now: datetime, tournament: Tournament | None = None) -> GroupQuerySet:
        """In one query, every open group the clock has work for at `now`: those `due`, and those on
        phones whose table has moved since its turns were read or whose time is up (its buzzer)."""
        running = models.Q(round__paused_at__isnull=True)
        # Due: time and grace are over (the clock makes them final), never in a paused round (its
        # ends move when it resumes).
        due = models.Q(final_at__lte=now) & running
        moved = models.Q(table__isnull=False, table__moves_made__gt=models.F("table_moves_read"))
        at_buzzer = models.Q(table__isnull=False, ends_at__lte=now) & running
        return self.filter(due | moved | at_buzzer, status=Group.Status.PLAYING).of_clock(tournament)


class Group(models.Model):
    """One table of a round, or a play-off among players tied at the line (`play_off` > 0)."""

    class Status(models.TextChoices):
        PLAYING = "playing", gettext_lazy("Playing")
        FINAL = "final", gettext_lazy("Scores final")

    class Result(models.TextChoices):
        """Where a final group's result stands (issue 46): only a confirmed one counts."""

        NONE = "", gettext_lazy("Not reported yet")  # still playing
        REPORTED = "reported", gettext_lazy("Waiting for confirmation")
        DISPUTED = "disputed", gettext_lazy("Disputed: the director settles it")
        CONFIRMED = "confirmed", gettext_lazy("Confirmed")

    round = models.ForeignKey(TournamentRound, on_delete=models.CASCADE, related_name="groups")
    number = models.PositiveSmallIntegerField()  # the table number; play-offs follow the tables
    play_off = models.PositiveSmallIntegerField(default=0)  # 0 = a table of the round, n = play-off n
    # What the group's signed QR link carries (never the id).
    code = models.CharField(max_length=16, unique=True, default=new_code)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PLAYING)
    # Timed groups: no new turn from ends_at; the turn under way until final_at (ends_at + grace).
    # A play-off is untimed (both None): it is final once everyone has played their turn.
    ends_at = models.DateTimeField(null=True, blank=True)
    final_at = models.DateTimeField(null=True, blank=True)
    # A group played on phones: the game table it plays at (None: its phone types in each turn).
    table = models.OneToOneField("games.Table", null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="tournament_group")
    # The table's moves read so far into Turns (tournaments.digital.record_table_turns): the clock
    # reads a table again only when it has moved since.
    table_moves_read = models.PositiveIntegerField(default=0)
    # Set when the group is final (deciding.make_final): the bracket reads confirmed results only.
    result = models.CharField(max_length=10, choices=Result.choices, default=Result.NONE, blank=True)

    objects = GroupQuerySet.as_manager()

    ON_PHONES = gettext_noop("This table plays on phones: its turns come from the game table, nobody types them. "
                      "A mistake is the director's to correct.")

    class Meta:
        ordering = ["number"]
        constraints = [models.UniqueConstraint(fields=["round", "number"], name="group_unique_number")]
        indexes = [models.Index(fields=["status", "final_at"], name="group_status_final_at")]

    def __str__(self) -> str:
        if self.play_off:
            return _("Play-off %(number)s") % {"number": self.play_off}
        return pgettext("bunco", "Table %(number)s") % {"number": self.number}

    @property
    def channel_data(self) -> dict[str, Any]:
        return {"round": self.round.number, "group": self.number}

    @property
    def is_timed(self) -> bool:
        return self.ends_at is not None

    @property
    def on_phones(self) -> bool:
        """Whether the group plays at a game table (its turns come from the table, never typed)."""
        return self.table_id is not None

    def players(self) -> list[Entrant]:
        return [seat.entrant for seat in self.seats.select_related("entrant").order_by("position")]

    def live_turns(self) -> models.QuerySet[Turn]:
        """The entered turns that stand (not undone, not undos), in order."""
        return self.turns.filter(undone_by__isnull=True).exclude(kind=Turn.Kind.UNDO).order_by("id")

    def scores(self, players: list[Entrant] | None = None) -> dict[str, int]:
        """The scoresheet by name, replayed from the turns (brackets.replay_turns)."""
        players = self.players() if players is None else players
        names = {entrant.pk: entrant.name for entrant in players}
        turns = [
            brackets.TurnEntry(names[entrant_id], points, vengeance)
            for entrant_id, points, vengeance in self.live_turns().values_list("entrant_id", "points", "vengeance")
        ]
        return brackets.replay_turns(list(names.values()), turns, penalty=self.round.tournament.vengeance_penalty)

    def next_player(self, players: list[Entrant] | None = None) -> Entrant | None:
        """Whose turn it is: the seat after the last entered turn (seat order, from the first seat)."""
        players = self.players() if players is None else players
        if not players:
            return None
        last = self.live_turns().filter(kind=Turn.Kind.TURN).order_by("-id").values_list("entrant_id", flat=True).first()
        ids = [entrant.pk for entrant in players]
        if last is None or last not in ids:
            return players[0]
        return players[(ids.index(last) + 1) % len(players)]

    def turn_refusal(self, now: datetime) -> str | None:
        """Why this group takes no new turn at `now`; None if it does. The one rule for the action
        that records a turn and the group page that offers the form."""
        if self.status == Group.Status.FINAL:
            if self.is_timed and self.round.ended_now:
                return _("The director ended %(round)s now: %(group)s's scores are final.") % {"round": self.round, "group": self}
            if self.is_timed:
                return _("Time is up: %(group)s's scores are final.") % {"group": self}
            return _("%(group)s's scores are final.") % {"group": self}
        if self.on_phones:
            return _(self.ON_PHONES)
        if self.play_off:
            played = set(self.live_turns().values_list("entrant_id", flat=True))
            if all(seat.entrant_id in played for seat in self.seats.all()):
                return _("Everyone has played their play-off turn.")
            return None
        if self.round.is_paused:
            return _("The director has paused the clock: no new turn starts. Enter the turn under way once it resumes.")
        assert self.ends_at is not None and self.final_at is not None
        if now < self.ends_at:
            return None
        if now >= self.final_at:
            return _("Time is up and the grace period is over: %(group)s's scores are final.") % {"group": self}
        if self.live_turns().filter(created_at__gte=self.ends_at).exists():
            return _("Time is up: the turn under way has been entered, no new turn may start.")
        return None

    def next_play_off(self) -> Group | None:
        """The play-off this group's phone goes on to, once the group is final: the round's open
        play-off among this group's players (its players tied at the line, or a play-off that tied
        again). None when there is none (the round is decided, or the director decides ties)."""
        if self.status != Group.Status.FINAL or self.round.status != TournamentRound.Status.PLAY_OFF:
            return None
        return (Group.objects.filter(round_id=self.round_id, play_off__gt=self.play_off, status=Group.Status.PLAYING,
                                     seats__entrant__in=self.seats.values("entrant"))
                .order_by("-play_off").first())

    def phones_refusal(self, now: datetime) -> str | None:
        """Why the director can't put this one group on phones now; None if they can: a table of
        a round under way, before its time is up and before any turn is entered. The action and
        the group's page both ask."""
        if self.on_phones:
            return _("%(group)s already plays on phones.") % {"group": self}
        if self.play_off:
            return _("A play-off is one typed turn each: it has no game table.")
        if self.status == Group.Status.FINAL or self.ends_at is None or now >= self.ends_at:
            return _("%(group)s's time is up.") % {"group": self}
        if self.turns.exists():
            return _("%(group)s has entered turns on its phone: it plays on as it began.") % {"group": self}
        return None

    def extend_refusal(self, now: datetime) -> str | None:
        """Why the director can't give this group more time at `now`; None if they can. The action
        and the dashboard's "+2 min" button both ask."""
        if self.status == Group.Status.FINAL or self.final_at is None:
            return _("%(group)s's scores are final.") % {"group": self} if self.is_timed else _("A play-off has no clock.")
        if now >= self.final_at:
            return _("%(group)s's time and grace period are over.") % {"group": self}
        if self.round.is_paused:
            return _("The clock is paused: resume it, then give the table more time.")
        if self.on_phones and self.ends_at is not None and now >= self.ends_at:
            return (_("Time is up at %(group)s's game table: the buzzer has sounded, the turn under way plays out.")
                    % {"group": self})
        return None

    def correction_refusal(self, round_: TournamentRound | None = None) -> str | None:
        """Why the director can't strike out or correct this group's entries now; None if they can:
        a table's scores change until its round is ranked (the cut is made from them), a play-off's
        until it is final (it is resolved from them). The actions (with the round they locked) and
        the group's page both ask."""
        round_ = round_ or self.round
        if self.play_off and self.status == Group.Status.FINAL and not self.result_waits:
            return _("%(group)s is resolved: its scores can no longer change.") % {"group": self}
        if not self.play_off and round_.status != TournamentRound.Status.PLAYING:
            return _("%(round)s is ranked: its scores can no longer change.") % {"round": round_}
        return None

    def last_report_at(self) -> datetime:
        """When the group last reported: its last entry on the scoresheet, else its round's start
        (a table on phones reports at its game table: the desk reads its moves)."""
        last = self.turns.order_by("-id").values_list("created_at", flat=True).first()
        return max(last, self.round.started_at) if last is not None else self.round.started_at

    def quiet_for(self, now: datetime, since: datetime | None = None) -> int | None:
        """Seconds the group has been quiet at `now` on its round's clock (since its last report,
        or `since`), or None when silence means nothing: the group is final, the clock is paused
        or waits for the phones to take their seats."""
        if self.status != Group.Status.PLAYING or self.round.is_paused or self.round.seating:
            return None
        return max(0, int((now - (since or self.last_report_at())).total_seconds()))

    @property
    def result_counts(self) -> bool:
        """Whether the group's result counts: final and confirmed (or needing no confirmation)."""
        return self.result == Group.Result.CONFIRMED

    @property
    def result_waits(self) -> bool:
        """Reported or disputed: final, but not counted until confirmed or settled."""
        return self.result in (Group.Result.REPORTED, Group.Result.DISPUTED)

    def needs_confirmation(self) -> bool:
        """Whether this group's result, once final, waits for a confirmation: in a tournament that
        asks for them, a typed table (a game table's result the server computed), not practice."""
        return (self.round.tournament.confirm_results and not self.on_phones
                and not self.round.is_practice)

    def reporting_phones(self) -> set[str]:
        """The phones that entered the group's turns: the reporters, who do not confirm."""
        return {phone for phone in self.turns.exclude(phone="").values_list("phone", flat=True)}

    def confirm_refusal(self) -> str | None:
        """Why a player's phone can't confirm or dispute this group's result now; None if it can.
        The actions and the group's page both ask."""
        if self.result == Group.Result.NONE:
            return _("%(group)s is still playing: its result is confirmed once its scores are final.") % {"group": self}
        if self.result == Group.Result.DISPUTED:
            return _("%(group)s's result is disputed: it is locked until the director settles it.") % {"group": self}
        if self.result == Group.Result.CONFIRMED:
            return _("%(group)s's result is confirmed.") % {"group": self}
        return None

    def seconds_left(self, now: datetime) -> int:
        if self.ends_at is None:
            return 0
        return max(0, int((self.ends_at - now).total_seconds()))


class GroupSeat(models.Model):
    group = models.ForeignKey(Group, on_delete=models.CASCADE, related_name="seats")
    entrant = models.ForeignKey(Entrant, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(fields=["group", "position"], name="groupseat_unique_position"),
            models.UniqueConstraint(fields=["group", "entrant"], name="groupseat_unique_entrant"),
        ]

    def __str__(self) -> str:
        return f"{self.entrant} at {self.group}"


class Turn(models.Model):
    """One entry on a group's scoresheet. Append-only: an undo is a new row pointing at the entry."""

    class Kind(models.TextChoices):
        TURN = "turn", gettext_lazy("Turn")
        CORRECTION = "correction", gettext_lazy("Director's correction")
        UNDO = "undo", gettext_lazy("Undo")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="turns")
    group = models.ForeignKey(Group, on_delete=models.CASCADE, related_name="turns")
    entrant = models.ForeignKey(Entrant, on_delete=models.CASCADE, related_name="turns")
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.TURN)
    points = models.IntegerField(default=0)  # banked; 0 for a bust; negative for a Must Bust penalty
    vengeance = models.BooleanField(default=False)
    by_director = models.BooleanField(default=False)
    undoes = models.OneToOneField("self", null=True, blank=True, on_delete=models.CASCADE, related_name="undone_by")
    # One per request a phone may retry: the same key is the same entry.
    key = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001
    # The phone that entered it (its games.phones token; "" for the director or a game table): a
    # phone that reported a result never confirms it.
    phone = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["tournament", "key"], name="turn_unique_key")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.entrant_id} {self.points:+d}"


class CheckIn(models.Model):
    """A player checked in (issue 46), append-only: how (the projector's code, their personal link,
    the director's tap), from which phone, with the key of the request a phone may retry."""

    class How(models.TextChoices):
        CODE = "code", gettext_lazy("Scanned the projector's code")
        LINK = "link", gettext_lazy("Personal link")
        DIRECTOR = "director", gettext_lazy("The director")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="check_ins")
    entrant = models.ForeignKey(Entrant, on_delete=models.CASCADE, related_name="check_ins")
    how = models.CharField(max_length=10, choices=How.choices)
    phone = models.CharField(max_length=64, blank=True, default="")
    key = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["tournament", "key"], name="checkin_unique_key")]

    def __str__(self) -> str:
        return f"{self.entrant_id} {self.how}"


class ResultEntry(models.Model):
    """The log of a group's result (issue 46), append-only: reported (the scores as they stood),
    confirmed or disputed by a player's phone, confirmed or settled by the director (who, when,
    and what changed since it was reported)."""

    class Kind(models.TextChoices):
        REPORTED = "reported", gettext_lazy("Reported")
        CONFIRMED = "confirmed", gettext_lazy("Confirmed")
        DISPUTED = "disputed", gettext_lazy("Disputed")
        SETTLED = "settled", gettext_lazy("Settled by the director")

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="result_entries")
    group = models.ForeignKey(Group, on_delete=models.CASCADE, related_name="result_entries")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    entrant = models.ForeignKey(Entrant, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    director = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="+")
    phone = models.CharField(max_length=64, blank=True, default="")
    # The scores by name when it was reported; for a settlement, {name: [reported, settled]} of
    # those that changed.
    scores = models.JSONField(default=dict, blank=True)
    key = models.CharField(max_length=64, null=True, blank=True)  # noqa: DJ001
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["tournament", "key"], name="resultentry_unique_key")]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.group_id}"


def round_length(tournament: Tournament, sizes: list[int]) -> list[timedelta]:
    """Each group's playing time: one length, or minutes per player when the sizes differ."""
    if tournament.per_player_minutes and len(set(sizes)) > 1:
        return brackets.round_lengths(sizes, per_player=tournament.per_player_minutes)
    return brackets.round_lengths(sizes, minutes=tournament.round_minutes)
