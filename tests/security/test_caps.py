"""Caps on what a host or a director creates (issue 21): an outside probe found nothing capped the
tournaments, their players or a party's notes (100,000 characters went into every .ics feed).

Each cap is defined once (a setting for a count, a model constant for a text's length) and
refused by the action that creates or edits the thing, with a message that says what to do, so a
page, a command and a test are all held to it; a page shows the message beside its field. For
each: one at the cap is taken, one over it is refused with the message, and nothing changes.
The counts are set low here (a setting each), so no test builds a thousand rows."""

from __future__ import annotations

import datetime
import html
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from icalendar import Calendar

from bunco_club import actions as club_actions
from bunco_club.models import (
    CLUB_NAME_MAX,
    EMAIL_MAX,
    NAME_MAX,
    NOTES_MAX,
    PHONE_MAX,
    PLACE_MAX,
    Club,
    Member,
    Party,
    Season,
)
from games.night import actions as night_actions
from games.night.models import TITLE_MAX, Night
from live.refusals import Refusal
from tests.builders import NAMES, logged_in, make_club, make_tournament, make_user, soon
from tournaments import actions as tournament_actions
from tournaments.models import ENTRANT_NAME_MAX, Tournament
from tournaments.models import NAME_MAX as TOURNAMENT_NAME_MAX

pytestmark = pytest.mark.django_db


def email_of_length(length: int) -> str:
    """A well-formed address of exactly `length` characters (labels of at most 63, as DNS has them)."""
    local, tail = "a" * 64, ".com"
    labels, room = [], length - len(local) - 1 - len(tail)
    while room > 0:
        label = "b" * min(50, room)
        labels.append(label)
        room -= len(label) + 1
    domain = ".".join(labels)[: length - len(local) - 1 - len(tail)]
    address = f"{local}@{domain.strip('.')}{tail}"
    assert len(address) == length, len(address)
    return address


def text(response) -> str:
    return html.unescape(response.content.decode())


def beside(response, field: str) -> str:
    """The errors shown beside `field` on a form page (Django's errorlist under it)."""
    from tests.builders import element_text

    return element_text(response.content.decode(), id=f"id_{field}_error")


# --- How long a typed text may be: the actions, whoever calls them ----------------------------------


@pytest.fixture
def world(db) -> SimpleNamespace:
    host = make_user("host")
    club = make_club(hosts=[host])
    return SimpleNamespace(
        host=host, club=club, member=club_actions.add_member(club, name="Ada"),
        party=club_actions.add_party(club, starts_at=soon()),
        tournament=tournament_actions.create_tournament(director=host, name="Autumn Open"),
    )


def value_of(instance: Any, field: str) -> Callable[[SimpleNamespace], Any]:
    return lambda world: getattr(type(instance).objects.get(pk=instance.pk), field)


# (what, its cap, the action given a text, what that action changes)
TEXTS: dict[str, tuple[int, Callable[[SimpleNamespace, str], Any], Callable[[SimpleNamespace], Any]]] = {
    "a new club's name": (CLUB_NAME_MAX, lambda w, t: club_actions.create_club(user=w.host, name=t),
                          lambda w: Club.objects.count()),
    "a new club's usual place": (PLACE_MAX, lambda w, t: club_actions.create_club(user=w.host, name="Elm", place=t),
                                 lambda w: Club.objects.count()),
    "a club's place, edited": (PLACE_MAX, lambda w, t: club_actions.update_club(w.club, place=t),
                               lambda w: Club.objects.get(pk=w.club.pk).place),
    "a new member's name": (NAME_MAX, lambda w, t: club_actions.add_member(w.club, name=t),
                            lambda w: Member.objects.count()),
    "a new member's email": (EMAIL_MAX, lambda w, t: club_actions.add_member(w.club, name="Bea", email=t),
                             lambda w: Member.objects.count()),
    "a member's email, edited": (EMAIL_MAX, lambda w, t: club_actions.edit_member(w.member, name="Ada", email=t),
                                 lambda w: Member.objects.get(pk=w.member.pk).email),
    "a member's phone, edited": (PHONE_MAX, lambda w, t: club_actions.edit_member(w.member, name="Ada", phone=t),
                                 lambda w: Member.objects.get(pk=w.member.pk).phone),
    "a season's name": (NAME_MAX, lambda w, t: club_actions.create_season(w.club, name=t, starts=[soon(40)]),
                        lambda w: Season.objects.count()),
    "a new party's address": (PLACE_MAX, lambda w, t: club_actions.add_party(w.club, starts_at=soon(50), location=t),
                              lambda w: Party.objects.count()),
    "a new party's notes": (NOTES_MAX, lambda w, t: club_actions.add_party(w.club, starts_at=soon(60), notes=t),
                            lambda w: Party.objects.count()),
    "a party's notes, edited": (NOTES_MAX, lambda w, t: club_actions.edit_party(
        w.party, starts_at=w.party.starts_at, location="", notes=t), lambda w: Party.objects.get(pk=w.party.pk).notes),
    "a tournament's name": (TOURNAMENT_NAME_MAX, lambda w, t: tournament_actions.create_tournament(director=w.host, name=t),
                            lambda w: Tournament.objects.count()),
    "a tournament player's name": (ENTRANT_NAME_MAX, lambda w, t: tournament_actions.register(w.tournament, t),
                                   lambda w: w.tournament.entrants.count()),
    "a night's title": (TITLE_MAX, lambda w, t: night_actions.start_night(names=NAMES[:4], title=t),
                        lambda w: Night.objects.count()),
}


@pytest.mark.parametrize("what", list(TEXTS))
def test_an_action_takes_a_text_at_its_cap_and_refuses_a_longer_one_changing_nothing(world, what):
    cap, act, changed = TEXTS[what]
    longest, too_long = (email_of_length(cap), email_of_length(cap + 1)) if "email" in what else ("x" * cap, "y" * (cap + 1))
    before = changed(world)
    act(world, longest)
    taken = changed(world)
    assert taken != before

    with pytest.raises(Refusal) as refused:
        act(world, too_long)
    assert "at most" in refused.value.message and f"{cap:,}" in refused.value.message
    assert changed(world) == taken


def test_the_probe_s_100_000_characters_of_notes_are_refused_by_the_page_and_the_action(world):
    page = logged_in(world.host).post(reverse("clubs:party_edit", args=[world.club.slug, world.party.pk]),
                                      {"date": world.party.day.isoformat(), "time": "19:00", "notes": "n" * 100_000})
    assert page.status_code == 400
    assert f"at most {NOTES_MAX} characters" in beside(page, "notes")
    with pytest.raises(club_actions.ClubError, match="Shorten the notes: 2,000 characters at most, and this has 100,000"):
        club_actions.edit_party(world.party, starts_at=world.party.starts_at, location="", notes="n" * 100_000)
    assert Party.objects.get(pk=world.party.pk).notes == ""


# --- The same texts on their pages: the message beside the field ---------------------------------


def club_form(**fields: str) -> dict[str, str]:
    return {"name": "Elm Road", "usual_time": "19:00", "buy_in": "5", "rsvp_nudge_days": "3", "tie_break": "roll_off",
            **fields}


def tournament_form(**fields: str) -> dict[str, str]:
    return {"name": "Spring Open", "format": "single", "round_minutes": "20", "face_off_minutes": "15",
            "grace_seconds": "120", "ties": "play_off", "grouping": "random", "point_goal": "10000",
            "vengeance_penalty": "2500", **fields}


def party_form(day: int, **fields: str) -> dict[str, str]:
    return {"date": soon(day).date().isoformat(), "time": "19:00", **fields}


# (page, its form with the field's text, the field, its cap, what the page creates)
PAGES: dict[str, tuple[Callable[[Club], str], Callable[[str], dict[str, str]], str, int, Callable[[], int]]] = {
    "a club's name": (lambda club: reverse("clubs:club_new"), lambda t: club_form(name=t), "name", CLUB_NAME_MAX,
                      lambda: Club.objects.count()),
    "a club's usual place": (lambda club: reverse("clubs:club_new"), lambda t: club_form(place=t), "place", PLACE_MAX,
                             lambda: Club.objects.count()),
    "a member's name": (lambda club: reverse("clubs:roster", args=[club.slug]), lambda t: {"name": t}, "name",
                        NAME_MAX, lambda: Member.objects.count()),
    "a member's email": (lambda club: reverse("clubs:roster", args=[club.slug]),
                         lambda t: {"name": f"Bea {len(t)}", "email": t}, "email", EMAIL_MAX,
                         lambda: Member.objects.count()),
    "a member's phone": (lambda club: reverse("clubs:roster", args=[club.slug]),
                         lambda t: {"name": f"Cy {len(t)}", "phone": t}, "phone", PHONE_MAX,
                         lambda: Member.objects.count()),
    "a season's name": (lambda club: reverse("clubs:season_new", args=[club.slug]),
                        lambda t: {"how": "hand", "name": t, "dates": soon(len(t)).date().isoformat(), "time": "19:00"},
                        "name", NAME_MAX, lambda: Season.objects.count()),
    "a party's address": (lambda club: reverse("clubs:party_new", args=[club.slug]),
                          lambda t: party_form(len(t), location=t), "location", PLACE_MAX, lambda: Party.objects.count()),
    "a party's notes": (lambda club: reverse("clubs:party_new", args=[club.slug]),
                        lambda t: party_form(len(t) % 300, notes=t), "notes", NOTES_MAX, lambda: Party.objects.count()),
    "a tournament's name": (lambda club: reverse("tournaments:new"), lambda t: tournament_form(name=t), "name",
                            TOURNAMENT_NAME_MAX, lambda: Tournament.objects.count()),
}


@pytest.mark.parametrize("what", list(PAGES))
def test_a_page_takes_a_text_at_its_cap_and_shows_a_longer_one_refused_beside_its_field(host_client, what):
    address, form, field, cap, count = PAGES[what]
    club = Club.objects.get()
    longest, too_long = (email_of_length(cap), email_of_length(cap + 1)) if field == "email" else ("x" * cap, "y" * (cap + 1))
    before = count()
    assert host_client.post(address(club), form(longest)).status_code == 302
    assert count() == before + 1

    refused = host_client.post(address(club), form(too_long))
    assert refused.status_code == 400
    assert f"at most {cap} characters (it has {cap + 1})" in beside(refused, field)
    assert count() == before + 1


def test_the_night_page_shows_a_title_over_its_cap_beside_the_title(host_client):
    names = "\n".join(NAMES[:4])
    assert host_client.post(reverse("games:night_new"), {"names": names, "buy_in": "5", "title": "t" * TITLE_MAX,
                                                         "tie_break": "roll_off"}).status_code == 302
    refused = host_client.post(reverse("games:night_new"), {"names": names, "buy_in": "5", "title": "u" * (TITLE_MAX + 1),
                                                            "tie_break": "roll_off"})
    assert refused.status_code == 400
    from tests.builders import element_text

    assert f"at most {TITLE_MAX} characters" in element_text(refused.content.decode(), id="title-errors")
    assert Night.objects.count() == 1


def test_a_club_s_night_title_offered_for_a_long_club_name_fits_the_cap(host_client):
    club = Club.objects.get()
    club_actions.update_club(club, name="C" * CLUB_NAME_MAX)
    party = club_actions.add_party(club, starts_at=soon())
    page = host_client.get(reverse("games:night_new") + f"?party={party.pk}")
    assert page.status_code == 200
    assert f'value="{"C" * CLUB_NAME_MAX}"' in page.content.decode()


# --- The calendar feeds never carry more notes than the cap ------------------------------------------


def feed_descriptions(club: Club) -> list[str]:
    feed = Client().get(reverse("clubs:club_feed", args=[club.feed_code]))
    assert feed.status_code == 200
    return [str(event["DESCRIPTION"]) for event in Calendar.from_ical(feed.content).walk("VEVENT")]


def test_a_feed_carries_notes_at_the_cap_whole_and_never_more(world):
    club_actions.edit_party(world.party, starts_at=world.party.starts_at, location="", notes="n" * NOTES_MAX)
    [description] = feed_descriptions(world.club)
    assert description.endswith("\n" + "n" * NOTES_MAX)

    # A party whose notes were saved before the cap (the probe's 100,000 characters): cut at the cap.
    Party.objects.filter(pk=world.party.pk).update(notes="p" * 100_000)
    [description] = feed_descriptions(world.club)
    assert description.count("p") == NOTES_MAX
    assert len(description) <= NOTES_MAX + len("Hosted by no host yet.\n")


# --- How many: clubs, members, parties, tournaments, players ------------------------------------------


def test_a_host_starts_clubs_up_to_the_cap_then_the_page_says_why_not(settings, host, host_client):
    settings.CLUB_MAX_PER_HOST = 2  # the host has Maple Street already
    assert host_client.post(reverse("clubs:club_new"), club_form(name="Elm Road")).status_code == 302
    refused = host_client.post(reverse("clubs:club_new"), club_form(name="Oak Lane"))
    assert refused.status_code == 400
    assert "You host 2 clubs already, the most one account may" in beside(refused, "name")
    assert sorted(Club.objects.filter(hosts=host).values_list("name", flat=True)) == ["Elm Road", "Maple Street Bunco"]
    with pytest.raises(club_actions.ClubError, match="hand one of them to another host"):
        club_actions.create_club(user=host, name="Oak Lane")  # a command is held to it too
    assert not Club.objects.filter(name="Oak Lane").exists()


def test_a_co_host_at_the_cap_is_not_handed_one_more_club(settings, host, host_client):
    settings.CLUB_MAX_PER_HOST = 1
    busy = make_user("busy")
    make_club(name="Busy Bees", hosts=[busy])
    club = Club.objects.get(hosts=host)
    response = host_client.post(reverse("clubs:cohost_add", args=[club.slug]), {"username": "busy"}, follow=True)
    assert "busy hosts 1 clubs already, the most one account may: they need to leave one" in text(response)
    assert list(club.hosts.all()) == [host]
    # An account under the cap is taken.
    make_user("free")
    club_actions.add_cohost(club, "free")
    assert club.hosts.count() == 2


def test_a_roster_takes_members_up_to_the_cap_retired_ones_counting(settings, host_client):
    settings.CLUB_MAX_MEMBERS = 3
    club = Club.objects.get()
    club_actions.retire(club_actions.add_member(club, name="Ada"))
    club_actions.add_member(club, name="Bea")
    roster = reverse("clubs:roster", args=[club.slug])
    assert host_client.post(roster, {"name": "Cal"}).status_code == 302
    refused = host_client.post(roster, {"name": "Dot"})
    assert refused.status_code == 400
    assert "Maple Street Bunco has 3 members already" in beside(refused, "name")
    assert "start a second club for the others" in beside(refused, "name")
    assert sorted(club.members.values_list("name", flat=True)) == ["Ada", "Bea", "Cal"]


def test_a_season_takes_dates_up_to_the_cap_on_every_way_in(settings, host_client):
    settings.SEASON_MAX_PARTIES = 3
    club = Club.objects.get()
    dates = [soon(days).date().isoformat() for days in (10, 20, 30, 40)]
    new_season = reverse("clubs:season_new", args=[club.slug])
    refused = host_client.post(new_season, {"how": "hand", "name": "Long", "dates": "\n".join(dates), "time": "19:00"})
    assert refused.status_code == 400
    assert "A season has 3 dates at most, and this one has 4: split them into two seasons." in text(refused)
    assert not Season.objects.exists() and not Party.objects.exists()

    assert host_client.post(new_season, {"how": "hand", "name": "2031", "dates": "\n".join(dates[:3]),
                                         "time": "19:00"}).status_code == 302
    season = Season.objects.get()
    # A date added by hand into the full season: beside the date, nothing added.
    refused = host_client.post(reverse("clubs:party_new", args=[club.slug]), party_form(50, season=str(season.pk)))
    assert refused.status_code == 400
    assert "The season 2031 has 3 dates already, the most a season may" in beside(refused, "date")
    assert season.parties.count() == 3 and Party.objects.count() == 3
    # A party moved into it from elsewhere is refused too.
    loose = club_actions.add_party(club, starts_at=soon(60))
    with pytest.raises(club_actions.ClubError, match="put this date in another season, or in none"):
        club_actions.edit_party(loose, starts_at=loose.starts_at, location="", season=season)
    assert Party.objects.get(pk=loose.pk).season is None


def test_a_club_keeps_parties_up_to_the_cap(settings, host_client):
    settings.CLUB_MAX_PARTIES = 3
    club = Club.objects.get()
    club_actions.create_season(club, name="2031", starts=[soon(10), soon(20)])
    assert host_client.post(reverse("clubs:party_new", args=[club.slug]), party_form(30)).status_code == 302
    refused = host_client.post(reverse("clubs:party_new", args=[club.slug]), party_form(40))
    assert refused.status_code == 400
    assert "Maple Street Bunco has 3 parties, and a club keeps 3 at most" in beside(refused, "date")
    with pytest.raises(club_actions.ClubError, match="there is room for 0 more"):
        club_actions.create_season(club, name="2032", starts=[soon(50)])
    assert Party.objects.count() == 3 and Season.objects.count() == 1


def test_a_director_opens_tournaments_up_to_the_cap_and_a_finished_or_deleted_one_frees_a_place(settings):
    settings.TOURNAMENT_MAX_OPEN = 2
    director = make_user("director")
    browser = logged_in(director)
    new = reverse("tournaments:new")
    assert browser.post(new, tournament_form(name="One")).status_code == 302
    assert browser.post(new, tournament_form(name="Two")).status_code == 302
    refused = browser.post(new, tournament_form(name="Three"))
    assert refused.status_code == 400
    assert "You have 2 tournaments open (not finished), the most one director may" in text(refused)
    assert 'value="Three"' in refused.content.decode()  # the form, as typed, to send again later
    assert sorted(Tournament.objects.values_list("name", flat=True)) == ["One", "Two"]

    Tournament.objects.filter(name="One").update(status=Tournament.Status.FINISHED)
    assert browser.post(new, tournament_form(name="Three")).status_code == 302

    three = Tournament.objects.get(name="Three")
    dashboard = browser.get(reverse("tournaments:dashboard", args=[three.code])).content.decode()
    assert reverse("tournaments:delete", args=[three.code]) in dashboard
    deleted = browser.post(reverse("tournaments:delete", args=[three.code]))
    assert deleted["Location"] == reverse("tournaments:list")
    assert not Tournament.objects.filter(name="Three").exists()
    assert browser.post(new, tournament_form(name="Four")).status_code == 302
    four = Tournament.objects.get(name="Four")  # from the dashboard's button (htmx): the page is sent to the list
    deleted = browser.post(reverse("tournaments:delete", args=[four.code]), headers={"HX-Request": "true"})
    assert (deleted.status_code, deleted["HX-Redirect"]) == (204, reverse("tournaments:list"))
    assert not Tournament.objects.filter(name="Four").exists()


def test_a_tournament_that_has_begun_is_not_deleted(settings):
    director = make_user("director")
    tournament = make_tournament(director, 4)
    tournament_actions.start_round(tournament, now=datetime.datetime.now(datetime.UTC))
    browser = logged_in(director)
    dashboard = browser.get(reverse("tournaments:dashboard", args=[tournament.code])).content.decode()
    assert reverse("tournaments:delete", args=[tournament.code]) not in dashboard
    refused = browser.post(reverse("tournaments:delete", args=[tournament.code]), follow=True)
    assert "can be deleted only before its first round" in text(refused)
    assert Tournament.objects.filter(pk=tournament.pk).exists()


def test_a_tournament_registers_players_up_to_the_cap(settings):
    settings.TOURNAMENT_MAX_ENTRANTS = 3
    director = make_user("director")
    tournament = make_tournament(director, 2)
    browser = logged_in(director)
    register = reverse("tournaments:register", args=[tournament.code])
    assert browser.post(register, {"name": "Cal"}).status_code == 302
    refused = browser.post(register, {"name": "Dot"}, headers={"HX-Request": "true"})
    assert refused.status_code == 409
    assert "3 players are registered, the most a tournament takes: start a second tournament" in text(refused)
    assert tournament.entrants.count() == 3
    with pytest.raises(tournament_actions.NotNow):
        tournament_actions.register(tournament, "Eve")  # a command is held to it too
    assert tournament.entrants.count() == 3


def test_the_default_caps_keep_what_the_site_is_tested_for(settings):
    assert settings.TOURNAMENT_MAX_ENTRANTS >= 1000  # the brackets are tested up to 1,000 players
    assert settings.CLUB_MAX_MEMBERS >= settings.NIGHT_MAX_PLAYERS  # a club can fill its biggest night
    assert settings.SEASON_MAX_PARTIES >= 52 * 2  # a weekly club's two years
    assert settings.CLUB_MAX_PARTIES >= settings.SEASON_MAX_PARTIES
