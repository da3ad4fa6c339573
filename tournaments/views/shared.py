"""What the tournament's views share: finding the tournament and whose it is, the group a
phone opened, a form's refusal, and `refused(page)`, the one place that answers this app's
refusals."""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from games.phones import phone_token
from live.http import HtmxHttpRequest
from live.limits import too_many
from live.refusals import Refusal, TooMany, answers_refusals, form_status
from tournaments import actions
from tournaments.check_in import BadCheckInCode
from tournaments.forms import CorrectionForm, NewTournamentForm, ResultForm, TurnForm
from tournaments.links import BadGroupLink
from tournaments.models import Entrant, Group, Tournament, Turn
from tournaments.views.contexts import dashboard_context, group_context


def tournament_or_404(code: str) -> Tournament:
    return get_object_or_404(Tournament, code=code)


def tournament_for_director(request: HttpRequest, code: str) -> Tournament:
    """The tournament, if the signed-in user directs it; 404 for an unknown one, 403 otherwise."""
    tournament = tournament_or_404(code)
    if not tournament.is_directed_by(request.user):
        raise PermissionDenied(_("Only the tournament's director can do that."))
    return tournament


def group_key(code: str) -> str:
    return f"tgroup:{code}"


def group_for_phone(request: HttpRequest, code: str) -> Group:
    """The group whose QR link this phone opened (or any group, for the director); 403 otherwise."""
    group = get_object_or_404(Group.objects.select_related("round__tournament"), code=code)
    if request.session.get(group_key(code)) or group.round.tournament.is_directed_by(request.user):
        return group
    raise PermissionDenied(_("This phone hasn't opened this group's link: scan the QR code on your table."))


def group_of(tournament: Tournament, group_id: int) -> Group:
    return get_object_or_404(Group.objects.select_related("round__tournament"), pk=group_id,
                             round__tournament=tournament)


def posted_entrant(group: Group, form: TurnForm | CorrectionForm | ResultForm) -> Entrant:
    """The player a phone posts for: 400 for no such player, 403 for a player of another group."""
    entrant = group.round.tournament.entrants.filter(pk=form.cleaned_data["entrant"]).first()
    if entrant is None:
        raise actions.BadEntry(_("Choose one of the group's players."))
    if not group.seats.filter(entrant=entrant).exists():
        raise actions.NotYourGroup(_("%(name)s doesn't play at your table: enter turns for your own group.")
                                   % {"name": entrant.name})
    return entrant


def form_error(form: Any, fallback: str) -> actions.BadEntry:
    """What a number field said ("The points banked must be a whole number…"), else the gist."""
    for errors in form.errors.as_data().values():
        if errors and errors[0].code != "required":
            return actions.BadEntry(errors[0].messages[0])
    return actions.BadEntry(fallback)


class Page(enum.Enum):
    """The page a refused request came from, which decides how its refusal is answered."""

    GROUP_PHONE = "group phone"  # a group's phone: its live region again, the message on top
    DASHBOARD = "dashboard"  # the director's dashboard: its live region with the message (htmx), else back to it
    GROUP_SHEET = "group sheet"  # the director's page of one group's entries: back to it with the message
    NEW = "new"  # the new-tournament form: the form again with the message on it
    GROUP_LINK = "group link"  # a table's QR link: the refused page (a bad link is counted, per address)
    DESK = "desk"  # the director's desk: back to it with the message
    CHECK_IN = "check-in"  # the projector's check-in code or a player's link: the refused page (bad ones counted)


def _answer(request: HtmxHttpRequest, error: Refusal, *, page: Page, code: str = "", **kwargs: Any) -> HttpResponse:
    """The one way a refusal (an action's, or a form's read by the view) reaches a page: its
    message, with its status, in the way of the page it came from (`page`; `code` and the other
    view arguments say which tournament or group). Nothing has changed: the state is read afresh."""
    if page in (Page.GROUP_LINK, Page.CHECK_IN):
        # Only bad links count (per address, with the night's join links): a hall shares one address.
        if isinstance(error, BadGroupLink | BadCheckInCode) and too_many(request, "bad-join"):
            error = TooMany(_(TOO_MANY_BAD_LINKS))  # past the limit, not the link's reason
        return render(request, "tournaments/refused.html", {"message": error.message}, status=error.status)
    if page is Page.GROUP_PHONE:
        group = get_object_or_404(Group.objects.select_related("round__tournament"), code=code)
        context = {**group_context(group, phone=phone_token(request)), "message": error.message}
        return render(request, "tournaments/group.html#group-state", context, status=error.status)
    if page is Page.GROUP_SHEET:
        group_id = kwargs.get("group_id") or get_object_or_404(Turn, pk=kwargs.get("turn_id"),
                                                               tournament__code=code).group_id
        messages.error(request, error.message)
        return redirect("tournaments:director_group", code=code, group_id=group_id)
    if page is Page.DESK:
        messages.error(request, error.message)
        return redirect("tournaments:desk", code=code)
    if page is Page.NEW:
        form = NewTournamentForm(request.POST, user=request.user)
        form.is_valid()
        form.add_error(None, error.message)
        return render(request, "tournaments/new.html", {"form": form}, status=form_status(form))
    # The dashboard again, the message in it beside what settles it: htmx swaps a 4xx answer like
    # any other, so its live region comes whole (the message alone would replace the dashboard);
    # a plain form (no script, or a button pressed before the page's script was ready) gets the
    # whole page, the same region in it, as a refused form is shown again where it was sent.
    tournament = tournament_for_director(request, code)
    context = {**dashboard_context(request, tournament), "message": error.message,
               "refused_seats": error.seats if isinstance(error, actions.SeatsNobodyHolds) else []}
    template = "tournaments/dashboard.html#dashboard-state" if request.htmx else "tournaments/dashboard.html"
    return render(request, template, context, status=error.status)


View = Callable[..., HttpResponse]


def refused(page: Page) -> Callable[[View], View]:
    """The view decorator answering a refusal raised in the view as `page` answers it."""
    return answers_refusals(functools.partial(_answer, page=page))


TOO_MANY_BAD_LINKS = gettext_noop("Too many bad links from this network just now. Wait a minute, then scan the code again.")
