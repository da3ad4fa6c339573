"""Every number a request carries is read by one helper (live.http.parse_int): ASCII digits only,
within bounds. Fed a superscript two, a 5,000-digit string, 10**30, an Arabic-Indic three or
"1_000" (all of which Python's int() or str.isdigit() let through, or choke on), every endpoint
that takes a number answers 400 with a message a person can read, and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from bunco_club.models import Party
from games.night import actions
from games.night.models import Night, Player, Tally
from live.actions import open_room
from live.http import ID_MAX, BadNumber, parse_int
from live.models import Event
from tests.builders import joined_phone, make_club, make_user, night_host_browser, seated

pytestmark = pytest.mark.django_db

BAD_NUMBERS = {
    "a superscript two": "²",  # "²".isdigit() is True, int("²") raises
    "5,000 digits": "9" * 5000,  # int() refuses more than 4,300 digits
    "10**30": str(10**30),  # no database column holds it
    "an Arabic-Indic three": "٣",  # int("٣") is 3
    "an underscore": "1_000",  # int("1_000") is 1000
}


# --- The helper -----------------------------------------------------------------------------------


@pytest.mark.parametrize("raw", list(BAD_NUMBERS.values()), ids=list(BAD_NUMBERS))
def test_the_number_helper_refuses_what_is_not_plain_digits_within_bounds(raw):
    with pytest.raises(BadNumber, match="The table number must be a whole number"):
        parse_int(raw, low=1, high=100, what="the table number")


@pytest.mark.parametrize("raw", ["+7", "7.0", "", "  ", "-", "--3", "3-", "0x10", "1e3", "７"])
def test_the_number_helper_refuses_signs_points_and_other_spellings(raw):
    with pytest.raises(BadNumber):
        parse_int(raw, low=-99, high=99, what="the points")


def test_the_number_helper_reads_ascii_digits_and_a_minus_where_a_negative_means_something():
    assert parse_int("42", low=1, high=100, what="the table") == 42
    assert parse_int(" 007\n", low=1, high=100, what="the table") == 7
    assert parse_int("-5", low=-99, high=99, what="the points") == -5
    assert parse_int(str(ID_MAX), low=1, high=ID_MAX, what="the id") == ID_MAX
    with pytest.raises(BadNumber, match="from 1 to 100"):
        parse_int("-5", low=1, high=100, what="the table")  # no minus where no negative is meant
    with pytest.raises(BadNumber, match="from -99 to 99"):
        parse_int("100", low=-99, high=99, what="the points")


def test_the_number_helper_refuses_a_long_string_without_converting_it():
    with pytest.raises(BadNumber, match="from 1 to 100"):
        parse_int("0" * 5000 + "1" + "0" * 5000, low=1, high=100, what="the table")
    assert parse_int("0" * 5000 + "7", low=1, high=100, what="the table") == 7


# --- Every endpoint that takes a number ---------------------------------------------------------


Send = Callable[[str], object]  # posts or gets `bad` where the endpoint takes its number


@dataclass(frozen=True)
class Endpoint:
    """One way a number reaches the site: `prepare` makes the browser that sends it (a joined phone,
    the host's browser), and returns what sends a request with `bad` in it."""

    name: str
    prepare: Callable[[Night], Send]


def _tally(field: str) -> Callable[[Night], Send]:
    def prepare(night: Night) -> Send:
        phone = joined_phone(night, seated(night, 2, 0))  # seat 0: team A
        return lambda bad: phone.post(
            reverse("games:tally", args=[night.code]),
            {"team": "A", "points": "1", "table": "2", "key": "k1", field: bad}, headers={"HX-Request": "true"},
        )

    return prepare


def _undo(night: Night) -> Send:
    phone = joined_phone(night, seated(night, 2, 0))
    return lambda bad: phone.post(reverse("games:undo", args=[night.code]), {"table": bad, "key": "u1"},
                                  headers={"HX-Request": "true"})


def _claim(night: Night) -> Send:
    phone = joined_phone(night)
    return lambda bad: phone.post(reverse("games:claim", args=[night.code]), {"player": bad})


def _correct(field: str) -> Callable[[Night], Send]:
    def prepare(night: Night) -> Send:
        host = night_host_browser(night)
        return lambda bad: host.post(
            reverse("games:host_correct", args=[night.code]),
            {"table": "2", "team": "A", "points": "3", "round": "1", field: bad}, headers={"HX-Request": "true"},
        )

    return prepare


def _host_table_verb(verb: str) -> Callable[[Night], Send]:
    def prepare(night: Night) -> Send:
        host = night_host_browser(night)
        return lambda bad: host.post(reverse(f"games:{verb}", args=[night.code]), {"table": bad},
                                     headers={"HX-Request": "true"})

    return prepare


def _night_new(method: str) -> Callable[[Night], Send]:
    def prepare(night: Night) -> Send:
        club_host = Client()
        assert night.club is not None
        club_host.force_login(night.club.hosts.get())
        url = f"{reverse('games:night_new')}?party="
        if method == "GET":
            return lambda bad: club_host.get(url + bad)
        return lambda bad: club_host.post(url + bad, {"names": "Ann\nBo\nCy\nDi", "buy_in": "5.00"})

    return prepare


ENDPOINTS = [
    Endpoint("tally's table", _tally("table")),
    Endpoint("tally's points", _tally("points")),
    Endpoint("tally's Bunco roller", _tally("bunco_player")),
    Endpoint("undo's table", _undo),
    Endpoint("claim's player", _claim),
    Endpoint("correction's table", _correct("table")),
    Endpoint("correction's points", _correct("points")),
    Endpoint("correction's round", _correct("round")),
    Endpoint("host turn-over's table", _host_table_verb("host_turn_over")),
    Endpoint("host roll-off-done's table", _host_table_verb("host_roll_off_done")),
    Endpoint("new night's party (GET)", _night_new("GET")),
    Endpoint("new night's party (POST)", _night_new("POST")),
    Endpoint("new night's buy-in", lambda night: lambda bad: Client().post(
        reverse("games:night_new"), {"names": "Ann\nBo\nCy\nDi", "buy_in": bad})),
]


@pytest.fixture
def party_night() -> Night:
    """A club's party night whose round 1 is under way; its club host can start another."""
    host = make_user("club-host")
    club = make_club(hosts=[host])
    party = Party.objects.create(club=club, starts_at=timezone.now())
    night = actions.start_night(names=[f"P{n}" for n in range(12)], club=club, party=party)
    actions.start_round(night)
    return night


def what_the_site_holds() -> tuple[object, ...]:
    """Everything an endpoint could change: rows counted, and who plays as whom."""
    return (
        Night.objects.count(), Tally.objects.count(), Event.objects.count(),
        tuple(Player.objects.order_by("pk").values_list("claimed_by", flat=True)),
    )


def message_of(response) -> str:
    if response["Content-Type"].startswith("application/json"):
        return response.json()["error"]
    return response.content.decode()


@pytest.mark.parametrize("bad", list(BAD_NUMBERS.values()), ids=list(BAD_NUMBERS))
@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=[endpoint.name for endpoint in ENDPOINTS])
def test_every_endpoint_answers_a_bad_number_with_400_and_a_message_and_changes_nothing(
    party_night, endpoint, bad
):
    send = endpoint.prepare(party_night)
    before = what_the_site_holds()
    response = send(bad)
    assert response.status_code == 400, message_of(response)
    message = message_of(response)
    assert any(word in message for word in ("number", "table", "name", "points", "button", "round", "tap", "buy-in")), message
    assert what_the_site_holds() == before


@pytest.mark.parametrize("bad", ["9" * 5000, str(10**30)], ids=["5,000 digits", "10**30"])
@pytest.mark.parametrize("route", ["night_table", "host_undo", "host_release"])
def test_a_huge_number_in_a_host_url_is_not_found_rather_than_an_error(party_night, route, bad):
    host = night_host_browser(party_night)
    url = reverse(f"games:{route}", args=[party_night.code, 1]).replace("/1/", f"/{bad}/")
    response = host.get(url) if route == "night_table" else host.post(url)
    assert response.status_code == 404


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("bad", list(BAD_NUMBERS.values()) + ["-1"], ids=[*BAD_NUMBERS, "negative"])
def test_a_stream_refuses_a_bad_last_event_id_with_400_and_a_message(night, bad):
    player = seated(night, 2, 0)
    phone = joined_phone(night, player)
    for path in (reverse("games:night_events", args=[night.code]),
                 reverse("games:player_events", args=[night.code, player.pk]),
                 reverse("live:connection_check_events", args=[open_room().token])):
        response = phone.get(path, headers={"Last-Event-ID": bad})
        assert response.status_code == 400, path
        assert "Last-Event-ID" in response.content.decode()
        assert phone.get(f"{path}?last_event_id={bad}").status_code == 400


@pytest.mark.parametrize(("bad", "status"), [
    ("9" * 5000, 404),  # past Python's 4,300 digits: the URL's <int:> does not match, no such page
    (str(10**30), 403),  # a number: not the phone's own player
], ids=["5,000 digits", "10**30"])
def test_a_huge_player_number_in_a_stream_url_is_refused_not_an_error(night, bad, status):
    phone = joined_phone(night, seated(night, 2, 0))
    url = reverse("games:player_events", args=[night.code, 1]).replace("/1/", f"/{bad}/")
    assert phone.get(url).status_code == status
