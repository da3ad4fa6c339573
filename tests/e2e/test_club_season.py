"""A club's season with its money, food and Bunco box, as a host and members live it (issue 45,
acceptance 2).

The host runs three parties from the pages: buy-ins at each (Dot's waived, Eve owes at the first
and pays at the second), the payouts of three real nights (played through the night's actions,
their prizes handed out from the host's page, which writes them to the ledger), a supply bought
with a receipt photo whose GPS position is gone when it is downloaded, the float carried from
party to party, and Eve's statement from her personal link. The club counts its members as coming
by default with a 48-hour cutoff: Gus and Hal say no from their phones before it and Sam and Tia,
on the sub list, take their seats; the party then moves to tomorrow (the server's clock is the
wall clock: the party moves past its cutoff instead) and Ivy's "no" is a late cancellation, for the
host's eyes. Bea signs up for the dessert and gives it to Cal, who accepts.
The Bunco box goes to each party's host in turn, who counts it: handed over twice, the second time
a die short, which the next party's page flags.
"""

from __future__ import annotations

import datetime
import io
import random
import re

import pytest
from django.utils import timezone
from PIL import Image
from playwright.sync_api import FilePayload, Page, expect

from bunco_club import actions, money
from bunco_club.links import my_club_path
from bunco_club.models import Club, LedgerEntry, Member, Party, money_label
from games.night.models import Night
from games.rules import bunco
from tests.builders import PASSWORD, fresh, make_user, play_rounds
from tests.conftest import ServerProcess
from tests.e2e.pages import log_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

REGULARS = ["Ada", "Bea", "Cal", "Dot", "Eve", "Fay", "Gus", "Hal", "Ivy"]
ALTERNATES = ["Sam", "Tia"]
KIT = [("Bell", "1"), ("Dice", "12"), ("Score pads", "4")]
GPS_TAG = 0x8825  # EXIF's GPSInfo


def the_club() -> tuple[Club, list[Party]]:
    """The host's club (9 regulars, Sam and Tia on the sub list, $5 a buy-in, coming by default
    unless a "no" comes 48 hours before), its box's checklist, and a season of three monthly
    parties, hosts by the fair rotation."""
    user = make_user("host", password=PASSWORD)
    club = actions.create_club(user=user, name="Maple Street Bunco", place="12 Maple Street", buy_in_cents=500,
                               attending_by_default=True, answer_cutoff_hours=48)
    for name in REGULARS:
        actions.add_member(club, name=name, email=f"{name.lower()}@example.com")
    for name in ALTERNATES:
        actions.add_member(club, name=name, email=f"{name.lower()}@example.com", alternate=True)
    actions.set_box_kit(club, KIT)
    next_month = (timezone.localdate().replace(day=1) + datetime.timedelta(days=32)).replace(day=1)
    season = actions.season_by_rule(club, name="Spring", first_month=next_month, months=3, nth=3, weekday=4)
    actions.assign_hosts(season)
    return club, list(season.parties.order_by("starts_at"))


def member_phone(new_phone, url: str, member: Member) -> Page:
    """`member`'s phone on their personal link."""
    phone = new_phone()
    phone.goto(url + my_club_path(member.code))
    expect(phone.get_by_role("heading", name=f"Hi {member.name}")).to_be_visible()
    return phone


def receive_the_box(phone: Page, counted: dict[str, int]) -> None:
    """The next party's host, on their own page, counts the box as it came: the checklist's counts
    but where `counted` says less."""
    box = phone.locator("#box")
    expect(box).to_contain_text("the box comes to you")
    for name, count in counted.items():
        box.get_by_label(name, exact=True).fill(str(count))
    box.get_by_role("button", name="Received: this is what is there").click()
    expect(phone.locator("#box")).to_contain_text("It is with this party's host: ready.")


def buy_ins(host: Page, party: Party, coming: int, how: dict[str, str]) -> None:
    """On the party's page, the host taps the buy-in of each of the `coming` members coming (by
    their answer or by default): `how` by name, cash otherwise."""
    rows = host.locator("#buy-ins tbody tr")
    names = party.coming_names()
    assert len(names) == coming
    for name in names:
        said = how.get(name, "paid in cash")
        rows.filter(has=host.get_by_role("rowheader", name=name, exact=True)).get_by_role(
            "button", name=f"{name}: {said}").click()
        expect(rows.filter(has=host.get_by_role("rowheader", name=name, exact=True)).get_by_role(
            "button", name=f"{name}: {said}")).to_have_attribute("aria-pressed", "true")


def play_the_night(host: Page, url: str, club: Club, party: Party, seed: int) -> Night:
    """The host starts the party's night from its page with the names it is given (whoever is
    coming), the night's 24 rounds are played through the night's actions (as the phones would),
    and the host hands out the prizes: the night's prize computation, reported to the ledger."""
    host.goto(f"{url}/clubs/{club.slug}/parties/{party.pk}/")
    host.get_by_role("link", name="Start this party's night").click()
    names = host.locator("#id_names").input_value().split()
    host.get_by_role("button", name="Draw the seats and start").click()
    expect(host.locator("#host-state .round-label")).to_contain_text("Round 1 of")
    night = Night.objects.get(party=party)
    assert sorted(night.players.real().values_list("name", flat=True)) == sorted(names)
    play_rounds(night, random.Random(seed), bunco.ROUNDS)
    assert fresh(night).status == Night.Status.FINISHED
    host.reload()
    expect(host.locator(".host-bar")).to_contain_text("All 24 rounds played.")
    host.get_by_role("button", name="Prizes").click()
    expect(host).to_have_url(f"{url}/n/{night.code}/prizes/")
    return fresh(night)


def paid_out(party: Party) -> int:
    """What the ledger paid out for the party's night (its live payouts)."""
    return -sum(entry.amount_cents for entry in LedgerEntry.objects.filter(party=party, kind=money.PAYOUT).live())


def jpeg_with_gps() -> bytes:
    """A phone's photo of a receipt: a JPEG whose EXIF carries where it was taken."""
    image = Image.new("RGB", (64, 48), "white")
    exif = Image.Exif()
    exif[0x010F] = "PhoneMaker"  # Make
    exif[GPS_TAG] = {1: "N", 2: (41.0, 52.0, 30.0), 3: "W", 4: (87.0, 37.0, 45.0)}
    out = io.BytesIO()
    image.save(out, "JPEG", exif=exif)
    photo = out.getvalue()
    assert Image.open(io.BytesIO(photo)).getexif().get_ifd(GPS_TAG)  # the test's photo does carry a position
    return photo


def test_a_season_of_buy_ins_payouts_receipts_subs_dishes_and_the_box(night_site: ServerProcess, new_phone):
    url = night_site.url
    club, (first, second, third) = the_club()
    member = {m.name: m for m in club.members.all()}
    hosts = [party.host for party in (first, second, third) if party.host is not None]
    assert len({h.pk for h in hosts}) == 3
    host = log_in(new_phone(), url)

    # --- The first party: coming by default, two "no"s before the cutoff, their seats to the subs.
    host.goto(f"{url}/clubs/{club.slug}/parties/{first.pk}/")
    expect(host.locator("#headcount")).to_contain_text("Members count as coming unless they say no before")
    expect(host.locator("#headcount")).to_contain_text("Coming (9)")
    for name in ("Gus", "Hal"):
        phone = member_phone(new_phone, url, member[name])
        phone.locator("#next-party").get_by_role("button", name="Can't come").click()
        expect(phone.get_by_text("Can't come.")).to_be_visible()
    for name in ALTERNATES:
        phone = member_phone(new_phone, url, member[name])
        expect(phone.get_by_role("heading", name="A seat for you?")).to_be_visible()
        phone.get_by_role("button", name="Yes, I'll come").click()
        expect(phone.get_by_text("The seat is yours")).to_be_visible()
    host.reload()
    expect(host.locator("#headcount")).to_contain_text("Coming (9)")
    expect(host.locator("#headcount")).to_contain_text("Sam (sub), Tia (sub)")
    expect(host.locator("#headcount")).to_contain_text("Can't come")
    expect(host.locator(".late-cancellations")).to_have_count(0)  # said in time: not late

    # The party moves to tomorrow evening, past its cutoff: Ivy's "no" now is a late cancellation,
    # which the host sees.
    host.get_by_role("link", name="Edit date, place, host or season").click()
    host.get_by_label("Date").fill((club.local(timezone.now()).date() + datetime.timedelta(days=1)).isoformat())
    host.get_by_label("Time", exact=True).fill("19:00")
    host.get_by_role("button", name="Save").click()
    first.refresh_from_db()
    assert first.is_past_cutoff() and first.starts_at > timezone.now()
    ivy = member_phone(new_phone, url, member["Ivy"])
    ivy.locator("#next-party").get_by_role("button", name="Can't come").click()
    expect(ivy.locator("#next-party")).to_contain_text("Your answer: Can't come")
    host.goto(f"{url}/clubs/{club.slug}/parties/{first.pk}/")
    expect(host.locator("#headcount")).to_contain_text("Coming (8)")
    expect(host.locator(".late-cancellations")).to_have_text("Ivy")

    # The dessert: the host asks for one, Bea signs up and gives it to Cal, who accepts.
    host.get_by_role("textbox", name="Dish", exact=True).fill("Dessert")
    host.get_by_role("button", name="Ask for this dish").click()
    dishes = host.locator("section.dishes")
    expect(dishes).to_contain_text("Dessert (0 of 1)")
    bea = member_phone(new_phone, url, member["Bea"])
    bea.get_by_role("button", name="I'll bring Dessert").click()
    expect(bea.locator("section.dishes")).to_contain_text("Dessert (1 of 1)")
    bea.get_by_label("Who could bring Dessert instead").select_option(label="Cal")
    bea.get_by_role("button", name="Ask them to bring it").click()
    cal = member_phone(new_phone, url, member["Cal"])
    expect(cal.get_by_text("Bea asks you to bring Dessert instead of them.")).to_be_visible()
    cal.get_by_role("button", name="Accept").click()
    expect(cal.locator("section.dishes .dish")).to_contain_text("Cal")
    host.reload()
    expect(host.locator("section.dishes .dish")).to_contain_text("Dessert (1 of 1)")
    expect(host.locator("section.dishes .dish p").first).to_have_text("Cal")

    # The box: the first party's host receives it and counts it whole.
    receive_the_box(member_phone(new_phone, url, hosts[0]), {})

    # The buy-ins: Dot's waived, Eve owes; the others pay cash.
    host.goto(f"{url}/clubs/{club.slug}/parties/{first.pk}/")
    buy_ins(host, first, 8, {"Dot": "waive the buy-in", "Eve": "owes the buy-in"})
    night = play_the_night(host, url, club, first, seed=1)
    assert paid_out(first) == night.pot_cents() == 8 * 500

    # A supply bought, with the receipt's photo (a phone's, with its GPS position).
    host.goto(f"{url}/clubs/{club.slug}/treasury/")
    host.get_by_label("What", exact=True).select_option(label="Supplies bought")
    # The fields a host types into are as wide and tall as the others (they were a browser's tiny default).
    kind_box, amount_box = (host.get_by_label(label, exact=True).bounding_box() for label in ("What", "Amount ($)"))
    assert kind_box and amount_box and amount_box["width"] == kind_box["width"] and amount_box["height"] >= 44
    host.get_by_label("Amount ($)").fill("6.50")
    host.get_by_label("What it was, or why").fill("Score pads and pencils")
    photo: FilePayload = {"name": "receipt.jpg", "mimeType": "image/jpeg", "buffer": jpeg_with_gps()}
    host.get_by_label("Receipt photo (optional)").set_input_files(files=photo)
    host.get_by_role("button", name="Write it").click()
    receipt = host.get_by_role("row", name=re.compile("Score pads and pencils")).get_by_role("link", name="receipt")
    href = receipt.get_attribute("href")
    downloaded = host.context.request.get(url + str(href))
    assert downloaded.ok and downloaded.headers["content-type"].startswith("image/")
    kept = Image.open(io.BytesIO(downloaded.body()))
    assert kept.size == (64, 48)
    assert not kept.getexif().get_ifd(GPS_TAG) and not kept.getexif()  # no position, no EXIF at all
    assert b"Exif" not in downloaded.body() and b"PhoneMaker" not in downloaded.body()

    # --- The second party: the box handed over (whole), Eve pays what she owed, a second night.
    receive_the_box(member_phone(new_phone, url, hosts[1]), {})
    host.goto(f"{url}/clubs/{club.slug}/treasury/")
    owed = host.locator("section", has=host.get_by_role("heading", name="Buy-ins owed"))
    expect(owed).to_contain_text("Eve")
    owed.get_by_role("button", name="Paid in cash").click()
    expect(host.get_by_role("heading", name="Buy-ins owed")).to_have_count(0)
    host.goto(f"{url}/clubs/{club.slug}/parties/{second.pk}/")
    buy_ins(host, second, 9, {"Dot": "waive the buy-in"})
    night = play_the_night(host, url, club, second, seed=2)
    assert paid_out(second) == night.pot_cents()

    # --- The third party: the box handed over a die short, flagged on the party's page.
    receive_the_box(member_phone(new_phone, url, hosts[2]), {"Dice": 11})
    host.goto(f"{url}/clubs/{club.slug}/parties/{third.pk}/")
    expect(host.locator("#box")).to_contain_text(f"{hosts[2].name} has it now")
    expect(host.locator("#box .notice-error")).to_contain_text("Missing at its last count: Dice (11 of 12)")
    buy_ins(host, third, 9, {"Dot": "waive the buy-in"})
    night = play_the_night(host, url, club, third, seed=3)
    assert paid_out(third) == night.pot_cents()

    # --- The float, carried party to party: the sum of every entry, on the treasury's page.
    balance = club.ledger.balance()
    ins = sum(LedgerEntry.objects.filter(club=club, kind__in=[money.BUY_IN_CASH, money.BUY_IN_OTHER]).live().values_list(
        "amount_cents", flat=True))
    assert ins == (7 + 8 + 8) * 500  # Dot's three waived, Eve's first paid late
    assert balance == ins - sum(paid_out(party) for party in (first, second, third)) - 650
    host.goto(f"{url}/clubs/{club.slug}/treasury/")
    expect(host.locator(".money-balance")).to_have_text(f"The float: {money_label(balance)}")
    floats = host.locator("section", has=host.get_by_role("heading", name="The float, party by party"))
    expect(floats.locator("tbody tr")).to_have_count(3)

    # --- Eve's statement, from her personal link: three buy-ins paid, what she won, nothing owed.
    eve = member_phone(new_phone, url, member["Eve"])
    eve.get_by_role("link", name="My money").click()
    expect(eve.get_by_role("heading", name="Eve's money")).to_be_visible()
    won = sum(entry.amount_cents for entry in LedgerEntry.objects.filter(member=member["Eve"], kind=money.PAYOUT).live())
    statement = eve.locator("#my-statement")
    expect(statement.get_by_role("row", name="Paid in")).to_contain_text(money_label(1500))
    expect(statement.get_by_role("row", name="Won")).to_contain_text(money_label(abs(won)))
    expect(statement.get_by_role("row", name="Buy-ins owed").get_by_role("cell")).to_have_text("0")
    expect(eve.get_by_text(f"The club's float: {money_label(balance)}")).to_be_visible()
