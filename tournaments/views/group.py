"""A group's phone: its table's QR link, its scoresheet page, a turn, an undo."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from games.phones import phone_token
from live.http import HtmxHttpRequest
from live.refusals import NotYours
from tournaments import actions, digital
from tournaments.forms import KeyForm, ResultForm, TurnForm
from tournaments.links import read_group_token
from tournaments.models import Group
from tournaments.views.contexts import group_context
from tournaments.views.shared import Page, form_error, group_for_phone, group_key, posted_entrant, refused


@require_GET
@refused(Page.GROUP_LINK)
def group_join(request: HttpRequest, token: str) -> HttpResponse:
    """A table's QR code: this phone keeps the group's scoresheet from now on."""
    code = read_group_token(token)
    group = Group.objects.select_related("round__tournament").filter(code=code).first()
    if group is None:
        raise NotYours(_("That group no longer exists."))
    request.session[group_key(code)] = group.round.tournament_id
    request.session[f"tournament:{group.round.tournament.code}"] = True
    return redirect("tournaments:group", code=code)


@require_GET
def group_page(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """The group's phone: its scoresheet and turn form or, for a group on phones while it plays,
    its game table (where every player's phone plays their seat)."""
    group = group_for_phone(request, code)
    if group.table is not None and group.status == Group.Status.PLAYING:
        return _go(request, digital.table_path(group.table))
    onwards = _lead_on(request, group)
    if onwards is not None:
        return onwards
    context = group_context(group, phone=phone_token(request))
    if request.htmx:
        return render(request, "tournaments/group.html#group-state", context)
    return render(request, "tournaments/group.html", context)


def _go(request: HtmxHttpRequest, path: str) -> HttpResponse:
    """The whole page goes to `path` (from its live region too, which htmx asks again)."""
    if request.htmx:
        response = HttpResponse(status=204)
        response["HX-Redirect"] = path
        return response
    return redirect(path)


def _lead_on(request: HtmxHttpRequest, group: Group) -> HttpResponse | None:
    """A final group's phone goes on to the play-off its players play next (Group.next_play_off:
    a play-off that tied again, or its table's players tied at the line), by itself: it may open
    that play-off as if it had scanned its code. None when there is nowhere to go."""
    onwards = group.next_play_off()
    if onwards is None:
        return None
    request.session[group_key(onwards.code)] = group.round.tournament_id
    return _go(request, reverse("tournaments:group", args=[onwards.code]))


@require_POST
@refused(Page.GROUP_PHONE)
def group_turn(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """A turn entered on the group's phone: the player, the points banked, a Vengeance or not."""
    group = group_for_phone(request, code)
    form = TurnForm(request.POST)
    if not form.is_valid():
        raise form_error(form, _("Enter the points banked (0 for a bust)."))
    points = form.banked()
    if points is None:
        raise actions.BadEntry(_("Enter the points banked, or tap Bust."))
    phone = phone_token(request, create=True)  # the phone that entered the turns reported the result
    actions.record_turn(group=group, entrant=posted_entrant(group, form), points=points,
                        vengeance=form.cleaned_data["vengeance"], key=form.cleaned_data["key"] or None, phone=phone)
    return _group_state_after(request, group, phone)


@require_POST
@refused(Page.GROUP_PHONE)
def group_undo(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """Undo the group's last entry; the same key undoes once."""
    group = group_for_phone(request, code)
    form = KeyForm(request.POST)
    if not form.is_valid():
        raise actions.BadEntry(_("That undo was malformed: tap Undo again."))
    actions.undo_last_turn(group=group, key=form.cleaned_data["key"] or None)
    group.refresh_from_db()
    return render(request, "tournaments/group.html#group-state", group_context(group, phone=phone_token(request)))


def _group_state_after(request: HtmxHttpRequest, group: Group, phone: str) -> HttpResponse:
    """What a group's phone shows after its post: the next round's page if its round has moved on
    (`_lead_on`), else its state, read again."""
    group = Group.objects.select_related("round__tournament").get(pk=group.pk)  # its round may have moved on
    onwards = _lead_on(request, group)
    if onwards is not None:
        return onwards
    return render(request, "tournaments/group.html#group-state", group_context(group, phone=phone))


def _answer_result(request: HtmxHttpRequest, code: str, answer: actions.ResultAnswer) -> HttpResponse:
    """A player's phone confirms or disputes its group's reported result, as the player it chose
    (the phone answers for that player from then on)."""
    group = group_for_phone(request, code)
    form = ResultForm(request.POST)
    if not form.is_valid():
        raise form_error(form, _("Choose your name, then answer again."))
    phone = phone_token(request, create=True)
    answer(group=group, entrant=posted_entrant(group, form), phone=phone, key=form.cleaned_data["key"] or None)
    return _group_state_after(request, group, phone)


@require_POST
@refused(Page.GROUP_PHONE)
def group_confirm(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """Another player of the group confirms its result on their own phone: it counts."""
    return _answer_result(request, code, actions.confirm_result)


@require_POST
@refused(Page.GROUP_PHONE)
def group_dispute(request: HtmxHttpRequest, code: str) -> HttpResponse:
    """A player of the group disputes its result: locked until the director settles it."""
    return _answer_result(request, code, actions.dispute_result)
