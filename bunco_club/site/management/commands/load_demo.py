"""Loads the demo club: a host login, 14 members, an upcoming party. Safe to run again.

The demo host is a plain host of the demo club (no staff, no admin). Its password is random per
install, kept in the secret file beside the database (bunco_club/site/secrets_file.py), and printed here,
so `make run` shows the same one every time.
"""

from __future__ import annotations

from datetime import time, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from bunco_club import actions as club_actions
from bunco_club.models import RSVP, Club, Member, Party, Season
from bunco_club.site import secrets_file

DEMO_USERNAME = "host"
# The password every earlier install gave the demo host, and which is in the repository's history:
# a demo host still using it gets this install's own.
PUBLISHED_PASSWORD = "bunco-night"
DEMO_MEMBERS = [
    "Alice", "Bea", "Carmen", "Dana", "Edith", "Fran", "Gloria", "Hazel",
    "Irene", "June", "Kay", "Lois",
]
DEMO_ALTERNATES = ["Mabel", "Nora"]
DEMO_TIME_ZONE = "America/Chicago"


class Command(BaseCommand):
    help = "Load the demo club, its host login and an upcoming party (idempotent)."

    @transaction.atomic
    def handle(self, *args: Any, **options: Any) -> None:
        password = secrets_file.secret(settings.SECRET_FILE, secrets_file.DEMO_PASSWORD)
        user_model = get_user_model()
        host, created = user_model.objects.get_or_create(username=DEMO_USERNAME)
        known = created or host.check_password(PUBLISHED_PASSWORD)
        if known:
            host.set_password(password)
        else:
            known = host.check_password(password)  # or the host chose their own since
        # A plain host of the demo club: earlier installs made it staff and superuser.
        host.is_staff = host.is_superuser = False
        host.save()
        # A real zone, so a newcomer's first calendar and mails are not in UTC (issue 29, S6).
        club, _ = Club.objects.get_or_create(slug="maple-street",
                                             defaults={"name": "Maple Street Bunco", "time_zone": DEMO_TIME_ZONE})
        club.hosts.add(host)
        for name in DEMO_MEMBERS:
            Member.objects.get_or_create(club=club, name=name)
        for name in DEMO_ALTERNATES:
            Member.objects.get_or_create(club=club, name=name, defaults={"is_alternate": True})
        party = club.parties.upcoming().first()
        if party is None:
            starts_at = club.at(club.local(timezone.now()).date() + timedelta(days=7), time(19, 0))
            party = Party.objects.create(
                club=club,
                starts_at=starts_at,
                host=club.members.get(name="Alice"),
                location="Alice's house, 12 Maple Street",
            )
        for member in club.members.regulars():
            RSVP.objects.get_or_create(party=party, member=member, defaults={"answer": RSVP.Answer.YES})
        season = self._demo_season(club)
        night = self._demo_night(party, host)
        self.stdout.write(
            f"Demo club '{club.name}': {club.members.count()} members, party on "
            f"{party.local_start:%a %d %b %H:%M} ({club.time_zone}), night ready at /n/{night.code}/host/."
        )
        if season is not None:
            self.stdout.write(f"Season '{season.name}': {season.parties.count()} parties, hosts by the rotation.")
        self.stdout.write(
            f"Demo host login: {DEMO_USERNAME} / {password}" if known
            else f"Demo host login: {DEMO_USERNAME}, with the password you gave it."
        )

    def _demo_season(self, club: Club) -> Season | None:
        """A year of parties on the third Friday of each month, from next month, with a host for
        each by the fair rotation; made once (a club that has a season keeps it)."""
        existing = club.seasons.first()
        if existing is not None:
            return existing
        today = club.local(timezone.now()).date()
        next_month = (today.replace(day=1) + timedelta(days=32)).replace(day=1)
        try:
            season = club_actions.season_by_rule(
                club, name=f"{next_month:%B %Y} on", first_month=next_month, months=12, nth=3, weekday=4,
                time=time(19, 0))
        except club_actions.ClubError as error:  # a date taken by the demo's own party
            self.stdout.write(f"No demo season: {error}")
            return None
        club_actions.assign_hosts(season)
        return season

    def _demo_night(self, party: Party, host: Any) -> Any:
        """The party's night, seated and ready for the head table to start round 1."""
        # The front-door command wires the demo across apps; the club models themselves don't.
        from games.night.actions import start_night
        from games.night.models import Night

        night = Night.objects.filter(party=party).first()
        if night is None:
            names = list(party.rsvps.filter(answer=RSVP.Answer.YES).values_list("member__name", flat=True))
            night = start_night(
                names=names, buy_in_cents=party.club.buy_in_cents, title=f"{party.club.name} night",
                club=party.club, party=party, host_user=host,
                members={member.name: member for member in party.club.members.all()},
            )
        return night
