"""The treasury's pages (issue 45): thin typed function views, the permission helper first.

Who sees the money:
- the club's hosts, and a member flagged treasurer (their personal link opened on the phone, or
  their account), see the whole ledger and write in it; only a host chooses who sees it;
- a member sees their own entries and the club's balance from their personal link when the club
  lets its members see the money (`Club.money_visible_to`), nothing of it otherwise;
- nobody outside the club, ever: a 404, as for every club page.
Receipts are served by `receipt` alone, to those who may see the entry, never at a public URL.
"""

from __future__ import annotations

import csv
import secrets
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import get_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext
from django.views.decorators.http import require_GET, require_POST

from bunco_club import actions, money
from bunco_club.actions.refusals import ClubError
from bunco_club.actions.treasury import BUY_IN_HOWS, HAND_KINDS, Writer
from bunco_club.models import Club, LedgerEntry, LedgerEntryQuerySet, MoneyVisibleTo, Season, money_label
from bunco_club.treasury_figures import float_by_party, owed_buy_ins
from bunco_club.views import (
    Back,
    _club,
    _member_from_link,
    _member_of,
    _note_host,
    _party_of,
    _viewer_member,
    refused,
)
from live.http import parse_int, parse_int_or_none
from live.refusals import NotYours, Refusal, answers_refusals

NOT_A_KEEPER = gettext_lazy("Only the club's hosts and its treasurer see and write its money.")
MONEY_HIDDEN = gettext_lazy("Your club shows its money to its hosts and its treasurer only.")
# How many entries the treasury page lists (the newest): the statement and the CSV add up all of them.
PAGE_ENTRIES = 200
ID_MAX = 2**63 - 1  # the largest id a database column holds


def _money_keeper(request: HttpRequest, slug: str) -> tuple[Club, Writer]:
    """The club and who writes for it, if this browser is one of its hosts or its treasurer; 403 for
    its other members, 404 for anybody else."""
    club = _club(slug)
    if club.is_hosted_by(request.user):
        _note_host(request, club)
        return club, Writer(user=request.user)
    member = _viewer_member(request, club)
    if member is not None and member.is_treasurer:
        return club, Writer(member=member)
    if member is not None:
        raise PermissionDenied(str(NOT_A_KEEPER))
    raise Http404(_("No such club."))


def _pk_or_none(raw: object, what: str) -> int | None:
    """An id a form's list posted ("" for none), read by live's one number reader."""
    text = str(raw or "").strip()
    return parse_int(text, low=1, high=ID_MAX, what=what) if text else None


def _key(request: HttpRequest) -> str | None:
    return request.POST.get("key") or None


def _season_of_query(club: Club, request: HttpRequest) -> Season | None:
    """The season a statement is of (`?season=<id>`), None for every season; 404 for no such one."""
    pk = parse_int_or_none(request.GET.get("season", ""), low=1, high=ID_MAX)
    if pk is None:
        if request.GET.get("season"):
            raise Http404(_("No such season."))
        return None
    return get_object_or_404(Season, club=club, pk=pk)


def _entries_of(club: Club, season: Season | None) -> LedgerEntryQuerySet:
    """The club's entries, or a season's: those of its parties."""
    entries = LedgerEntry.objects.filter(club=club)
    return entries.filter(party__season=season) if season is not None else entries


# --- The treasury page --------------------------------------------------------------------------


@require_GET
def treasury(request: HttpRequest, slug: str) -> HttpResponse:
    """The club's money for its hosts and treasurer: the balance, the float party by party, the
    buy-ins owed, the ledger (newest first, each entry reversible), and the forms that write."""
    club, writer = _money_keeper(request, slug)
    return _treasury_page(request, club, writer)


def _treasury_page(request: HttpRequest, club: Club, writer: Writer, *, refusal: Refusal | None = None) -> HttpResponse:
    entries = list(club.ledger.select_related("party", "member").order_by("-written_at", "-pk")[:PAGE_ENTRIES])
    reversed_ids = set(club.ledger.filter(reverses__in=entries).values_list("reverses_id", flat=True))
    for entry in entries:
        entry.reverse_key = secrets.token_hex(16)  # type: ignore[attr-defined]
        entry.is_reversed = entry.pk in reversed_ids  # type: ignore[attr-defined]
    context = {
        "club": club, "is_host": writer.user is not None, "member": writer.member,
        "balance": money_label(club.ledger.balance()), "entries": entries, "floats": float_by_party(club),
        "owed": owed_buy_ins(club), "key": secrets.token_hex(16),
        "members": club.members.filter(is_active=True).order_by("name"),
        "parties": club.parties.filter(cancelled_at__isnull=True).order_by("-starts_at")[:24],
        # An entry is of the party last begun unless said otherwise: it is in that season's statement.
        "current_party": club.parties.filter(cancelled_at__isnull=True, starts_at__lte=timezone.now())
        .order_by("-starts_at").values_list("pk", flat=True).first(),
        "seasons": club.seasons.all(), "visible_choices": MoneyVisibleTo.choices,
        "treasurer": club.members.filter(is_treasurer=True).first(),
        "receipt_most": f"{settings.RECEIPT_MAX_BYTES / 1024 / 1024:g}",
        "decimal_example": f"5{get_format('DECIMAL_SEPARATOR')}50",
        "refusal": refusal.message if refusal is not None else "",
    }
    return render(request, "bunco_club/treasury.html", context, status=refusal.status if refusal is not None else 200)


def _refused_on_treasury(request: HttpRequest, error: Refusal, *, slug: str, **kwargs: Any) -> HttpResponse:
    """A refused entry (a bad amount, a key reused...): the treasury page again, the refusal said on
    it in words, with the refusal's status (400, 409); nothing was written."""
    club, writer = _money_keeper(request, slug)
    return _treasury_page(request, club, writer, refusal=error)


on_treasury = answers_refusals(_refused_on_treasury)


@require_POST
@on_treasury
def treasury_entry(request: HttpRequest, slug: str) -> HttpResponse:
    """A supply bought (with its receipt photo, if any), dues, or an adjustment, written by a host
    or the treasurer; its idempotency key makes a resent form a retry."""
    club, writer = _money_keeper(request, slug)
    kind = request.POST.get("kind", "")
    if kind not in HAND_KINDS:
        raise ClubError(_("Choose a supply, dues or an adjustment."))
    amount = actions.read_amount(request.POST.get("amount"))
    direction = request.POST.get("direction", "in")
    if direction not in ("in", "out"):
        raise ClubError(_("Say whether the money came in or went out."))
    member_pk = _pk_or_none(request.POST.get("member"), _("The member"))
    party_pk = _pk_or_none(request.POST.get("party"), _("The party"))
    member = _member_of(club, member_pk) if member_pk is not None else None
    party = _party_of(club, party_pk) if party_pk is not None else None
    receipt = _receipt_bytes(request)
    entry = actions.record_entry(club, kind, amount, what=request.POST.get("what", ""), money_in=direction == "in",
                                 member=member, party=party, receipt=receipt, by=writer, key=_key(request))
    if entry is not None:
        messages.success(request, _("Written: %(kind)s, %(amount)s.")
                         % {"kind": entry.get_kind_display(), "amount": money_label(entry.amount_cents)})
    return redirect("clubs:treasury", slug=club.slug)


def _receipt_bytes(request: HttpRequest) -> bytes | None:
    upload = request.FILES.get("receipt")
    if upload is None:
        return None
    limit = int(settings.RECEIPT_MAX_BYTES)
    if upload.size is None or upload.size > limit:
        raise ClubError(_("The receipt photo is too large: %(most)s MB at most.") % {"most": f"{limit / 1024 / 1024:g}"})
    return bytes(upload.read())


@require_POST
@on_treasury
def treasury_reverse(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """Correct an entry by a reversing entry (never an edit or a delete)."""
    club, writer = _money_keeper(request, slug)
    entry = get_object_or_404(LedgerEntry, club=club, pk=pk)
    if actions.reverse_entry(entry, by=writer, key=_key(request)) is not None:
        messages.success(request, _("Reversed: %(kind)s, %(amount)s.")
                         % {"kind": entry.get_kind_display(), "amount": money_label(entry.amount_cents)})
    return redirect("clubs:treasury", slug=club.slug)


@require_POST
@on_treasury
def treasury_settings(request: HttpRequest, slug: str) -> HttpResponse:
    """Who sees the money, the seat rule and the treasurer: the hosts' choice alone."""
    club, writer = _money_keeper(request, slug)
    if writer.user is None:
        raise PermissionDenied(_("Only the club's hosts choose who sees its money."))
    treasurer_pk = _pk_or_none(request.POST.get("treasurer"), _("The treasurer"))
    treasurer = _member_of(club, treasurer_pk) if treasurer_pk is not None else None
    actions.set_money_rules(club, visible_to=request.POST.get("visible_to", ""),
                            paid_keeps_seat=bool(request.POST.get("paid_keeps_seat")), treasurer=treasurer)
    messages.success(request, _("Saved."))
    return redirect("clubs:treasury", slug=club.slug)


# --- Statements -----------------------------------------------------------------------------------


def _statement_context(club: Club, season: Season | None) -> dict[str, Any]:
    figures = _entries_of(club, season).statement()
    return {
        "club": club, "season": season, "seasons": club.seasons.all(), "figures": figures,
        "people": [{"name": person.name, "paid_in": money_label(person.paid_in), "won": money_label(person.won),
                    "net": money_label(person.net), "owes": person.owes} for person in figures.rows()],
        "totals": [(label, money_label(cents)) for label, cents in _totals(figures)],
        "balance": money_label(club.ledger.balance()),
    }


def _totals(figures: money.Statement) -> list[tuple[str, int]]:
    """The club's lines of a statement, as the page and the CSV both say them."""
    return [(_("Paid in (buy-ins and dues)"), figures.paid_in), (_("Prizes paid out"), figures.paid_out),
            (_("Supplies"), figures.supplies), (_("Adjustments"), figures.adjustments),
            (_("Added to the float"), figures.net)]


@require_GET
def treasury_statement(request: HttpRequest, slug: str) -> HttpResponse:
    """A season's statement (or all time's): each member's paid in and won, the club's totals;
    printable."""
    club, writer = _money_keeper(request, slug)
    context = _statement_context(club, _season_of_query(club, request))
    context.update({"is_host": writer.user is not None, "member": writer.member})
    return render(request, "bunco_club/treasury_statement.html", context)


def _csv_cell(value: object) -> str:
    """A cell a spreadsheet shows as text: a name starting with = + - @ is not run as a formula."""
    text = str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


@require_GET
def treasury_csv(request: HttpRequest, slug: str) -> HttpResponse:
    """The statement's figures as CSV, the same as its page: amounts in digits with a point."""
    club, _writer = _money_keeper(request, slug)
    season = _season_of_query(club, request)
    figures = _entries_of(club, season).statement()
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    which = f"season-{season.pk}" if season is not None else "all"
    response["Content-Disposition"] = f'attachment; filename="treasury-{club.slug}-{which}.csv"'
    writer = csv.writer(response)
    writer.writerow([pgettext("csv", "member"), pgettext("csv", "paid in"), pgettext("csv", "won"),
                     pgettext("csv", "net"), pgettext("csv", "buy-ins owed")])
    for person in figures.rows():
        writer.writerow([_csv_cell(person.name), money.cents_text(person.paid_in), money.cents_text(person.won),
                         money.cents_text(person.net), person.owes])
    for label, cents in _totals(figures):
        writer.writerow([_csv_cell(label), money.cents_text(cents), "", "", ""])
    writer.writerow([_csv_cell(_("Balance (the float)")), money.cents_text(club.ledger.balance()), "", "", ""])
    return response


# --- Receipts -------------------------------------------------------------------------------------


def _may_see_entry(request: HttpRequest, club: Club, entry: LedgerEntry) -> bool:
    """A host or the treasurer sees every entry; a member their own, when the club shows them theirs."""
    if club.is_hosted_by(request.user):
        return True
    member = _viewer_member(request, club)
    if member is None:
        raise Http404(_("No such club."))
    return member.is_treasurer or (club.members_see_money and entry.member_id == member.pk)


@require_GET
def receipt(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """A supply's receipt photo (stored without its metadata), to those who may see its entry."""
    club = _club(slug)
    entry = get_object_or_404(LedgerEntry.objects.exclude(receipt=""), club=club, pk=pk)
    if not _may_see_entry(request, club, entry):
        raise PermissionDenied(str(NOT_A_KEEPER))
    from bunco_club.receipts import open_receipt

    response = HttpResponse(open_receipt(entry.receipt), content_type="image/jpeg")
    response["Content-Disposition"] = f'inline; filename="receipt-{entry.pk}.jpg"'
    return response


# --- A member's own money (their personal link) ---------------------------------------------------


@require_GET
@refused(Back.ME)
def my_money(request: HttpRequest, token: str) -> HttpResponse:
    """A member's own entries and statement, and the club's balance, from their personal link; when
    the club shows its money to its hosts and treasurer only, a page that says so (403)."""
    member = _member_from_link(request, token)
    club = member.club
    if not (club.members_see_money or member.is_treasurer):
        hidden = NotYours(MONEY_HIDDEN)
        return render(request, "bunco_club/my_money.html", {"club": club, "member": member, "token": token,
                                                             "hidden": hidden.message}, status=hidden.status)
    season = _season_of_query(club, request)
    mine = _entries_of(club, season).filter(member=member)
    figures = mine.statement().people.get(member.name, money.PersonFigures(member.name))
    context = {
        "club": club, "member": member, "token": token, "season": season, "seasons": club.seasons.all(),
        "entries": mine.select_related("party", "reverses").order_by("-written_at", "-pk"),
        "paid_in": money_label(figures.paid_in), "won": money_label(figures.won), "net": money_label(figures.net),
        "owes": figures.owes, "balance": money_label(club.ledger.balance()),
        "treasury_url": reverse("clubs:treasury", args=[club.slug]) if member.is_treasurer else "",
    }
    return render(request, "bunco_club/my_money.html", context)


# --- A party's buy-ins and seats ------------------------------------------------------------------

BUY_IN_SAID = {
    "cash": gettext_lazy("%(name)s: paid in cash."), "other": gettext_lazy("%(name)s: paid otherwise."),
    "waived": gettext_lazy("%(name)s: buy-in waived."), "owes": gettext_lazy("%(name)s: owes the buy-in."),
    "none": gettext_lazy("%(name)s: not paid yet."),
}


@require_POST
@refused(Back.PARTY)
def party_paid(request: HttpRequest, slug: str, pk: int, member_pk: int) -> HttpResponse:
    """A member's buy-in, from the party page's buttons (`how`: cash, other, waived, owes, or none),
    written to the ledger by a host or the treasurer. Its idempotency key makes a resent tap a retry."""
    club, writer = _money_keeper(request, slug)
    party = _party_of(club, pk)
    member = _member_of(club, member_pk)
    how = request.POST.get("how", "")
    if how not in BUY_IN_HOWS:
        raise ClubError(_("Say how the buy-in stands: paid in cash, paid otherwise, waived or owed."))
    actions.record_buy_in(party, member, how, by=writer, key=_key(request))
    messages.success(request, str(BUY_IN_SAID[how]) % {"name": member.name})
    if request.POST.get("back") == "treasury":
        return redirect("clubs:treasury", slug=club.slug)
    return redirect("clubs:party", slug=club.slug, pk=party.pk)


@require_POST
@refused(Back.PARTY)
def party_release_seats(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """Under "paid tonight keeps your seat next month": the seats of those who had not paid for the
    last party go to the sub list."""
    club, writer = _money_keeper(request, slug)
    if writer.user is None:
        raise PermissionDenied(_("Only the club's hosts can do that."))
    party = _party_of(club, pk)
    released = actions.release_unpaid_seats(party)
    if released:
        messages.success(request, _("Seats offered to the sub list: %(names)s.")
                         % {"names": ", ".join(member.name for member in released)})
    else:
        messages.success(request, _("Everyone coming had paid for the last party: no seat to offer."))
    return redirect("clubs:party", slug=club.slug, pk=party.pk)
