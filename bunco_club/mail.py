"""The club's emails, each sent once: what the mail tasks (bunco_club.tasks) call.

The substitute invitation, the swap request and the party's change or cancellation are enqueued
by their actions once the transaction commits; `send_due_reminders` (RSVP nudges, the host's
reminder, and any invitation or swap whose email an enqueue lost) runs from the clock. Every email
goes out through `send_once`, which records it, so however often these run each goes once.

This module sits one floor below bunco_club.actions (docs/DESIGN.md §2): the actions import the tasks
to enqueue them, the tasks import this module, and this module imports neither.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence

from django.core.mail import send_mail
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from bunco_club.headcount import headcount
from bunco_club.links import absolute, member_token
from bunco_club.models import RSVP, Member, Party, SentReminder, SubInvitation, SwapRequest


def send_once(key: str, *, kind: str, to: Sequence[str], subject: str, body: str, party: Party | None = None,
              member: Member | None = None) -> bool:
    """Send an email unless one with this key went out before; True if it was sent now.

    The record and the sending share a transaction: two runs at once take turns on the unique key,
    and a failed send leaves no record, so the next run tries again."""
    recipients = [address for address in to if address]
    if not recipients:
        return False
    try:
        with transaction.atomic():
            _, created = SentReminder.objects.get_or_create(key=key, defaults={"kind": kind, "party": party,
                                                                               "member": member})
            if not created:
                return False
            send_mail(subject, body, None, recipients)
    except IntegrityError:  # another run recorded it between our look and our insert
        return False
    return True


def _link(member: Member, view: str = "clubs:my_club") -> str:
    return absolute(reverse(view, args=[member_token(member.code)]), club=member.club)


def _when(party: Party) -> str:
    return f"{party.local_start:%A %d %B, %H:%M}"


def send_sub_invitation(invitation_id: int) -> bool:
    invitation = (SubInvitation.objects.select_related("party__club", "party__host", "member")
                  .filter(pk=invitation_id, status=SubInvitation.Status.INVITED).first())
    if invitation is None:
        return False
    party, member = invitation.party, invitation.member
    body = (f"Hi {member.name},\n\nA seat has opened at {party.club.name}'s Bunco night on {_when(party)}"
            f"{' at ' + party.location if party.location else ''}. Would you like it? The first to accept "
            f"takes the seat.\n\nAnswer here: {_link(member)}\n")
    return send_once(f"sub:{invitation.pk}", kind="sub", to=[member.email], party=party, member=member,
                     subject=f"{party.club.name}: a seat for you on {_when(party)}?", body=body)


def send_party_cancelled(party_id: int) -> int:
    """Tell every member of the club (regulars, and the alternates who were coming) that the party is off."""
    party = Party.objects.select_related("club").filter(pk=party_id, cancelled_at__isnull=False).first()
    if party is None:
        return 0
    coming = set(party.rsvps.filter(answer=RSVP.Answer.YES).values_list("member_id", flat=True))
    sent = 0
    for member in party.club.members.filter(Q(is_alternate=False) | Q(pk__in=coming), is_active=True).exclude(email=""):
        body = (f"Hi {member.name},\n\n{party.club.name}'s Bunco night on {_when(party)} is cancelled."
                f"\n\nYour club page: {_link(member)}\n")
        sent += send_once(f"cancelled:{party.pk}:{member.pk}", kind="cancelled", to=[member.email], party=party,
                          member=member, subject=f"{party.club.name}: {_when(party)} is cancelled", body=body)
    return sent


def send_party_changed(party_id: int, was_starts_at: str | None = None, was_location: str | None = None) -> int:
    """Tell the members who said yes or maybe a party's new time or place, and what it was (issue 29,
    C7); once per member and change (the party's sequence: two edits before the task runs send
    one mail, from the first time and place to the last). `was_starts_at` (ISO) and `was_location`
    are what the party was before the edit that enqueued this."""
    party = Party.objects.select_related("club").filter(pk=party_id, cancelled_at__isnull=True).first()
    if party is None or party.is_past:
        return 0
    club = party.club
    before = datetime.datetime.fromisoformat(was_starts_at) if was_starts_at else None
    moved = before is not None and before != party.starts_at
    placed = was_location is not None and was_location != party.location
    if (was_starts_at is not None or was_location is not None) and not moved and not placed:
        return 0  # moved and moved back before this ran: nothing to tell
    when = _when(party) + (f" (was {club.local(before):%A %d %B, %H:%M})" if moved and before else "")
    where = (party.location or "no place given yet") + (f" (was {was_location or 'no place given'})" if placed else "")
    subject = (f"{club.name}: now on {_when(party)}" if moved or not placed
               else f"{club.name} on {_when(party)}: now at {party.location or 'a place to be told'}")
    sent = 0
    for rsvp in (party.rsvps.filter(answer__in=[RSVP.Answer.YES, RSVP.Answer.MAYBE], member__is_active=True)
                 .select_related("member", "member__club")):
        member = rsvp.member
        body = (f"Hi {member.name},\n\n{club.name}'s Bunco night has changed.\n\n"
                f"When: {when}\nWhere: {where}\n\n"
                f"You said {rsvp.answer}: if that has changed too, answer again on your "
                f"club page: {_link(member)}\n")
        sent += send_once(f"changed:{party.pk}:{party.sequence}:{member.pk}", kind="changed", to=[member.email],
                          party=party, member=member, subject=subject, body=body)
    return sent


def send_swap_request(swap_id: int) -> bool:
    swap = (SwapRequest.objects.select_related("give", "take", "requested_by", "asked", "give__club")
            .filter(pk=swap_id, status=SwapRequest.Status.PENDING).first())
    if swap is None:
        return False
    body = (f"Hi {swap.asked.name},\n\n{swap.requested_by.name} asks to swap hosting dates with you: they would "
            f"host on {_when(swap.take)} and you on {_when(swap.give)}.\n\nAccept or decline here: "
            f"{_link(swap.asked)}\n")
    return send_once(f"swap:{swap.pk}", kind="swap", to=[swap.asked.email], party=swap.take, member=swap.asked,
                     subject=f"{swap.give.club.name}: {swap.requested_by.name} asks to swap hosting dates", body=body)


def _send_rsvp_nudges(party: Party) -> int:
    answered = set(party.rsvps.values_list("member_id", flat=True))
    sent = 0
    for member in party.club.members.regulars().exclude(pk__in=answered).exclude(email=""):
        where = f" at {party.location}" if party.location else ""
        if party.is_hosted_by_member(member):
            # Her own party: she is there; whether she plays is the question (issue 42).
            question = "will you play too?"
            said = f"You host {party.club.name} on {_when(party)}{where}. Will you play too?"
        else:
            question = "are you coming?"
            said = (f"{party.club.name} plays Bunco on {_when(party)}{where}"
                    f"{', ' + party.hosted_by_label() if party.host else ''}. Are you coming?")
        body = f"Hi {member.name},\n\n{said}\n\nAnswer yes, no or maybe here: {_link(member)}\n"
        sent += send_once(f"nudge:{party.pk}:{member.pk}", kind="nudge", to=[member.email], party=party,
                          member=member, subject=f"{party.club.name} on {_when(party)}: {question}", body=body)
    return sent


def _send_host_reminders(party: Party) -> int:
    count = headcount(party)
    pot = len(count.coming) * party.club.buy_in_cents
    if count.nobody_coming:
        # Nothing to get ready for nobody (issue 29, C11): say so rather than "snacks for 0".
        so_far = f"So far: {count.summary().lower()}"
        ready = "What to get ready: nothing yet; the tables, snacks and prize pot follow the yes answers.\n\n"
    else:
        tables = f"{count.tables} table{'s' if count.tables != 1 else ''}"
        so_far = f"So far: {count.summary()} ({tables})"
        ready = (f"What to get ready: {tables} of four, 3 dice and a score pad a table, a bell for the head "
                 f"table, snacks for {len(count.coming)}, and the prize pot (about ${pot / 100:.2f} from the "
                 f"buy-ins).\n\n")
    sent = 0
    for member in (party.host, party.cohost):
        if member is None or not member.email:
            continue
        body = (f"Hi {member.name},\n\nYou host {party.club.name} on {_when(party)}.\n\n"
                f"{so_far}, {len(count.maybe)} maybe, {len(count.waiting)} not answered yet.\n"
                f"{ready}Your club page: {_link(member)}\n")
        sent += send_once(f"host:{party.pk}:{member.pk}", kind="host", to=[member.email], party=party, member=member,
                          subject=f"You host {party.club.name} on {_when(party)}", body=body)
    return sent


def send_due_reminders(now: datetime.datetime | None = None) -> int:
    """Send every reminder that is due and has not gone out yet; returns how many were sent.

    RSVP nudges and the host's reminder go from the club's `rsvp_nudge_days` before a party until
    it starts; substitute invitations and swap requests that are still open go at once (normally
    their own task sent them already, and then they are not sent again)."""
    now = now or timezone.now()
    sent = 0
    horizon = now + datetime.timedelta(days=60)
    # A night played before its date is over (issue 29, C10): nobody is asked to come to it.
    for party in (Party.objects.unplayed().filter(starts_at__gt=now, starts_at__lte=horizon, cancelled_at__isnull=True)
                  .select_related("club", "host", "cohost")):
        if party.starts_at - datetime.timedelta(days=party.club.rsvp_nudge_days) > now:
            continue
        sent += _send_rsvp_nudges(party)
        sent += _send_host_reminders(party)
    already = set(SentReminder.objects.filter(kind__in=("sub", "swap")).values_list("key", flat=True))
    for invitation_id in SubInvitation.objects.filter(status=SubInvitation.Status.INVITED,
                                                      party__starts_at__gt=now).values_list("pk", flat=True):
        if f"sub:{invitation_id}" not in already:
            sent += send_sub_invitation(invitation_id)
    for swap_id in SwapRequest.objects.filter(status=SwapRequest.Status.PENDING,
                                              take__starts_at__gt=now).values_list("pk", flat=True):
        if f"swap:{swap_id}" not in already:
            sent += send_swap_request(swap_id)
    return sent
