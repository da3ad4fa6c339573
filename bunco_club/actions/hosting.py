"""Who hosts when: the dates a member is away, the fair rotation (rotation.py) and swap requests."""

from __future__ import annotations

import datetime
from collections.abc import Iterable

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.dateformat import format as date_format
from django.utils.translation import gettext as _

from bunco_club import rotation
from bunco_club.actions.common import enqueue_mail, log_change, touch_party
from bunco_club.actions.refusals import ClubError
from bunco_club.models import Blackout, Club, Member, Party, Season, SwapRequest
from live.refusals import NotNow


@transaction.atomic
def set_blackouts(member: Member, days: Iterable[datetime.date]) -> None:
    """The dates a member can't host (replacing the ones they had)."""
    wanted = set(days)
    member.blackouts.exclude(date__in=wanted).delete()
    have = set(member.blackouts.values_list("date", flat=True))
    Blackout.objects.bulk_create([Blackout(member=member, date=day) for day in sorted(wanted - have)])
    log_change(member.club_id, "roster", member=member.pk)


def _hosting_units(club: Club) -> list[tuple[Member, Member | None]]:
    """The regulars as rotation slots: a co-host pair is one slot (roster order of the first)."""
    units: list[tuple[Member, Member | None]] = []
    placed: set[int] = set()
    regulars = list(club.members.regulars().select_related("cohost"))
    active = {member.pk for member in regulars}
    for member in regulars:
        if member.pk in placed:
            continue
        partner = member.cohost if member.cohost_id in active else None
        units.append((member, partner))
        placed.update({member.pk, *([partner.pk] if partner else [])})
    return units


@transaction.atomic
def assign_hosts(season: Season, *, now: datetime.datetime | None = None) -> list[Party]:
    """Give every party of the season still to come a host by the fair rotation (rotation.py):
    past parties keep theirs and count as hostings, like earlier seasons do; co-hosts host
    together. Returns the parties planned."""
    now = now or timezone.now()
    club = season.club
    units = _hosting_units(club)
    if not units:
        raise ClubError(_("Add the club's regular members before planning who hosts."))
    parties = list(season.parties.select_for_update().filter(starts_at__gte=now, cancelled_at__isnull=True)
                   .select_related("club").order_by("starts_at"))
    if not parties:
        raise NotNow(_("Every party of this season is over: there is nothing left to plan."))
    keys = [str(first.pk) for first, _ in units]
    by_key = dict(zip(keys, units, strict=True))
    away: dict[int, set[datetime.date]] = {}
    for blackout in Blackout.objects.filter(member__club=club):
        away.setdefault(blackout.member_id, set()).add(blackout.date)
    earlier = club.parties.filter(starts_at__lt=parties[0].starts_at, cancelled_at__isnull=True)
    blackouts = {}
    hosted_before = {}
    for key, (first, second) in by_key.items():
        people = [first.pk] + ([second.pk] if second else [])
        blackouts[key] = set().union(*(away.get(pk, set()) for pk in people))
        hosted_before[key] = earlier.filter(Q(host_id__in=people) | Q(cohost_id__in=people)).count()
    plan = rotation.plan_rotation(keys, [party.day for party in parties],
                                  blackouts=blackouts, hosted_before=hosted_before)
    for party, planned in zip(parties, plan, strict=True):
        host, cohost = by_key[planned] if planned is not None else (None, None)
        if (party.host_id, party.cohost_id) != (getattr(host, "pk", None), getattr(cohost, "pk", None)):
            party.host, party.cohost = host, cohost
            touch_party(party, ["host", "cohost"])
    log_change(club, "season", season=season.pk)
    return parties


@transaction.atomic
def request_swap(requester: Member, *, give: Party, take: Party) -> SwapRequest:
    """`requester` asks the host of `take` to swap dates with them."""
    if give.club_id != requester.club_id or take.club_id != requester.club_id:
        raise ClubError(_("Both parties must be this club's."))
    if not give.is_hosted_by_member(requester):
        raise ClubError(_("You can only offer a date you host."))
    if give.pk == take.pk:
        raise ClubError(_("Pick someone else's date to swap with."))
    if take.host is None or take.is_hosted_by_member(requester):
        raise ClubError(_("That date has no other host to swap with."))
    if give.is_past or take.is_past:
        raise NotNow(_("Only dates still to come can be swapped."))
    if SwapRequest.objects.filter(give=give, take=take, status=SwapRequest.Status.PENDING).exists():
        raise NotNow(_("You have already asked for this swap: wait for the answer."))
    _check_not_away(give, take)
    swap = SwapRequest.objects.create(requested_by=requester, asked=take.host, give=give, take=take)
    log_change(requester.club_id, "swap", swap=swap.pk)
    enqueue_mail("send_swap_request", swap.pk)
    return swap


def _hosts_of(party: Party) -> list[Member]:
    return [member for member in (party.host, party.cohost) if member is not None]


def _check_not_away(give: Party, take: Party) -> None:
    """A swap never makes anyone host on a date they marked as away: the hosts of `give` would
    host on `take`'s date and those of `take` on `give`'s."""
    for party, other in ((give, take), (take, give)):
        for member in _hosts_of(other):
            if member.blackouts.filter(date=party.day).exists():
                raise NotNow(_("%(name)s is away on %(day)s: this swap would make them host that day. Pick another "
                               "date, or change their dates away first.")
                             % {"name": member.name, "day": date_format(party.day, "D d M Y")})


@transaction.atomic
def answer_swap(swap: SwapRequest, *, member: Member, accept: bool) -> SwapRequest:
    """The asked member accepts (the two parties swap hosts) or declines."""
    swap = SwapRequest.objects.select_for_update().select_related("give", "take").get(pk=swap.pk)
    if member.pk != swap.asked_id:
        raise ClubError(_("Only the member asked can answer this swap."))
    if swap.status != SwapRequest.Status.PENDING:
        raise NotNow(_("This swap was already answered: %(answer)s.")
                     % {"answer": swap.get_status_display().lower()})
    if not accept:
        swap.status = SwapRequest.Status.DECLINED
        swap.save(update_fields=["status"])
        log_change(member.club_id, "swap", swap=swap.pk)
        return swap
    give, take = (Party.objects.select_for_update().get(pk=pk) for pk in (swap.give_id, swap.take_id))
    if not give.is_hosted_by_member(swap.requested_by) or not take.is_hosted_by_member(member):
        raise NotNow(_("The hosts of these dates have changed since the swap was asked: it can't go ahead."))
    if give.is_past or take.is_past:
        raise NotNow(_("One of these dates is over: it can't be swapped any more."))
    _check_not_away(give, take)
    give.host, give.cohost, take.host, take.cohost = take.host, take.cohost, give.host, give.cohost
    touch_party(give, ["host", "cohost"])
    touch_party(take, ["host", "cohost"])
    swap.status = SwapRequest.Status.ACCEPTED
    swap.save(update_fields=["status"])
    log_change(member.club_id, "swap", swap=swap.pk)
    return swap
