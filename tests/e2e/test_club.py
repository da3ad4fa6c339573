"""A club in real browsers (issue 10, acceptance 4).

A host creates a club, adds 14 members and 3 alternates, gives one member a date away, generates a
year's rotation, opens a party; a member answers from their phone link; a cancellation brings in an
alternate who accepts on their phone; the host starts that party's night.
"""

from __future__ import annotations

import datetime
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from bunco_club import actions
from bunco_club.links import my_club_path
from bunco_club.models import RSVP, Club, Party, SubInvitation
from bunco_club.rotation import monthly_dates
from scripts.screenshots_clubs import MEMBER
from scripts.screenshots_clubs import seed as seed_the_screenshots_club
from tests.builders import PASSWORD, make_user
from tests.conftest import ServerProcess
from tests.e2e.pages import log_in

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

REGULARS = ["Ada", "Bea", "Cal", "Dot", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kit", "Lou", "Mo", "Ned"]
ALTERNATES = ["Sam", "Tia", "Uma"]


def test_a_host_runs_a_club_and_an_alternate_takes_a_seat_from_their_phone(
    night_site: ServerProcess, new_phone
):
    url = night_site.url
    make_user("host", password=PASSWORD)
    host = log_in(new_phone(), url)

    # The club.
    host.get_by_role("link", name="Start a club").click()
    host.get_by_label("Club name").fill("Maple Street Bunco")
    host.get_by_label("Usual place").fill("12 Maple Street")
    host.get_by_role("button", name="Start the club").click()
    expect(host.get_by_role("heading", name="Maple Street Bunco: roster")).to_be_visible()
    club = Club.objects.get(name="Maple Street Bunco")

    # 14 members and 3 alternates.
    for name in REGULARS + ALTERNATES:
        host.get_by_label("Name", exact=True).fill(name)
        host.get_by_label("Email").fill(f"{name.lower()}@example.com")
        if name in ALTERNATES:
            host.get_by_label("On the sub list (an alternate)").check()
        host.get_by_role("button", name="Add", exact=True).click()
        expect(host.get_by_text(f"{name} is on the")).to_be_visible()
    assert club.members.regulars().count() == 14
    assert [member.name for member in club.members.alternates()] == ALTERNATES

    # A year's rotation: the third Friday of every month (the form's defaults).
    first_month = datetime.date(timezone.localdate().year + 1, 1, 1)
    days = monthly_dates(first_month, 12, nth=3, weekday=4)
    host.get_by_role("link", name="New season").click()
    host.get_by_role("button", name="Create the season").click()
    expect(host.get_by_text("12 dates. Now plan who hosts.")).to_be_visible()
    season_page = host.url

    # A date away for Ada, ticked among the season's dates: the first one.
    host.get_by_role("link", name="Roster").click()
    host.get_by_role("link", name="Ada", exact=True).click()
    host.get_by_role("checkbox", name=f"{days[0]:%a %-d %b %Y}").check()
    host.get_by_role("button", name="Save the dates away").click()
    expect(host.get_by_text("Ada's dates away are saved.")).to_be_visible()

    # Then the hosts.
    host.goto(season_page)
    host.get_by_role("button", name="Plan who hosts").click()
    expect(host.get_by_text("Hosts planned for 12 dates.")).to_be_visible()
    parties = list(Party.objects.filter(club=club).order_by("starts_at"))
    assert [timezone.localdate(party.starts_at) for party in parties] == days
    assert parties[0].host is not None and parties[0].host.name != "Ada"
    assert sorted(party.host.name for party in parties if party.host) == sorted(
        set(REGULARS) - {"Mo", "Ned"})  # 12 dates for 14 regulars: the last two in roster order wait

    # Most of the club said yes already; Bea answers from her phone.
    party = parties[0]
    for member in club.members.regulars().exclude(name__in=["Bea", "Ada"]):
        actions.answer_rsvp(party, member, "yes")
    bea = club.members.get(name="Bea")
    bea_phone = new_phone()
    bea_phone.goto(url + my_club_path(bea.code))
    expect(bea_phone.get_by_role("heading", name="Hi Bea")).to_be_visible()
    bea_phone.get_by_role("button", name="Coming").first.click()
    expect(bea_phone.get_by_text("Thanks!")).to_be_visible()
    assert RSVP.objects.get(party=party, member=bea).answer == "yes"

    # The host opens the party: 13 coming, 3 ghosts.
    host.goto(f"{url}/clubs/{club.slug}/parties/{party.pk}/")
    expect(host.get_by_text("13 coming, 3 ghosts")).to_be_visible()

    # Bea cancels: Sam, first on the sub list, is invited and accepts on his phone.
    bea_phone.get_by_role("button", name="Can't come").first.click()
    expect(bea_phone.get_by_text("Can't come.")).to_be_visible()
    invitation = SubInvitation.objects.get(party=party)
    assert invitation.member.name == "Sam"
    sam = invitation.member
    sam_phone = new_phone()
    sam_phone.goto(url + my_club_path(sam.code))
    expect(sam_phone.get_by_role("heading", name="A seat for you?")).to_be_visible()
    sam_phone.get_by_role("button", name="Yes, I'll come").click()
    expect(sam_phone.get_by_text("The seat is yours")).to_be_visible()

    host.reload()
    expect(host.get_by_text("13 coming, 3 ghosts")).to_be_visible()
    expect(host.get_by_text("Sam (sub)")).to_be_visible()

    # The host starts that party's night with its yes list.
    host.get_by_role("link", name="Start this party's night").click()
    names = host.locator("#id_names").input_value().split()
    assert "Sam" in names and "Bea" not in names and len(names) == 13
    host.get_by_role("button", name="Draw the seats and start").click()
    host.wait_for_url(lambda address: "/n/" in address)
    assert Party.objects.filter(pk=party.pk, nights__isnull=False).count() == 1

    # Back on the party's page the host re-opens that night: never a second one (issue 16, C5).
    night_address = host.url
    host.goto(f"{url}/clubs/{club.slug}/parties/{party.pk}/")
    host.get_by_role("link", name="Open this party's night").click()
    expect(host).to_have_url(night_address)
    assert Party.objects.get(pk=party.pk).nights.count() == 1



def club_with_next_years_season():
    """The host's club (8 regulars, Sam on the sub list) with next year's season, hosts planned:
    (club, season, its first party)."""
    user = make_user("host", password=PASSWORD)
    club = actions.create_club(user=user, name="Maple Street Bunco", place="12 Maple Street")
    for name in REGULARS[:8]:
        actions.add_member(club, name=name, email=f"{name.lower()}@example.com")
    actions.add_member(club, name="Sam", email="sam@example.com", alternate=True)
    season = actions.season_by_rule(club, name="Next year", first_month=datetime.date(timezone.localdate().year + 1,
                                    1, 1), months=12, nth=3, weekday=4)
    actions.assign_hosts(season)
    return club, season, season.parties.order_by("starts_at")[0]


def test_the_club_pages_pass_axe_without_serious_violations(night_site: ServerProcess, new_phone):
    from tests.e2e.test_accessibility import check, report

    url = night_site.url
    club, season, party = club_with_next_years_season()
    for member in club.members.regulars():
        actions.answer_rsvp(party, member, "yes")
    actions.answer_rsvp(party, club.members.get(name="Bea"), "no")
    # The Bunco box (issue 45): its checklist, counted by the party's host one die short.
    actions.set_box_kit(club, [("Bell", "1"), ("Dice", "12")])
    bell, dice = club.box_items.all()
    assert party.host is not None
    actions.receive_box(party, [(str(bell.pk), "1"), (str(dice.pk), "11")], key="axe", member=party.host)
    found: dict = {}
    host = log_in(new_phone(), url)
    for what, path in [
        ("home", "/"),
        ("club", f"/clubs/{club.slug}/"),
        ("roster", f"/clubs/{club.slug}/roster/"),
        ("season", f"/clubs/{club.slug}/seasons/{season.pk}/"),
        ("party", f"/clubs/{club.slug}/parties/{party.pk}/"),
        ("club form", f"/clubs/{club.slug}/edit/"),
        ("new season", f"/clubs/{club.slug}/seasons/new/"),
        ("standings", f"/clubs/{club.slug}/seasons/{season.pk}/standings/"),
        ("the Bunco box", f"/clubs/{club.slug}/box/"),
    ]:
        host.goto(url + path)
        check(host, what, found)
    sam = new_phone()
    sam.goto(url + my_club_path(club.members.get(name="Sam").code))
    check(sam, "my club (an alternate invited)", found)
    bea = new_phone()
    bea.goto(url + my_club_path(club.members.get(name="Bea").code))
    check(bea, "my club (a regular)", found)
    party_host = new_phone()
    party_host.goto(url + my_club_path(party.host.code))
    check(party_host, "my club (the next party's host, the box's count)", found)
    report(found)


# --- Issue 16 -----------------------------------------------------------------------------------


def test_it_asks_a_new_club_its_time_zone_from_the_hosts_phone_and_keeps_a_7_pm_party_at_7_pm(
        night_site: ServerProcess, new_phone):
    url = night_site.url
    make_user("host", password=PASSWORD)
    host = log_in(new_phone(timezone_id="America/Chicago"), url)  # the host's phone, in its own time zone
    host.get_by_role("link", name="Start a club").click()
    expect(host.get_by_label("Time zone")).to_have_value("America/Chicago")  # the phone's own zone
    host.get_by_label("Club name").fill("Oak Lane Bunco")
    host.get_by_role("button", name="Start the club").click()
    club = Club.objects.get(name="Oak Lane Bunco")
    assert club.time_zone == "America/Chicago"

    day = timezone.localdate() + datetime.timedelta(days=20)
    host.goto(f"{url}/clubs/{club.slug}/parties/new/")
    host.get_by_label("Date").fill(day.isoformat())
    host.get_by_label("Time", exact=True).fill("19:00")
    host.get_by_role("button", name="Save").click()
    expect(host.get_by_text("19:00").first).to_be_visible()
    party = Party.objects.get(club=club)
    assert party.local_start.hour == 19
    assert party.starts_at == datetime.datetime.combine(day, datetime.time(19), tzinfo=ZoneInfo("America/Chicago"))

    # The calendar link on the club's page is the address the phone reached the site at.
    host.goto(f"{url}/clubs/{club.slug}/")
    assert host.get_by_role("link", name=f"{url}/clubs/calendar/", exact=False).get_attribute("href") == (
        f"{url}/clubs/calendar/{club.feed_code}.ics")


def test_it_keeps_every_link_and_button_of_the_club_pages_at_least_44_px_tall(
        night_site: ServerProcess, new_phone):
    url = night_site.url
    club, season, party = club_with_next_years_season()
    for member in club.members.regulars():
        actions.answer_rsvp(party, member, "yes", note="Bringing dessert" if member.name == "Ada" else None)
    host = log_in(new_phone(), url)
    bea = new_phone()
    bea.goto(url + my_club_path(club.members.get(name="Bea").code))
    pages = [(host, f"/clubs/{club.slug}/"), (host, f"/clubs/{club.slug}/roster/"),
             (host, f"/clubs/{club.slug}/seasons/{season.pk}/"), (host, f"/clubs/{club.slug}/parties/{party.pk}/"),
             (host, f"/clubs/{club.slug}/members/{club.members.get(name='Ada').pk}/"),
             (host, f"/clubs/{club.slug}/seasons/{season.pk}/standings/"), (bea, my_club_path(club.members.get(
                 name="Bea").code))]
    too_small = []
    for page, path in pages:
        page.goto(url + path)
        for details in page.locator("details").all():
            details.evaluate("element => element.open = true")
        for target in page.locator("main a, main button, main summary").all():
            box = target.bounding_box()
            if box is None or not target.is_visible():
                continue
            if box["height"] < 44:
                too_small.append(f"{path}: {target.inner_text()[:30]!r} is {box['height']:.0f} px tall")
    assert too_small == []


def test_a_member_ticks_dates_away_and_leaves_a_note_from_their_phone_that_the_host_sees(
        night_site: ServerProcess, new_phone):
    url = night_site.url
    user = make_user("host", password=PASSWORD)
    club = actions.create_club(user=user, name="Maple Street Bunco")
    for name in REGULARS[:4]:
        actions.add_member(club, name=name, email=f"{name.lower()}@example.com")
    season = actions.season_by_rule(club, name="Next year", first_month=datetime.date(timezone.localdate().year + 1,
                                    1, 1), months=12, nth=3, weekday=4)
    parties = list(season.parties.order_by("starts_at"))
    bea = club.members.get(name="Bea")
    phone = new_phone()
    phone.goto(url + my_club_path(bea.code))

    # The next party first; the rest of the season folded away.
    expect(phone.locator("#next-party .rsvp-form")).to_have_count(1)
    expect(phone.get_by_text("Later this season (11 more)")).to_be_visible()

    phone.get_by_label("A note for the host (optional)").first.fill("Bringing dessert")
    phone.get_by_role("button", name="Coming").first.click()
    expect(phone.get_by_text("Thanks!")).to_be_visible()

    phone.locator("summary", has_text="My dates away").click()  # folded away until asked for
    phone.get_by_role("checkbox", name=f"{parties[1].day:%a %-d %b %Y}").check()
    phone.get_by_role("button", name="Save my dates away").click()
    expect(phone.get_by_text("Your dates away are saved.")).to_be_visible()
    assert list(bea.blackouts.values_list("date", flat=True)) == [parties[1].day]

    host = log_in(new_phone(), url)
    host.goto(f"{url}/clubs/{club.slug}/parties/{parties[0].pk}/")
    row = host.get_by_role("row", name="Bea")
    expect(row).to_contain_text("Bringing dessert")
    row.get_by_role("button", name="Bea: paid in cash").click()
    expect(host.get_by_text("Bea: paid in cash.")).to_be_visible()
    expect(host.get_by_role("row", name="Bea").get_by_role("button", name="Bea: undo the buy-in")).to_be_visible()


OLD_PHONE_PAGE_PX = 2_761  # the member's page of the screenshot's club before issue 29's C8 (2,562 px in the issue's run)


def test_a_members_phone_page_shows_the_next_party_and_its_answer_first_and_folds_the_rest(
    night_site: ServerProcess, new_phone
):
    """Issue 29, C8: the member's "my club" page was 2,562 px tall on a 390×844 phone. The club
    is the screenshot's (scripts/screenshots_clubs.py): a season of twelve dates, dates away, last
    month's night."""
    seeded = seed_the_screenshots_club()
    phone = new_phone()
    phone.goto(night_site.url + seeded.member_path)
    expect(phone.get_by_role("heading", name=f"Hi {MEMBER}")).to_be_visible()

    height = phone.evaluate("document.documentElement.scrollHeight")
    print(f"the member's page at 390×844: {height} px (was {OLD_PHONE_PAGE_PX})")
    assert height <= 1_400

    # The next party and its three answers come first, above the fold, before any scrolling.
    next_party = phone.locator("#next-party")
    assert phone.evaluate("window.scrollY") == 0
    for answer in ("Coming", "Maybe", "Can't come"):
        box = next_party.get_by_role("button", name=answer).bounding_box()
        assert box is not None and box["y"] + box["height"] <= 844, (answer, box)

    # The dates away and the nights played are folded away, and open on a tap.
    for summary, inside in (("My dates away", "Save my dates away"), ("My nights", "wins")):
        folded = phone.locator("details", has=phone.locator("summary", has_text=summary))
        expect(folded).not_to_have_attribute("open", "")
        expect(folded.get_by_text(inside).first).to_be_hidden()
        folded.locator("summary").click()
        expect(folded.get_by_text(inside).first).to_be_visible()
