"""The treasury's pages (issue 45): the host's buy-in buttons on a party's page, the treasury page and
its entries, statements on a page and as CSV with the same figures, receipts stripped of their GPS
and served only to those who may see the money, and a member's own money by their personal link."""

from __future__ import annotations

import csv
import datetime
import io
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from PIL import Image

from bunco_club import actions
from bunco_club.links import member_token
from bunco_club.models import RSVP, LedgerEntry
from bunco_club.receipts import open_receipt
from tests.builders import element_text, logged_in, make_user, member_phone, soon, text

pytestmark = pytest.mark.django_db

GPS_IFD = 0x8825


def phone_photo(**size: int) -> bytes:
    """A JPEG as a phone takes it: its EXIF carries the camera and where it was (GPS)."""
    image = Image.new("RGB", (size.get("width", 64), size.get("height", 48)), (200, 120, 40))
    exif = Image.Exif()
    exif[0x010F] = "PhoneMaker"  # Make
    exif[0x0132] = "2026:12:07 18:30:00"  # DateTime
    exif[GPS_IFD] = {1: "N", 2: (41.0, 53.0, 24.0), 3: "W", 4: (87.0, 37.0, 48.0)}
    out = io.BytesIO()
    image.save(out, format="JPEG", exif=exif)
    return out.getvalue()


def treasury_url(club, name: str = "treasury", *args) -> str:
    return reverse(f"clubs:{name}", args=[club.slug, *args])


def a_supply(host_client: Client, club, **fields) -> Any:
    body = {"kind": "supply", "amount": "12.50", "what": "Score pads", "key": "k-supply", **fields}
    return host_client.post(treasury_url(club, "treasury_entry"), body)


# --- The party page's buy-ins ----------------------------------------------------------------------


def test_the_host_records_a_buy_in_from_the_party_page_and_the_float_shows_it(host_client, club, party, member):
    url = reverse("clubs:party_paid", args=[club.slug, party.pk, member.pk])
    response = host_client.post(url, {"how": "cash", "key": "k-cash"}, follow=True)
    assert "Bea: paid in cash." in text(response)
    assert "The float: $5.00 now" in text(response)
    row = element_text(response.content.decode(), id="buy-ins")
    assert "Buy-in paid in cash" in row
    assert host_client.post(url, {"how": "cash", "key": "k-cash"}).status_code == 302  # a retry
    assert club.ledger.count() == 1


def test_a_member_counted_as_coming_by_default_has_a_buy_in_row_the_host_taps(host_client, club, member):
    """Where members count as coming without an answer (attending by default), the party page's
    buy-ins list them too, and the host's tap records their buy-in."""
    club.attending_by_default = True
    club.save()
    party = actions.add_party(club, starts_at=soon())  # nobody has answered
    page = host_client.get(reverse("clubs:party", args=[club.slug, party.pk])).content.decode()
    assert 'aria-label="Bea: paid in cash"' in page
    assert "Coming (by default)" in element_text(page, id="buy-ins")
    url = reverse("clubs:party_paid", args=[club.slug, party.pk, member.pk])
    response = host_client.post(url, {"how": "cash", "key": "k-default"}, follow=True)
    assert "Bea: paid in cash." in text(response)
    assert club.ledger.balance() == club.buy_in_cents
    assert not RSVP.objects.filter(party=party, member=member).exists()  # still no answer of her own


def test_a_member_owes_and_pays_later_from_the_treasury_page(host_client, club, party, member):
    url = reverse("clubs:party_paid", args=[club.slug, party.pk, member.pk])
    host_client.post(url, {"how": "owes", "key": "k-owes"})
    page = text(host_client.get(treasury_url(club)))
    assert "Buy-ins owed" in page and "Bea" in page
    host_client.post(url, {"how": "other", "key": "k-later", "back": "treasury"})
    assert "Buy-ins owed" not in text(host_client.get(treasury_url(club)))
    party_page = text(host_client.get(reverse("clubs:party", args=[club.slug, party.pk])))
    assert "paid late" in party_page


def test_a_members_phone_cannot_record_a_buy_in(member_client, club, party, member):
    url = reverse("clubs:party_paid", args=[club.slug, party.pk, member.pk])
    assert member_client.post(url, {"how": "cash"}).status_code == 403
    assert not club.ledger.exists()


# --- Writing entries, and bad amounts ------------------------------------------------------------


@pytest.mark.parametrize("amount", ["1e9", "-5", "5,00", "9" * 20, "²", "", "0"])
def test_a_bad_amount_is_refused_with_a_message_and_nothing_is_written(host_client, club, amount):
    response = a_supply(host_client, club, amount=amount)
    assert response.status_code == 400
    assert element_text(response.content.decode(), class_="notice notice-error").startswith(("Write", "An entry"))
    assert not club.ledger.exists()


def test_a_spanish_host_writes_cents_after_a_comma(host_client, club):
    response = host_client.post(treasury_url(club, "treasury_entry"),
                                {"kind": "dues", "amount": "5,00", "member": str(club.members.get(name="Ada").pk),
                                 "key": "k-dues"}, HTTP_ACCEPT_LANGUAGE="es")
    assert response.status_code == 302
    assert club.ledger.get().amount_cents == 500


def test_a_key_reused_with_other_content_is_refused(host_client, club):
    assert a_supply(host_client, club).status_code == 302
    assert a_supply(host_client, club).status_code == 302  # the retry
    refused = a_supply(host_client, club, amount="13.50")
    assert refused.status_code == 409
    assert "other content" in text(refused)
    assert club.ledger.balance() == -1250


def test_the_host_reverses_an_entry_from_the_ledger(host_client, club):
    a_supply(host_client, club)
    entry = club.ledger.get()
    response = host_client.post(treasury_url(club, "treasury_reverse", entry.pk), {"key": "k-rev"}, follow=True)
    assert "Reversed: Supplies bought, -$12.50." in text(response)
    assert club.ledger.balance() == 0
    again = host_client.post(treasury_url(club, "treasury_reverse", entry.reversal.pk), {"key": "k-rev2"})
    assert again.status_code == 409
    assert "cannot be reversed" in text(again)


# --- Receipts --------------------------------------------------------------------------------------


def test_a_receipt_photo_is_stored_without_its_gps_and_shown_only_to_the_hosts(host_client, member_client, club):
    photo = phone_photo()
    assert Image.open(io.BytesIO(photo)).getexif().get_ifd(GPS_IFD)  # the phone's photo says where it was
    response = a_supply(host_client, club, receipt=SimpleUploadedFile("IMG_0001.jpg", photo, "image/jpeg"))
    assert response.status_code == 302
    entry = club.ledger.get()
    assert entry.receipt.startswith("receipts/") and entry.receipt_bytes > 0
    downloaded = host_client.get(treasury_url(club, "treasury_receipt", entry.pk))
    assert downloaded.status_code == 200 and downloaded["Content-Type"] == "image/jpeg"
    kept = Image.open(io.BytesIO(downloaded.content))
    assert kept.size == (64, 48)
    assert not kept.getexif()  # no camera, no time, no GPS
    assert b"PhoneMaker" not in open_receipt(entry.receipt)
    assert member_client.get(treasury_url(club, "treasury_receipt", entry.pk)).status_code == 403
    assert logged_in(make_user("stranger")).get(treasury_url(club, "treasury_receipt", entry.pk)).status_code == 404


@pytest.mark.parametrize(("upload", "said"), [
    (b"%PDF-1.4 not a photo", "must be a photo"),
    (b"GIF89a" + b"\x00" * 20, "must be a photo"),  # a truncated image
])
def test_a_receipt_that_is_no_photo_is_refused(host_client, club, upload, said):
    response = a_supply(host_client, club, receipt=SimpleUploadedFile("receipt.jpg", upload, "image/jpeg"))
    assert response.status_code == 400
    assert said in text(response)
    assert not club.ledger.exists()


def test_a_receipt_over_the_size_limit_is_refused(host_client, club, settings):
    settings.RECEIPT_MAX_BYTES = 1000
    response = a_supply(host_client, club, receipt=SimpleUploadedFile("big.jpg", phone_photo(width=800, height=800)))
    assert response.status_code == 400
    assert "too large" in text(response)
    assert not club.ledger.exists()


# --- Statements ------------------------------------------------------------------------------------


def a_season_of_money(club) -> None:
    season = actions.create_season(club, name="2026", starts=[soon(-30), soon(-2)])
    first, second = season.parties.order_by("starts_at")
    ada, bea, cal = (club.members.get(name=name) for name in ("Ada", "Bea", "Cal"))
    for party in (first, second):
        for member in (ada, bea, cal):
            _came(party, member)
    actions.record_buy_in(first, ada, "cash")
    actions.record_buy_in(first, bea, "waived")
    actions.record_buy_in(first, cal, "owes")
    actions.record_buy_in(second, ada, "other")
    actions.record_buy_in(first, cal, "cash")
    actions.record_night_payouts(first, [actions.Payout(name="Ada", prize="most_wins", amount_cents=1000),
                                         actions.Payout(name="Guest Gwen", prize="draw", amount_cents=500,
                                                        tie_rule="drawn")])
    actions.record_entry(club, "supply", 750, what="Pencils", party=second)


def _came(party, member) -> None:
    """The member said yes (a party over takes no answers any more: its row, as it was left)."""
    RSVP.objects.get_or_create(party=party, member=member, defaults={"answer": "yes"})


def statement_figures(page: str) -> list[list[str]]:
    """The statement page's two tables as rows of cells (their bodies: the headings are the CSV's
    first row), the dollar signs left off."""
    from html.parser import HTMLParser

    class Cells(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.rows: list[list[str]] = []
            self.inside = 0
            self.body = False
            self.cell: list[str] | None = None

        def handle_starttag(self, tag, attrs):
            if tag == "table" and dict(attrs).get("id", "").startswith("statement"):
                self.inside += 1
            elif self.inside and tag == "tbody":
                self.body = True
            elif self.inside and self.body and tag == "tr":
                self.rows.append([])
            elif self.inside and self.body and tag in ("td", "th"):
                self.cell = []

        def handle_endtag(self, tag):
            if tag == "table" and self.inside:
                self.inside -= 1
            elif tag == "tbody":
                self.body = False
            elif self.inside and tag in ("td", "th") and self.cell is not None:
                self.rows[-1].append(" ".join("".join(self.cell).split()).replace("$", ""))
                self.cell = None

        def handle_data(self, data):
            if self.cell is not None:
                self.cell.append(data)

    parser = Cells()
    parser.feed(page)
    return [row for row in parser.rows if row]


def test_the_statements_csv_has_the_pages_figures(host_client, club):
    a_season_of_money(club)
    season = club.seasons.get()
    for query in ("", f"?season={season.pk}"):
        page = statement_figures(host_client.get(treasury_url(club, "treasury_statement") + query).content.decode())
        rows = list(csv.reader(io.StringIO(host_client.get(treasury_url(club, "treasury_csv") + query)
                                           .content.decode())))
        assert [cell for cell in rows[0]] == ["member", "paid in", "won", "net", "buy-ins owed"]
        from_csv = [[cell for cell in row if cell != ""] for row in rows[1:]]
        assert from_csv == page
    figures = {row[0]: row[1:] for row in page}
    assert figures["Ada"] == ["10.00", "10.00", "0.00", "0"]
    assert figures["Cal"] == ["5.00", "0.00", "-5.00", "0"]  # owed, then paid late
    assert figures["Guest Gwen"] == ["0.00", "5.00", "5.00", "0"]
    assert figures["Balance (the float)"] == ["-7.50"]


def test_the_statement_is_printable(host_client, club):
    a_season_of_money(club)
    page = host_client.get(treasury_url(club, "treasury_statement")).content.decode()
    assert 'class="no-print"' in page and "css/club.css" in page


# --- Who sees the money ----------------------------------------------------------------------------


def test_only_the_hosts_and_the_treasurer_open_the_treasury(host_client, member_client, club, member):
    assert host_client.get(treasury_url(club)).status_code == 200
    assert member_client.get(treasury_url(club)).status_code == 403
    assert logged_in(make_user("stranger")).get(treasury_url(club)).status_code == 404
    actions.set_money_rules(club, visible_to="hosts", paid_keeps_seat=False, treasurer=member)
    assert member_client.get(treasury_url(club)).status_code == 200
    response = member_client.post(treasury_url(club, "treasury_entry"),
                                  {"kind": "supply", "amount": "3", "what": "Bell", "key": "k-bell"})
    assert response.status_code == 302
    assert club.ledger.get().written_by_member == member
    assert member_client.post(treasury_url(club, "treasury_settings"), {"visible_to": "members"}).status_code == 403


def test_a_member_sees_their_own_entries_and_the_balance_but_not_anothers(club, party, member):
    actions.record_buy_in(party, member, "cash")
    actions.record_entry(club, "dues", 2000, member=club.members.get(name="Ada"))
    page = text(member_phone(member).get(reverse("clubs:my_money", args=[member_token(member.code)])))
    assert "Buy-in paid in cash" in page and "$25.00" in page  # theirs, and the club's float
    assert "Dues" not in page and "$20.00" not in page  # Ada's


def test_a_members_page_says_each_entry_as_the_member_lived_it(club, party, member):
    """The float's +$5.00 is a buy-in they paid, its -$15.00 a prize they received; a correction
    cancels what its entry meant. In their language."""
    actions.record_buy_in(party, member, "cash")
    actions.record_night_payouts(party, [{"name": member.name, "member_id": member.pk, "prize": "most_wins",
                                          "amount_cents": 1500}])
    actions.reverse_entry(club.ledger.get(kind=LedgerEntry.Kind.BUY_IN_CASH))
    link = reverse("clubs:my_money", args=[member_token(member.code)])
    page = text(member_phone(member).get(link))
    entries = page.split("My entries", 1)[1]
    assert "you paid $5.00" in entries and "you received $15.00" in entries and "cancels: you paid $5.00" in entries
    assert "-$" not in entries  # the float's signs are the host's, not the member's
    member.language = "es"
    member.save(update_fields=["language"])
    page = text(member_phone(member).get(link))
    assert "pagaste" in page and "recibiste" in page and "anula: pagaste" in page


def test_a_club_that_keeps_its_money_to_its_hosts_shows_a_member_none_of_it(club, party, member):
    actions.record_buy_in(party, member, "cash")
    actions.set_money_rules(club, visible_to="hosts", paid_keeps_seat=False, treasurer=None)
    response = member_phone(member).get(reverse("clubs:my_money", args=[member_token(member.code)]))
    assert response.status_code == 403
    assert "hosts and its treasurer only" in text(response)
    assert "$5.00" not in text(response)


def test_a_forged_or_stale_personal_link_reads_no_money(club, party, member):
    actions.record_buy_in(party, member, "cash")
    forged = member_token(member.code)[:-3] + "abc"
    assert Client().get(reverse("clubs:my_money", args=[forged])).status_code == 404
    stale = member_token(member.code)
    actions.reset_member_link(member)
    response = Client().get(reverse("clubs:my_money", args=[stale]))
    assert response.status_code == 404
    assert "$5.00" not in text(response)


def test_the_host_offers_the_unpaid_seats_to_subs(host_client, club):
    club.paid_keeps_seat = True
    club.save()
    last = actions.add_party(club, starts_at=soon(-20))
    coming = actions.add_party(club, starts_at=timezone.now() - datetime.timedelta(hours=1))  # it has begun
    bea = club.members.get(name="Bea")
    _came(last, bea)
    _came(coming, bea)
    page = text(host_client.get(reverse("clubs:party", args=[club.slug, coming.pk])))
    assert "Not paid for the last party: Bea" in page
    response = host_client.post(reverse("clubs:party_release_seats", args=[club.slug, coming.pk]), follow=True)
    assert "Seats offered to the sub list: Bea." in text(response)
    assert RSVP.objects.get(party=coming, member=bea).answer == "no"
    assert LedgerEntry.objects.count() == 0


def test_only_the_receipts_form_takes_a_body_the_size_of_a_photo(settings):
    from bunco_club.site.asgi import body_limit

    settings.REQUEST_BODY_MAX_BYTES, settings.RECEIPT_MAX_BYTES = 1024 * 1024, 5 * 1024 * 1024
    assert body_limit("/clubs/maple/treasury/entries/") > settings.RECEIPT_MAX_BYTES
    for path in ("/clubs/maple/treasury/entries/1/reverse/", "/clubs/maple/roster/", "/n/ABCD/tally/"):
        assert body_limit(path) == settings.REQUEST_BODY_MAX_BYTES
