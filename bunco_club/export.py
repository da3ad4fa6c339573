"""A club's whole history as one file, and that file loaded into another installation (issue 48):
`export_text(club)` is what `manage.py export_club` prints and what the host downloads from the
club page; `import_club(text)` loads it under new ids in one transaction, or refuses it whole.
The format is docs/CLUB_EXPORT.md.

The file carries the club's own records (the club domain's rows: the nights' sheets, the
`NightRecord`s the standings are computed from, bunco_club/standings.py), then the lists another
app registers (`register`): the night adds its nights tap by tap (games/night/export.py), so this
module never reads games. Writing and reading are the same few functions for every list.
"""

from __future__ import annotations

import datetime
import hashlib
import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, models, transaction
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from bunco_club import custody
from bunco_club.actions.clubs import _unique_slug
from bunco_club.actions.refusals import ClubError
from bunco_club.models import (
    CUTOFF_HOURS_MAX,
    DISH_WANTED_MAX,
    RSVP,
    Blackout,
    BoxHandOver,
    BoxItem,
    Club,
    DishSignup,
    DishSlot,
    LedgerEntry,
    Member,
    NightRecord,
    Party,
    Season,
    SubInvitation,
    SwapRequest,
)

FORMAT = "bunco-club-export"
# 2: the nights tap by tap; 3: the Bunco box, the treasury's ledger, attending by default and the
# dishes (issue 45), the buy-ins in the ledger rather than an RSVP's "paid". Files of versions 1 and 2
# are read still: they have no box, no ledger and no dishes, and a version 2 RSVP "paid" becomes its
# buy-in paid.
VERSION = 3

# The club's own columns the file carries (its feed's code, the site's address and its hosts'
# accounts belong to the installation, not to the club's history).
CLUB_FIELDS = ("name", "slug", "buy_in_cents", "created_at", "place", "usual_time", "rsvp_nudge_days", "time_zone",
               "baby_bunco_ends_turn", "wipeout", "head_losers_to_last_table", "tie_break", "one_prize_each",
               "split_ties", "prize_amounts", "language", "money_visible_to", "paid_keeps_seat", "attending_by_default",
               "answer_cutoff_hours")
# Columns a newer version added, with what a file of an older version stands for: a version 1 file
# has no languages (its club reads English, its members have not chosen).
ADDED_COLUMNS: dict[int, dict[str, dict[str, object]]] = {
                 2: {"club": {"language": "en"}, "members": {"language": ""}},
                 3: {"club": {"money_visible_to": "members", "paid_keeps_seat": False, "attending_by_default": False,
                              "answer_cutoff_hours": 48},
                     "members": {"is_treasurer": False},
                     "rsvps": {"cancelled_late": False, "seat_released_unpaid": False}}}


@dataclass(frozen=True)
class Section:
    """One list of the file: its model, its columns (plain values), its references (column → an
    earlier list, or its own), which of those are stored once the whole list is (`later`: a row
    naming a row of its own list, or one after it), the club's rows of it in id order, and the
    version of the file it came in with (an older file has none: an empty list)."""

    model: type[models.Model]
    columns: tuple[str, ...]
    refs: Mapping[str, str]
    rows: Callable[[Club], Iterable[models.Model]]
    later: Mapping[str, str] = field(default_factory=dict)
    of_club: bool = False  # the row's `club` is the club itself
    # Pairs of paths through the references that must reach one row (a seat's table is of its
    # round): a file whose rows disagree is refused.
    agree: tuple[tuple[str, str], ...] = ()
    # What else a row must be, said by its app: why the row is not right, None when it is.
    refusal: Callable[[Any], str | None] | None = None
    since: int = 1
    # A row may name an earlier row of its own list in `refs` (a reversal, the entry it reverses):
    # the rows are stored one at a time, in the file's order.
    in_order: bool = False


# The file's lists, in the order they are stored: the club's own here; another app adds its own
# after them (`register`), as the night does its nights tap by tap (games/night/export.py).
TABLES: dict[str, Section] = {
    "members": Section(Member, ("name", "email", "phone", "is_alternate", "is_active", "sub_order", "language",
                                "is_treasurer"), {},
                       lambda club: club.members.order_by("pk"), later={"cohost": "members"}, of_club=True),
    "seasons": Section(Season, ("name", "created_at"), {}, lambda club: club.seasons.order_by("pk"), of_club=True),
    "blackouts": Section(Blackout, ("date",), {"member": "members"},
                         lambda club: Blackout.objects.filter(member__club=club).order_by("pk")),
    "parties": Section(Party, ("starts_at", "location", "notes", "open_seats", "sequence", "counts", "cancelled_at",
                               "played_at"),
                       {"season": "seasons", "host": "members", "cohost": "members"},
                       lambda club: club.parties.order_by("pk"), of_club=True),
    "rsvps": Section(RSVP, ("answer", "answered_at", "note", "gave_up_seat", "cancelled_late", "seat_released_unpaid"),
                     {"party": "parties", "member": "members"},
                     lambda club: RSVP.objects.filter(party__club=club).order_by("pk")),
    "sub_invitations": Section(SubInvitation, ("status", "invited_at", "answered_at"),
                               {"party": "parties", "member": "members"},
                               lambda club: SubInvitation.objects.filter(party__club=club).order_by("pk")),
    "swap_requests": Section(SwapRequest, ("status", "created_at"),
                             {"requested_by": "members", "asked": "members", "give": "parties", "take": "parties"},
                             lambda club: SwapRequest.objects.filter(give__club=club).order_by("pk")),
    "night_records": Section(NightRecord, ("name", "wins", "losses", "buncos", "prize_cents", "prizes", "recorded_at"),
                             {"party": "parties", "member": "members"},
                             lambda club: NightRecord.objects.filter(party__club=club).order_by("pk")),
    # The Bunco box (version 3): its checklist, and the custody log of its hand-overs (the phones'
    # idempotency keys stay behind, as the RSVPs' do).
    "box_items": Section(BoxItem, ("name", "count", "position"), {}, lambda club: club.box_items.order_by("pk"),
                         of_club=True, since=3),
    "box_handovers": Section(BoxHandOver, ("received_at", "counts", "by_host"),
                             {"party": "parties", "received_by": "members"},
                             lambda club: club.box_handovers.order_by("pk"), of_club=True,
                             refusal=lambda row: custody.record_problem(row.counts), since=3),
    # The treasury's ledger, every entry as written (reversals name what they reverse), with each
    # receipt's metadata: its name in the storage, its SHA-256 and size (the photo itself is an
    # uploaded file: the backups carry it, not this file). Who wrote an entry: their name (an
    # account belongs to an installation), or the member, a treasurer.
    "ledger": Section(LedgerEntry, ("name", "kind", "amount_cents", "prize", "tie_rule", "what", "receipt",
                                    "receipt_sha256", "receipt_bytes", "written_by_name", "written_at"),
                      {"party": "parties", "member": "members", "written_by_member": "members", "reverses": "ledger"},
                      lambda club: club.ledger.order_by("pk"), of_club=True, since=3, in_order=True,
                      refusal=lambda entry: _ledger_refusal(entry)),
    # The dishes (version 3): what each party's host asked for, and who brings each. The offers
    # (a suggestion, a dish handed over or traded, waiting for an answer) stay behind with the
    # phones' idempotency keys: each is a question of a few days, and who brings what is the sign-ups.
    "dish_slots": Section(DishSlot, ("name", "wanted"), {"party": "parties"},
                          lambda club: DishSlot.objects.filter(party__club=club).order_by("pk"), since=3,
                          refusal=lambda slot: _dish_slot_refusal(slot)),
    "dish_signups": Section(DishSignup, ("signed_at",), {"slot": "dish_slots", "member": "members"},
                            lambda club: DishSignup.objects.filter(slot__party__club=club).order_by("pk"), since=3),
}


def _dish_slot_refusal(slot: DishSlot) -> str | None:
    """A dish is asked for 1 to DISH_WANTED_MAX times, as the host's page allows."""
    if 1 <= slot.wanted <= DISH_WANTED_MAX:
        return None
    return _("Ask for %(least)s to %(most)s of a dish.") % {"least": 1, "most": DISH_WANTED_MAX}


def _ledger_refusal(entry: LedgerEntry) -> str | None:
    """A reversal carries its entry's kind and the opposite amount, and never reverses a reversal."""
    reversed_entry = entry.reverses
    if reversed_entry is None:
        return None
    if reversed_entry.reverses_id is not None or reversed_entry.kind != entry.kind \
            or reversed_entry.amount_cents != -entry.amount_cents:
        return _("a reversal must carry the kind of the entry it reverses and the opposite amount, and never "
                 "reverse a reversal.")
    return None


# The club's own lists as a person reads them in a refusal (another app's list: its name, as it
# always read in English).
TITLES = {
    "members": gettext_lazy("Members"), "seasons": gettext_lazy("Seasons"), "blackouts": gettext_lazy("Blackouts"),
    "parties": gettext_lazy("Parties"), "rsvps": gettext_lazy("Rsvps"),
    "sub_invitations": gettext_lazy("Sub invitations"), "swap_requests": gettext_lazy("Swap requests"),
    "night_records": gettext_lazy("Night records"), "box_items": gettext_lazy("Box items"),
    "box_handovers": gettext_lazy("Box hand-overs"), "ledger": gettext_lazy("Ledger entries"),
    "dish_slots": gettext_lazy("Dish slots"), "dish_signups": gettext_lazy("Dish sign-ups"),
}


def _title(name: str) -> str:
    """A list of the file named for people ("Night records"), capitalised."""
    return str(TITLES.get(name, name.replace("_", " ").capitalize()))


def figure(number: int) -> str:
    """A count as the reader's language writes it (2,000 in English)."""
    return number_format(number, force_grouping=True)


def register(name: str, section: Section) -> None:
    """Add a list to the file, after those there are: an app that keeps rows of a club (the night
    its nights) registers them when it is ready, so the club domain never reads that app. Its
    references name lists registered before it (or its own, as `later`)."""
    unknown = ({*section.refs.values()} - {*TABLES}) | ({*section.later.values()} - {*TABLES, name})
    if name in TABLES or unknown:
        raise ValueError(f"The export list {name!r} is registered twice or names unknown lists {sorted(unknown)}.")
    TABLES[name] = section


# --- Writing ----------------------------------------------------------------------------------


def _plain(value: object) -> object:
    """A column's value as JSON: moments and dates in ISO 8601 (moments in UTC)."""
    if isinstance(value, datetime.datetime):
        return value.astimezone(datetime.UTC).isoformat()
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    return value


def _rows(rows: Iterable[models.Model], section: Section) -> list[dict[str, object]]:
    listed = []
    for row in rows:
        item: dict[str, object] = {"id": row.pk}
        item.update({column: _plain(getattr(row, column)) for column in section.columns})
        item.update({ref: getattr(row, f"{ref}_id") for ref in (*section.refs, *section.later)})
        listed.append(item)
    return listed


def canonical(payload: object) -> bytes:
    """The payload's one spelling the checksum is taken over: keys sorted, no spaces, UTF-8."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def export_payload(club: Club) -> dict[str, object]:
    """The club's columns and every list of the file, each list in id order (the order the pages
    break ties in)."""
    payload: dict[str, object] = {"club": {column: _plain(getattr(club, column)) for column in CLUB_FIELDS}}
    for name, section in TABLES.items():
        payload[name] = _rows(section.rows(club), section)
    return payload


def export_text(club: Club) -> str:
    """The club's whole history as one versioned JSON document (with its checksum), one line per
    value, ending in a newline: the command prints it and the download is it, byte for byte."""
    payload = export_payload(club)
    document = {"format": FORMAT, "version": VERSION, "sha256": hashlib.sha256(canonical(payload)).hexdigest(),
                "payload": payload}
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


# --- Reading ----------------------------------------------------------------------------------


def read_document(text: str) -> dict[str, Any]:
    """The payload of an export, once its format, version and checksum are right; else ClubError."""
    try:
        document = json.loads(text)
    except ValueError as error:
        raise ClubError(_("The file is not JSON: %(error)s.") % {"error": error}) from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ClubError(_("The file is not a club export (its \"format\" is not %(format)s).") % {"format": repr(FORMAT)})
    version = document.get("version")
    if not _is_id(version) or not 1 <= version <= VERSION:
        raise ClubError(_("The file is of version %(version)s; this installation reads versions 1 to %(latest)s.")
                        % {"version": repr(version), "latest": VERSION})
    payload = document.get("payload")
    if not isinstance(payload, dict) or not isinstance(payload.get("club"), dict):
        raise ClubError(_("The file has no club in it."))
    if hashlib.sha256(canonical(payload)).hexdigest() != document.get("sha256"):
        raise ClubError(_("The file has been altered since it was exported: its checksum does not match."))
    for name, section in TABLES.items():
        if section.since > version:
            payload.setdefault(name, [])  # a list newer than the file: the file has none of it
        if not isinstance(payload.get(name), list) or not all(isinstance(row, dict) for row in payload[name]):
            raise ClubError(_("The file's %(list)s are not a list of records.") % {"list": _title(name).lower()})
    _fill_added_columns(payload, version)
    if version < 3:
        payload["ledger"] = _buy_ins_of_version_2(payload)
    return payload


def _buy_ins_of_version_2(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """A file of before the ledger marked a buy-in paid on its RSVP ("paid": true): each becomes
    the entry of a buy-in paid in cash, of the club's buy-in, written when the answer was."""
    amount = payload["club"].get("buy_in_cents")
    return [{"id": number, "kind": "buy_in_cash", "amount_cents": amount, "party": rsvp.get("party"),
             "member": rsvp.get("member"), "name": "", "prize": "", "tie_rule": "", "what": "", "receipt": "",
             "receipt_sha256": "", "receipt_bytes": 0, "written_by_name": "", "written_by_member": None,
             "reverses": None, "written_at": rsvp.get("answered_at")}
            for number, rsvp in enumerate(payload["rsvps"], start=1) if rsvp.get("paid") is True]


def _fill_added_columns(payload: dict[str, Any], version: int) -> None:
    """A file older than a column gets what its version stands for in it (ADDED_COLUMNS)."""
    for since, lists in ADDED_COLUMNS.items():
        if version >= since:
            continue
        for name, columns in lists.items():
            for row in [payload[name]] if name == "club" else payload[name]:
                for column, value in columns.items():
                    row.setdefault(column, value)


def _value(model: type[models.Model], column: str, raw: object, where: str) -> object:
    """A column's value read from the file by the column's own type (ClubError if it is not one)."""
    field = model._meta.get_field(column)
    assert isinstance(field, models.Field)
    if raw is None and field.null:
        return None
    try:
        if isinstance(field, models.DateTimeField):
            value = datetime.datetime.fromisoformat(str(raw))
            if value.tzinfo is None:
                raise ValueError("a moment without its time zone")
            return value
        if not isinstance(raw, _json_type(field)) or isinstance(raw, bool) != isinstance(field, models.BooleanField):
            raise ValueError(f"{raw!r} is not a {field.get_internal_type()}")
        return field.to_python(raw)
    except (ValueError, TypeError, ValidationError) as error:
        raise ClubError(_("%(where)s: %(column)s is not right (%(error)s).")
                        % {"where": where, "column": column, "error": error}) from None


def _json_type(field: models.Field) -> type:
    """What a column's value is in the file: a whole number, true/false, or text (dates and times too)."""
    if isinstance(field, models.IntegerField):
        return int
    if isinstance(field, models.JSONField):
        return type(field.get_default())  # an object or a list, as the column's empty value is
    return bool if isinstance(field, models.BooleanField) else str


def _is_id(value: object) -> TypeGuard[int]:
    """A file's id is a whole number (a list or an object could not even be compared)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _check_room(payload: Mapping[str, Any]) -> None:
    """The club's caps hold for an imported club as for one built here (settings.CLUB_MAX_MEMBERS,
    CLUB_MAX_PARTIES, SEASON_MAX_PARTIES)."""
    if len(payload["members"]) > settings.CLUB_MAX_MEMBERS:
        raise ClubError(_("The file has %(count)s members; a club keeps %(most)s at most.")
                        % {"count": figure(len(payload["members"])), "most": figure(settings.CLUB_MAX_MEMBERS)})
    if len(payload["parties"]) > settings.CLUB_MAX_PARTIES:
        raise ClubError(_("The file has %(count)s parties; a club keeps %(most)s at most.")
                        % {"count": figure(len(payload["parties"])), "most": figure(settings.CLUB_MAX_PARTIES)})
    for number, party in enumerate(payload["parties"], start=1):
        if party.get("season") is not None and not _is_id(party.get("season")):
            raise ClubError(_("Parties #%(number)s: the season %(season)s is not an id of the file.")
                            % {"number": number, "season": repr(party.get("season"))})
    seasons = Counter(party.get("season") for party in payload["parties"] if party.get("season") is not None)
    for season, count in seasons.items():
        if count > settings.SEASON_MAX_PARTIES:
            raise ClubError(_("Season %(season)s of the file has %(count)s dates; a season has %(most)s at most.")
                            % {"season": repr(season), "count": figure(count),
                               "most": figure(settings.SEASON_MAX_PARTIES)})


def _checked(row: models.Model, where: str, exclude: Iterable[str]) -> models.Model:
    """The row, once its values fit its columns (lengths, choices, ranges); else ClubError."""
    try:
        row.full_clean(exclude=list(exclude), validate_unique=False, validate_constraints=False)
    except ValidationError as error:
        problems = "; ".join(f"{field}: {' '.join(messages)}" for field, messages in error.message_dict.items())
        raise ClubError(_("%(where)s: %(problems)s") % {"where": where, "problems": problems}) from None
    return row


class _Ids:
    """The file's ids of each list, mapped to the rows made for them in this installation."""

    def __init__(self) -> None:
        self.made: dict[str, dict[object, models.Model]] = {name: {} for name in TABLES}

    def row(self, table: str, ref: object, where: str, *, nullable: bool) -> models.Model | None:
        if ref is None and nullable:
            return None
        found = self.made[table].get(ref) if isinstance(ref, int) and not isinstance(ref, bool) else None
        if found is None:
            raise ClubError(_("%(where)s refers to %(list)s %(ref)s, which is not in the file.")
                            % {"where": where, "list": _title(table).lower(), "ref": repr(ref)})
        return found


def _make_club(data: Mapping[str, Any]) -> Club:
    where = _("The club")
    club = Club(**{column: _value(Club, column, data.get(column), where) for column in CLUB_FIELDS})
    _checked(club, where, exclude=["slug", "feed_code"])
    if club.answer_cutoff_hours > CUTOFF_HOURS_MAX:  # as the club's settings allow (actions.clubs)
        raise ClubError(_("%(where)s: %(problems)s") % {"where": where, "problems": _(
            "The answers' cutoff is 0 to %(most)s hours before a party.") % {"most": CUTOFF_HOURS_MAX}})
    club.slug = _unique_slug(club.slug)  # the same slug, or the first free `<slug>-2`…
    created_at = club.created_at
    club.save()
    Club.objects.filter(pk=club.pk).update(created_at=created_at)  # auto_now_add set today's on save
    club.created_at = created_at
    return club


def _make_rows(club: Club, name: str, items: list[dict[str, Any]], ids: _Ids) -> None:
    """One list of the file stored, its references remapped to the rows made before it (those of
    its own list once the list is stored), every row checked."""
    section = TABLES[name]
    title = _title(name)
    if section.in_order:
        stored = []
        for number, item in enumerate(items, start=1):
            row = _made_row(club, section, item, ids, f"{title} #{number}")
            stored.extend(section.model._default_manager.bulk_create([row]))
            _remember(ids, name, item, stored[-1], f"{title} #{number}")
    else:
        rows = [_made_row(club, section, item, ids, f"{title} #{number}") for number, item in enumerate(items, start=1)]
        stored = section.model._default_manager.bulk_create(rows)
    _keep_moments(section.model, stored, items, section.columns)
    if not section.in_order:
        for number, (item, row) in enumerate(zip(items, stored, strict=True), start=1):
            _remember(ids, name, item, row, f"{title} #{number}")
    referring = [(number, item, row) for number, (item, row) in enumerate(zip(items, stored, strict=True), start=1)
                 if any(item.get(ref) is not None for ref in section.later)]
    for number, item, row in referring:
        _refer(section, section.later, item, row, ids, f"{title} #{number}")
    if referring:
        section.model._default_manager.bulk_update([row for _, _, row in referring], list(section.later))
    for number, row in enumerate(stored, start=1):
        _check_agreement(section, row, f"{title} #{number}")


def _remember(ids: _Ids, name: str, item: dict[str, Any], row: models.Model, where: str) -> None:
    """The file's id of a row stored, for the rows after it that name it (refused if used twice)."""
    if item.get("id") in ids.made[name]:
        raise ClubError(_("%(where)s: the id %(id)s is used twice.") % {"where": where, "id": repr(item.get("id"))})
    if item.get("id") is not None:
        ids.made[name][item["id"]] = row


def _made_row(club: Club, section: Section, item: dict[str, Any], ids: _Ids, where: str) -> models.Model:
    """The row of one item of the file, not stored yet: its values read, its references to the
    earlier lists remapped, its values checked against its columns."""
    model = section.model
    row = model(**{column: _value(model, column, item.get(column), where) for column in section.columns},
                **({"club": club} if section.of_club else {}))
    _refer(section, section.refs, item, row, ids, where)
    if item.get("id") is not None and not _is_id(item.get("id")):
        raise ClubError(_("%(where)s: the id %(id)s is not a whole number.") % {"where": where, "id": repr(item.get("id"))})
    _checked(row, where, exclude=[*section.refs, *section.later, "club", "code"])
    refusal = section.refusal(row) if section.refusal else None
    if refusal is not None:
        raise ClubError(_("%(where)s: %(problems)s") % {"where": where, "problems": refusal})
    return row


def _refer(section: Section, refs: Mapping[str, str], item: dict[str, Any], row: models.Model, ids: _Ids,
           where: str) -> None:
    for ref, table in refs.items():
        setattr(row, ref, ids.row(table, item.get(ref), where, nullable=section.model._meta.get_field(ref).null))


def _reached(row: models.Model | None, path: str) -> models.Model | None:
    """The row reached from `row` through the references of `path` ("table_round.round"), read
    off the rows made (no query); None when a reference on the way is empty."""
    for step in path.split("."):
        if row is None:
            return None
        row = getattr(row, step)
    return row


def _check_agreement(section: Section, row: models.Model, where: str) -> None:
    """The row's references agree (a seat's table is of its round): else the file is refused."""
    for one, other in section.agree:
        first, second = _reached(row, one), _reached(row, other)
        if first is not None and second is not None and first.pk != second.pk:
            raise ClubError(_("%(where)s: its %(one)s and its %(other)s are not the same row (the file's rows "
                              "contradict each other).") % {"where": where, "one": one, "other": other})


def _keep_moments(model: type[models.Model], rows: list[models.Model], items: list[dict[str, Any]],
                  columns: tuple[str, ...]) -> None:
    """The moments Django stamps on save (`auto_now`, `auto_now_add`) put back as the file has them."""
    stamped = [column for column in columns if getattr(model._meta.get_field(column), "auto_now", False)
               or getattr(model._meta.get_field(column), "auto_now_add", False)]
    if not stamped or not rows:
        return
    for row, item in zip(rows, items, strict=True):
        for column in stamped:
            setattr(row, column, _value(model, column, item.get(column), _("A moment")))
    model._default_manager.bulk_update(rows, stamped)  # bulk_update writes the values as they are


@transaction.atomic
def _store(payload: Mapping[str, Any]) -> tuple[Club, int, int]:
    club = _make_club(payload["club"])
    ids = _Ids()
    for name in TABLES:
        _make_rows(club, name, payload[name], ids)
    return club, len(ids.made["members"]), club.parties.filter(records__isnull=False).distinct().count()


def import_club(text: str) -> dict[str, object]:
    """An export loaded into this installation under new ids (a new slug if this one is taken;
    members get new personal links), in one transaction: a file that is malformed, of another
    version, altered or inconsistent raises ClubError and nothing is stored. What it made:
    {"club": id, "slug": slug, "members": n, "nights": n} (nights: the parties with sheets)."""
    payload = read_document(text)
    _check_room(payload)
    try:
        club, members, nights = _store(payload)
    except IntegrityError as error:
        raise ClubError(_("The file's records contradict each other: %(error)s.") % {"error": error}) from None
    return {"club": club.pk, "slug": club.slug, "members": members, "nights": nights}
