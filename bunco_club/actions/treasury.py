"""The club's money (issue 45): buy-ins, the night's payouts, supplies, dues and adjustments written
to the append-only ledger (`LedgerEntry`), corrections as reversing entries, who sees the money, and
the rule "paid tonight keeps your seat next month".

Every action takes the club's row lock, so two writes of one club's money go one at a time, and an
idempotency key (`key`) makes a phone's retry a no-op: the same key with the same content writes
nothing again; with other content it is refused (KeyReused, 409). Amounts are whole cents; what a
person typed is read by `read_amount` in the reader's language (5.50 in English, 5,50 in Spanish).
"""

from __future__ import annotations

import datetime
import hashlib
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.formats import get_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from bunco_club import money
from bunco_club.actions.common import locked_club, log_change
from bunco_club.actions.refusals import ClubError
from bunco_club.actions.rsvps import _invite_subs_for_open_seats
from bunco_club.models import (
    CUTOFF_HOURS_MAX,
    NAME_MAX,
    RSVP,
    WHAT_MAX,
    Club,
    LedgerEntry,
    LedgerRequest,
    Member,
    MoneyVisibleTo,
    Party,
    money_label,
)
from games.rules import prizes
from live.refusals import KeyReused, NotNow
from live.text import has_control_characters, well_formed_key

MONEY_KEY_REUSED = gettext_lazy("This carries the key of an earlier entry with other content, so it was not "
                                "written. Reload the page and write it again.")

# What the host's buttons on a party's page say about a buy-in, and the entry each writes ("none":
# nothing recorded, the entries that stood reversed).
BUY_IN_HOWS: dict[str, str | None] = {
    "cash": money.BUY_IN_CASH, "other": money.BUY_IN_OTHER, "waived": money.BUY_IN_WAIVED,
    "owes": money.BUY_IN_OWED, "none": None,
}
# The entries a host or a treasurer writes by hand on the treasury page.
HAND_KINDS = (money.SUPPLY, money.DUES, money.ADJUSTMENT)


@dataclass(frozen=True)
class Writer:
    """Who writes an entry: a host's account, or a member flagged treasurer (None for the night)."""

    user: Any = None
    member: Member | None = None

    @property
    def name(self) -> str:
        if self.member is not None:
            return self.member.name
        return str(self.user.get_username()) if self.user is not None else ""


def read_amount(raw: object, *, allow_zero: bool = False) -> int:
    """An amount typed in the reader's language, in whole cents; ClubError (400) with what to write
    for anything else ("1e9", "-5", "5,00" in English, twenty digits, "²")."""
    separator = str(get_format("DECIMAL_SEPARATOR"))
    try:
        return money.parse_amount(str(raw if raw is not None else ""), decimal_separator=separator,
                                  allow_zero=allow_zero)
    except money.BadAmount as bad:
        if bad.reason == money.EMPTY:
            raise ClubError(_("Write the amount.")) from None
        if bad.reason == money.TOO_BIG:
            raise ClubError(_("An entry is %(most)s at most.") % {"most": money_label(money.MAX_UNITS * 100)}) from None
        if bad.reason == money.ZERO:
            raise ClubError(_("Write an amount above zero.")) from None
        raise ClubError(_("Write the amount in digits, like %(whole)s or %(cents)s: no sign, no spaces, no "
                          "thousands separator.") % {"whole": "5", "cents": f"5{separator}50"}) from None


def _retried(club: Club, key: str | None, content: Mapping[str, object]) -> bool:
    """Whether this request was taken already under `key` (a retry: write nothing); KeyReused when
    the key came with other content. The key is kept with the entries it writes (same transaction)."""
    if key is None:
        return False
    if not isinstance(key, str) or not well_formed_key(key):
        raise ClubError(_("This request's key is not valid: reload the page and send it again."))
    digest = hashlib.sha256(json.dumps(content, sort_keys=True, default=str).encode()).hexdigest()
    sent = LedgerRequest.objects.filter(club=club, key=key).first()
    if sent is None:
        LedgerRequest.objects.create(club=club, key=key, digest=digest)
        return False
    if sent.digest != digest:
        raise KeyReused(str(MONEY_KEY_REUSED))
    return True


def _write(club: Club, kind: str, amount: int, *, by: Writer | None, **fields: Any) -> LedgerEntry:
    writer = by or Writer()
    return LedgerEntry.objects.create(club=club, kind=kind, amount_cents=amount, written_by_user=writer.user,
                                      written_by_member=writer.member, written_by_name=writer.name[:150], **fields)


def _reverse(entry: LedgerEntry, by: Writer | None) -> LedgerEntry:
    return _write(entry.club, entry.kind, -entry.amount_cents, by=by, party=entry.party, member=entry.member,
                  name=entry.name, prize=entry.prize, tie_rule=entry.tie_rule, what=entry.what, reverses=entry)


def _check_writer(club: Club, by: Writer | None) -> None:
    if by is not None and by.member is not None and (by.member.club_id != club.pk or not by.member.is_treasurer):
        raise ClubError(_("Only the club's hosts and its treasurer write in its ledger."))


# --- Buy-ins ----------------------------------------------------------------------------------


@transaction.atomic
def record_buy_in(party: Party, member: Member, how: str, *, by: Writer | None = None,
                  key: str | None = None) -> money.BuyInState:
    """A member's buy-in for a party: paid in cash, paid otherwise, waived, owed, or "none" (what
    was recorded is reversed). A payment after "owes" settles the debt (both entries stay, the
    statement shows it paid late); any other change reverses the entries that stood and writes the
    new one. The same state again writes nothing. Only for members coming (a yes, or no answer where
    the club counts its members as coming by default), or whose buy-in is on record already, to
    settle it later."""
    if how not in BUY_IN_HOWS:
        raise ClubError(_("Say how the buy-in stands: paid in cash, paid otherwise, waived or owed."))
    club = party.club
    locked_club(club)
    _check_writer(club, by)
    if member.club_id != party.club_id:
        raise ClubError(_("Only the club's members pay its buy-in."))
    if party.is_cancelled:
        raise NotNow(_("This party is cancelled: there is no buy-in to record."))
    entries = list(LedgerEntry.objects.live().buy_ins().filter(party=party, member=member).order_by("written_at", "pk"))
    answer = RSVP.objects.filter(party=party, member=member).values_list("answer", flat=True).first()
    coming = party.counts_as_coming(member, answer)  # a yes, or no answer where members come by default
    if not coming and not entries:
        raise NotNow(_("%(name)s hasn't said they are coming: only those coming pay the buy-in.")
                     % {"name": member.name})
    if _retried(club, key, {"do": "buy_in", "party": party.pk, "member": member.pk, "how": how}):
        return LedgerEntry.objects.filter(party=party, member=member).buy_in_state()
    state = money.buy_in_state(entry.kind for entry in entries)
    wanted = BUY_IN_HOWS[how]
    if wanted == (state.kind or None):
        return state
    if not (wanted in money.PAID_KINDS and state.kind == money.BUY_IN_OWED):
        for entry in entries:
            _reverse(entry, by)
    if wanted is not None:
        amount = club.buy_in_cents if wanted in money.PAID_KINDS else 0
        _write(club, wanted, amount, by=by, party=party, member=member, name=member.name)
    log_change(club, "money", party=party.pk)
    return LedgerEntry.objects.filter(party=party, member=member).buy_in_state()


# --- Entries by hand, and corrections ---------------------------------------------------------


def _clean_what(raw: str, *, required: bool) -> str:
    what = " ".join(str(raw or "").split())
    if required and not what:
        raise ClubError(_("Say what it was for."))
    if len(what) > WHAT_MAX:
        raise ClubError(_("Say it in %(most)s characters at most.") % {"most": WHAT_MAX})
    if has_control_characters(what):
        raise ClubError(_("The text holds a character that is not a letter, a digit or a sign (a control "
                          "character): write it again."))
    return what


@transaction.atomic
def record_entry(club: Club, kind: str, amount_cents: int, *, what: str = "", money_in: bool = True,
                 member: Member | None = None, party: Party | None = None, receipt: bytes | None = None,
                 by: Writer | None = None, key: str | None = None) -> LedgerEntry | None:
    """A supply bought (money out, with what it was and an optional receipt photo), dues paid by a
    member (money in), or an adjustment (in or out: `money_in`, with why). `amount_cents` is
    positive; the entry carries it signed as the float sees it. None for a retry (written before)."""
    if kind not in HAND_KINDS:
        raise ClubError(_("Choose a supply, dues or an adjustment."))
    if isinstance(amount_cents, bool) or not isinstance(amount_cents, int) or not 0 < amount_cents <= money.MAX_UNITS * 100:
        raise ClubError(_("Write an amount above zero, %(most)s at most.") % {"most": money_label(money.MAX_UNITS * 100)})
    clean = _clean_what(what, required=kind != money.DUES)
    if kind == money.DUES and member is None:
        raise ClubError(_("Say which member paid the dues."))
    if receipt is not None and kind != money.SUPPLY:
        raise ClubError(_("Only a supply bought carries a receipt."))
    locked_club(club)
    _check_writer(club, by)
    if (member is not None and member.club_id != club.pk) or (party is not None and party.club_id != club.pk):
        raise ClubError(_("That member or party is not the club's."))
    content = {"do": kind, "amount": amount_cents, "what": clean, "in": money_in, "member": getattr(member, "pk", None),
               "party": getattr(party, "pk", None),
               "receipt": hashlib.sha256(receipt).hexdigest() if receipt is not None else None}
    if _retried(club, key, content):
        return None
    signed = -amount_cents if kind == money.SUPPLY or (kind == money.ADJUSTMENT and not money_in) else amount_cents
    stored: dict[str, Any] = {}
    if receipt is not None:
        from bunco_club.receipts import store_receipt  # Pillow is loaded for a receipt only

        kept = store_receipt(receipt, club_id=club.pk)
        stored = {"receipt": kept.name, "receipt_sha256": kept.sha256, "receipt_bytes": kept.size}
    entry = _write(club, kind, signed, by=by, member=member, party=party, name=member.name if member else "",
                   what=clean, **stored)
    log_change(club, "money", entry=entry.pk)
    return entry


@transaction.atomic
def reverse_entry(entry: LedgerEntry, *, by: Writer | None = None, key: str | None = None) -> LedgerEntry | None:
    """Correct an entry: a new entry of the opposite amount that names it. A reversal is never
    reversed (write the entry again instead), and an entry is reversed once. None for a retry."""
    club = entry.club
    locked_club(club)
    _check_writer(club, by)
    entry = LedgerEntry.objects.select_related("club", "party", "member").get(pk=entry.pk)
    if entry.is_reversal:
        raise NotNow(_("This entry is itself a correction: it cannot be reversed. Write the entry again instead."))
    if _retried(club, key, {"do": "reverse", "entry": entry.pk}):
        return None
    if LedgerEntry.objects.filter(reverses=entry).exists():
        raise NotNow(_("This entry has been reversed already."))
    reversal = _reverse(entry, by)
    log_change(club, "money", entry=reversal.pk)
    return reversal


# --- The night's payouts ----------------------------------------------------------------------


@dataclass(frozen=True)
class Payout:
    """One prize paid at a party's night, as plain data from the night: who, which prize (one of
    games.rules.prizes.PRIZES), how much, and how a tie for it was settled (money.TIE_RULES)."""

    name: str
    prize: str
    amount_cents: int
    tie_rule: str = money.TIE_NONE
    member_id: int | None = None


def _payout(raw: Payout | Mapping[str, Any]) -> Payout:
    try:
        payout = raw if isinstance(raw, Payout) else Payout(**dict(raw))
    except TypeError as error:
        raise ClubError(_("A payout has fields the club doesn't know: %(error)s") % {"error": error}) from None
    amount = payout.amount_cents
    if payout.prize not in prizes.PRIZES or payout.tie_rule not in money.TIE_RULES or not payout.name.strip() \
            or isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
        raise ClubError(_("A payout must name its winner, one of the night's prizes, and an amount of 0 or more "
                          "whole cents."))
    return payout


@transaction.atomic
def record_night_payouts(party: Party, payouts: Sequence[Payout | Mapping[str, Any]]) -> list[LedgerEntry]:
    """The prizes a party's night paid, written to the club's ledger as money out. The night
    reports them when it works its prizes out; reported again (a night re-opened and corrected),
    the payouts that stood are reversed and the new ones written, unless they are the same (then
    nothing is written). Winners are matched to members by `member_id`, else by name."""
    clean = [_payout(payout) for payout in payouts]
    club = party.club
    locked_club(club)
    members = {member.pk: member for member in club.members.all()}
    by_name = {member.name.casefold(): member for member in members.values()}
    rows = []
    for payout in clean:
        name = " ".join(payout.name.split())[:NAME_MAX]
        member = members.get(payout.member_id) if payout.member_id is not None else None
        rows.append((member or by_name.get(name.casefold()), name, payout))
    standing = list(LedgerEntry.objects.live().filter(party=party, kind=money.PAYOUT).select_related("member"))
    before = Counter((entry.member_id, entry.name, entry.prize, -entry.amount_cents, entry.tie_rule)
                     for entry in standing)
    after = Counter((getattr(member, "pk", None), name, payout.prize, payout.amount_cents, payout.tie_rule)
                    for member, name, payout in rows)
    if before == after:
        return standing
    for entry in standing:
        _reverse(entry, None)
    written = [_write(club, money.PAYOUT, -payout.amount_cents, by=None, party=party, member=member, name=name,
                      prize=payout.prize, tie_rule=payout.tie_rule) for member, name, payout in rows]
    log_change(club, "money", party=party.pk)
    return written


# --- Who sees the money, and the seat rule ----------------------------------------------------


@transaction.atomic
def set_money_rules(club: Club, *, visible_to: str, paid_keeps_seat: bool, treasurer: Member | None) -> Club:
    """The club's choices: who sees its money (members their own, or only hosts and the treasurer),
    whether an unpaid buy-in gives a seat to the sub list, and its treasurer (one member, or none)."""
    if visible_to not in MoneyVisibleTo.values:
        raise ClubError(_("Choose who sees the money: the members, or only the hosts and the treasurer."))
    if treasurer is not None and (treasurer.club_id != club.pk or not treasurer.is_active):
        raise ClubError(_("The treasurer must be an active member of the club."))
    locked_club(club)
    club.money_visible_to = visible_to
    club.paid_keeps_seat = paid_keeps_seat
    club.save(update_fields=["money_visible_to", "paid_keeps_seat"])
    others = club.members.filter(is_treasurer=True)
    for member in others.exclude(pk=treasurer.pk) if treasurer is not None else others:
        member.is_treasurer = False
        member.save(update_fields=["is_treasurer"])
    if treasurer is not None and not treasurer.is_treasurer:
        treasurer.is_treasurer = True
        treasurer.save(update_fields=["is_treasurer"])
    log_change(club, "club", what="money rules")
    return club


def payment_cutoff(party: Party) -> datetime.datetime:
    """When the buy-in of the party before `party` must be paid to keep a seat at `party`: the
    party's answers' cutoff (`Party.cutoff`), so a sub has the days after it to say yes."""
    return party.cutoff


def previous_party(party: Party) -> Party | None:
    """The club's party before this one (not cancelled)."""
    return (Party.objects.filter(club_id=party.club_id, starts_at__lt=party.starts_at, cancelled_at__isnull=True)
            .order_by("-starts_at").first())


def unpaid_members(party: Party) -> list[Member]:
    """The regulars coming to `party` (`Party.coming_members`: a yes, or no answer where the club
    counts its members as coming by default) who came to the party before it and had not paid (nor
    had it waived) by the cutoff: whose seats "paid tonight keeps your seat next month" gives away."""
    before = previous_party(party)
    if before is None:
        return []
    cutoff = payment_cutoff(party)
    came = {member.pk for member in before.coming_members()}
    # The entries as they stood at the cutoff: written by then, and not reversed by then.
    states = (LedgerEntry.objects.filter(party=before, written_at__lte=cutoff, reverses__isnull=True)
              .exclude(reversal__written_at__lte=cutoff).buy_in_states())
    return [member for member in party.coming_members() if member.pk in came and not member.is_alternate
            and not states.get((before.pk, member.pk), money.BuyInState()).keeps_seat]


def _release(party: Party, *, by_sweep: bool) -> list[Member]:
    """Give the seats of the unpaid (`unpaid_members`) to the sub list, once the cutoff has passed.
    The sweep passes over a member whose seat it (or a host) released before, who said yes again."""
    released = unpaid_members(party)
    if by_sweep:
        again = set(RSVP.objects.filter(party=party, seat_released_unpaid=True).values_list("member_id", flat=True))
        released = [member for member in released if member.pk not in again]
    for member in released:
        rsvp, _created = RSVP.objects.get_or_create(party=party, member=member,
                                                     defaults={"answer": RSVP.Answer.NO})
        rsvp.answer = RSVP.Answer.NO
        rsvp.gave_up_seat = True
        rsvp.seat_released_unpaid = True
        rsvp.save(update_fields=["answer", "gave_up_seat", "seat_released_unpaid", "answered_at"])
        party.open_seats += 1
    if released:
        party.save(update_fields=["open_seats"])
        _invite_subs_for_open_seats(party)
        log_change(party.club, "rsvp", party=party.pk)
    return released


@transaction.atomic
def release_unpaid_seats(party: Party, *, now: datetime.datetime | None = None) -> list[Member]:
    """The host's "now" for the club's rule "paid tonight keeps your seat next month" (the sweep,
    `release_due_seats`, does it by itself once the cutoff has passed): the seat of each member
    coming who had not paid for the previous party by the cutoff goes to the sub list (their answer
    becomes "no", as if they had given it up; a "yes" takes it back while no sub has taken it), and
    alternates are invited as for any seat given up. The members released."""
    club = party.club
    locked_club(club)
    party = Party.objects.select_for_update().select_related("club").get(pk=party.pk)
    if not club.paid_keeps_seat:
        raise NotNow(_("The club's rule “paid tonight keeps your seat next month” is off."))
    if not party.takes_answers:
        raise NotNow(_("This party is cancelled.") if party.is_cancelled else _("This party is over."))
    moment = now or timezone.now()
    if moment < payment_cutoff(party):
        raise NotNow(_("Members can pay the last party's buy-in until this party's answers are due: the seats "
                       "are offered then."))
    return _release(party, by_sweep=False)


def release_due_seats(now: datetime.datetime | None = None) -> int:
    """The periodic sweep of "paid tonight keeps your seat next month" (bunco_club.sweeps, beside the
    reminders): the seats of the unpaid at each party whose cutoff has passed and that still takes
    answers go to the sub list, in the clubs with the rule on, with no host pressing anything. Each
    member's seat once: however often it runs, a seat released (and taken back by a yes) is not
    released again by it. How many seats it released."""
    moment = now or timezone.now()
    horizon = moment + datetime.timedelta(hours=CUTOFF_HOURS_MAX)
    released = 0
    for party_id in (Party.objects.unplayed().filter(club__paid_keeps_seat=True, cancelled_at__isnull=True,
                                                     starts_at__gt=moment, starts_at__lte=horizon)
                     .values_list("pk", flat=True)):
        with transaction.atomic():
            party = Party.objects.select_related("club").get(pk=party_id)
            locked_club(party.club)
            party = Party.objects.select_for_update().select_related("club").get(pk=party_id)
            if party.club.paid_keeps_seat and party.takes_answers and party.is_past_cutoff(moment):
                released += len(_release(party, by_sweep=True))
    return released
