"""A club in real browsers (issue 10, acceptance 4).

A host creates a club, adds 14 members and 3 alternates, gives one member a date away, generates a
year's rotation, opens a party; a member answers from their phone link; a cancellation brings in an
alternate who accepts on their phone; the host starts that party's night.
"""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone
from playwright.sync_api import Browser, Page, expect

from bunco_club import actions
from bunco_club.links import my_club_path
from bunco_club.models import RSVP, Club, Party, SubInvitation
from bunco_club.rotation import monthly_dates
from tests.builders import make_user
from tests.conftest import ServerProcess

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

PASSWORD = "bunco-night"
REGULARS = ["Ada", "Bea", "Cal", "Dot", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kit", "Lou", "Mo", "Ned"]
ALTERNATES = ["Sam", "Tia", "Uma"]


def log_in(browser: Browser, url: str) -> Page:
    page = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True).new_page()
    page.goto(f"{url}/accounts/login/")
    page.fill("#id_username", "host")
    page.fill("#id_password", PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page).to_have_url(url + "/")
    return page


def test_a_host_runs_a_club_and_an_alternate_takes_a_seat_from_their_phone(
    night_site: ServerProcess, browser: Browser, new_phone
):
    url = night_site.url
    make_user("host", password=PASSWORD)
    host = log_in(browser, url)

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

    # A date away for Ada: the first date of next year's season.
    first_month = datetime.date(timezone.localdate().year + 1, 1, 1)
    days = monthly_dates(first_month, 12, nth=3, weekday=4)
    host.get_by_role("link", name="Ada", exact=True).click()
    host.get_by_label("Dates this member can't host").fill(days[0].isoformat())
    host.get_by_role("button", name="Save the dates away").click()
    expect(host.get_by_text("Ada's dates away are saved.")).to_be_visible()

    # A year's rotation: the third Friday of every month (the form's defaults), then the hosts.
    host.get_by_role("link", name="New season").click()
    host.get_by_role("button", name="Create the season").click()
    expect(host.get_by_text("12 dates. Now plan who hosts.")).to_be_visible()
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


def test_the_club_pages_pass_axe_without_serious_violations(night_site: ServerProcess, browser: Browser, new_phone):
    from tests.e2e.test_accessibility import check, report

    url = night_site.url
    user = make_user("host", password=PASSWORD)
    club = actions.create_club(user=user, name="Maple Street Bunco", place="12 Maple Street")
    for name in REGULARS[:8]:
        actions.add_member(club, name=name, email=f"{name.lower()}@example.com")
    actions.add_member(club, name="Sam", email="sam@example.com", alternate=True)
    season = actions.season_by_rule(club, name="Next year", first_month=datetime.date(timezone.localdate().year + 1,
                                    1, 1), months=12, nth=3, weekday=4)
    actions.assign_hosts(season)
    party = season.parties.order_by("starts_at")[0]
    for member in club.members.regulars():
        actions.answer_rsvp(party, member, "yes")
    actions.answer_rsvp(party, club.members.get(name="Bea"), "no")
    found: dict = {}
    host = log_in(browser, url)
    for what, path in [
        ("home", "/"),
        ("club", f"/clubs/{club.slug}/"),
        ("roster", f"/clubs/{club.slug}/roster/"),
        ("season", f"/clubs/{club.slug}/seasons/{season.pk}/"),
        ("party", f"/clubs/{club.slug}/parties/{party.pk}/"),
        ("club form", f"/clubs/{club.slug}/edit/"),
        ("new season", f"/clubs/{club.slug}/seasons/new/"),
        ("standings", f"/clubs/{club.slug}/seasons/{season.pk}/standings/"),
    ]:
        host.goto(url + path)
        check(host, what, found)
    sam = new_phone()
    sam.goto(url + my_club_path(club.members.get(name="Sam").code))
    check(sam, "my club (an alternate invited)", found)
    bea = new_phone()
    bea.goto(url + my_club_path(club.members.get(name="Bea").code))
    check(bea, "my club (a regular)", found)
    report(found)
