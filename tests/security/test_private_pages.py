"""Pages with personal data (a club's roster with emails and phones, a member's page, a party, a
season, the feeds, a host's nights, a tournament's results) are never kept by a browser's or a
proxy's cache: each answer says Cache-Control: no-store, private (issue 21)."""

from __future__ import annotations

import pytest
from django.urls import URLPattern, reverse

from bunco_club import actions, club_urls
from bunco_club.links import member_token
from bunco_club.models import Club
from tests.builders import fill_roster, logged_in, make_club, make_tournament, make_user, soon

pytestmark = pytest.mark.django_db


def kept_by_no_cache(response) -> bool:
    control = {part.strip() for part in response.get("Cache-Control", "").split(",")}
    return {"no-store", "private"} <= control


@pytest.fixture
def host():
    return make_user("host", email="host@example.com")


@pytest.fixture
def club(host) -> Club:
    club = make_club(hosts=[host])
    fill_roster(club)
    club.members.filter(name="Bea").update(phone="555-0101")
    actions.create_season(club, name="This year", starts=[soon(-30), soon(10)])
    return club


def test_every_page_that_shows_personal_data_says_no_store(club, host):
    season = club.seasons.get()
    party = season.parties.order_by("starts_at").last()
    bea = club.members.get(name="Bea")
    tournament = make_tournament(host, 3)
    as_host = logged_in(host)
    pages = {
        "roster": reverse("clubs:roster", args=[club.slug]),
        "member": reverse("clubs:member_edit", args=[club.slug, bea.pk]),
        "club": reverse("clubs:club", args=[club.slug]),
        "party": reverse("clubs:party", args=[club.slug, party.pk]),
        "season": reverse("clubs:season", args=[club.slug, season.pk]),
        "standings": reverse("clubs:standings", args=[club.slug, season.pk]),
        "club feed": reverse("clubs:club_feed", args=[club.feed_code]),
        "member's page": reverse("clubs:my_club", args=[member_token(bea.code)]),
        "member's feed": reverse("clubs:member_feed", args=[member_token(bea.code)]),
        "host's nights": reverse("games:host_nights"),
        "results.csv": reverse("tournaments:results_csv", args=[tournament.code]),
    }
    for page, url in pages.items():
        response = as_host.get(url)
        assert response.status_code == 200, page
        assert kept_by_no_cache(response), f"{page}: {response.get('Cache-Control')!r}"
    assert "555-0101" in as_host.get(pages["roster"]).content.decode()  # what no cache may keep


def fill_in(pattern: URLPattern, club: Club) -> str:
    """The pattern's URL with every part filled in from `club` (ids of a member, a party: some point
    at nothing, and whatever the view answers then, a refusal or a 405, must not be cached either)."""
    bea = club.members.get(name="Bea")
    party = club.parties.get(starts_at__gt=soon(0))
    values = {"slug": club.slug, "token": member_token(bea.code), "feed_code": club.feed_code,
              "pk": bea.pk, "party_pk": party.pk, "member_pk": bea.pk, "user_pk": club.hosts.get().pk,
              "slot_pk": party.pk}  # a dish slot's id (pointing at nothing)
    names = pattern.pattern.converters.keys()
    return reverse(f"clubs:{pattern.name}", kwargs={name: values[name] for name in names})


@pytest.mark.parametrize("persona", ["host", "nobody"])
def test_every_club_url_says_no_store_whatever_it_answers(persona, club, host):
    browser = logged_in(host) if persona == "host" else logged_in(make_user("nobody"))
    for pattern in club_urls.urlpatterns:
        assert isinstance(pattern, URLPattern)
        url = fill_in(pattern, club)
        for method in (browser.get, browser.post):
            response = method(url)
            if response.status_code in (403, 404):  # the site's refusal pages, which show nothing of the club
                continue
            assert kept_by_no_cache(response), f"{method.__name__} {url} ({response.status_code})"
