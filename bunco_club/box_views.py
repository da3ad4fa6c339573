"""The Bunco box's pages (issue 45): the box page (its checklist, who has it, the custody log), the
host's checklist, and "received" from the next party's host, on their personal link or from the
party's page by a club host. Thin typed views on the club's permission helpers and its one answer
to a refusal (`refused`, bunco_club/views.py): the helper first, then the action, then a redirect
with what happened."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from bunco_club import actions
from bunco_club.box import box_at, box_now, next_party, offered_kit
from bunco_club.custody import COUNT_MAX, KIT_MAX_ITEMS
from bunco_club.models import BoxHandOver, Party
from bunco_club.views import Back, _club_for_host, _club_for_viewer, _member_from_link, _party_of, refused

BLANK_ROWS = 3  # empty lines under the checklist, for new items


@require_GET
def box(request: HttpRequest, slug: str) -> HttpResponse:
    """The club's Bunco box: who has it and what its last count found missing, the checklist (a
    host edits it; a club without one is offered the usual kit), and the custody log, newest first."""
    club, member, is_host = _club_for_viewer(request, slug)
    kit, offered = offered_kit(club)
    upcoming = next_party(club)
    rows = [{"name": name, "count": str(count)} for name, count in kit]
    rows += [{"name": "", "count": ""}] * (BLANK_ROWS if is_host else 0)
    context = {
        "club": club, "member": member, "is_host": is_host, "kit": kit, "rows": rows, "offered": offered,
        "has_kit": not offered, "next_party": upcoming, "where": box_at(upcoming) if upcoming else box_now(club),
        "log": BoxHandOver.objects.filter(club=club).newest_first().select_related("received_by", "party")[:50],
        "count_max": COUNT_MAX, "kit_max": KIT_MAX_ITEMS,
    }
    return render(request, "bunco_club/box.html", context)


@require_POST
@refused(Back.BOX)
def box_kit(request: HttpRequest, slug: str) -> HttpResponse:
    """A host writes the box's checklist: the rows' names and counts (`name`, `count`, in order)."""
    club = _club_for_host(request, slug)
    names, counts = request.POST.getlist("name"), request.POST.getlist("count")
    if len(names) != len(counts):
        raise actions.ClubError(_("Each line of the checklist has a name and a count: send the whole form again."))
    kit = actions.set_box_kit(club, list(zip(names, counts, strict=True)))
    messages.success(request, _("The box's checklist is saved: %(items)s.")
                     % {"items": ", ".join(f"{item.name} × {item.count}" for item in kit)})
    return redirect("clubs:box", slug=club.slug)


def _counted(request: HttpRequest) -> list[tuple[str, str]]:
    """What a "received" form counted: each item's id (`item`) with its count (`count`), in order."""
    items, counts = request.POST.getlist("item"), request.POST.getlist("count")
    if len(items) != len(counts):
        raise actions.ClubError(str(actions.KIT_CHANGED))
    return list(zip(items, counts, strict=True))


def _received(request: HttpRequest, handover: BoxHandOver) -> None:
    missing = handover.missing()
    if missing:
        messages.warning(request, _("Received: the box is yours. Missing: %(items)s. Your page shows it until a "
                                    "count finds them.") % {"items": ", ".join(
                                        _("%(item)s (%(counted)s of %(kit)s)") % {
                                            "item": line.name, "counted": line.counted, "kit": line.kit}
                                        for line in missing)})
    else:
        messages.success(request, _("Received: the box is yours, and everything is there."))


@require_POST
@refused(Back.PARTY)
def party_box_received(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """A club host records, from the party's page, that its host received the box, with the counts."""
    club = _club_for_host(request, slug)
    party = _party_of(club, pk)
    handover = actions.receive_box(party, _counted(request), key=request.POST.get("key", ""))
    _received(request, handover)
    return redirect("clubs:party", slug=club.slug, pk=party.pk)


@require_POST
@refused(Back.RSVP)
def my_box_received(request: HttpRequest, token: str, party_pk: int) -> HttpResponse:
    """The next party's host taps "received" on their personal link, with what they counted; a
    forged or retired link changes nothing (BadMemberLink), a retry of the same key neither."""
    member = _member_from_link(request, token)
    party = get_object_or_404(Party.objects.select_related("club", "host", "cohost"), club_id=member.club_id,
                              pk=party_pk)
    handover = actions.receive_box(party, _counted(request), key=request.POST.get("key", ""), member=member)
    _received(request, handover)
    if request.POST.get("back") == "party":  # sent from the party's page
        return redirect("clubs:party", slug=party.club.slug, pk=party.pk)
    return redirect("clubs:my_club", token=token)
