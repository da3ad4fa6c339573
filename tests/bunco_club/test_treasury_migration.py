"""The buy-ins move into the ledger (issue 45, migration 0010): a database whose RSVPs were marked
paid comes out with each of those buy-ins as an entry paid in cash, of its club's buy-in, written
when the answer was; the RSVPs no longer say it (the ledger is the one source)."""

from __future__ import annotations

import datetime

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from bunco_club.models import LedgerEntry

pytestmark = pytest.mark.django_db(transaction=True)  # migrations run outside a test transaction

BEFORE = [("bunco_club", "0011_attending_by_default_and_dishes")]
AFTER = [("bunco_club", "0012_treasury_ledger_and_buy_ins_in_it")]


def test_every_buy_in_marked_paid_becomes_its_entry_in_the_ledger():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    club = old.get_model("bunco_club", "Club").objects.create(name="Maple", slug="maple", buy_in_cents=400)
    ada, bea = (old.get_model("bunco_club", "Member").objects.create(club=club, name=name, code=name)
                for name in ("Ada", "Bea"))
    party = old.get_model("bunco_club", "Party").objects.create(
        club=club, starts_at=datetime.datetime(2026, 11, 6, 19, tzinfo=datetime.UTC))
    rsvps = old.get_model("bunco_club", "RSVP").objects
    rsvps.create(party=party, member=ada, answer="yes", paid=True)
    rsvps.create(party=party, member=bea, answer="yes", paid=False)
    answered_at = rsvps.get(member=ada).answered_at

    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)

    entries = list(LedgerEntry.objects.values_list("club_id", "party_id", "member__name", "kind", "amount_cents",
                                                   "written_at"))
    assert entries == [(club.pk, party.pk, "Ada", "buy_in_cash", 400, answered_at)]
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())  # the database as the other tests expect it
