"""The club's emails, each sent once: what the mail tasks (bunco_club.tasks) call.

The substitute invitation, the swap request, the party's change or cancellation and what a count
of the Bunco box found missing are enqueued by their actions once the transaction commits;
`send_due_reminders` (RSVP nudges, the host's reminder, and any invitation or swap whose email an
enqueue lost) runs from the clock. Every email
goes out through `send_once`, which records it, so however often these run each goes once. Each
is written for its one recipient, in their language (`Member.reads`: theirs, else their club's).

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
from django.utils import formats, timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from bunco_club import custody
from bunco_club.headcount import Headcount, headcount
from bunco_club.links import absolute, member_token
from bunco_club.models import (
    RSVP,
    BoxHandOver,
    DishOffer,
    Member,
    Party,
    SentReminder,
    SubInvitation,
    SwapRequest,
)


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


def _reading(member: Member) -> translation.override:
    """Where a mail to `member` is written: in their language (the club's until they choose), never
    the sender's: every mail is made for its one recipient (docs/I18N.md)."""
    return translation.override(member.reads)


def _at(moment: datetime.datetime) -> str:
    """A moment of the club's clocks in the language the mail is written in: "Thursday 17 December,
    19:00", "jueves 17 de diciembre, 19:00"."""
    return formats.date_format(moment, pgettext("date and time in a mail", "l d F, H:i"))


def _when(party: Party) -> str:
    return _at(party.local_start)


def send_sub_invitation(invitation_id: int) -> bool:
    invitation = (SubInvitation.objects.select_related("party__club", "party__host", "member", "member__club")
                  .filter(pk=invitation_id, status=SubInvitation.Status.INVITED).first())
    if invitation is None:
        return False
    party, member = invitation.party, invitation.member
    with _reading(member):
        values = {"name": member.name, "club": party.club.name, "when": _when(party), "place": party.location,
                  "link": _link(member)}
        opened = (_("A seat has opened at %(club)s's Bunco night on %(when)s at %(place)s.") if party.location
                  else _("A seat has opened at %(club)s's Bunco night on %(when)s.")) % values
        body = _("Hi %(name)s,\n\n%(opened)s Would you like it? The first to accept takes the seat.\n\n"
                 "Answer here: %(link)s\n") % {**values, "opened": opened}
        subject = _("%(club)s: a seat for you on %(when)s?") % values
    return send_once(f"sub:{invitation.pk}", kind="sub", to=[member.email], party=party, member=member,
                     subject=subject, body=body)


def send_party_cancelled(party_id: int) -> int:
    """Tell every member of the club (regulars, and the alternates who were coming) that the party is off."""
    party = Party.objects.select_related("club").filter(pk=party_id, cancelled_at__isnull=False).first()
    if party is None:
        return 0
    coming = {member.pk for member in party.coming_members()}  # the one rule (an alternate comes by a yes)
    sent = 0
    for member in party.club.members.filter(Q(is_alternate=False) | Q(pk__in=coming), is_active=True).exclude(email=""):
        with _reading(member):
            values = {"name": member.name, "club": party.club.name, "when": _when(party), "link": _link(member)}
            body = _("Hi %(name)s,\n\n%(club)s's Bunco night on %(when)s is cancelled.\n\n"
                     "Your club page: %(link)s\n") % values
            subject = _("%(club)s: %(when)s is cancelled") % values
        sent += send_once(f"cancelled:{party.pk}:{member.pk}", kind="cancelled", to=[member.email], party=party,
                          member=member, subject=subject, body=body)
    return sent


def _said(answer: str) -> str:
    """A member's answer as a mail repeats it ("You said yes")."""
    return pgettext("you said", "yes") if answer == RSVP.Answer.YES else pgettext("you said", "maybe")


def _changed(party: Party, before: datetime.datetime | None, was_location: str | None) -> tuple[str, str, str]:
    """A change's subject, its "When:" and its "Where:", in the language the mail is written in
    (`before`: the time it was, if it moved; `was_location`: the place it was, if that changed)."""
    club, now_when = party.club, _when(party)
    when = _("%(when)s (was %(before)s)") % {"when": now_when, "before": _at(club.local(before))} if before else now_when
    where = party.location or _("no place given yet")
    if was_location is not None:
        where = _("%(where)s (was %(before)s)") % {"where": where, "before": was_location or _("no place given")}
    if before is not None or was_location is None:
        subject = _("%(club)s: now on %(when)s") % {"club": club.name, "when": now_when}
    else:
        subject = _("%(club)s on %(when)s: now at %(place)s") % {
            "club": club.name, "when": now_when, "place": party.location or _("a place to be told")}
    return subject, when, where


def _told_of_changes(party: Party) -> list[tuple[Member, str | None]]:
    """Whom a party's change is told, with their answer: those who said yes or maybe and, where the
    club counts its members as coming by default, the regulars who have not answered (None)."""
    told: list[tuple[Member, str | None]] = [
        (rsvp.member, rsvp.answer) for rsvp in
        party.rsvps.filter(answer__in=[RSVP.Answer.YES, RSVP.Answer.MAYBE], member__is_active=True)
        .select_related("member", "member__club")]
    answered = set(party.rsvps.values_list("member_id", flat=True))
    told += [(member, None) for member in party.club.members.regulars().exclude(pk__in=answered).select_related("club")
             if party.counts_as_coming(member, None)]
    return told


def send_party_changed(party_id: int, was_starts_at: str | None = None, was_location: str | None = None) -> int:
    """Tell the members who said yes or maybe (or count as coming by default) a party's new time or
    place, and what it was (issue 29, C7); once per member and change (the party's sequence: two
    edits before the task runs send one mail, from the first time and place to the last), each in
    their own language. `was_starts_at`
    (ISO) and `was_location` are what the party was before the edit that enqueued this."""
    party = Party.objects.select_related("club").filter(pk=party_id, cancelled_at__isnull=True).first()
    if party is None or party.is_past:
        return 0
    club = party.club
    before = datetime.datetime.fromisoformat(was_starts_at) if was_starts_at else None
    moved = before is not None and before != party.starts_at
    placed = was_location is not None and was_location != party.location
    if (was_starts_at is not None or was_location is not None) and not moved and not placed:
        return 0  # moved and moved back before this ran: nothing to tell
    sent = 0
    for member, answer in _told_of_changes(party):
        with _reading(member):
            subject, when, where = _changed(party, before if moved else None, was_location if placed else None)
            values = {"name": member.name, "club": club.name, "when": when, "where": where, "link": _link(member)}
            if answer is None:  # counted as coming by default (issue 45)
                body = _("Hi %(name)s,\n\n%(club)s's Bunco night has changed.\n\nWhen: %(when)s\nWhere: %(where)s\n\n"
                         "You count as coming: if you can't come now, say no on your club page: %(link)s\n") % values
            else:
                body = _("Hi %(name)s,\n\n%(club)s's Bunco night has changed.\n\nWhen: %(when)s\nWhere: %(where)s\n\n"
                         "You said %(answer)s: if that has changed too, answer again on your club page: %(link)s\n") % {
                    **values, "answer": _said(answer)}
        sent += send_once(f"changed:{party.pk}:{party.sequence}:{member.pk}", kind="changed", to=[member.email],
                          party=party, member=member, subject=subject, body=body)
    return sent


def send_swap_request(swap_id: int) -> bool:
    swap = (SwapRequest.objects.select_related("give", "take", "requested_by", "asked", "asked__club", "give__club")
            .filter(pk=swap_id, status=SwapRequest.Status.PENDING).first())
    if swap is None:
        return False
    with _reading(swap.asked):
        values = {"name": swap.asked.name, "asking": swap.requested_by.name, "club": swap.give.club.name,
                  "take": _when(swap.take), "give": _when(swap.give), "link": _link(swap.asked)}
        body = _("Hi %(name)s,\n\n%(asking)s asks to swap hosting dates with you: they would host on %(take)s and "
                 "you on %(give)s.\n\nAccept or decline here: %(link)s\n") % values
        subject = _("%(club)s: %(asking)s asks to swap hosting dates") % values
    return send_once(f"swap:{swap.pk}", kind="swap", to=[swap.asked.email], party=swap.take, member=swap.asked,
                     subject=subject, body=body)


def _dish_offer_words(offer: DishOffer) -> tuple[str, str]:
    """A dish offer's subject and what it asks, in the language the mail is written in (the dishes'
    names are the host's, as typed)."""
    party = offer.party
    values = {"club": party.club.name, "when": _when(party), "dish": offer.slot.name,
              "by": offer.by.name if offer.by else "", "yours": offer.take.slot.name if offer.take else ""}
    if offer.kind == DishOffer.Kind.GIVE:
        return (_("%(club)s on %(when)s: %(by)s asks you to bring %(dish)s") % values,
                _("%(by)s can't bring %(dish)s to %(club)s on %(when)s after all and asks you to bring it "
                  "instead.") % values)
    if offer.kind == DishOffer.Kind.TRADE:
        return (_("%(club)s on %(when)s: %(by)s offers a trade of dishes") % values,
                _("For %(club)s on %(when)s, %(by)s would bring %(yours)s (yours now) if you bring %(dish)s "
                  "(theirs now).") % values)
    return (_("%(club)s on %(when)s: could you bring %(dish)s?") % values,
            _("Nobody brings %(dish)s to %(club)s on %(when)s yet, and it's your turn: could you bring "
              "it?") % values)


def send_dish_offer(offer_id: int) -> bool:
    """A dish offered to a member (the host's suggestion, a dish handed over or a trade), in their
    language, with their link to accept or decline it."""
    offer = (DishOffer.objects.select_related("party__club", "slot", "to", "to__club", "by", "take__slot")
             .filter(pk=offer_id, status=DishOffer.Status.PENDING).first())
    if offer is None:
        return False
    member = offer.to
    with _reading(member):
        subject, asked = _dish_offer_words(offer)
        body = _("Hi %(name)s,\n\n%(asked)s\n\nAccept or decline here: %(link)s\n") % {
            "name": member.name, "asked": asked, "link": _link(member)}
    return send_once(f"dish:{offer.pk}", kind="dish", to=[member.email], party=offer.party, member=member,
                     subject=subject, body=body)


def _nudge(party: Party, member: Member) -> tuple[str, str]:
    """An RSVP nudge's subject and what it asks, in the language the mail is written in."""
    values = {"club": party.club.name, "when": _when(party), "place": party.location,
              "hosts": party.hosted_by_label() if party.host else ""}
    if party.is_hosted_by_member(member):
        # Her own party: she is there; whether she plays is the question (issue 42).
        subject = _("%(club)s on %(when)s: will you play too?") % values
        said = (_("You host %(club)s on %(when)s at %(place)s. Will you play too?") if party.location
                else _("You host %(club)s on %(when)s. Will you play too?")) % values
        return subject, said
    subject = _("%(club)s on %(when)s: are you coming?") % values
    if party.location:
        said = (_("%(club)s plays Bunco on %(when)s at %(place)s, %(hosts)s. Are you coming?") if party.host
                else _("%(club)s plays Bunco on %(when)s at %(place)s. Are you coming?")) % values
    else:
        said = (_("%(club)s plays Bunco on %(when)s, %(hosts)s. Are you coming?") if party.host
                else _("%(club)s plays Bunco on %(when)s. Are you coming?")) % values
    return subject, said


def _default_nudge(party: Party, member: Member) -> tuple[str, str]:
    """The nudge where members count as coming by default (issue 45): the subject and what it says,
    with the cutoff, in the language the mail is written in."""
    values = {"club": party.club.name, "when": _when(party), "cutoff": _at(party.club.local(party.cutoff))}
    if party.is_hosted_by_member(member):
        subject = _("%(club)s on %(when)s: you're counted as playing") % values
        said = _("You host %(club)s on %(when)s and you're counted as playing too. If you won't play, say so before "
                 "%(cutoff)s.") % values
        return subject, said
    subject = _("%(club)s on %(when)s: you're counted as coming") % values
    said = _("%(club)s plays Bunco on %(when)s and you're counted as coming. If you can't come, say no before "
             "%(cutoff)s: your seat then goes to the sub list.") % values
    return subject, said


def _send_rsvp_nudges(party: Party) -> int:
    answered = set(party.rsvps.values_list("member_id", flat=True))
    by_default = party.club.attending_by_default
    sent = 0
    for member in party.club.members.regulars().exclude(pk__in=answered).exclude(email=""):
        with _reading(member):
            subject, said = _default_nudge(party, member) if by_default else _nudge(party, member)
            body = _("Hi %(name)s,\n\n%(said)s\n\nAnswer yes, no or maybe here: %(link)s\n") % {
                "name": member.name, "said": said, "link": _link(member)}
        sent += send_once(f"nudge:{party.pk}:{member.pk}", kind="nudge", to=[member.email], party=party,
                          member=member, subject=subject, body=body)
    return sent


def _host_brief(party: Party, count: Headcount) -> str:
    """What the host's reminder says of the answers so far and what to get ready, in the language the
    mail is written in."""
    waiting = {"maybe": len(count.maybe), "waiting": len(count.waiting)}
    if count.nobody_coming:
        # Nothing to get ready for nobody (issue 29, C11): say so rather than "snacks for 0".
        so_far = _("So far: %(summary)s") % {"summary": count.summary().lower()}
        ready = _("What to get ready: nothing yet; the tables, snacks and prize pot follow the yes answers.")
    else:
        tables = ngettext("%(tables)s table", "%(tables)s tables", count.tables) % {"tables": count.tables}
        so_far = _("So far: %(summary)s (%(tables)s)") % {"summary": count.summary(), "tables": tables}
        ready = _("What to get ready: %(tables)s of four, 3 dice and a score pad a table, a bell for the head table, "
                  "snacks for %(coming)s, and the prize pot (about $%(pot)s from the buy-ins).") % {
            "tables": tables, "coming": len(count.coming),
            "pot": formats.number_format(len(count.coming) * party.club.buy_in_cents / 100, 2)}
    answers = _("%(so_far)s, %(maybe)s maybe, %(waiting)s not answered yet.") % {"so_far": so_far, **waiting}
    return f"{answers}\n{ready}"


def _send_host_reminders(party: Party) -> int:
    count = headcount(party)
    sent = 0
    for member in (party.host, party.cohost):
        if member is None or not member.email:
            continue
        with _reading(member):
            values = {"name": member.name, "club": party.club.name, "when": _when(party), "link": _link(member)}
            body = _("Hi %(name)s,\n\nYou host %(club)s on %(when)s.\n\n%(brief)s\n\nYour club page: %(link)s\n") % {
                **values, "brief": _host_brief(party, count)}
            subject = _("You host %(club)s on %(when)s") % values
        sent += send_once(f"host:{party.pk}:{member.pk}", kind="host", to=[member.email], party=party, member=member,
                          subject=subject, body=body)
    return sent


def send_due_reminders(now: datetime.datetime | None = None) -> int:
    """Send every reminder that is due and has not gone out yet; returns how many were sent.

    RSVP nudges and the host's reminder go from the club's `rsvp_nudge_days` before a party until
    it starts (the nudges until the party's cutoff, `Party.nudges_between`, where members count as
    coming by default); substitute invitations, swap requests and dish offers that are still open,
    and what the Bunco box's last count found missing, go at once (normally their own task sent them
    already, and then they are not sent again)."""
    now = now or timezone.now()
    sent = 0
    horizon = now + datetime.timedelta(days=60)
    # A night played before its date is over (issue 29, C10): nobody is asked to come to it.
    for party in (Party.objects.unplayed().filter(starts_at__gt=now, starts_at__lte=horizon, cancelled_at__isnull=True)
                  .select_related("club", "host", "cohost")):
        nudge_from, nudge_until = party.nudges_between()
        if nudge_from <= now < nudge_until:
            sent += _send_rsvp_nudges(party)
        if party.starts_at - datetime.timedelta(days=party.club.rsvp_nudge_days) <= now:
            sent += _send_host_reminders(party)
    already = set(SentReminder.objects.filter(kind__in=("sub", "swap", "dish")).values_list("key", flat=True))
    for offer_id in DishOffer.objects.filter(status=DishOffer.Status.PENDING,
                                             party__starts_at__gt=now).values_list("pk", flat=True):
        if f"dish:{offer_id}" not in already:
            sent += send_dish_offer(offer_id)
    for invitation_id in SubInvitation.objects.filter(status=SubInvitation.Status.INVITED,
                                                      party__starts_at__gt=now).values_list("pk", flat=True):
        if f"sub:{invitation_id}" not in already:
            sent += send_sub_invitation(invitation_id)
    for swap_id in SwapRequest.objects.filter(status=SwapRequest.Status.PENDING,
                                              take__starts_at__gt=now).values_list("pk", flat=True):
        if f"swap:{swap_id}" not in already:
            sent += send_swap_request(swap_id)
    return sent + _send_box_flags(now)


def _send_box_flags(now: datetime.datetime) -> int:
    """What the last count of each club's Bunco box found missing, to its party's host, if the mail
    its action enqueued did not go (send_once: never twice)."""
    latest: dict[int, int] = {}
    for club_id, handover_id in (BoxHandOver.objects.filter(party__starts_at__gt=now, party__cancelled_at__isnull=True)
                                 .order_by("club_id", "-received_at", "-pk").values_list("club_id", "pk")):
        latest.setdefault(club_id, handover_id)
    return sum(send_box_missing(handover_id) for handover_id in latest.values())


def _box_lines(missing: Sequence[custody.Line]) -> str:
    """What a count found missing, one item a line, in the language the mail is written in."""
    return "\n".join(_("- %(item)s: %(counted)s of %(kit)s") % {
        "item": line.name, "counted": formats.number_format(line.counted, force_grouping=True),
        "kit": formats.number_format(line.kit, force_grouping=True)} for line in missing)


def send_box_missing(handover_id: int) -> int:
    """Tell the host (and co-host) of the party the Bunco box was received for what its count found
    missing, before the party (issue 45), each in their own language; once per count and host."""
    handover = (BoxHandOver.objects.select_related("party__club", "party__host", "party__cohost", "received_by")
                .filter(pk=handover_id).first())
    party = handover.party if handover else None
    if handover is None or party is None or not party.takes_answers:
        return 0
    missing = handover.missing()
    if not missing:
        return 0
    sent = 0
    for member in (party.host, party.cohost):
        if member is None or not member.email:
            continue
        with _reading(member):
            values = {"name": member.name, "club": party.club.name, "when": _when(party), "link": _link(member),
                      "counted": _at(party.club.local(handover.received_at)), "lines": _box_lines(missing),
                      "by": handover.received_by.name if handover.received_by else _("a host")}
            subject = _("%(club)s: the Bunco box is missing something for %(when)s") % values
            body = _("Hi %(name)s,\n\nThe Bunco box was counted on %(counted)s, when %(by)s received it, and it "
                     "is short of:\n%(lines)s\n\nYou host on %(when)s: there is still time to find or replace "
                     "them.\n\nYour club page: %(link)s\n") % values
        sent += send_once(f"box:{handover.pk}:{member.pk}", kind="box", to=[member.email], party=party,
                          member=member, subject=subject, body=body)
    return sent
