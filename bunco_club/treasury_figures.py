"""What the treasury's pages and the party page show of the money, read from the ledger (never
stored): the float brought to each party, the buy-ins owed, and a party's buy-ins for its host."""

from __future__ import annotations

import secrets
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from bunco_club import money
from bunco_club.actions.treasury import BUY_IN_HOWS, payment_cutoff, unpaid_members
from bunco_club.headcount import Headcount
from bunco_club.models import RSVP, Club, LedgerEntry, Member, Party, money_label


def float_by_party(club: Club) -> list[dict[str, Any]]:
    """The float carried from party to party: for each party (the latest first), the balance it was
    brought to (`LedgerEntryQuerySet.brought_to`) and what its own entries added."""
    parties = list(club.parties.filter(cancelled_at__isnull=True).order_by("-starts_at")[:24])
    rows = []
    for party in parties:
        brought = club.ledger.all().brought_to(party)
        own = party.ledger_entries.all().balance()
        rows.append({"party": party, "brought": money_label(brought), "own": money_label(own)})
    return rows


def owed_buy_ins(club: Club) -> list[dict[str, Any]]:
    """The buy-ins still owed, oldest party first."""
    states = club.ledger.live().buy_in_states()
    owed = [pair for pair, state in states.items() if state.kind == money.BUY_IN_OWED]
    parties = {party.pk: party for party in Party.objects.filter(pk__in=[pair[0] for pair in owed])}
    members = {member.pk: member for member in Member.objects.filter(pk__in=[pair[1] for pair in owed])}
    rows = [{"party": parties[party], "member": members[member], "key_cash": secrets.token_hex(16),
             "key_other": secrets.token_hex(16)} for party, member in owed]
    return sorted(rows, key=lambda row: (row["party"].starts_at, row["member"].name))


def buy_in_rows(party: Party, count: Headcount) -> list[RSVP]:
    """The party page's rows of answers and buy-ins, by name: every answer given, and a row (an
    unsaved "yes", marked `by_default`) for each regular counted as coming without an answer where
    the club counts its members as coming by default: they pay the buy-in like anyone coming."""
    rsvps = list(party.rsvps.select_related("member"))
    answered = {rsvp.member_id for rsvp in rsvps}
    for member in count.by_default:
        if member.pk not in answered:
            row = RSVP(party=party, member=member, answer=RSVP.Answer.YES)
            row.by_default = True  # type: ignore[attr-defined]
            rsvps.append(row)
    return sorted(rsvps, key=lambda rsvp: rsvp.member.name)


def party_money(party: Party, rsvps: list[RSVP]) -> dict[str, Any]:
    """What the party page shows its host of the money: the float now and as brought to this party,
    and each answer's buy-in state (set on each RSVP as `buy_in`, with a fresh key per button)."""
    states = LedgerEntry.objects.filter(party=party).live().buy_in_states()
    for rsvp in rsvps:
        rsvp.buy_in = states.get((party.pk, rsvp.member_id), money.BuyInState())  # type: ignore[attr-defined]
        rsvp.buy_in_label = _buy_in_label(rsvp.buy_in)  # type: ignore[attr-defined]
        rsvp.buttons = _buttons(rsvp.member.name, rsvp.buy_in)  # type: ignore[attr-defined]
    ledger = party.club.ledger
    return {"balance": money_label(ledger.balance()),
            "brought": money_label(ledger.all().brought_to(party)),
            "unpaid_seats": unpaid_members(party) if party.club.paid_keeps_seat else [],
            "cutoff_passed": payment_cutoff(party) <= timezone.now()}


# A party row's buy-in buttons: what each says, and what it says with the member's name (a reader's label).
BUTTONS = {
    "cash": (gettext_lazy("Cash"), gettext_lazy("%(name)s: paid in cash")),
    "other": (gettext_lazy("Other"), gettext_lazy("%(name)s: paid otherwise")),
    "waived": (gettext_lazy("Waived"), gettext_lazy("%(name)s: waive the buy-in")),
    "owes": (gettext_lazy("Owes"), gettext_lazy("%(name)s: owes the buy-in")),
    "none": (gettext_lazy("Undo"), gettext_lazy("%(name)s: undo the buy-in")),
}


def _buttons(name: str, state: money.BuyInState) -> list[dict[str, Any]]:
    """The buttons of a member's buy-in, each with its own idempotency key: the four states (the
    current one pressed), and "undo" once something is recorded."""
    shown = [how for how in BUTTONS if how != "none" or state.kind]
    return [{"how": how, "label": BUTTONS[how][0], "aria": str(BUTTONS[how][1]) % {"name": name},
             "key": secrets.token_hex(16), "current": BUY_IN_HOWS[how] == (state.kind or None) and how != "none"}
            for how in shown]


def _buy_in_label(state: money.BuyInState) -> str:
    if state.settled_late:
        return _("paid late")
    return str(dict(LedgerEntry.Kind.choices).get(state.kind, _("not recorded")))
