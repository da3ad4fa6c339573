"""A party's answers: RSVPs (with their idempotency keys) and substitutes invited to the seats regulars
give up. (Buy-ins are the treasury's: actions/treasury.py.)"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from bunco_club.actions.common import enqueue_mail, locked_party, log_change
from bunco_club.actions.refusals import ClubError
from bunco_club.models import RSVP, RSVP_NOTE_MAX, Blackout, Member, Party, RSVPRequest, SubInvitation
from live.refusals import KeyReused, NotNow
from live.text import has_control_characters, well_formed_key

RSVP_KEY_REUSED = gettext_lazy("This answer carries the key of an earlier answer with other content, so it was not "
                               "taken. Reload the page and answer again.")


@transaction.atomic
def answer_rsvp(party: Party, member: Member, answer: str, *, note: str | None = None, key: str | None = None) -> RSVP:
    """A member answers yes / no / maybe, with a note for the host ("bringing dessert") if they like.

    Every "no" from a regular gives their seat to the sub list, as does a "maybe" after a "yes"
    (once: `RSVP.gave_up_seat`): the first alternate in sub-list order is invited to it. A "yes"
    takes a given-up seat back while no alternate has taken it. Where the club counts its members
    as coming by default, no answer counts as a yes; a "no" after the party's cutoff from someone
    counted as coming is a late cancellation (`RSVP.cancelled_late`, for the hosts), a later "yes"
    clears it.

    `key` is the request's idempotency key: the same key with the same answer and note is a
    retry (nothing changes); the same key with anything else is refused (KeyReused, 409)."""
    clean_note = _clean_answer(answer, note, key)
    party = locked_party(party)
    if member.club_id != party.club_id or not member.is_active:
        raise ClubError(_("Only the club's members answer for its parties."))
    rsvp = RSVP.objects.filter(party=party, member=member).first()
    if key is not None and _is_retry(party, member, answer, clean_note, key, taken=rsvp is not None):
        assert rsvp is not None
        return rsvp  # a retry of an answer taken already
    if party.is_cancelled:
        raise NotNow(_("This party is cancelled: there is nothing to answer."))
    if party.is_past:
        raise NotNow(_("This party is over: answers are closed."))
    before = rsvp.answer if rsvp else None
    if member.is_alternate and before != RSVP.Answer.YES:
        raise ClubError(_("You're on the sub list: when a seat opens you'll be invited by email, "
                          "and you answer from the invitation."))
    late = party.is_late_cancellation(member, before, answer)
    # Counted as coming without an answer (attending by default) is as good as a yes: a "maybe"
    # gives the seat up as a "maybe" after a "yes" does.
    counted = RSVP.Answer.YES if party.counts_as_coming(member, before) else before
    if rsvp is None:
        rsvp = RSVP(party=party, member=member)
    rsvp.answer = answer
    if clean_note is not None:
        rsvp.note = clean_note
    if late:
        rsvp.cancelled_late = True
    elif answer == RSVP.Answer.YES:
        rsvp.cancelled_late = False
    gives_up, takes_back = _give_up_or_take_back_seat(rsvp, party, counted)
    rsvp.save()
    if key is not None:
        RSVPRequest.objects.create(member=member, party=party, key=key, answer=answer, note=clean_note or "")
    if gives_up or takes_back:
        party.save(update_fields=["open_seats"])
    if gives_up:
        _invite_subs_for_open_seats(party)
    log_change(party.club_id, "rsvp", party=party.pk)
    return rsvp


def _clean_answer(answer: str, note: str | None, key: str | None) -> str | None:
    """The note with its spaces tidied (None: the note is left as it was); refused before anything is
    read when the answer, the note or the key is not one the club takes."""
    if answer not in RSVP.Answer.values:
        raise ClubError(_("Answer yes, no or maybe."))
    clean_note = None if note is None else " ".join(str(note).split())
    if clean_note is not None and len(clean_note) > RSVP_NOTE_MAX:
        raise ClubError(_("A note is %(most)s letters at most.") % {"most": RSVP_NOTE_MAX})
    if clean_note is not None and has_control_characters(clean_note):
        raise ClubError(_("The note holds a character that is not a letter, a digit or a sign (a control "
                          "character): write it again."))
    if key is not None and not well_formed_key(key):
        raise ClubError(_("This answer's key is not valid: reload the page and answer again."))
    return clean_note


def _is_retry(party: Party, member: Member, answer: str, clean_note: str | None, key: str, *, taken: bool) -> bool:
    """Whether this answer was sent already with this key and taken (`taken`: the member's answer is
    on record); refused (KeyReused) when the key was sent with other content."""
    sent = RSVPRequest.objects.filter(member=member, key=key).first()
    if sent is None:
        return False
    if (sent.party_id, sent.answer, sent.note) != (party.pk, answer, clean_note or ""):
        raise KeyReused(str(RSVP_KEY_REUSED))
    return taken


def _give_up_or_take_back_seat(rsvp: RSVP, party: Party, before: str | None) -> tuple[bool, bool]:
    """A "no", or a "maybe" after a "yes", gives the member's seat to the sub list (once); a "yes"
    takes a given-up seat back. Changes `rsvp` and the party's open seats (unsaved); whether the
    seat was given up, and whether it was taken back."""
    answer = rsvp.answer
    gives_up = not rsvp.gave_up_seat and (answer == RSVP.Answer.NO or
                                         (answer == RSVP.Answer.MAYBE and before == RSVP.Answer.YES))
    takes_back = rsvp.gave_up_seat and answer == RSVP.Answer.YES
    if gives_up:
        rsvp.gave_up_seat = True
        party.open_seats += 1
    elif takes_back:
        rsvp.gave_up_seat = False
        # A member who gave their seat up takes it back while nobody has taken it yet.
        party.open_seats = max(0, party.open_seats - 1)
    return gives_up, takes_back


def _next_alternate(party: Party) -> Member | None:
    """The first alternate in sub-list order not yet asked, not coming, not away that day."""
    asked = party.sub_invitations.values_list("member_id", flat=True)
    answered = party.rsvps.values_list("member_id", flat=True)
    away = Blackout.objects.filter(date=party.day).values_list("member_id", flat=True)
    return (party.club.members.alternates().exclude(pk__in=asked).exclude(pk__in=answered)
            .exclude(pk__in=away).first())


def _invite_subs_for_open_seats(party: Party) -> list[SubInvitation]:
    """Invite alternates, in sub-list order, until there is one invitation out per open seat."""
    invited = []
    pending = party.sub_invitations.filter(status=SubInvitation.Status.INVITED).count()
    while pending < party.open_seats:
        sub = _next_alternate(party)
        if sub is None:
            break
        invitation = SubInvitation.objects.create(party=party, member=sub)
        enqueue_mail("send_sub_invitation", invitation.pk)
        invited.append(invitation)
        pending += 1
    return invited


@transaction.atomic
def invite_another_sub(party: Party) -> SubInvitation:
    """The host asks the next alternate too: whoever accepts first takes the seat."""
    party = locked_party(party)
    if not party.takes_answers:
        raise NotNow(_("This party is cancelled.") if party.is_cancelled else _("This party is over."))
    sub = _next_alternate(party)
    if sub is None:
        raise NotNow(_("Everyone on the sub list has been asked already."))
    invitation = SubInvitation.objects.create(party=party, member=sub)
    if party.open_seats == 0:
        party.open_seats = 1  # the host wants one more player
        party.save(update_fields=["open_seats"])
    enqueue_mail("send_sub_invitation", invitation.pk)
    log_change(party.club_id, "rsvp", party=party.pk)
    return invitation


SEAT_TAKEN = gettext_lazy("Thank you! Someone else took the seat first this time: we'll ask you again next time.")


@transaction.atomic
def answer_sub_invitation(invitation: SubInvitation, *, accept: bool) -> SubInvitation:
    """An invited alternate accepts (the first takes the seat: they are coming) or declines (the
    next alternate is asked). A later acceptance finds the seat taken (status TOO_LATE)."""
    party = locked_party(invitation.party)
    invitation = SubInvitation.objects.select_related("member").get(pk=invitation.pk)
    if not party.takes_answers:
        raise NotNow(_("This party is cancelled.") if party.is_cancelled else _("This party is over."))
    if invitation.status == SubInvitation.Status.ACCEPTED:
        raise NotNow(_("You already have this seat: see you there!"))
    if invitation.status != SubInvitation.Status.INVITED:
        raise NotNow(_("You've answered this invitation already."))
    invitation.answered_at = timezone.now()
    if not accept:
        invitation.status = SubInvitation.Status.DECLINED
        invitation.save(update_fields=["status", "answered_at"])
        _invite_subs_for_open_seats(party)
    elif party.open_seats == 0:
        invitation.status = SubInvitation.Status.TOO_LATE
        invitation.save(update_fields=["status", "answered_at"])
    else:
        party.open_seats -= 1
        party.save(update_fields=["open_seats"])
        invitation.status = SubInvitation.Status.ACCEPTED
        invitation.save(update_fields=["status", "answered_at"])
        RSVP.objects.update_or_create(party=party, member=invitation.member, defaults={"answer": RSVP.Answer.YES})
    log_change(party.club_id, "rsvp", party=party.pk)
    return invitation
