"""The club domain: clubs, their members and alternates, seasons, parties, RSVPs, substitutes,
swap requests, the nights' records and the reminders sent, and the Bunco box (its checklist and
the custody log of its hand-overs).

This app never imports `games` or `tournaments` models (docs/DESIGN.md §2): a night may belong to a
party, not the other way round, and reports its results through `actions.record_night_results`.
The house rules' choices (ties at a table, prize amounts) are the pure engine's (`games.rules`,
the ground floor): one list, which the night's form offers too.
"""

from __future__ import annotations

import datetime
import secrets
import zoneinfo
from dataclasses import asdict
from typing import Any

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone
from django.utils.formats import number_format
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from bunco_club import custody, money
from bunco_club.links import my_club_path
from bunco_club.standings import Line, Standing, season_standings
from games.rules import bunco, prizes
from games.rules.prizes import PrizeAmounts  # how a club cuts the pot: the engine's choice

# How long the text a host types may be (issue 21): each is read by its column, its form field and
# the action that saves it (which refuses longer, whoever calls it). A party's notes go into every
# calendar feed that carries the party (bunco_club/ical.py).
CLUB_NAME_MAX = 80
NAME_MAX = 60  # a member's name, a season's
PLACE_MAX = 200  # a club's usual place, a party's address
PHONE_MAX = 30
EMAIL_MAX = 254  # the longest address SMTP carries (RFC 5321), Django's EmailField's column
NOTES_MAX = 2000  # a party's notes: its column (a TextField) holds any length, this is the cap
RSVP_NOTE_MAX = 200  # a member's note with their answer ("bringing dessert")
CUTOFF_HOURS_MAX = 336  # a club's answers' cutoff: two weeks before a party at most
DISH_NAME_MAX = 60  # a dish slot's name ("appetizer")
DISH_WANTED_MAX = 20  # how many of one dish a host may ask for


def new_code() -> str:
    """An unguessable code: what a member's personal link and a club's feed carry (never an id)."""
    return secrets.token_urlsafe(18)


def seven_in_the_evening() -> datetime.time:
    """A club's usual time until its host says otherwise. A callable, not a fixed `time(19, 0)`:
    Django's check warns of a fixed time default (fields.W161) when it runs within ten seconds of
    it, and `check --deploy --fail-level WARNING` failed at 19:00 UTC."""
    return datetime.time(19, 0)


class MoneyVisibleTo(models.TextChoices):
    """Who sees a club's money besides its hosts and treasurers: its members (each their own
    entries, and the balance), or nobody else. Nobody outside the club, ever."""

    MEMBERS = "members", _("Members see their own entries and the balance")
    HOSTS = "hosts", _("Only the hosts and the treasurer")


class Club(models.Model):
    name = models.CharField(max_length=CLUB_NAME_MAX)
    slug = models.SlugField(unique=True)
    hosts = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="hosted_clubs", blank=True)
    buy_in_cents = models.PositiveIntegerField(default=500)
    created_at = models.DateTimeField(auto_now_add=True)
    place = models.CharField(_("usual place"), max_length=PLACE_MAX, blank=True)
    usual_time = models.TimeField(default=seven_in_the_evening)
    # Days before a party that members who haven't answered get a nudge (before the answers'
    # cutoff when the club counts its members as coming by default).
    rsvp_nudge_days = models.PositiveSmallIntegerField(default=3)
    # Attending by default (issue 45): the regulars are counted as coming to every party unless
    # they say no before the cutoff, this many hours before the party (`Party.cutoff`); a "no"
    # after it is a late cancellation, which the hosts alone see.
    attending_by_default = models.BooleanField(default=False)
    answer_cutoff_hours = models.PositiveSmallIntegerField(default=48)
    # The club's calendar feed (an unguessable URL a phone's calendar subscribes to).
    feed_code = models.CharField(max_length=40, unique=True, default=new_code)
    # The house rules every night of the club starts with: the fields of games.rules.bunco.Rules and
    # games.rules.prizes.PrizeRules, by the same names (`night_rules`, `prize_rules`).
    baby_bunco_ends_turn = models.BooleanField(_("a baby bunco (+5) ends the turn"), default=False)
    wipeout = models.BooleanField(_("three 1s wipe out the team's points"), default=False)
    head_losers_to_last_table = models.BooleanField(_("head-table losers go to the last table"), default=False)
    tie_break = models.CharField(_("ties at a table"), max_length=12, choices=bunco.TIE_BREAKS,
                                 default=bunco.OFFICIAL.tie_break)
    one_prize_each = models.BooleanField(_("one prize per player"), default=False)
    split_ties = models.BooleanField(_("tied players share a prize"), default=False)
    prize_amounts = models.CharField(_("prize amounts"), max_length=24, choices=prizes.PRIZE_AMOUNTS,
                                     default=prizes.CLUB_PRIZE_RULES.amounts.value)
    # The IANA zone the club meets in: times are entered, shown, mailed and put in calendars in it.
    time_zone = models.CharField(max_length=64, default="UTC")
    # The address (scheme://host[:port]) the site was last reached at by one of the club's hosts:
    # what emails and calendar entries link to when settings.SITE_URL is not set.
    site_address = models.CharField(max_length=200, blank=True)
    # The club's language (settings.LANGUAGES): its members' until they choose their own, and the
    # club-wide pages' and feed's (docs/I18N.md, "Who sees which language").
    language = models.CharField(max_length=8, choices=settings.LANGUAGES, default="en")
    # The treasury (issue 45): who sees its money, and whether a buy-in unpaid keeps a seat.
    money_visible_to = models.CharField(_("who sees the money"), max_length=8, choices=MoneyVisibleTo.choices,
                                        default=MoneyVisibleTo.MEMBERS)
    paid_keeps_seat = models.BooleanField(_("paid tonight keeps your seat next month"), default=False)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def members_see_money(self) -> bool:
        """Members see their own entries and the balance (else only the hosts and a treasurer)."""
        return self.money_visible_to == MoneyVisibleTo.MEMBERS

    def is_hosted_by(self, user: object) -> bool:
        user_id = getattr(user, "pk", None)
        return bool(getattr(user, "is_authenticated", False)) and self.hosts.filter(pk=user_id or 0).exists()

    @property
    def zone(self) -> zoneinfo.ZoneInfo:
        """The club's time zone (UTC for a name this machine does not know)."""
        try:
            return zoneinfo.ZoneInfo(self.time_zone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            return zoneinfo.ZoneInfo("UTC")

    def local(self, moment: datetime.datetime) -> datetime.datetime:
        """A moment as the club's clocks show it."""
        return timezone.localtime(moment, self.zone)

    def at(self, day: datetime.date, time: datetime.time) -> datetime.datetime:
        """The moment a day and a time mean in the club's zone."""
        return timezone.make_aware(datetime.datetime.combine(day, time), self.zone)

    @property
    def buy_in_label(self) -> str:
        return f"${self.buy_in_cents / 100:.2f}"

    def night_rules(self) -> dict[str, object]:
        """The club's house rules as keyword arguments of games.rules.bunco.Rules."""
        return {name: getattr(self, name) for name in bunco.RULE_FIELDS}  # a column per rule, named as in Rules

    def prize_rules(self) -> dict[str, object]:
        """The club's prize scheme as keyword arguments of games.rules.prizes.PrizeRules (what its
        `prize_amounts` stands for is the engine's `PrizeAmounts.rules`)."""
        return asdict(PrizeAmounts(self.prize_amounts).rules(one_prize_each=self.one_prize_each,
                                                               split_ties=self.split_ties))


class MemberQuerySet(models.QuerySet["Member"]):
    def regulars(self) -> MemberQuerySet:
        return self.filter(is_alternate=False, is_active=True)

    def alternates(self) -> MemberQuerySet:
        """The sub list, in its order."""
        return self.filter(is_alternate=True, is_active=True).order_by("sub_order", "pk")

    def retired(self) -> MemberQuerySet:
        return self.filter(is_active=False)


class Member(models.Model):
    """A person on a club's roster; alternates ("the sub list") fill in when a regular cancels."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="members")
    name = models.CharField(max_length=NAME_MAX)
    email = models.EmailField(max_length=EMAIL_MAX, blank=True)
    phone = models.CharField(max_length=PHONE_MAX, blank=True)
    is_alternate = models.BooleanField(default=False)
    is_active = models.BooleanField(default=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    # What the member's signed personal link carries; a new code revokes the old link.
    code = models.CharField(max_length=40, unique=True, default=new_code)
    sub_order = models.PositiveIntegerField(default=0)  # place on the sub list (alternates)
    # The member this one hosts with (both sides point at each other): one slot in the rotation.
    cohost = models.OneToOneField("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    # The member's language (settings.LANGUAGES) for their page, mails and calendar; blank until
    # their link is first opened (their phone's) or they choose: the club's meanwhile.
    language = models.CharField(max_length=8, choices=settings.LANGUAGES, blank=True)
    # A treasurer sees the club's whole ledger and writes in it, as its hosts do (issue 45).
    is_treasurer = models.BooleanField(default=False)

    objects = MemberQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["club", "name"], name="member_unique_name_in_club")]

    def __str__(self) -> str:
        return self.name

    @property
    def my_club_path(self) -> str:
        """The member's personal page (their signed link)."""
        return my_club_path(self.code)

    @property
    def status(self) -> str:
        """Where the member stands, as a person reads it (in the reader's language)."""
        if not self.is_active:
            return gettext("retired")
        return gettext("alternate") if self.is_alternate else gettext("regular")

    @property
    def reads(self) -> str:
        """The language the member reads their page, mails and calendar in: theirs, else the club's."""
        return self.language or self.club.language


class Season(models.Model):
    """A club's year (or any run of parties) with its hosting rotation."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="seasons")
    name = models.CharField(max_length=NAME_MAX)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [models.UniqueConstraint(fields=["club", "name"], name="season_unique_name_in_club")]

    def __str__(self) -> str:
        return f"{self.club}: {self.name}"


class Blackout(models.Model):
    """A date a member can't host (nor, usually, come)."""

    member = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="blackouts")
    date = models.DateField()

    class Meta:
        ordering = ["date"]
        constraints = [models.UniqueConstraint(fields=["member", "date"], name="blackout_once_a_date")]

    def __str__(self) -> str:
        return f"{self.member} away {self.date:%d %b %Y}"


# A party stays "coming up" until twelve hours after it starts (a night runs late).
PAST_AFTER = datetime.timedelta(hours=12)
# A dish slot still empty this close to a party gets a suggestion of who brings it (the rotation's).
DISH_SUGGESTION_DAYS = datetime.timedelta(days=5)


def _night_played() -> models.Q:
    """Whether a party's night has been played: its night ended (PartyQuerySet)."""
    return models.Q(played_at__isnull=False)


class PartyQuerySet(models.QuerySet["Party"]):
    """A party is played once its night has ended (`played_at`, which the night reports through
    `actions.record_night_played` as it ends), whatever its date says: a night played before the
    party's date is a played party on every list at once (issue 29, C10; issue 42, C1: before, it
    was played only once the night's sheets came in, when the host opened Prizes)."""

    def played(self) -> PartyQuerySet:
        return self.filter(_night_played())

    def unplayed(self) -> PartyQuerySet:
        return self.filter(~_night_played())

    def upcoming(self) -> PartyQuerySet:
        """The parties still to come (cancelled ones included: they say so), their night not played."""
        return self.unplayed().filter(starts_at__gte=timezone.now() - PAST_AFTER).order_by("starts_at")

    def past(self) -> PartyQuerySet:
        """The parties over: their date has gone by, or their night has been played."""
        return self.filter(models.Q(starts_at__lt=timezone.now() - PAST_AFTER) | _night_played()).order_by("-starts_at")

    def hosted_by(self, member: Member) -> PartyQuerySet:
        return self.filter(models.Q(host=member) | models.Q(cohost=member))


class Party(models.Model):
    """One monthly get-together at a member's home."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="parties")
    starts_at = models.DateTimeField()
    host = models.ForeignKey(Member, null=True, blank=True, on_delete=models.SET_NULL, related_name="hosted_parties")
    location = models.CharField(max_length=PLACE_MAX, blank=True)
    notes = models.TextField(blank=True)  # NOTES_MAX at most (the actions')
    season = models.ForeignKey(Season, null=True, blank=True, on_delete=models.SET_NULL, related_name="parties")
    cohost = models.ForeignKey(Member, null=True, blank=True, on_delete=models.SET_NULL, related_name="cohosted_parties")
    # Seats given up by a "no" after a "yes" that no alternate has taken yet (changed under a row lock).
    open_seats = models.PositiveSmallIntegerField(default=0)
    # iCal: bumped whenever the party's time, place or host changes, so calendars update it.
    sequence = models.PositiveIntegerField(default=0)
    # A host can mark a past night as not counting towards the standings.
    counts = models.BooleanField(default=True)
    # A cancelled party stays (calendars show it as cancelled); nobody answers for it any more.
    cancelled_at = models.DateTimeField(null=True, blank=True)
    # When its night ended (reported by the night: `actions.record_night_played`): from then on the
    # party is played on every list, whatever its date says.
    played_at = models.DateTimeField(null=True, blank=True)

    objects = PartyQuerySet.as_manager()

    class Meta:
        ordering = ["starts_at"]
        verbose_name_plural = "parties"

    def __str__(self) -> str:
        return f"{self.club} — {self.local_start:%a %d %b %Y}"

    @property
    def is_played(self) -> bool:
        """Its night has been played (the night reported its end), as `PartyQuerySet.played`."""
        return self.played_at is not None

    @property
    def is_past(self) -> bool:
        """Over: its date has gone by or its night has been played (as `PartyQuerySet.past`)."""
        return self.starts_at < timezone.now() - PAST_AFTER or self.is_played

    @property
    def is_cancelled(self) -> bool:
        return self.cancelled_at is not None

    @property
    def takes_answers(self) -> bool:
        """Whether members can still answer for this party (one rule for the action and the pages)."""
        return not self.is_past and not self.is_cancelled

    @property
    def local_start(self) -> datetime.datetime:
        """The party's start on the club's clocks."""
        return self.club.local(self.starts_at)

    @property
    def day(self) -> datetime.date:
        """The party's date in the club's zone (what dates away are compared with)."""
        return self.local_start.date()

    def hosts_label(self) -> str:
        names = [member.name for member in (self.host, self.cohost) if member is not None]
        return " & ".join(names) if names else gettext("no host yet")

    def hosted_by_label(self) -> str:
        """"hosted by Ada & Bea", or "no host yet": never "hosted by no host yet" (issue 42)."""
        label = self.hosts_label()
        if self.host is None and self.cohost is None:
            return label
        return gettext("hosted by %(hosts)s") % {"hosts": label}

    def is_hosted_by_member(self, member: Member) -> bool:
        return member.pk is not None and member.pk in (self.host_id, self.cohost_id)

    # --- Attending by default: the one rule of the cutoff and of who counts as coming -----------

    @property
    def cutoff(self) -> datetime.datetime:
        """The moment answers are due: the club's `answer_cutoff_hours` before the party. A "no"
        after it from someone counted as coming is a late cancellation."""
        return self.starts_at - datetime.timedelta(hours=self.club.answer_cutoff_hours)

    def is_past_cutoff(self, now: datetime.datetime | None = None) -> bool:
        return (now or timezone.now()) >= self.cutoff

    def counts_as_coming(self, member: Member, answer: str | None) -> bool:
        """Whether `member`, whose answer is `answer` (None: no answer), counts as coming: a yes, or,
        where the club counts its members by default, a regular who has not answered."""
        if answer is not None:
            return answer == RSVP.Answer.YES
        return self.club.attending_by_default and member.is_active and not member.is_alternate

    def is_late_cancellation(self, member: Member, before: str | None, answer: str,
                             now: datetime.datetime | None = None) -> bool:
        """Where the club counts its members as coming by default: a "no" after the cutoff from
        someone who counted as coming (`before`: their answer until now)."""
        return (self.club.attending_by_default and answer == RSVP.Answer.NO and self.is_past_cutoff(now)
                and self.counts_as_coming(member, before))

    def nudges_between(self) -> tuple[datetime.datetime, datetime.datetime]:
        """When members who haven't answered are nudged: from the club's `rsvp_nudge_days` before
        the party until it starts; before the cutoff instead when members count as coming by default
        (their nudge is their last chance to say no in time)."""
        until = self.cutoff if self.club.attending_by_default else self.starts_at
        return until - datetime.timedelta(days=self.club.rsvp_nudge_days), until

    def coming_members(self) -> list[Member]:
        """Who is coming, by name: the yes answers and, by default, the regulars who haven't answered."""
        answers = dict(self.rsvps.values_list("member_id", "answer"))
        members = self.club.members.filter(is_active=True).order_by("name")
        return [member for member in members if self.counts_as_coming(member, answers.get(member.pk))]

    def coming_names(self) -> list[str]:
        """The members who are coming (`coming_members`), by name: whom a night or a game table
        opened for this party seats first."""
        return [member.name for member in self.coming_members()]

    def dishes_suggested(self, now: datetime.datetime | None = None) -> bool:
        """Whether the fair rotation suggests who brings the dishes still missing: from
        DISH_SUGGESTION_DAYS before the party, while it takes answers."""
        return self.takes_answers and (now or timezone.now()) >= self.starts_at - DISH_SUGGESTION_DAYS


class RSVP(models.Model):
    class Answer(models.TextChoices):
        YES = "yes", _("Coming")
        NO = "no", _("Can't come")
        MAYBE = "maybe", _("Maybe")

    party = models.ForeignKey(Party, on_delete=models.CASCADE, related_name="rsvps")
    member = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="rsvps")
    answer = models.CharField(max_length=5, choices=Answer.choices)
    answered_at = models.DateTimeField(auto_now=True)
    note = models.CharField(max_length=RSVP_NOTE_MAX, blank=True)  # "bringing dessert", for the host
    # Whether the buy-in is paid is the ledger's (LedgerEntry, `LedgerEntryQuerySet.buy_ins`), not a column here.
    # A regular's "no" (or a "maybe" after a "yes") gives their seat to the sub list, once.
    gave_up_seat = models.BooleanField(default=False)
    # A "no" after the party's cutoff from someone counted as coming (`Party.is_late_cancellation`):
    # counted for the hosts alone; a later "yes" clears it.
    cancelled_late = models.BooleanField(default=False)
    # The seat was given to the sub list under "paid tonight keeps your seat next month"
    # (`actions.release_unpaid_seats`, `release_due_seats`): the sweep never gives it away twice.
    seat_released_unpaid = models.BooleanField(default=False)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["party", "member"], name="rsvp_one_per_member")]

    def __str__(self) -> str:
        return f"{self.member}: {self.get_answer_display()}"


class RSVPRequest(models.Model):
    """An RSVP as a phone sent it, by its idempotency key: the same key again is a retry (answered
    as before), the same key with other content is refused."""

    key = models.CharField(max_length=64)
    member = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="+")
    party = models.ForeignKey(Party, on_delete=models.CASCADE, related_name="+")
    answer = models.CharField(max_length=5)
    note = models.CharField(max_length=RSVP_NOTE_MAX, blank=True)
    sent_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["member", "key"], name="rsvp_request_key_once_a_member")]

    def __str__(self) -> str:
        return f"{self.member}: {self.key}"


class SubInvitation(models.Model):
    """An alternate invited to a party's seat that a regular gave up; the first to accept takes it."""

    class Status(models.TextChoices):
        INVITED = "invited", _("Invited")
        ACCEPTED = "accepted", _("Took the seat")
        DECLINED = "declined", _("Declined")
        TOO_LATE = "too_late", _("Seat already taken")

    party = models.ForeignKey(Party, on_delete=models.CASCADE, related_name="sub_invitations")
    member = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="sub_invitations")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.INVITED)
    invited_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["invited_at", "pk"]
        constraints = [models.UniqueConstraint(fields=["party", "member"], name="sub_invited_once_a_party")]

    def __str__(self) -> str:
        return f"{self.member} for {self.party}: {self.get_status_display()}"


class SwapRequest(models.Model):
    """A host asks another member to swap hosting dates; the other accepts or declines."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting for an answer")
        ACCEPTED = "accepted", pgettext_lazy("swap", "Accepted")
        DECLINED = "declined", pgettext_lazy("swap", "Declined")

    requested_by = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="swaps_asked")
    asked = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="swaps_received")
    # The requester's party and the one they'd take instead (the asked member's).
    give = models.ForeignKey(Party, on_delete=models.CASCADE, related_name="+")
    take = models.ForeignKey(Party, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.requested_by} ↔ {self.asked}: {self.get_status_display()}"


class NightRecordQuerySet(models.QuerySet["NightRecord"]):
    def counting(self) -> NightRecordQuerySet:
        """The records of nights that count (a host can mark a night as not counting)."""
        return self.filter(party__counts=True)

    def standings(self) -> list[Standing]:
        """Each player's nights, wins, losses, Buncos and prize money over these records, best
        first (bunco_club/standings.py): a member by their roster name, a guest by theirs."""
        return season_standings(
            Line(night=record.party_id, name=record.member.name if record.member else record.name, wins=record.wins,
                 losses=record.losses, buncos=record.buncos, prize_cents=record.prize_cents)
            for record in self.select_related("member")
        )


class NightRecord(models.Model):
    """One player's sheet of one party's night, as the night reported it (append-only per night:
    a corrected night replaces its own rows). Standings are derived from these, never stored."""

    party = models.ForeignKey(Party, on_delete=models.CASCADE, related_name="records")
    member = models.ForeignKey(Member, null=True, blank=True, on_delete=models.SET_NULL, related_name="records")
    name = models.CharField(max_length=NAME_MAX)
    wins = models.PositiveSmallIntegerField(default=0)
    losses = models.PositiveSmallIntegerField(default=0)
    buncos = models.PositiveSmallIntegerField(default=0)
    prize_cents = models.PositiveIntegerField(default=0)
    prizes = models.CharField(max_length=200, blank=True)  # the prizes won, comma-separated
    recorded_at = models.DateTimeField(auto_now_add=True)

    objects = NightRecordQuerySet.as_manager()

    class Meta:
        ordering = ["pk"]
        constraints = [models.UniqueConstraint(fields=["party", "name"], name="record_one_per_name_a_night")]

    def __str__(self) -> str:
        return f"{self.name}: {self.wins}–{self.losses}, {self.buncos} Buncos"

    @property
    def prize_dollars(self) -> str:
        return f"{self.prize_cents / 100:.2f}"

    @property
    def prizes_label(self) -> str:
        """The prizes won, in the reader's language: the night stores the engine's English titles
        (games.rules.prizes.PRIZE_TITLES), each translated here as the catalog has it."""
        return ", ".join(gettext(title) for title in self.prizes.split(", ")) if self.prizes else ""


class SentReminder(models.Model):
    """A reminder that went out: the unique key makes each one go once, however often the job runs."""

    key = models.CharField(max_length=120, unique=True)
    kind = models.CharField(max_length=20)
    party = models.ForeignKey(Party, null=True, blank=True, on_delete=models.CASCADE, related_name="reminders")
    member = models.ForeignKey(Member, null=True, blank=True, on_delete=models.CASCADE, related_name="reminders")
    sent_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-sent_at"]

    def __str__(self) -> str:
        return self.key


class AccountLanguage(models.Model):
    """The language a signed-in host or director chose with the header's switch: their own, which
    a phone they log in on takes up (bunco_club/site/views.py), whatever that phone read before."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, primary_key=True, on_delete=models.CASCADE,
                                related_name="reading_language")
    language = models.CharField(max_length=8)

    def __str__(self) -> str:
        return f"{self.user_id}: {self.language}"


# --- The Bunco box (issue 45) -------------------------------------------------------------------
# The club's kit as a checklist, and the custody log of who received it when, with what they
# counted. The rules (counts, what is missing, who brings it) are bunco_club/custody.py's; where
# the box is for a party, bunco_club/box.py; the workflows, bunco_club/actions/box.py.


class BoxItem(models.Model):
    """One line of the club's Bunco box checklist: a thing the box holds and how many of it. A host
    edits the list (bunco_club.actions.set_box_kit); each count recorded keeps the list as it was."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="box_items")
    name = models.CharField(max_length=NAME_MAX)
    count = models.PositiveSmallIntegerField(validators=[MinValueValidator(1), MaxValueValidator(custody.COUNT_MAX)])
    position = models.PositiveSmallIntegerField(default=0)  # the checklist's order

    class Meta:
        ordering = ["position", "pk"]
        constraints = [models.UniqueConstraint(fields=["club", "name"], name="box_item_once_a_club")]

    def __str__(self) -> str:
        return f"{self.name} × {self.count}"


class BoxHandOverQuerySet(models.QuerySet["BoxHandOver"]):
    def newest_first(self) -> BoxHandOverQuerySet:
        return self.order_by("-received_at", "-pk")

    def latest_one(self) -> BoxHandOver | None:
        """The last hand-over: whoever received it has the box."""
        return self.newest_first().select_related("received_by").first()


class BoxHandOver(models.Model):
    """The Bunco box received by the host of a party, and what they counted of each item: the
    custody log, append-only (a recount is a new row, never an edit). The box's holder is derived
    from the latest row (`BoxHandOverQuerySet.latest_one`), never stored."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="box_handovers")
    party = models.ForeignKey(Party, null=True, blank=True, on_delete=models.SET_NULL, related_name="box_handovers")
    received_by = models.ForeignKey(Member, null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="box_handovers")
    received_at = models.DateTimeField(auto_now_add=True)
    # What was counted, item by item, with the kit's count of the moment (custody.Line.as_record):
    # [{"name": "Dice", "kit": 12, "counted": 10}, ...].
    counts = models.JSONField(default=list, blank=True)
    by_host = models.BooleanField(default=False)  # a club host recorded it from the club's pages
    # The idempotency key of the phone's "received" (a retry records nothing twice).
    key = models.CharField(max_length=64, blank=True)

    objects = BoxHandOverQuerySet.as_manager()

    class Meta:
        ordering = ["received_at", "pk"]
        constraints = [models.UniqueConstraint(fields=["club", "key"], condition=~models.Q(key=""),
                                               name="box_handover_key_once_a_club")]

    def __str__(self) -> str:
        return f"{self.received_by}: {self.received_at:%d %b %Y}"

    def lines(self) -> list[custody.Line]:
        return custody.lines_of(self.counts)

    def missing(self) -> list[custody.Line]:
        """The items counted fewer than the kit said."""
        return custody.missing(self.lines())


# --- Dishes (issue 45): what each party's table needs and who brings it -------------------------------


class DishSlot(models.Model):
    """A dish a party's host asks for ("dessert") and how many of it."""

    party = models.ForeignKey(Party, on_delete=models.CASCADE, related_name="dish_slots")
    name = models.CharField(max_length=DISH_NAME_MAX)
    wanted = models.PositiveSmallIntegerField(default=1)

    class Meta:
        ordering = ["pk"]
        constraints = [models.UniqueConstraint(fields=["party", "name"], name="dish_slot_unique_name_a_party")]

    def __str__(self) -> str:
        return f"{self.name} ×{self.wanted}"

    def taken(self) -> int:
        return self.signups.count()

    def places_left(self) -> int:
        """How many more the host wants (never below 0)."""
        return max(0, self.wanted - self.taken())


class DishSignupQuerySet(models.QuerySet["DishSignup"]):
    def brought(self) -> DishSignupQuerySet:
        """The dishes brought: to the parties over (played, or their date gone by), not cancelled."""
        over = (models.Q(slot__party__played_at__isnull=False)
                | models.Q(slot__party__starts_at__lt=timezone.now() - PAST_AFTER))
        return self.filter(over, slot__party__cancelled_at__isnull=True)

    def turns(self) -> dict[str, int]:
        """How many dishes each member brought, by name: the rotation's "turns"."""
        counts: dict[str, int] = {}
        for name in self.values_list("member__name", flat=True):
            counts[name] = counts.get(name, 0) + 1
        return counts


class DishSignup(models.Model):
    """A member brings one of a slot's dishes."""

    slot = models.ForeignKey(DishSlot, on_delete=models.CASCADE, related_name="signups")
    member = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="dish_signups")
    signed_at = models.DateTimeField(auto_now_add=True)

    objects = DishSignupQuerySet.as_manager()

    class Meta:
        ordering = ["signed_at", "pk"]
        constraints = [models.UniqueConstraint(fields=["slot", "member"], name="dish_signup_once_a_slot")]

    def __str__(self) -> str:
        return f"{self.member}: {self.slot.name}"


class DishOffer(models.Model):
    """A dish offered to a member, who accepts or declines from their link: the host's suggestion
    (from the rotation: bring one of `slot`), a member giving their dish away (`give`), or a trade
    (`give` for the asked member's `take`). An offer whose dishes changed hands since is stale: an
    answer to it changes nothing."""

    class Kind(models.TextChoices):
        SUGGESTED = "suggested", _("Suggested by the host")
        GIVE = "give", _("Handed over")
        TRADE = "trade", _("Trade")

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting for an answer")
        ACCEPTED = "accepted", pgettext_lazy("dish offer", "Accepted")
        DECLINED = "declined", pgettext_lazy("dish offer", "Declined")

    party = models.ForeignKey(Party, on_delete=models.CASCADE, related_name="dish_offers")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    slot = models.ForeignKey(DishSlot, on_delete=models.CASCADE, related_name="offers")
    to = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="dish_offers")
    by = models.ForeignKey(Member, null=True, blank=True, on_delete=models.CASCADE, related_name="dish_offers_made")
    # The dishes it moves (a withdrawn one leaves the offer stale, never gone).
    give = models.ForeignKey(DishSignup, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    take = models.ForeignKey(DishSignup, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.slot.name} → {self.to}: {self.get_status_display()}"

    def stands(self) -> bool:
        """Whether the offer can still be taken: pending; each dish it moves still where it was;
        the member asked not bringing that dish already (nor, in a trade, the one who offers it
        theirs); for the host's suggestion, a place left."""
        if self.status != self.Status.PENDING or self.slot.signups.filter(member_id=self.to_id).exists():
            return False
        if self.kind == self.Kind.SUGGESTED:
            return self.slot.places_left() > 0
        if self.give_id is None or not DishSignup.objects.filter(pk=self.give_id, member_id=self.by_id or 0).exists():
            return False
        if self.kind == self.Kind.GIVE:
            return True
        take = DishSignup.objects.filter(pk=self.take_id or 0, member_id=self.to_id).first()
        return take is not None and not take.slot.signups.filter(member_id=self.by_id or 0).exists()


class DishRequest(models.Model):
    """A dish request as a phone sent it, by its idempotency key (as RSVPRequest): the same key for
    the same thing is a retry (nothing changes), the same key for anything else is refused."""

    key = models.CharField(max_length=64)
    sender = models.CharField(max_length=20)  # "member:<pk>" or "host:<user pk>"
    what = models.CharField(max_length=60)  # the verb and what it was about: "signup:12"
    sent_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["sender", "key"], name="dish_request_key_once_a_sender")]

    def __str__(self) -> str:
        return f"{self.sender}: {self.key}"


# --- The treasury (issue 45) --------------------------------------------------------------------
# An append-only ledger: every movement of the club's money is an entry, a correction is an entry
# that reverses another, and the balance (the float) and every statement are sums of entries,
# never stored (docs/DESIGN.md §9; the pure rules: bunco_club/money.py).

RECEIPTS_FOLDER = "receipts"
WHAT_MAX = 200  # what a supply was, why an adjustment


class LedgerRefused(Exception):
    """An entry asked to change or go: the ledger only grows (a correction is a reversing entry)."""


class LedgerEntryQuerySet(models.QuerySet["LedgerEntry"]):
    """Entries are never updated or deleted through a query either (a club deleted whole takes its
    ledger with it: Django's cascade goes through the plain base manager, not this one)."""

    def update(self, **kwargs: Any) -> int:
        raise LedgerRefused("Ledger entries are never changed: write a reversing entry.")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise LedgerRefused("Ledger entries are never deleted: write a reversing entry.")

    def balance(self) -> int:
        """The sum of these entries in cents (the float, over a club's whole ledger)."""
        return int(self.aggregate(total=models.Sum("amount_cents"))["total"] or 0)

    def brought_to(self, party: Party) -> int:
        """The float as carried to `party`: the entries of the parties before it, and those of no
        party written before it started (a buy-in of last month paid late counts for last month)."""
        earlier = models.Q(party__starts_at__lt=party.starts_at) | models.Q(party__isnull=True,
                                                                            written_at__lt=party.starts_at)
        return self.filter(earlier).balance()

    def live(self) -> LedgerEntryQuerySet:
        """The entries that stand: neither reversed nor a reversal."""
        return self.filter(reverses__isnull=True, reversal__isnull=True)

    def buy_ins(self) -> LedgerEntryQuerySet:
        return self.filter(kind__in=money.BUY_IN_KINDS)

    def buy_in_states(self) -> dict[tuple[int, int], money.BuyInState]:
        """How each (party id, member id)'s buy-in stands, read from these entries (the caller
        says which stand: `live()`, or as of a moment), oldest first."""
        kinds: dict[tuple[int, int], list[str]] = {}
        rows = self.buy_ins().filter(party__isnull=False, member__isnull=False).order_by("written_at", "pk")
        for party_id, member_id, kind in rows.values_list("party_id", "member_id", "kind"):
            kinds.setdefault((party_id, member_id), []).append(kind)
        return {pair: money.buy_in_state(listed) for pair, listed in kinds.items()}

    def buy_in_state(self) -> money.BuyInState:
        """One member's buy-in for one party (these entries are theirs), from the entries that stand."""
        return money.buy_in_state(self.live().buy_ins().order_by("written_at", "pk").values_list("kind", flat=True))

    def statement(self) -> money.Statement:
        """The figures of these entries (every one: a reversal cancels what it reverses), for the
        club and for each person, with the buy-ins each still owes."""
        lines = [money.Line(kind=kind, amount=amount, member=member_name or name)
                 for kind, amount, member_name, name in self.values_list("kind", "amount_cents", "member__name", "name")]
        figures = money.statement(lines)
        names = dict(Member.objects.filter(pk__in=self.values("member_id")).values_list("pk", "name"))
        for (_party, member_id), state in self.live().buy_in_states().items():
            if state.kind == money.BUY_IN_OWED and member_id in names:
                figures.people.setdefault(names[member_id], money.PersonFigures(names[member_id])).owes += 1
        return figures


class LedgerEntry(models.Model):
    """One movement of a club's money (or a buy-in's state: waived, owed), in whole cents signed as
    the float sees it: money in positive, money out negative. Written once, never changed or
    deleted (`save` on a stored entry and `delete` raise LedgerRefused); a correction reverses it."""

    class Kind(models.TextChoices):
        BUY_IN_CASH = money.BUY_IN_CASH, _("Buy-in paid in cash")
        BUY_IN_OTHER = money.BUY_IN_OTHER, _("Buy-in paid otherwise")
        BUY_IN_WAIVED = money.BUY_IN_WAIVED, _("Buy-in waived")
        BUY_IN_OWED = money.BUY_IN_OWED, _("Buy-in owed")
        PAYOUT = money.PAYOUT, _("Prize paid out")
        SUPPLY = money.SUPPLY, _("Supplies bought")
        DUES = money.DUES, _("Dues")
        ADJUSTMENT = money.ADJUSTMENT, _("Adjustment")

    class TieRule(models.TextChoices):
        NONE = money.TIE_NONE, _("outright")
        SPLIT = money.TIE_SPLIT, _("tie split")
        ROLL_OFF = money.TIE_ROLL_OFF, _("tie rolled off")
        DRAWN = money.TIE_DRAWN, _("drawn at random")

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="ledger")
    party = models.ForeignKey(Party, null=True, blank=True, on_delete=models.RESTRICT, related_name="ledger_entries")
    member = models.ForeignKey(Member, null=True, blank=True, on_delete=models.RESTRICT,
                               related_name="ledger_entries")
    name = models.CharField(max_length=NAME_MAX, blank=True)  # who, as the entry names them (a guest's name)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    amount_cents = models.IntegerField()
    prize = models.CharField(max_length=20, blank=True)  # a payout's prize (games.rules.prizes.PRIZES)
    tie_rule = models.CharField(max_length=10, choices=TieRule.choices, blank=True)
    what = models.CharField(max_length=WHAT_MAX, blank=True)  # what a supply was, why an adjustment
    # A supply's receipt photo, re-encoded without its metadata, in Django's default storage (never
    # a public URL: served by a view that asks who may see it).
    receipt = models.CharField(max_length=200, blank=True)
    receipt_sha256 = models.CharField(max_length=64, blank=True)
    receipt_bytes = models.PositiveIntegerField(default=0)
    written_by_user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                        related_name="+")
    written_by_member = models.ForeignKey(Member, null=True, blank=True, on_delete=models.RESTRICT, related_name="+")
    written_by_name = models.CharField(max_length=150, blank=True)  # kept if the account goes
    written_at = models.DateTimeField(default=timezone.now, db_index=True)
    reverses = models.OneToOneField("self", null=True, blank=True, on_delete=models.RESTRICT, related_name="reversal")

    objects = LedgerEntryQuerySet.as_manager()

    class Meta:
        ordering = ["written_at", "pk"]
        verbose_name_plural = "ledger entries"

    def __str__(self) -> str:
        return f"{self.club_id} {self.kind} {self.amount_cents:+d}"

    def save(self, **kwargs: Any) -> None:
        if self.pk is not None or not self._state.adding:
            raise LedgerRefused("A ledger entry is written once: write a reversing entry to correct it.")
        super().save(**kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise LedgerRefused("Ledger entries are never deleted: write a reversing entry.")

    @property
    def is_reversal(self) -> bool:
        return self.reverses_id is not None

    @property
    def amount_label(self) -> str:
        return money_label(self.amount_cents)

    @property
    def to_the_member(self) -> str:
        """What the entry meant for its member, on their own page: the float's +$5.00 is a buy-in
        they paid, its -$15.00 a prize they received (a member read "-$15.00" beside a prize won);
        a reversal cancels what its entry meant."""
        if self.reverses is not None:
            return gettext("cancels: %(what)s") % {"what": self.reverses.to_the_member}
        if self.amount_cents > 0:
            return gettext("you paid %(amount)s") % {"amount": money_label(self.amount_cents)}
        if self.amount_cents < 0:
            return gettext("you received %(amount)s") % {"amount": money_label(-self.amount_cents)}
        return money_label(0)

    @property
    def who(self) -> str:
        """Whose entry it is, as a person reads it: the member's name, else the name it carries."""
        return self.member.name if self.member_id is not None and self.member is not None else self.name

    @property
    def prize_label(self) -> str:
        """A payout's prize in the reader's language (the engine's English title, translated)."""
        return gettext(prizes.PRIZE_TITLES[self.prize]) if self.prize in prizes.PRIZE_TITLES else self.prize


def money_label(cents: int) -> str:
    """An amount as a person reads it, in the reader's language: "$12.50", "-$4.00"."""
    sign = "-" if cents < 0 else ""
    return f"{sign}${number_format(abs(cents) / 100, decimal_pos=2, force_grouping=True)}"


class LedgerRequest(models.Model):
    """A treasury POST as a phone sent it, by its idempotency key: the same key with the same
    content is a retry (nothing written again), with other content it is refused."""

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=64)
    digest = models.CharField(max_length=64)  # SHA-256 of what was asked
    sent_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["club", "key"], name="ledger_request_key_once_a_club")]

    def __str__(self) -> str:
        return f"{self.club_id}: {self.key}"
