"""The Bunco box (issue 45): its checklist, written by a host, and the custody log, to which the
next party's host adds a hand-over when they receive the box and count what is there. A count
short of the kit is flagged to the party's host: on its pages (bunco_club/box.py) and by mail,
enqueued on commit (bunco_club.tasks.send_box_missing)."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from bunco_club import box, custody
from bunco_club.actions.common import enqueue_mail, figure, locked_club, log_change
from bunco_club.actions.refusals import ClubError
from bunco_club.models import NAME_MAX, BoxHandOver, BoxItem, Club, Member, Party
from live.refusals import KeyReused, NotNow, NotYours
from live.text import has_control_characters, well_formed_key

BOX_KEY_REUSED = gettext_lazy("This count carries the key of an earlier one with other figures, so it was not "
                              "taken. Reload the page and count again.")
KIT_CHANGED = gettext_lazy("The box's checklist has changed since this page was opened: reload it and count "
                           "again.")


def _count(raw: str, *, item: str, least: int) -> int:
    """custody.read_count, its refusal the club's (a ClubError saying it in the reader's language)."""
    try:
        return custody.read_count(raw, item=item, least=least)
    except custody.BoxError as error:
        raise ClubError(error.args[0]) from None


def _item_name(raw: str) -> str:
    name = " ".join(str(raw).split())
    if has_control_characters(name):
        raise ClubError(_("An item's name holds a character that is not a letter, a digit or a sign (a control "
                          "character): write it again."))
    if len(name) > NAME_MAX:
        raise ClubError(_("“%(start)s…” is too long for an item of the box (%(limit)s letters at most).")
                        % {"start": name[:NAME_MAX], "limit": NAME_MAX})
    return name


def clean_kit(rows: Sequence[tuple[str, str]]) -> list[tuple[str, int]]:
    """The checklist a host wrote, rows of (name, how many): names tidied, counts read (1 to
    custody.COUNT_MAX), blank rows left out; refused whole when a row is not right."""
    kit: list[tuple[str, int]] = []
    seen: set[str] = set()
    for raw_name, raw_count in rows:
        name = _item_name(raw_name)
        if not name and not str(raw_count).strip():
            continue  # an empty row of the form, for a new item
        if not name:
            raise ClubError(_("Each count needs the name of what it counts: write the item's name, or clear its "
                              "count."))
        count = _count(raw_count, item=name, least=1)
        if name.casefold() in seen:
            raise ClubError(_("“%(item)s” is on the list twice: write it once, with its whole count.") % {"item": name})
        seen.add(name.casefold())
        kit.append((name, count))
    if not kit:
        raise ClubError(_("Write at least one thing the box holds, with how many."))
    if len(kit) > custody.KIT_MAX_ITEMS:
        raise ClubError(_("The box's checklist has %(most)s lines at most: put small things together on one.")
                        % {"most": figure(custody.KIT_MAX_ITEMS)})
    return kit


@transaction.atomic
def set_box_kit(club: Club, rows: Sequence[tuple[str, str]]) -> list[BoxItem]:
    """The club's checklist, replaced whole by what a host wrote (`rows`: (name, how many) as typed,
    in order). The same list sent again changes nothing, so a form resent is harmless; the counts
    already recorded keep the list as it was when they were made."""
    kit = clean_kit(rows)
    locked_club(club)
    if list(club.box_items.values_list("name", "count")) != kit:
        club.box_items.all().delete()
        BoxItem.objects.bulk_create([BoxItem(club=club, name=name, count=count, position=position)
                                     for position, (name, count) in enumerate(kit)])
        log_change(club, "box", kit=len(kit))
    return list(club.box_items.all())


def _lines(club: Club, counted: Sequence[tuple[str, str]]) -> list[custody.Line]:
    """What was counted of each item of the club's kit (`counted`: (item id, count) as posted, each
    item once); refused when it is not the kit as it stands or a count is not one."""
    kit = list(club.box_items.all())
    if not kit:
        raise NotNow(_("The club's box has no checklist yet: a host writes it on the box's page first."))
    by_id = {str(item.pk): item for item in kit}
    typed: dict[str, str] = {}
    for item_id, count in counted:
        if item_id not in by_id or item_id in typed:
            raise ClubError(str(KIT_CHANGED))
        typed[item_id] = count
    if typed.keys() != by_id.keys():
        raise ClubError(str(KIT_CHANGED))
    return [custody.Line(name=item.name, kit=item.count, counted=_count(typed[str(item.pk)], item=item.name, least=0))
            for item in kit]


def _receiver(party: Party, member: Member | None) -> Member:
    """Who receives the box for `party`: the member tapping "received" on their own link, who must
    host it; from a club host's page (`member` None), the party's host (or its co-host)."""
    if member is not None:
        if not party.is_hosted_by_member(member):
            raise NotYours(_("Only this party's host receives the box for it."))
        return member
    receiver = party.host or party.cohost
    if receiver is None:
        raise NotNow(_("This party has no host yet: choose its host first, who then receives the box."))
    return receiver


@transaction.atomic
def receive_box(party: Party, counted: Sequence[tuple[str, str]], *, key: str, member: Member | None = None
                ) -> BoxHandOver:
    """The host of the club's next party has the box: what they counted of each item of the kit
    (`counted`: (item id, count) as posted, every item once) is appended to the custody log, and
    from then on they hold it. From their personal link `member` is who tapped (they must host the
    party); from a club host's page it is None (`by_host`), and the party's host receives it.

    `key` is the request's idempotency key: the same key with the same figures is a retry (the
    hand-over recorded already is returned); the same key with anything else is refused (KeyReused).
    A count short of the kit is mailed to the party's host, on commit."""
    if not isinstance(key, str) or not well_formed_key(key):
        raise ClubError(_("This count's key is not valid: reload the page and count again."))
    club = party.club
    if member is not None and member.club_id != club.pk:
        raise NotYours(_("Only this party's host receives the box for it."))
    locked_club(club)
    party = Party.objects.select_related("club", "host", "cohost").get(pk=party.pk)  # as it stands now
    lines = [line.as_record() for line in _lines(club, counted)]
    receiver = _receiver(party, member)
    sent = BoxHandOver.objects.filter(club=club, key=key).first()
    if sent is not None:
        if (sent.party_id, sent.received_by_id, sent.counts, sent.by_host) != (party.pk, receiver.pk, lines,
                                                                               member is None):
            raise KeyReused(str(BOX_KEY_REUSED))
        return sent  # a retry of a count taken already
    if party.is_cancelled:
        raise NotNow(_("This party is cancelled: nobody receives the box for it."))
    if party.is_past:
        raise NotNow(_("This party is over: the box goes to the next one's host."))
    upcoming = box.next_party(club)
    if upcoming is None or upcoming.pk != party.pk:
        raise NotNow(_("The box goes to the next party's host first: receive it once the party before this one "
                       "is over."))
    handover = BoxHandOver.objects.create(club=club, party=party, received_by=receiver, counts=lines,
                                          by_host=member is None, key=key)
    log_change(club, "box", party=party.pk, handover=handover.pk)
    if handover.missing():
        enqueue_mail("send_box_missing", handover.pk)
    return handover
