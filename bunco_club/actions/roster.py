"""The roster: members, the sub list (alternates in the order they are invited), co-host pairs,
retiring and coming back, and a member's own link and account."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext as _

from bunco_club.actions.common import clean_name, clean_text, locked_club, log_change
from bunco_club.actions.refusals import ClubError
from bunco_club.models import EMAIL_MAX, PHONE_MAX, Club, Member
from live.refusals import NotNow


def _check_name_free(club: Club, name: str, *, but: Member | None = None) -> None:
    taken = club.members.filter(name__iexact=name)
    if but is not None:
        taken = taken.exclude(pk=but.pk)
    if taken.exists():
        raise ClubError(_("“%(name)s” is already on the roster: add a surname or an initial.") % {"name": name})


def _next_sub_order(club: Club) -> int:
    last = club.members.filter(is_alternate=True).order_by("-sub_order").values_list("sub_order", flat=True).first()
    return (last or 0) + 1


def _check_roster_room(club: Club) -> None:
    """Refuse one more member for a club whose roster holds settings.CLUB_MAX_MEMBERS already."""
    most = settings.CLUB_MAX_MEMBERS
    if club.members.count() >= most:
        raise ClubError(_("%(club)s has %(most)s members already (retired ones count: they stay for the club's "
                          "history), the most a club may: start a second club for the others.")
                        % {"club": club.name, "most": most})


@transaction.atomic
def add_member(club: Club, *, name: str, email: str = "", phone: str = "", alternate: bool = False) -> Member:
    """A regular, or an alternate at the end of the sub list."""
    clean = clean_name(name)
    email, phone = clean_text(email, "email address", EMAIL_MAX), clean_text(phone, "phone number", PHONE_MAX)
    locked_club(club)
    _check_roster_room(club)
    _check_name_free(club, clean)
    member = Member.objects.create(
        club=club, name=clean, email=email, phone=phone, is_alternate=alternate,
        sub_order=_next_sub_order(club) if alternate else 0,
    )
    log_change(club, "roster", member=member.pk)
    return member


@transaction.atomic
def edit_member(member: Member, *, name: str, email: str = "", phone: str = "") -> Member:
    clean = clean_name(name)
    email, phone = clean_text(email, "email address", EMAIL_MAX), clean_text(phone, "phone number", PHONE_MAX)
    _check_name_free(member.club, clean, but=member)
    member.name, member.email, member.phone = clean, email, phone
    member.save(update_fields=["name", "email", "phone"])
    log_change(member.club_id, "roster", member=member.pk)
    return member


def _sub_list(club: Club) -> list[Member]:
    """The sub list locked and renumbered 1..n (its order kept)."""
    subs = list(club.members.alternates().select_for_update())
    for number, sub in enumerate(subs, start=1):
        if sub.sub_order != number:
            sub.sub_order = number
            sub.save(update_fields=["sub_order"])
    return subs


@transaction.atomic
def move_sub(member: Member, *, up: bool) -> None:
    """Move an alternate one place up (towards first invited) or down the sub list."""
    if not member.is_alternate or not member.is_active:
        raise ClubError(_("%(name)s is not on the sub list.") % {"name": member.name})
    subs = _sub_list(member.club)
    index = next(i for i, sub in enumerate(subs) if sub.pk == member.pk)
    other = index - 1 if up else index + 1
    if not 0 <= other < len(subs):
        already = _("%(name)s is already first on the sub list.") if up else _("%(name)s is already last on the sub list.")
        raise ClubError(already % {"name": member.name})
    a, b = subs[index], subs[other]
    a.sub_order, b.sub_order = b.sub_order, a.sub_order
    a.save(update_fields=["sub_order"])
    b.save(update_fields=["sub_order"])
    log_change(member.club_id, "roster", member=member.pk)


@transaction.atomic
def promote(member: Member) -> Member:
    """An alternate becomes a regular."""
    if not member.is_active:
        raise ClubError(_("%(name)s is retired: bring them back first.") % {"name": member.name})
    if not member.is_alternate:
        raise ClubError(_("%(name)s is already a regular.") % {"name": member.name})
    member.is_alternate = False
    member.save(update_fields=["is_alternate"])
    _sub_list(member.club)
    log_change(member.club_id, "roster", member=member.pk)
    return member


@transaction.atomic
def make_alternate(member: Member) -> Member:
    """A regular moves to the end of the sub list (their co-host pair is split)."""
    if not member.is_active:
        raise ClubError(_("%(name)s is retired: bring them back first.") % {"name": member.name})
    if member.is_alternate:
        raise ClubError(_("%(name)s is already on the sub list.") % {"name": member.name})
    _split_pair(member)
    member.is_alternate = True
    member.sub_order = _next_sub_order(member.club)
    member.save(update_fields=["is_alternate", "sub_order"])
    log_change(member.club_id, "roster", member=member.pk)
    return member


@transaction.atomic
def retire(member: Member) -> Member:
    """Off the roster (kept for the club's history); their co-host pair is split."""
    if not member.is_active:
        raise ClubError(_("%(name)s is already retired.") % {"name": member.name})
    _split_pair(member)
    member.is_active = False
    member.save(update_fields=["is_active"])
    if member.is_alternate:
        _sub_list(member.club)
    log_change(member.club_id, "roster", member=member.pk)
    return member


@transaction.atomic
def reinstate(member: Member) -> Member:
    """A retired member comes back (an alternate at the end of the sub list)."""
    if member.is_active:
        raise ClubError(_("%(name)s is on the roster already.") % {"name": member.name})
    member.is_active = True
    if member.is_alternate:
        member.sub_order = _next_sub_order(member.club)
    member.save(update_fields=["is_active", "sub_order"])
    log_change(member.club_id, "roster", member=member.pk)
    return member


def _split_pair(member: Member) -> None:
    partner = Member.objects.filter(cohost=member).first()
    if partner is not None:
        partner.cohost = None
        partner.save(update_fields=["cohost"])
    if member.cohost_id is not None:
        member.cohost = None
        member.save(update_fields=["cohost"])


@transaction.atomic
def pair_cohosts(first: Member, second: Member) -> None:
    """Two regulars who host together: one slot in the rotation, both named on the party."""
    if first.club_id != second.club_id or first.pk == second.pk:
        raise ClubError(_("Pick two different members of the club."))
    for member in (first, second):
        if member.is_alternate or not member.is_active:
            raise ClubError(_("%(name)s is not a regular: only regulars host.") % {"name": member.name})
        if member.cohost_id is not None or Member.objects.filter(cohost=member).exists():
            raise ClubError(_("%(name)s already hosts with someone: split that pair first.") % {"name": member.name})
    first.cohost = second
    first.save(update_fields=["cohost"])
    second.cohost = first
    second.save(update_fields=["cohost"])
    log_change(first.club_id, "roster", member=first.pk)


@transaction.atomic
def split_cohosts(member: Member) -> None:
    if member.cohost_id is None:
        raise ClubError(_("%(name)s hosts alone already.") % {"name": member.name})
    _split_pair(member)
    log_change(member.club_id, "roster", member=member.pk)


@transaction.atomic
def claim_member(member: Member, user: Any) -> Member:
    """A member who has an account links it to their member record (from their personal link): the
    club's pages then open for them wherever they log in. An account is optional."""
    if not getattr(user, "is_authenticated", False):
        raise ClubError(_("Log in first, then open your personal link again."))
    member = Member.objects.select_for_update().get(pk=member.pk)
    if member.user_id is not None and member.user_id != user.pk:
        raise NotNow(_("%(name)s's record is linked to another account already: ask the club's host.")
                     % {"name": member.name})
    if member.club.members.filter(user=user).exclude(pk=member.pk).exists():
        raise NotNow(_("Your account is linked to another member of this club already."))
    member.user = user
    member.save(update_fields=["user"])
    log_change(member.club_id, "roster", member=member.pk)
    return member


@transaction.atomic
def reset_member_link(member: Member) -> Member:
    """A new personal link; the old one (and its calendar feed) stops working."""
    member.code = Member._meta.get_field("code").get_default()
    member.save(update_fields=["code"])
    return member
