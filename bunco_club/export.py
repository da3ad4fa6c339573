"""A club's whole history as one file, and that file loaded into another installation (issue 48):
`export_text(club)` is what `manage.py export_club` prints and what the host downloads from the
club page; `import_club(text)` loads it under new ids in one transaction, or refuses it whole.
The format is docs/CLUB_EXPORT.md.

The file carries the club's own records only (the club domain's rows): the nights' sheets
(`NightRecord`s) are what standings are computed from (bunco_club/standings.py); the night's
tap-by-tap tallies stay with the night in games/, which the club domain does not read.
"""

from __future__ import annotations

import datetime
import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, models, transaction

from bunco_club.actions.clubs import _unique_slug
from bunco_club.actions.refusals import ClubError
from bunco_club.models import (
    RSVP,
    Blackout,
    Club,
    Member,
    NightRecord,
    Party,
    Season,
    SubInvitation,
    SwapRequest,
)

FORMAT = "bunco-club-export"
VERSION = 1

# The club's own columns the file carries (its feed's code, the site's address and its hosts'
# accounts belong to the installation, not to the club's history).
CLUB_FIELDS = ("name", "slug", "buy_in_cents", "created_at", "place", "usual_time", "rsvp_nudge_days", "time_zone",
               "baby_bunco_ends_turn", "wipeout", "head_losers_to_last_table", "tie_break", "one_prize_each",
               "split_ties", "prize_amounts")


# Each list of the file: its model, its columns (plain values) and its references (column → list).
TABLES: dict[str, tuple[type[models.Model], tuple[str, ...], dict[str, str]]] = {
    "members": (Member, ("name", "email", "phone", "is_alternate", "is_active", "sub_order"), {}),
    "seasons": (Season, ("name", "created_at"), {}),
    "blackouts": (Blackout, ("date",), {"member": "members"}),
    "parties": (Party, ("starts_at", "location", "notes", "open_seats", "sequence", "counts", "cancelled_at",
                        "played_at"),
                {"season": "seasons", "host": "members", "cohost": "members"}),
    "rsvps": (RSVP, ("answer", "answered_at", "note", "paid", "gave_up_seat"), {"party": "parties", "member": "members"}),
    "sub_invitations": (SubInvitation, ("status", "invited_at", "answered_at"),
                        {"party": "parties", "member": "members"}),
    "swap_requests": (SwapRequest, ("status", "created_at"),
                      {"requested_by": "members", "asked": "members", "give": "parties", "take": "parties"}),
    "night_records": (NightRecord, ("name", "wins", "losses", "buncos", "prize_cents", "prizes", "recorded_at"),
                      {"party": "parties", "member": "members"}),
}


# --- Writing ----------------------------------------------------------------------------------


def _plain(value: object) -> object:
    """A column's value as JSON: moments and dates in ISO 8601 (moments in UTC)."""
    if isinstance(value, datetime.datetime):
        return value.astimezone(datetime.UTC).isoformat()
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    return value


def _rows(rows: Iterable[models.Model], columns: tuple[str, ...], refs: Mapping[str, str]) -> list[dict[str, object]]:
    listed = []
    for row in rows:
        item: dict[str, object] = {"id": row.pk}
        item.update({column: _plain(getattr(row, column)) for column in columns})
        item.update({ref: getattr(row, f"{ref}_id") for ref in refs})
        listed.append(item)
    return listed


def _club_rows(club: Club) -> dict[str, Iterable[models.Model]]:
    """Every row of the club, by the file's lists, in id order (the order the pages break ties in)."""
    return {
        "members": club.members.order_by("pk"),
        "seasons": club.seasons.order_by("pk"),
        "blackouts": Blackout.objects.filter(member__club=club).order_by("pk"),
        "parties": club.parties.order_by("pk"),
        "rsvps": RSVP.objects.filter(party__club=club).order_by("pk"),
        "sub_invitations": SubInvitation.objects.filter(party__club=club).order_by("pk"),
        "swap_requests": SwapRequest.objects.filter(give__club=club).order_by("pk"),
        "night_records": NightRecord.objects.filter(party__club=club).order_by("pk"),
    }


def canonical(payload: object) -> bytes:
    """The payload's one spelling the checksum is taken over: keys sorted, no spaces, UTF-8."""
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def export_payload(club: Club) -> dict[str, object]:
    payload: dict[str, object] = {"club": {column: _plain(getattr(club, column)) for column in CLUB_FIELDS}}
    for name, rows in _club_rows(club).items():
        _model, columns, refs = TABLES[name]
        payload[name] = _rows(rows, columns, refs)
    members = payload["members"]
    assert isinstance(members, list)
    cohosts = dict(club.members.values_list("pk", "cohost_id"))
    for member in members:
        member["cohost"] = cohosts[member["id"]]
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
        raise ClubError(f"The file is not JSON: {error}.") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ClubError(f"The file is not a club export (its \"format\" is not {FORMAT!r}).")
    if document.get("version") != VERSION:
        raise ClubError(f"The file is of version {document.get('version')!r}; this installation reads version "
                        f"{VERSION}.")
    payload = document.get("payload")
    if not isinstance(payload, dict) or not isinstance(payload.get("club"), dict):
        raise ClubError("The file has no club in it.")
    if hashlib.sha256(canonical(payload)).hexdigest() != document.get("sha256"):
        raise ClubError("The file has been altered since it was exported: its checksum does not match.")
    for name in TABLES:
        if not isinstance(payload.get(name), list) or not all(isinstance(row, dict) for row in payload[name]):
            raise ClubError(f"The file's {name.replace('_', ' ')} are not a list of records.")
    return payload


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
        raise ClubError(f"{where}: {column} is not right ({error}).") from None


def _json_type(field: models.Field) -> type:
    """What a column's value is in the file: a whole number, true/false, or text (dates and times too)."""
    if isinstance(field, models.IntegerField):
        return int
    return bool if isinstance(field, models.BooleanField) else str


def _is_id(value: object) -> bool:
    """A file's id is a whole number (a list or an object could not even be compared)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _check_room(payload: Mapping[str, Any]) -> None:
    """The club's caps hold for an imported club as for one built here (settings.CLUB_MAX_MEMBERS,
    CLUB_MAX_PARTIES, SEASON_MAX_PARTIES)."""
    if len(payload["members"]) > settings.CLUB_MAX_MEMBERS:
        raise ClubError(f"The file has {len(payload['members']):,} members; a club keeps "
                        f"{settings.CLUB_MAX_MEMBERS:,} at most.")
    if len(payload["parties"]) > settings.CLUB_MAX_PARTIES:
        raise ClubError(f"The file has {len(payload['parties']):,} parties; a club keeps "
                        f"{settings.CLUB_MAX_PARTIES:,} at most.")
    for number, party in enumerate(payload["parties"], start=1):
        if party.get("season") is not None and not _is_id(party.get("season")):
            raise ClubError(f"Parties #{number}: the season {party.get('season')!r} is not an id of the file.")
    seasons = Counter(party.get("season") for party in payload["parties"] if party.get("season") is not None)
    for season, count in seasons.items():
        if count > settings.SEASON_MAX_PARTIES:
            raise ClubError(f"Season {season!r} of the file has {count:,} dates; a season has "
                            f"{settings.SEASON_MAX_PARTIES:,} at most.")


def _checked(row: models.Model, where: str, exclude: Iterable[str]) -> models.Model:
    """The row, once its values fit its columns (lengths, choices, ranges); else ClubError."""
    try:
        row.full_clean(exclude=list(exclude), validate_unique=False, validate_constraints=False)
    except ValidationError as error:
        problems = "; ".join(f"{field}: {' '.join(messages)}" for field, messages in error.message_dict.items())
        raise ClubError(f"{where}: {problems}") from None
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
            raise ClubError(f"{where} refers to {table.replace('_', ' ')} {ref!r}, which is not in the file.")
        return found


def _make_club(data: Mapping[str, Any]) -> Club:
    club = Club(**{column: _value(Club, column, data.get(column), "The club") for column in CLUB_FIELDS})
    _checked(club, "The club", exclude=["slug", "feed_code"])
    club.slug = _unique_slug(club.slug)  # the same slug, or the first free `<slug>-2`…
    created_at = club.created_at
    club.save()
    Club.objects.filter(pk=club.pk).update(created_at=created_at)  # auto_now_add set today's on save
    club.created_at = created_at
    return club


def _make_rows(club: Club, name: str, items: list[dict[str, Any]], ids: _Ids) -> None:
    """One list of the file stored, its references remapped to the rows made before it."""
    model, columns, refs = TABLES[name]
    rows: list[models.Model] = []
    file_ids: list[int | None] = []
    for number, item in enumerate(items, start=1):
        where = f"{name.replace('_', ' ').capitalize()} #{number}"
        values = {column: _value(model, column, item.get(column), where) for column in columns}
        for ref, table in refs.items():
            nullable = model._meta.get_field(ref).null
            values[ref] = ids.row(table, item.get(ref), where, nullable=nullable)
        row = model(**values, **({"club": club} if name in ("members", "seasons", "parties") else {}))
        rows.append(_checked(row, where, exclude=[*refs, "club", "code"]))
        if item.get("id") is not None and not _is_id(item.get("id")):
            raise ClubError(f"{where}: the id {item.get('id')!r} is not a whole number.")
        file_ids.append(item.get("id"))
    stored = model._default_manager.bulk_create(rows)
    _keep_moments(model, stored, items, columns)
    for number, (file_id, row) in enumerate(zip(file_ids, stored, strict=True), start=1):
        if file_id in ids.made[name]:
            raise ClubError(f"{name.replace('_', ' ').capitalize()} #{number}: the id {file_id!r} is used twice.")
        if file_id is not None:
            ids.made[name][file_id] = row


def _keep_moments(model: type[models.Model], rows: list[models.Model], items: list[dict[str, Any]],
                  columns: tuple[str, ...]) -> None:
    """The moments Django stamps on save (`auto_now`, `auto_now_add`) put back as the file has them."""
    stamped = [column for column in columns if getattr(model._meta.get_field(column), "auto_now", False)
               or getattr(model._meta.get_field(column), "auto_now_add", False)]
    if not stamped or not rows:
        return
    for row, item in zip(rows, items, strict=True):
        for column in stamped:
            setattr(row, column, _value(model, column, item.get(column), "A moment"))
    model._default_manager.bulk_update(rows, stamped)  # bulk_update writes the values as they are


def _pair_cohosts(members: list[dict[str, Any]], ids: _Ids) -> None:
    paired: list[Member] = []
    for number, item in enumerate(members, start=1):
        if item.get("cohost") is None:
            continue
        member = ids.row("members", item.get("id"), f"Members #{number}", nullable=False)
        cohost = ids.row("members", item["cohost"], f"Members #{number}", nullable=False)
        assert isinstance(member, Member) and isinstance(cohost, Member)
        member.cohost = cohost
        paired.append(member)
    Member.objects.bulk_update(paired, ["cohost"])


@transaction.atomic
def _store(payload: Mapping[str, Any]) -> tuple[Club, int, int]:
    club = _make_club(payload["club"])
    ids = _Ids()
    for name in TABLES:
        _make_rows(club, name, payload[name], ids)
    _pair_cohosts(payload["members"], ids)
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
        raise ClubError(f"The file's records contradict each other: {error}.") from None
    return {"club": club.pk, "slug": club.slug, "members": members, "nights": nights}
