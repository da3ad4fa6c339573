"""Where the club's Bunco box is, as the pages show it (issue 45): who has it now, who brings it to
a party, what its last count found missing, and the kit a club is offered before it has one. Read
from the custody log (models.BoxHandOver), by the rules of bunco_club/custody.py; the actions that
change the box are bunco_club/actions/box.py."""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from typing import ClassVar

from django.utils import translation
from django.utils.translation import gettext

from bunco_club import custody
from bunco_club.models import BoxHandOver, BoxItem, Club, Member, Party


def next_party(club: Club) -> Party | None:
    """The club's next party still to come and not called off: the one whose host receives the box."""
    return club.parties.upcoming().filter(cancelled_at__isnull=True).select_related("host", "cohost").first()


def previous_host(party: Party) -> Member | None:
    """The host of the club's last party before this one (not called off, with a host): who hands
    the box on to this one's."""
    before = (party.club.parties.filter(starts_at__lt=party.starts_at, cancelled_at__isnull=True, host__isnull=False)
              .select_related("host").order_by("-starts_at").first())
    return before.host if before else None


def offered_kit(club: Club) -> tuple[list[tuple[str, int]], bool]:
    """The checklist the box page's form starts from: the club's, or, before it has one, the usual
    kit (custody.DEFAULT_KIT) in the club's language; and whether it is that offer."""
    kit = list(club.box_items.values_list("name", "count"))
    if kit:
        return kit, False
    with translation.override(club.language):
        return [(gettext(name), count) for name, count in custody.DEFAULT_KIT], True


@dataclass(frozen=True)
class BoxAtParty:
    """The box as a party's page shows it: who has it now and since when (its last count), who
    should bring it to whom, whether the host has it, what its last count found missing, and the
    kit its host counts when they receive it (`receives`: this party is the one to receive it for)."""

    holder: Member | None
    last: BoxHandOver | None
    brings: Member | None
    to: Member | None
    ready: bool
    missing: list[custody.Line]
    kit: list[BoxItem] = field(default_factory=list)
    receives: bool = False
    count_max: ClassVar[int] = custody.COUNT_MAX  # what the form's counts go up to

    @property
    def since(self) -> datetime.datetime | None:
        return self.last.received_at if self.last else None


def box_at(party: Party) -> BoxAtParty:
    """Where the box is for `party` (custody.who_brings), from the custody log."""
    club = party.club
    last = BoxHandOver.objects.filter(club=club).latest_one()
    holder = last.received_by if last else None
    before = previous_host(party)
    hosts = {member.pk: member for member in (party.host, party.cohost) if member is not None}
    bringing = custody.who_brings(holder=holder.pk if holder else None, hosts=hosts.keys(),
                                  previous_host=before.pk if before else None)
    people = {**hosts, **({holder.pk: holder} if holder else {}), **({before.pk: before} if before else {})}
    upcoming = next_party(club)
    return BoxAtParty(holder=holder, last=last, brings=people.get(bringing.brings) if bringing.brings else None,
                      to=party.host or party.cohost, ready=bringing.ready,
                      missing=last.missing() if last and party.takes_answers else [],
                      kit=list(club.box_items.all()),
                      receives=upcoming is not None and upcoming.pk == party.pk and bool(hosts))


def box_now(club: Club) -> BoxAtParty:
    """Where the box is when no party is coming: who has it, and what its last count found missing."""
    last = BoxHandOver.objects.filter(club=club).latest_one()
    return BoxAtParty(holder=last.received_by if last else None, last=last, brings=None, to=None, ready=False,
                      missing=last.missing() if last else [])


def box_for_host(member: Member) -> tuple[Party, BoxAtParty] | None:
    """The box as a member's own page shows it when they host the club's next party: that party and
    where the box is for it (None when they don't host the next one)."""
    upcoming = next_party(member.club)
    if upcoming is None or not upcoming.is_hosted_by_member(member):
        return None
    return upcoming, box_at(upcoming)
