"""The club's pages: thin typed function views, permission helper first, one URL per verb.

Who sees what:
- a club's hosts (accounts in `Club.hosts`) see and edit everything of their club;
- its members see the club, its seasons, parties and standings, and answer for themselves only:
  through their signed personal link (`links.py`; opening it remembers the member on the phone),
  or through an account linked to their member record;
- anybody else gets a 404 for a club page, never a 403: a club's existence is not public.
A member who tries a host's page gets a 403 (they know the club exists).
"""

from __future__ import annotations

import datetime
import enum
import functools
import secrets
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Prefetch, Q
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.dateformat import format as date_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from bunco_club import actions, box, ical
from bunco_club.export import export_text
from bunco_club.forms import (
    BlackoutsForm,
    ClubForm,
    CohostForm,
    DishMemberForm,
    DishSlotForm,
    DishTradeForm,
    DishWantedForm,
    MemberForm,
    NewMemberForm,
    NewPartyForm,
    PairForm,
    PartyForm,
    SeasonByHandForm,
    SeasonByRuleForm,
    SwapForm,
)
from bunco_club.headcount import headcount
from bunco_club.links import BadMemberLink, member_token, read_member_token
from bunco_club.models import (
    RSVP,
    Club,
    DishOffer,
    DishSignup,
    DishSlot,
    Member,
    NightRecord,
    Party,
    Season,
    SubInvitation,
    SwapRequest,
)
from bunco_club.standings import Standing
from bunco_club.treasury_figures import buy_in_rows, party_money
from live.http import HtmxHttpRequest, remember_language
from live.refusals import KeyReused, Refusal, answers_refusals, form_status, shown_on

SESSION_MEMBERS = "club-member-codes"
NOT_A_HOST = gettext_lazy("Only the club's hosts can do that.")

# --- Who is asking ----------------------------------------------------------------------------


def in_club_zone(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Every club view: the club's time zone, which its permission helper activates (`_club`,
    `_member_from_link`), is dropped again once the page is made (club_urls.py wraps every view)."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        finally:
            timezone.deactivate()

    return wrapped


def _club(slug: str) -> Club:
    """The club; its times show in its own zone from here on."""
    club = get_object_or_404(Club, slug=slug)
    timezone.activate(club.zone)
    return club


def _site_address(request: HttpRequest) -> str:
    return f"{request.scheme}://{request.get_host()}"


def _note_host(request: HttpRequest, club: Club) -> None:
    """A host reached the site at this address: the club's emails and calendars link there."""
    actions.note_site_address(club, _site_address(request))


def _viewer_member(request: HttpRequest, club: Club) -> Member | None:
    """The member of `club` this browser is: an account linked to a member record, or a personal
    link opened on this phone."""
    codes = request.session.get(SESSION_MEMBERS, [])
    found = Q(code__in=codes) if isinstance(codes, list) and codes else Q(pk__in=[])
    if request.user.is_authenticated:
        found |= Q(user=request.user)
    return club.members.filter(found, is_active=True).first()


def _club_for_host(request: HttpRequest, slug: str) -> Club:
    """The club, if this browser is one of its hosts; 403 for its members, 404 for anybody else."""
    club = _club(slug)
    if club.is_hosted_by(request.user):
        _note_host(request, club)
        return club
    if _viewer_member(request, club) is not None:
        raise PermissionDenied(str(NOT_A_HOST))
    raise Http404(_("No such club."))


def _club_for_viewer(request: HttpRequest, slug: str) -> tuple[Club, Member | None, bool]:
    """The club, the member this browser is (if any) and whether it is a host; 404 for outsiders."""
    club = _club(slug)
    is_host = club.is_hosted_by(request.user)
    member = _viewer_member(request, club)
    if not is_host and member is None:
        raise Http404(_("No such club."))
    if is_host:
        _note_host(request, club)
    return club, member, is_host


LINK_RETIRED = gettext_lazy("This link is no longer in use. Ask your club's host for your link.")


def _member_from_link(request: HttpRequest, token: str) -> Member:
    """The member whose personal link this is (BadMemberLink for a bad or retired one); the
    phone remembers them, so the club's pages open for it afterwards."""
    code = read_member_token(token)
    member = Member.objects.select_related("club").filter(code=code, is_active=True).first()
    if member is None:
        raise BadMemberLink(str(LINK_RETIRED))
    timezone.activate(member.club.zone)
    translation.activate(member.reads)  # their page and its messages in their language (docs/I18N.md)
    codes = request.session.get(SESSION_MEMBERS, [])
    if not isinstance(codes, list):
        codes = []
    if member.code not in codes:
        request.session[SESSION_MEMBERS] = [*codes, member.code][-20:]
    return member


def _party_of(club: Club, pk: int) -> Party:
    return get_object_or_404(Party.objects.select_related("club", "host", "cohost", "season"), club=club, pk=pk)


def _member_of(club: Club, pk: int) -> Member:
    return get_object_or_404(Member, club=club, pk=pk)


def _season_of(club: Club, pk: int) -> Season:
    return get_object_or_404(Season, club=club, pk=pk)


class Back(enum.Enum):
    """The page a refused form post goes back to, with the refusal's message on it."""

    CLUB = "club"  # the club's page
    ROSTER = "roster"  # the roster
    SEASON = "season"  # the season `pk`
    PARTY = "party"  # the party `pk`
    ME = "me"  # the member's own page (their personal link)
    RSVP = "rsvp"  # the party `party_pk` if the answer was sent from its page, else the member's own page
    BOX = "box"  # the club's Bunco box page


def _back_url(back: Back, request: HttpRequest, *, slug: str, pk: int, token: str, party_pk: int) -> str:
    if back is Back.CLUB:
        return reverse("clubs:club", args=[slug])
    if back is Back.ROSTER:
        return reverse("clubs:roster", args=[slug])
    if back is Back.SEASON:
        return reverse("clubs:season", args=[slug, pk])
    if back is Back.PARTY:
        return reverse("clubs:party", args=[slug, pk])
    if back is Back.BOX:
        return reverse("clubs:box", args=[slug])
    if back is Back.RSVP and request.POST.get("back") == "party":
        party = get_object_or_404(Party.objects.select_related("club"), pk=party_pk)
        return reverse("clubs:party", args=[party.club.slug, party.pk])
    return _back_to_me(token)


def _answer(request: HttpRequest, error: Refusal, *, back: Back, slug: str = "", pk: int = 0, token: str = "",
            party_pk: int = 0, **kwargs: Any) -> HttpResponse:
    """The one way a refusal reaches a plain form post: the message on the page it came from
    (`back`, placed by the view's arguments). A key reused with other content gets a page that
    says the post was not taken, since going back would hide that. A bad or retired personal link
    gets a page that says so (404): there is no page of the member's to go back to."""
    if isinstance(error, BadMemberLink):
        return render(request, "bunco_club/link_refused.html", {"message": error.message}, status=error.status)
    url = _back_url(back, request, slug=slug, pk=pk, token=token, party_pk=party_pk)
    if isinstance(error, KeyReused):
        return render(request, "bunco_club/refused.html", {"message": error.message, "back": url},
                      status=error.status)
    messages.error(request, error.message)
    return redirect(url)


View = Callable[..., HttpResponse]


def _posted(request: HttpRequest) -> QueryDict | None:
    """What a form page was posted, for its form: bound on every POST, so a post with nothing in
    it (or a body that is no form) gets the form back with what is missing (400), not the blank
    form as if it had been opened (`request.POST or None` took an empty POST for a GET)."""
    return request.POST if request.method == "POST" else None


def refused(back: Back) -> Callable[[View], View]:
    """The view decorator answering a refusal raised in the view: back to `back` with its message."""
    return answers_refusals(functools.partial(_answer, back=back))


# --- Clubs ------------------------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def club_new(request: HttpRequest) -> HttpResponse:
    form = ClubForm(_posted(request))
    if request.method == "POST" and form.is_valid():
        with shown_on(form, "name"):
            club = actions.create_club(user=request.user, **form.club_fields())
            messages.success(request, _("%(club)s is ready. Add its members next.") % {"club": club.name})
            return redirect("clubs:roster", slug=club.slug)
    return render(request, "bunco_club/club_form.html", {"form": form}, status=form_status(form))


@require_GET
def club(request: HttpRequest, slug: str) -> HttpResponse:
    """The club's page: what's coming, the seasons, the past nights and their prize winners."""
    club, member, is_host = _club_for_viewer(request, slug)
    upcoming = list(club.parties.upcoming().select_related("host", "cohost")[:6])
    past = list(club.parties.past().select_related("host", "cohost")
                .prefetch_related(Prefetch("records", queryset=NightRecord.objects.exclude(prizes=""),
                                           to_attr="winners"))[:12])
    next_party = upcoming[0] if upcoming else None
    box_party = box.next_party(club)  # the next one not called off: where the Bunco box goes
    where = box.box_at(box_party) if box_party else box.box_now(club)
    context = {
        "club": club, "member": member, "is_host": is_host, "upcoming": upcoming, "past": past,
        "next_party": next_party, "next_count": headcount(next_party) if next_party else None,
        "seasons": club.seasons.all(), "hosts": club.hosts.all(), "box": where,
        "feed_url": request.build_absolute_uri(reverse("clubs:club_feed", args=[club.feed_code])),
        "cohost_form": CohostForm(),
    }
    return render(request, "bunco_club/club.html", context)


@require_GET
def club_export(request: HttpRequest, slug: str) -> HttpResponse:
    """The club's whole history as one file (bunco_club/export.py), for its hosts only: the same
    text `manage.py export_club` prints, as an attachment named by the club and today's date."""
    club = _club_for_host(request, slug)
    response = HttpResponse(export_text(club), content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="club-{club.slug}-{timezone.localdate():%Y-%m-%d}.json"'
    return response


@require_http_methods(["GET", "POST"])
def club_edit(request: HttpRequest, slug: str) -> HttpResponse:
    club = _club_for_host(request, slug)
    form = ClubForm(_posted(request), initial=ClubForm.initial_for(club))
    if request.method == "POST" and form.is_valid():
        with shown_on(form, "name"):
            actions.update_club(club, **form.club_fields())
            messages.success(request, _("Saved."))
            return redirect("clubs:club", slug=club.slug)
    return render(request, "bunco_club/club_form.html", {"form": form, "club": club}, status=form_status(form))


@require_POST
@refused(Back.CLUB)
def cohost_add(request: HttpRequest, slug: str) -> HttpResponse:
    club = _club_for_host(request, slug)
    form = CohostForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Write the username of the co-host's account."))
        return redirect("clubs:club", slug=club.slug)
    user = actions.add_cohost(club, form.cleaned_data["username"])
    messages.success(request, _("%(user)s now hosts %(club)s with you.") % {"user": user.get_username(), "club": club.name})
    return redirect("clubs:club", slug=club.slug)


@require_POST
@refused(Back.CLUB)
def cohost_remove(request: HttpRequest, slug: str, user_pk: int) -> HttpResponse:
    club = _club_for_host(request, slug)
    user = get_object_or_404(club.hosts, pk=user_pk)
    actions.remove_cohost(club, user)
    messages.success(request, _("%(user)s no longer hosts %(club)s.") % {"user": user.get_username(), "club": club.name})
    if user.pk == request.user.pk:
        return redirect("home")
    return redirect("clubs:club", slug=club.slug)


# --- The roster -------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def roster(request: HttpRequest, slug: str) -> HttpResponse:
    """Regulars, the ordered sub list and retired members; adding a member posts here."""
    club = _club_for_host(request, slug)
    form = NewMemberForm(_posted(request))
    if request.method == "POST" and form.is_valid():
        with shown_on(form, "name"):
            member = actions.add_member(club, **form.cleaned_data)
            added = _("%(name)s is on the sub list.") if member.is_alternate else _("%(name)s is on the roster.")
            messages.success(request, added % {"name": member.name})
            return redirect("clubs:roster", slug=club.slug)
    # Each member's late cancellations (a "no" after a party's cutoff): the hosts' alone (issue 45).
    members = club.members.select_related("cohost").annotate(
        late_cancellations=Count("rsvps", filter=Q(rsvps__cancelled_late=True)))
    context = {
        "club": club, "form": form,
        "regulars": members.regulars(), "alternates": members.alternates(), "retired": members.retired(),
    }
    return render(request, "bunco_club/roster.html", context, status=form_status(form))


@require_http_methods(["GET", "POST"])
def member_edit(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    club = _club_for_host(request, slug)
    member = _member_of(club, pk)
    form = MemberForm(_posted(request), initial={"name": member.name, "email": member.email, "phone": member.phone})
    blackouts = BlackoutsForm(member=member)
    if request.method == "POST" and form.is_valid():
        with shown_on(form, "name"):
            actions.edit_member(member, **form.cleaned_data)
            messages.success(request, _("Saved."))
            return redirect("clubs:roster", slug=club.slug)
    context = {"club": club, "member": member, "form": form, "blackouts": blackouts,
               "pair_form": PairForm(member=member),
               "history": member.records.select_related("party").order_by("-party__starts_at")[:24]}
    return render(request, "bunco_club/member_edit.html", context, status=form_status(form))


@require_POST
def member_blackouts(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    club = _club_for_host(request, slug)
    member = _member_of(club, pk)
    form = BlackoutsForm(request.POST, member=member)
    if not form.is_valid():
        context = {"club": club, "member": member, "blackouts": form, "pair_form": PairForm(member=member),
                   "form": MemberForm(initial={"name": member.name, "email": member.email, "phone": member.phone})}
        return render(request, "bunco_club/member_edit.html", context, status=form_status(form))
    actions.set_blackouts(member, form.chosen())
    messages.success(request, _("%(name)s's dates away are saved.") % {"name": member.name})
    return redirect("clubs:member_edit", slug=club.slug, pk=member.pk)


def _roster_verb(request: HttpRequest, slug: str, pk: int, action: Callable[[Member], object],
                 done: str = "") -> HttpResponse:
    """A host's button on a roster row: the club's host only, then the club action on the member,
    back to the roster (with `done`, a sentence whose %(name)s is the member's name, said on success)."""
    club = _club_for_host(request, slug)
    member = _member_of(club, pk)
    back = reverse("clubs:roster", args=[club.slug])
    action(member)
    if done:
        messages.success(request, done % {"name": member.name})
    return redirect(back)


@require_POST
@refused(Back.ROSTER)
def member_up(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    return _roster_verb(request, slug, pk, lambda member: actions.move_sub(member, up=True))


@require_POST
@refused(Back.ROSTER)
def member_down(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    return _roster_verb(request, slug, pk, lambda member: actions.move_sub(member, up=False))


@require_POST
@refused(Back.ROSTER)
def member_promote(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    return _roster_verb(request, slug, pk, actions.promote)


@require_POST
@refused(Back.ROSTER)
def member_to_subs(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    return _roster_verb(request, slug, pk, actions.make_alternate)


@require_POST
@refused(Back.ROSTER)
def member_retire(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    return _roster_verb(request, slug, pk, actions.retire)


@require_POST
@refused(Back.ROSTER)
def member_reinstate(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    return _roster_verb(request, slug, pk, actions.reinstate)


@require_POST
@refused(Back.ROSTER)
def member_new_link(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    return _roster_verb(request, slug, pk, actions.reset_member_link,
                        done=_("%(name)s has a new personal link; the old one no longer works."))


@require_POST
@refused(Back.ROSTER)
def member_split(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    return _roster_verb(request, slug, pk, actions.split_cohosts)


@require_POST
@refused(Back.ROSTER)
def member_pair(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    club = _club_for_host(request, slug)
    member = _member_of(club, pk)
    form = PairForm(request.POST, member=member)
    back = reverse("clubs:roster", args=[club.slug])
    if not form.is_valid():
        messages.error(request, _("Pick a regular of the club to host with."))
        return redirect(back)
    actions.pair_cohosts(member, form.cleaned_data["partner"])
    messages.success(request, _("%(name)s and %(partner)s host together.")
                     % {"name": member.name, "partner": form.cleaned_data["partner"].name})
    return redirect(back)


# --- Seasons ----------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def season_new(request: HttpRequest, slug: str) -> HttpResponse:
    """A season's dates from a rule ("the third Friday of every month, 7 pm") or by hand."""
    club = _club_for_host(request, slug)
    by_hand = request.POST.get("how") == "hand" or request.GET.get("how") == "hand"
    data = request.POST if request.method == "POST" else None
    if by_hand:
        form: SeasonByRuleForm | SeasonByHandForm = SeasonByHandForm(data, initial={"time": club.usual_time})
    else:
        next_year = timezone.localdate(timezone=club.zone).year + 1
        form = SeasonByRuleForm(data, initial={"time": club.usual_time, "first_month": datetime.date(next_year, 1, 1),
                                               "name": str(next_year)})
    if data is not None and form.is_valid():
        values = form.cleaned_data
        with shown_on(form, None):
            if isinstance(form, SeasonByHandForm):
                season = actions.create_season(club, name=values["name"],
                                               starts=[club.at(day, values["time"]) for day in values["dates"]])
            else:
                season = actions.season_by_rule(club, name=values["name"], first_month=values["first_month"],
                                                months=values["months"], nth=values["nth"],
                                                weekday=values["weekday"], time=values["time"])
            dates = season.parties.count()
            messages.success(request, ngettext("%(season)s: %(count)s date. Now plan who hosts.",
                                               "%(season)s: %(count)s dates. Now plan who hosts.", dates)
                             % {"season": season.name, "count": dates})
            return redirect("clubs:season", slug=club.slug, pk=season.pk)
    context = {"club": club, "form": form, "by_hand": by_hand}
    return render(request, "bunco_club/season_new.html", context, status=form_status(form))


@require_GET
def season(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """The year at a glance: every date, its host, who is away."""
    club, member, is_host = _club_for_viewer(request, slug)
    season = _season_of(club, pk)
    parties = list(season.parties.select_related("host", "cohost").order_by("starts_at"))
    away: dict[datetime.date, list[str]] = {}
    for name, day in club.members.filter(is_active=True).values_list("name", "blackouts__date"):
        if day is not None:
            away.setdefault(day, []).append(name)
    rows = [{"party": party, "away": away.get(party.day, [])} for party in parties]
    context = {"club": club, "season": season, "rows": rows, "is_host": is_host, "member": member,
               "hostings": _hostings(club, season, parties)}
    return render(request, "bunco_club/season.html", context)


def _hostings(club: Club, season: Season, parties: list[Party]) -> list[tuple[str, int, int]]:
    """Each host's dates this season and in all, counting the earlier seasons as the rotation does
    (actions.assign_hosts): (name, this season, all seasons up to this one's end)."""
    end = parties[-1].starts_at if parties else timezone.now()
    this: dict[str, int] = {}
    every: dict[str, int] = {}
    for party in club.parties.filter(starts_at__lte=end, cancelled_at__isnull=True).select_related("host", "cohost"):
        for person in (party.host, party.cohost):
            if person is not None:
                every[person.name] = every.get(person.name, 0) + 1
                if party.season_id == season.pk:
                    this[person.name] = this.get(person.name, 0) + 1
    return sorted((name, this.get(name, 0), total) for name, total in every.items() if name in this)


@require_POST
@refused(Back.SEASON)
def season_plan(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """Assign a host to every date still to come by the fair rotation."""
    club = _club_for_host(request, slug)
    season = _season_of(club, pk)
    back = reverse("clubs:season", args=[club.slug, season.pk])
    planned = actions.assign_hosts(season)
    messages.success(request, ngettext("Hosts planned for %(count)s date.", "Hosts planned for %(count)s dates.",
                                       len(planned)) % {"count": len(planned)})
    return redirect(back)


def _standings(parties: Any) -> list[Standing]:
    return NightRecord.objects.filter(party__in=parties).counting().standings()


@require_GET
def standings(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """A season's standings, derived from its counting nights' records."""
    club, member, is_host = _club_for_viewer(request, slug)
    season = _season_of(club, pk)
    nights = list(season.parties.filter(records__isnull=False).distinct().order_by("starts_at"))
    context = {"club": club, "season": season, "table": _standings(season.parties.all()), "nights": nights,
               "is_host": is_host, "member": member}
    return render(request, "bunco_club/standings.html", context)


# --- Parties ----------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
def party_new(request: HttpRequest, slug: str) -> HttpResponse:
    club = _club_for_host(request, slug)
    form = NewPartyForm(_posted(request), club=club,
                        initial={"time": club.usual_time, "location": club.place, "season": request.GET.get("season")})
    if request.method == "POST" and form.is_valid():
        values = form.cleaned_data
        with shown_on(form, "date"):
            party = actions.add_party(club, starts_at=form.starts_at(), season=values["season"],
                                      location=values["location"], notes=values["notes"], host=values["host"],
                                      cohost=values["cohost"])
            return redirect("clubs:party", slug=club.slug, pk=party.pk)
    return render(request, "bunco_club/party_form.html", {"club": club, "form": form},
                  status=form_status(form))


@require_GET
def party(request: HtmxHttpRequest, slug: str, pk: int) -> HttpResponse:
    """Who is coming, who is invited as a sub, and how many ghosts the night would need; the
    headcount alone for the page's 10-second refresh (htmx)."""
    club, member, is_host = _club_for_viewer(request, slug)
    party = _party_of(club, pk)
    count = headcount(party)
    if request.htmx:
        return render(request, "bunco_club/party.html#headcount", {"club": club, "party": party, "count": count})
    mine = party.rsvps.filter(member=member).first() if member else None
    at_party = box.box_at(party)
    keeps_money = is_host or (member is not None and member.is_treasurer)
    # The answers and the money are the whole page's: the headcount's refresh (htmx) reads neither.
    whole_page = keeps_money and not request.htmx
    rsvps = buy_in_rows(party, count) if whole_page else []
    context = {
        "club": club, "party": party, "member": member, "is_host": is_host, "count": count,
        # The late cancellations are the hosts' alone (issue 45).
        "late": count.late if is_host else [], "dishes": dish_rows(party, member),
        "my_dish_offers": dish_offers_to(member, party) if member else [],
        "others": club.members.filter(is_active=True).exclude(pk=member.pk) if member else [],
        "suggestions": actions.suggested_dishes(party) if is_host else [], "dish_form": DishSlotForm(),
        "my_answer": mine.answer if mine else None, "my_note": mine.note if mine else "", "answers": RSVP.Answer.choices,
        "rsvp_key": secrets.token_hex(16),
        "rsvps": rsvps, "keeps_money": keeps_money, "money": party_money(party, rsvps) if whole_page else None,
        "invitations": party.sub_invitations.select_related("member"),
        "records": party.records.select_related("member").order_by("-wins", "name"),
        "my_token": member_token(member.code) if member else None,
        "box": at_party, "box_key": secrets.token_hex(16),
        "box_action": _box_action(club, party, member, is_host) if at_party.receives else "",
    }
    return render(request, "bunco_club/party.html", context)


def _box_action(club: Club, party: Party, member: Member | None, is_host: bool) -> str:
    """Where this viewer's "received the box" form posts for the party: its host's own link (the
    member's), else a club host's page; "" for anyone else."""
    if member is not None and party.is_hosted_by_member(member):
        return reverse("clubs:my_box_received", args=[member_token(member.code), party.pk])
    return reverse("clubs:party_box_received", args=[club.slug, party.pk]) if is_host else ""


@require_http_methods(["GET", "POST"])
def party_edit(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    club = _club_for_host(request, slug)
    party = _party_of(club, pk)
    form = PartyForm(_posted(request), club=club, initial=PartyForm.initial_for(party))
    if request.method == "POST" and form.is_valid():
        values = form.cleaned_data
        with shown_on(form, None):
            actions.edit_party(party, starts_at=form.starts_at(), location=values["location"], notes=values["notes"],
                               host=values["host"], cohost=values["cohost"], season=values["season"])
            messages.success(request, _("Saved: calendars that follow the club will update."))
            return redirect("clubs:party", slug=club.slug, pk=party.pk)
    return render(request, "bunco_club/party_form.html", {"club": club, "form": form, "party": party},
                  status=form_status(form))


@require_POST
@refused(Back.PARTY)
def party_invite_sub(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    club = _club_for_host(request, slug)
    party = _party_of(club, pk)
    back = reverse("clubs:party", args=[club.slug, party.pk])
    invitation = actions.invite_another_sub(party)
    messages.success(request, _("%(name)s is invited.") % {"name": invitation.member.name})
    return redirect(back)


@require_POST
@refused(Back.PARTY)
def party_cancel(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """Call the party off: calendars show it cancelled and every member is told by email."""
    club = _club_for_host(request, slug)
    party = _party_of(club, pk)
    back = reverse("clubs:party", args=[club.slug, party.pk])
    actions.cancel_party(party)
    messages.success(request, _("The party is cancelled: the members are told, and calendars show it as cancelled."))
    return redirect(back)


@require_POST
def party_counts(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """Mark a night as counting towards the standings, or not (`counts` = 1 or 0)."""
    club = _club_for_host(request, slug)
    party = _party_of(club, pk)
    back = reverse("clubs:party", args=[club.slug, party.pk])
    counts = request.POST.get("counts")
    if counts not in ("0", "1"):
        messages.error(request, _("Say whether the night counts (1) or not (0)."))
        return redirect(back)
    actions.set_night_counts(party, counts=counts == "1")
    messages.success(request, _("This night counts in the standings.") if counts == "1" else
                     _("This night no longer counts in the standings."))
    return redirect(back)


# --- A member's own pages (their signed personal link, no password) ---------------------------




@require_GET
@refused(Back.ME)
def my_club(request: HttpRequest, token: str) -> HttpResponse:
    """A member's "my club" page: their parties and answers, sub invitations, swap requests,
    hosting dates, history and calendar feed, in their language."""
    member = _member_from_link(request, token)
    language_guessed = _guess_language(request, member)
    club = member.club
    upcoming = list(club.parties.upcoming().select_related("club", "host", "cohost")[:24])
    answers = {rsvp.party_id: rsvp for rsvp in RSVP.objects.filter(member=member, party__in=upcoming)}
    rows = [{"party": party, "answer": getattr(answers.get(party.pk), "answer", None),
             "note": getattr(answers.get(party.pk), "note", ""), "hosting": party.is_hosted_by_member(member),
             "key": secrets.token_hex(16), "by_default": party.counts_as_coming(member, None),
             "dishes": dish_rows(party, member), "dish_offers": dish_offers_to(member, party)}
            for party in upcoming]
    context = {
        # The next party and its answer first; the rest of the season folded behind "Later" (issue 29, C8).
        "club": club, "member": member, "token": token, "next_row": rows[0] if rows else None,
        "later_rows": rows[1:], "answers": RSVP.Answer.choices,
        "others": club.members.filter(is_active=True).exclude(pk=member.pk),  # whom a dish may go to
        "invitations": member.sub_invitations.filter(status=SubInvitation.Status.INVITED,
                                                      party__starts_at__gte=timezone.now()).select_related("party"),
        "swaps_to_answer": member.swaps_received.filter(status=SwapRequest.Status.PENDING).select_related(
            "give", "take", "requested_by"),
        "swaps_asked": member.swaps_asked.select_related("give", "take", "asked")[:5],
        "swap_form": SwapForm(member=member),
        "history": member.records.select_related("party").order_by("-party__starts_at")[:24],
        "feed_url": request.build_absolute_uri(reverse("clubs:member_feed", args=[token])),
        "blackouts": _my_blackouts_form(member),
        "language_guessed": language_guessed, "other_language": _other_language(member.reads),
        "hosting_box": box.box_for_host(member), "box_key": secrets.token_hex(16),
    }
    return render(request, "bunco_club/my_club.html", context)


def _phone_language(request: HttpRequest) -> str:
    """The language this phone asks for (its switch's cookie, else its Accept-Language) if the site
    speaks it; "" when it asks for none of them (then the club's stays)."""
    asked = (request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME, "") + " "
             + request.headers.get("Accept-Language", "")).casefold()
    language = translation.get_language_from_request(request)
    return language if language in dict(settings.LANGUAGES) and language in asked else ""


def _guess_language(request: HttpRequest, member: Member) -> bool:
    """Their link opened for the first time: the phone's language becomes the member's (True: the page
    offers the other language with one tap)."""
    guessed = actions.guess_member_language(member, _phone_language(request))
    translation.activate(member.reads)
    return guessed


def _other_language(language: str) -> tuple[str, str]:
    """The language the page's switch offers: (code, its own name)."""
    return next((code, name) for code, name in settings.LANGUAGES if code != language)


@require_POST
@refused(Back.ME)
def my_language(request: HttpRequest, token: str) -> HttpResponse:
    """The member chooses the language of their page, mails and calendar (the switch in their page's
    header, or its first visit's offer); this phone's other pages follow it too (the header's cookie)."""
    member = _member_from_link(request, token)
    member = actions.set_member_language(member, request.POST.get("language", ""))
    return remember_language(redirect(_back_to_me(token)), member.language)


@require_POST
@refused(Back.ME)
def my_blackouts(request: HttpRequest, token: str) -> HttpResponse:
    """A member gives their own dates away (the rotation keeps them off those dates)."""
    member = _member_from_link(request, token)
    form = BlackoutsForm(request.POST, member=member)
    if not form.is_valid():
        messages.error(request, " ".join(str(error) for error in form.errors.get("dates", [])))
        return redirect(_back_to_me(token))
    # The page offers the party dates still to come: the others stay as they were.
    actions.set_blackouts(member, form.chosen())
    messages.success(request, _("Your dates away are saved."))
    return redirect(_back_to_me(token))


@require_POST
@refused(Back.ME)
def my_claim(request: HttpRequest, token: str) -> HttpResponse:
    """Link the logged-in account to this member record (optional: the link works without one)."""
    member = _member_from_link(request, token)
    actions.claim_member(member, request.user)
    messages.success(request, _("Your account now opens %(club)s wherever you log in.") % {"club": member.club.name})
    return redirect(_back_to_me(token))


def _my_blackouts_form(member: Member) -> BlackoutsForm:
    form = BlackoutsForm(member=member)
    form.fields["dates"].label = _("Dates you can't host (or come)")
    return form


def _back_to_me(token: str) -> str:
    return reverse("clubs:my_club", args=[token])


@require_POST
@refused(Back.RSVP)
def my_rsvp(request: HttpRequest, token: str, party_pk: int) -> HttpResponse:
    """A member's answer, with a note for the host if they like, carrying its idempotency key: a
    retry changes nothing; the key with other content is refused (409) with a page that says so."""
    member = _member_from_link(request, token)
    party = get_object_or_404(Party.objects.select_related("club"), club_id=member.club_id, pk=party_pk)
    answer = request.POST.get("answer", "")
    note = request.POST.get("note")
    key = request.POST.get("key") or None
    back = request.POST.get("back") == "party"
    back_to = reverse("clubs:party", args=[party.club.slug, party.pk]) if back else _back_to_me(token)
    rsvp = actions.answer_rsvp(party, member, answer, note=note, key=key)
    messages.success(request, _("Thanks! %(day)s: %(answer)s.")
                     % {"day": date_format(party.local_start, "D d M"), "answer": rsvp.get_answer_display()})
    return redirect(back_to)


def _my_invitation(member: Member, pk: int) -> SubInvitation:
    return get_object_or_404(SubInvitation.objects.select_related("party"), member=member, pk=pk)


def _answer_invitation(request: HttpRequest, token: str, pk: int, *, accept: bool) -> HttpResponse:
    member = _member_from_link(request, token)
    invitation = _my_invitation(member, pk)
    answered = actions.answer_sub_invitation(invitation, accept=accept)
    if answered.status == SubInvitation.Status.TOO_LATE:
        messages.info(request, str(actions.SEAT_TAKEN))
    elif answered.status == SubInvitation.Status.ACCEPTED:
        messages.success(request, _("The seat is yours: see you there!"))
    else:
        messages.success(request, _("Thanks for letting us know."))
    return redirect(_back_to_me(token))


@require_POST
@refused(Back.ME)
def my_sub_accept(request: HttpRequest, token: str, pk: int) -> HttpResponse:
    return _answer_invitation(request, token, pk, accept=True)


@require_POST
@refused(Back.ME)
def my_sub_decline(request: HttpRequest, token: str, pk: int) -> HttpResponse:
    return _answer_invitation(request, token, pk, accept=False)


@require_POST
@refused(Back.ME)
def my_swap_request(request: HttpRequest, token: str) -> HttpResponse:
    member = _member_from_link(request, token)
    form = SwapForm(request.POST, member=member)
    if not form.is_valid():
        messages.error(request, " ".join(str(error) for errors in form.errors.values() for error in errors))
        return redirect(_back_to_me(token))
    swap = actions.request_swap(member, give=form.cleaned_data["give"], take=form.cleaned_data["take"])
    messages.success(request, _("Asked %(name)s; you'll see their answer here.") % {"name": swap.asked.name})
    return redirect(_back_to_me(token))


def _answer_swap(request: HttpRequest, token: str, pk: int, *, accept: bool) -> HttpResponse:
    member = _member_from_link(request, token)
    swap = get_object_or_404(SwapRequest, asked=member, pk=pk)
    actions.answer_swap(swap, member=member, accept=accept)
    messages.success(request, _("Swapped: your calendar will update.") if accept else _("Declined."))
    return redirect(_back_to_me(token))


@require_POST
@refused(Back.ME)
def my_swap_accept(request: HttpRequest, token: str, pk: int) -> HttpResponse:
    return _answer_swap(request, token, pk, accept=True)


@require_POST
@refused(Back.ME)
def my_swap_decline(request: HttpRequest, token: str, pk: int) -> HttpResponse:
    return _answer_swap(request, token, pk, accept=False)


# --- Calendar feeds (unguessable URLs a phone's calendar subscribes to) -----------------------

ICS = "text/calendar; charset=utf-8"


@require_GET
def club_feed(request: HttpRequest, feed_code: str) -> HttpResponse:
    club = get_object_or_404(Club, feed_code=feed_code)
    return HttpResponse(ical.club_feed(club), content_type=ICS)


@require_GET
@refused(Back.ME)
def member_feed(request: HttpRequest, token: str) -> HttpResponse:
    member = Member.objects.select_related("club").filter(code=read_member_token(token), is_active=True).first()
    if member is None:
        raise BadMemberLink(str(LINK_RETIRED))
    return HttpResponse(ical.member_feed(member), content_type=ICS)


# --- Dishes (issue 45) --------------------------------------------------------------------------------


def dish_rows(party: Party, member: Member | None) -> list[dict[str, Any]]:
    """The party's dishes as its pages show them: each slot, who brings it, the places left, and
    the viewer's own sign-up (`mine`) with the dishes they could trade it for."""
    slots = party.dish_slots.prefetch_related(
        Prefetch("signups", queryset=DishSignup.objects.select_related("member").order_by("signed_at", "pk")))
    rows: list[dict[str, Any]] = []
    everyone: list[DishSignup] = []
    for slot in slots:
        signups = list(slot.signups.all())
        everyone += signups
        mine = next((signup for signup in signups if member is not None and signup.member_id == member.pk), None)
        rows.append({"slot": slot, "signups": signups, "left": max(0, slot.wanted - len(signups)), "mine": mine})
    if member is not None:
        others = [signup for signup in everyone if signup.member_id != member.pk]
        for row in rows:
            row["trades"] = [signup for signup in others if signup.slot_id != row["slot"].pk] if row["mine"] else []
    return rows


def dish_offers_to(member: Member, party: Party) -> list[DishOffer]:
    """The dish offers waiting for `member`'s answer at `party`."""
    return list(member.dish_offers.filter(party=party, status=DishOffer.Status.PENDING)
                .select_related("slot", "by", "take__slot"))


def _key(request: HttpRequest) -> str:
    return str(request.POST.get("key", ""))


def _slot_of(party: Party, pk: int) -> DishSlot:
    return get_object_or_404(DishSlot, party=party, pk=pk)


@require_POST
@refused(Back.PARTY)
def party_dish_add(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """The host asks for a dish and how many of it."""
    club = _club_for_host(request, slug)
    party = _party_of(club, pk)
    back = reverse("clubs:party", args=[club.slug, party.pk])
    form = DishSlotForm(request.POST)
    if not form.is_valid():
        messages.error(request, _form_errors(form))
        return redirect(back)
    slot = actions.add_dish_slot(party, form.cleaned_data["name"], form.cleaned_data["wanted"])
    messages.success(request, _("%(dish)s: asked for.") % {"dish": slot.name})
    return redirect(back)


@require_POST
@refused(Back.PARTY)
def party_dish_wanted(request: HttpRequest, slug: str, pk: int, slot_pk: int) -> HttpResponse:
    """The host changes how many of a dish the party wants."""
    club = _club_for_host(request, slug)
    party = _party_of(club, pk)
    slot = _slot_of(party, slot_pk)
    back = reverse("clubs:party", args=[club.slug, party.pk])
    form = DishWantedForm(request.POST)
    if not form.is_valid():
        messages.error(request, _form_errors(form))
        return redirect(back)
    actions.set_dish_wanted(slot, form.cleaned_data["wanted"])
    messages.success(request, _("Saved."))
    return redirect(back)


@require_POST
@refused(Back.PARTY)
def party_dish_remove(request: HttpRequest, slug: str, pk: int, slot_pk: int) -> HttpResponse:
    club = _club_for_host(request, slug)
    party = _party_of(club, pk)
    slot = _slot_of(party, slot_pk)
    back = reverse("clubs:party", args=[club.slug, party.pk])
    actions.remove_dish_slot(slot)
    messages.success(request, _("%(dish)s: no longer asked for.") % {"dish": slot.name})
    return redirect(back)


@require_POST
@refused(Back.PARTY)
def party_dish_suggest(request: HttpRequest, slug: str, pk: int, slot_pk: int) -> HttpResponse:
    """The host sends the rotation's suggestion: the member is asked by email and accepts from their link."""
    club = _club_for_host(request, slug)
    party = _party_of(club, pk)
    slot = _slot_of(party, slot_pk)
    back = reverse("clubs:party", args=[club.slug, party.pk])
    form = DishMemberForm(request.POST, club=club)
    if not form.is_valid():
        messages.error(request, _form_errors(form))
        return redirect(back)
    member = form.cleaned_data["member"]
    actions.send_dish_suggestion(slot, member, key=_key(request), host_id=request.user.pk or 0)
    messages.success(request, _("%(name)s is asked to bring %(dish)s.") % {"name": member.name, "dish": slot.name})
    return redirect(back)


def _form_errors(form: Any) -> str:
    return " ".join(str(error) for errors in form.errors.values() for error in errors)


def _back_from_dish(request: HttpRequest, token: str, party: Party) -> str:
    """Where a member's dish post goes back to: the party's page if sent from it, else their own page."""
    if request.POST.get("back") == "party":
        return reverse("clubs:party", args=[party.club.slug, party.pk])
    return _back_to_me(token)


def _my_signup(member: Member, pk: int) -> DishSignup:
    return get_object_or_404(DishSignup.objects.select_related("slot__party__club"), member=member, pk=pk)


@require_POST
@refused(Back.ME)
def my_dish_signup(request: HttpRequest, token: str, slot_pk: int) -> HttpResponse:
    """A member brings one of a slot's dishes (the key makes a resent tap a retry)."""
    member = _member_from_link(request, token)
    slot = get_object_or_404(DishSlot.objects.select_related("party__club"), party__club_id=member.club_id, pk=slot_pk)
    actions.sign_up_for_dish(slot, member, key=_key(request))
    messages.success(request, _("Thanks! You bring %(dish)s.") % {"dish": slot.name})
    return redirect(_back_from_dish(request, token, slot.party))


@require_POST
@refused(Back.ME)
def my_dish_withdraw(request: HttpRequest, token: str, pk: int) -> HttpResponse:
    """A member no longer brings a dish; a resent tap (the dish gone by then) changes nothing."""
    member = _member_from_link(request, token)
    signup = DishSignup.objects.select_related("slot__party__club").filter(member=member, pk=pk).first()
    actions.withdraw_from_dish(member, pk, key=_key(request))
    if signup is not None:
        messages.success(request, _("You no longer bring %(dish)s.") % {"dish": signup.slot.name})
        return redirect(_back_from_dish(request, token, signup.slot.party))
    return redirect(_back_to_me(token))


@require_POST
@refused(Back.ME)
def my_dish_give(request: HttpRequest, token: str, pk: int) -> HttpResponse:
    """A member asks another to take over the dish they bring."""
    member = _member_from_link(request, token)
    signup = _my_signup(member, pk)
    back = _back_from_dish(request, token, signup.slot.party)
    form = DishMemberForm(request.POST, club=member.club, exclude=member)
    if not form.is_valid():
        messages.error(request, _form_errors(form))
        return redirect(back)
    to = form.cleaned_data["member"]
    actions.offer_dish(signup, member, to, key=_key(request))
    messages.success(request, _("Asked %(name)s; the dish stays yours until they accept.") % {"name": to.name})
    return redirect(back)


@require_POST
@refused(Back.ME)
def my_dish_trade(request: HttpRequest, token: str, pk: int) -> HttpResponse:
    """A member offers to trade the dish they bring for another member's."""
    member = _member_from_link(request, token)
    signup = _my_signup(member, pk)
    back = _back_from_dish(request, token, signup.slot.party)
    form = DishTradeForm(request.POST, signup=signup)
    if not form.is_valid():
        messages.error(request, _form_errors(form))
        return redirect(back)
    take = form.cleaned_data["take"]
    actions.offer_dish(signup, member, take.member, key=_key(request), take=take)
    messages.success(request, _("Asked %(name)s; the dish stays yours until they accept.") % {"name": take.member.name})
    return redirect(back)


def _answer_dish(request: HttpRequest, token: str, pk: int, *, accept: bool) -> HttpResponse:
    member = _member_from_link(request, token)
    offer = get_object_or_404(DishOffer.objects.select_related("party__club", "slot"), to=member, pk=pk)
    answered = actions.answer_dish_offer(offer, member, accept=accept, key=_key(request))
    if answered.status == DishOffer.Status.ACCEPTED:
        messages.success(request, _("Thanks! You bring %(dish)s.") % {"dish": offer.slot.name})
    else:
        messages.success(request, _("Thanks for letting us know."))
    return redirect(_back_from_dish(request, token, offer.party))


@require_POST
@refused(Back.ME)
def my_dish_accept(request: HttpRequest, token: str, pk: int) -> HttpResponse:
    return _answer_dish(request, token, pk, accept=True)


@require_POST
@refused(Back.ME)
def my_dish_decline(request: HttpRequest, token: str, pk: int) -> HttpResponse:
    return _answer_dish(request, token, pk, accept=False)
