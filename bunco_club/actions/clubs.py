"""A club: starting one, its settings and house rules, its hosts (co-hosts), the address its links use."""

from __future__ import annotations

import zoneinfo
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.text import slugify
from django.utils.translation import gettext as _

from bunco_club.actions.common import clean_name, clean_text, log_change
from bunco_club.actions.languages import check_language
from bunco_club.actions.refusals import ClubError
from bunco_club.models import CLUB_NAME_MAX, CUTOFF_HOURS_MAX, PLACE_MAX, Club
from games.rules import bunco

# A club's house rules: the night's (named by the engine) and how the pot is cut.
RULE_FIELDS = (*bunco.RULE_FIELDS, "one_prize_each", "split_ties", "prize_amounts")
CLUB_FIELDS = ("name", "place", "usual_time", "time_zone", "buy_in_cents", "rsvp_nudge_days", "attending_by_default",
               "answer_cutoff_hours", *RULE_FIELDS, "language")


def _clean_club_fields(fields: dict[str, Any]) -> dict[str, Any]:
    if "name" in fields:
        fields["name"] = clean_name(fields["name"], "club name", CLUB_NAME_MAX)
    if "place" in fields:
        fields["place"] = clean_text(fields["place"], "usual place", PLACE_MAX)
    hours = fields.get("answer_cutoff_hours", 0)
    if isinstance(hours, bool) or not isinstance(hours, int) or not 0 <= hours <= CUTOFF_HOURS_MAX:
        raise ClubError(_("The answers' cutoff is 0 to %(most)s hours before a party.") % {"most": CUTOFF_HOURS_MAX})
    if "time_zone" in fields and fields["time_zone"] not in zoneinfo.available_timezones():
        raise ClubError(_("Pick the club's time zone from the list, like America/Chicago."))
    return fields


def _check_hosting_room(user: Any, *, club: Club | None = None, yourself: bool = True) -> None:
    """Refuse one more club for an account that hosts settings.CLUB_MAX_PER_HOST already (`club`:
    the club it would host, not counted)."""
    most = settings.CLUB_MAX_PER_HOST
    hosted = Club.objects.filter(hosts=user)
    if club is not None:
        hosted = hosted.exclude(pk=club.pk)
    if hosted.count() < most:
        return
    if yourself:
        raise ClubError(_("You host %(most)s clubs already, the most one account may: hand one of them to another "
                          "host and leave it before you start another.") % {"most": most})
    raise ClubError(_("%(user)s hosts %(most)s clubs already, the most one account may: they need to leave one of "
                      "them first.") % {"user": user.get_username(), "most": most})


RESERVED_SLUGS = frozenset({"new", "me", "calendar"})  # the club URLs' own words


def _unique_slug(name: str) -> str:
    base = (slugify(name) or "club")[:40]
    slug, number = base, 1
    while slug in RESERVED_SLUGS or Club.objects.filter(slug=slug).exists():
        number += 1
        slug = f"{base}-{number}"
    return slug


@transaction.atomic
def create_club(*, user: Any, name: str, **fields: Any) -> Club:
    """A new club; its creator becomes its host. `fields`: any of CLUB_FIELDS."""
    if not getattr(user, "is_authenticated", False):
        raise ClubError(_("Log in to start a club: its host needs an account."))
    unknown = set(fields) - set(CLUB_FIELDS)
    if unknown:
        raise TypeError(f"create_club got unknown fields {sorted(unknown)}")
    clean = clean_name(name, "club name", CLUB_NAME_MAX)
    fields = _clean_club_fields(fields)
    if "language" in fields:
        fields["language"] = check_language(fields["language"])
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()  # one new club at a time per account
    _check_hosting_room(user)
    club = Club.objects.create(name=clean, slug=_unique_slug(clean), **fields)
    club.hosts.add(user)
    log_change(club, "club", what="created")
    return club


@transaction.atomic
def update_club(club: Club, **fields: Any) -> Club:
    """Change the club's name, place, time, buy-in, nudge days, attending by default and its
    cutoff, or house rules."""
    unknown = set(fields) - set(CLUB_FIELDS)
    if unknown:
        raise TypeError(f"update_club got unknown fields {sorted(unknown)}")
    fields = _clean_club_fields(fields)
    if "language" in fields:
        fields["language"] = check_language(fields["language"])
    for name, value in fields.items():
        setattr(club, name, value)
    club.save(update_fields=list(fields))
    log_change(club, "club", what="updated")
    return club


@transaction.atomic
def add_cohost(club: Club, username: str) -> Any:
    """Give another account the club's keys."""
    user = get_user_model().objects.filter(username=username.strip()).first()
    if user is None:
        raise ClubError(_("There is no account with the username “%(username)s”. They need to sign up first.")
                        % {"username": username.strip()})
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    _check_hosting_room(user, club=club, yourself=False)
    club.hosts.add(user)
    log_change(club, "club", what="cohost")
    return user


@transaction.atomic
def remove_cohost(club: Club, user: Any) -> None:
    if not club.hosts.filter(pk=user.pk).exists():
        raise ClubError(_("%(user)s doesn't host this club.") % {"user": user.get_username()})
    if club.hosts.count() <= 1:
        raise ClubError(_("A club needs at least one host: add another host before leaving."))
    club.hosts.remove(user)
    log_change(club, "club", what="cohost")


@transaction.atomic
def note_site_address(club: Club, address: str) -> None:
    """Remember the address (scheme://host[:port]) a host of the club reached the site at: emails
    and calendar entries link there (unless settings.SITE_URL says otherwise)."""
    address = address.rstrip("/")[:200]
    if address and address != club.site_address:
        Club.objects.filter(pk=club.pk).update(site_address=address)
        club.site_address = address
