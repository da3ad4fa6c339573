"""The treasury in a club's export (issue 45, docs/CLUB_EXPORT.md version 3): every ledger entry comes
back as written, reversals naming what they reverse and receipts their metadata; a file of version 2
brings its buy-ins marked paid as the ledger's entries; a file whose ledger contradicts itself is
refused whole."""

from __future__ import annotations

import json

import pytest

from bunco_club import actions
from bunco_club.export import VERSION
from bunco_club.models import Club, LedgerEntry
from tests.builders import exported, imported, refused, resealed, soon

pytestmark = pytest.mark.django_db

COLUMNS = ("kind", "amount_cents", "member__name", "name", "prize", "tie_rule", "what", "receipt", "receipt_sha256",
           "receipt_bytes", "written_by_name", "written_at", "party__starts_at", "reverses__kind")


def a_ledger(club: Club) -> None:
    party = actions.add_party(club, starts_at=soon(-3))
    ada, bea = club.members.get(name="Ada"), club.members.get(name="Bea")
    for member in (ada, bea):
        party.rsvps.create(member=member, answer="yes")
    actions.set_money_rules(club, visible_to="hosts", paid_keeps_seat=True, treasurer=bea)
    actions.record_buy_in(party, ada, "owes")
    actions.record_buy_in(party, ada, "cash", by=actions.Writer(member=bea))
    actions.record_buy_in(party, bea, "other")
    actions.record_buy_in(party, bea, "waived")
    actions.record_night_payouts(party, [actions.Payout(name="Ada", prize="most_wins", amount_cents=700),
                                         actions.Payout(name="Guest Gwen", prize="draw", amount_cents=300,
                                                        tie_rule="drawn")])
    LedgerEntry.objects.create(club=club, kind="supply", amount_cents=-450, what="Pencils", receipt="receipts/1/a.jpg",
                               receipt_sha256="ab" * 32, receipt_bytes=1234)


def ledger_of(club: Club) -> list[tuple]:
    return list(LedgerEntry.objects.filter(club=club).order_by("pk").values_list(*COLUMNS))


def test_the_ledger_comes_back_as_written(host, club, tmp_path):
    a_ledger(club)
    before, balance = ledger_of(club), club.ledger.balance()
    text = exported(club)
    assert json.loads(text)["version"] == VERSION == 3
    Club.objects.filter(pk=club.pk).delete()
    copy = Club.objects.get(pk=imported(tmp_path, text)["club"])
    assert ledger_of(copy) == before
    assert copy.ledger.balance() == balance
    assert (copy.money_visible_to, copy.paid_keeps_seat) == ("hosts", True)
    assert list(copy.members.filter(is_treasurer=True).values_list("name", flat=True)) == ["Bea"]
    assert LedgerEntry.objects.get(club=copy, kind="buy_in_cash").written_by_member == copy.members.get(name="Bea")


def test_a_file_of_version_2_brings_its_paid_buy_ins_into_the_ledger(host, club, tmp_path):
    party = actions.add_party(club, starts_at=soon(-3))
    party.rsvps.create(member=club.members.get(name="Ada"), answer="yes")
    party.rsvps.create(member=club.members.get(name="Bea"), answer="yes")

    def as_version_2(payload: dict) -> None:
        del payload["ledger"]
        del payload["club"]["money_visible_to"], payload["club"]["paid_keeps_seat"]
        for member in payload["members"]:
            del member["is_treasurer"]
        for rsvp in payload["rsvps"]:
            rsvp["paid"] = rsvp["member"] == club.members.get(name="Ada").pk

    document = json.loads(resealed(exported(club), as_version_2))
    document["version"] = 2
    Club.objects.filter(pk=club.pk).delete()
    copy = Club.objects.get(pk=imported(tmp_path, json.dumps(document))["club"])
    assert list(copy.ledger.values_list("kind", "amount_cents", "member__name")) == [("buy_in_cash", 500, "Ada")]
    assert copy.money_visible_to == "members" and not copy.paid_keeps_seat


@pytest.mark.parametrize(("change", "message"), [
    (lambda p: p["ledger"][3].update(amount_cents=-1), "opposite amount"),
    (lambda p: p["ledger"][0].update(reverses=p["ledger"][-1]["id"]), "not in the file"),
    (lambda p: p["ledger"][2].update(kind="gift"), "kind"),
], ids=["a reversal of another amount", "a reversal of a later entry", "an unknown kind"])
def test_a_ledger_that_contradicts_itself_is_refused_whole(host, club, tmp_path, change, message):
    a_ledger(club)
    text = resealed(exported(club), change)
    said = refused(tmp_path, text)
    assert said.startswith("Nothing was imported.") and message in said
