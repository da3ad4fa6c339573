"""Every page and button of the site, walked from the URLconf (issue 21): who may use each, and
markup typed as a name shown as text on every page, in every streamed event and in the calendars.

Every route Django resolves is in walked.REGISTRY (how to fill its URL) and every URL of it in the
permission table (tests/security/walked_table.py), with one expected answer per kind of visitor:
a new route fails here until its rows say who may use it. In each row every visitor GETs the page,
or POSTs the button empty; a refused POST leaves every table of the database as it was.

Every name a person can type in the world (players, members, the club, the party's place and
notes, the RSVPs' notes, the season, the night's title, the tournament and its entrants, the seats
of the game tables, a ping's sender) carries walked.MARK, `<img src=x onerror=alert(1)>"'&`. No
answer to any visitor carries it as markup; the page a visitor opens shows it escaped (where the
page shows names at all: NAMELESS says which do not, and why); every logged event, as the streams
send it, carries it escaped in HTML or as a string in JSON; the iCal feeds carry it as text.
"""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils.html import escape
from icalendar import Calendar

from live.models import Event
from live.rendering import encode_event
from tests.security import walked
from tests.security.walked import ESCAPED, MARK, RAW_TAG, World, marked, world_fixture  # noqa: F401 (the fixture)
from tests.security.walked_table import PERMISSIONS

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
REFUSED = {"403", "404", "405", "LOG"}


# --- Every route, every URL, every method ------------------------------------------------------------


def test_every_route_of_the_urlconf_is_walked() -> None:
    walked_keys = {route.key for route in walked.routes()}
    assert walked_keys - set(walked.REGISTRY) == set(), "routes missing from walked.REGISTRY"
    assert set(walked.REGISTRY) - walked_keys == set(), "walked.REGISTRY names routes the URLconf no longer has"


def test_every_walked_url_has_its_row_in_the_permission_table(world: World) -> None:
    rows = set(world.rows)
    assert rows - set(PERMISSIONS) == set(), "URLs missing from the permission table"
    assert set(PERMISSIONS) - rows == set(), "rows of the permission table for URLs no longer walked"
    for row, cells in PERMISSIONS.items():
        assert len(cells.split()) == len(walked.VISITORS), row


def test_every_route_answers_405_to_the_method_it_does_not_take(world: World) -> None:
    """GET and POST: the one a route does not take is refused before any view code runs (a page
    never changes anything on a GET, a button never answers a GET)."""
    host = world.visitors["host"]
    for route in walked.routes():
        entry = walked.REGISTRY[route.key]
        url = walked.url_of(route, entry.urls(world)[0])
        for method in {"GET", "POST"} - set(entry.methods):
            with walked.rolled_back():
                response = walked.knock(host, method, url)
                assert response.status_code == 405, f"{method} {url}: {response.status_code}"
                assert not walked.changed_tables(world.fingerprint, walked.database_fingerprint())


# --- The permission table, and markup on every page -----------------------------------------------

# Pages that show no name anyone typed, each with why.
NAMELESS = {
    "alive GET": "the liveness probe says ok",
    "health GET": "the readiness probe's JSON",
    "manifest GET": "the installed app's name, colours and icons: the same for everyone",
    "service_worker GET": "the worker's script: the same for everyone",
    "offline GET": "the page a phone shows without a connection, kept on the phone: no name on purpose",
    "javascript_catalog GET": "the scripts' words in one language: the same for everyone",
    "tables:verifier GET": "the record checker's script: the same for everyone",
    "login GET": "the log-in form",
    "admin/login/ GET": "the admin's log-in form",
    "games:night_new GET": "the blank form of a night to start",
    "games:host_players GET": "the card for late arrivals and leavers, filled between rounds (round 1 is under way)",
    "tables:new GET": "the blank form of a table to open",
    "tables:screen GET": "the screen's names come in its JSON payload (json_script), drawn by its script",
    "tables:check[over] GET": "the check of the dice: its verdict, the seed and the commitment",
    "clubs:club_new GET": "the blank form of a club",
    "clubs:treasury_receipt GET": "a receipt's photo: a JPEG, no text (its entry's words are on the treasury's page)",
}

# Who is looked at for the names on a page more than one visitor may see, where the first the table
# lets in has nothing of their own on it (the host directs no tournament).
SEEN_BY = {"tournaments:list GET": "director"}


def viewer(row: str) -> str | None:
    """The visitor whose copy of a page must show the names typed (None for a button, a page
    nobody may open, or a stream: its events are checked below)."""
    if not row.endswith(" GET") or row in NAMELESS:
        return None
    if row in SEEN_BY:
        return SEEN_BY[row]
    cells = dict(zip(walked.VISITORS, PERMISSIONS[row].split(), strict=True))
    return next((visitor for visitor, cell in cells.items() if cell == "200"), None)


@pytest.mark.parametrize("row", list(PERMISSIONS))
def test_each_visitor_gets_what_the_permission_table_says(world: World, row: str) -> None:
    """One URL and method, knocked on by every kind of visitor; the failure lists every cell that
    differs. (A test per row, not per cell: 2,400 tests of their own would add some 10 s of CPU a
    run in pytest's own set-up, as much as their knocks take.)"""
    url, method, _ = world.rows[row]
    named = viewer(row)
    wrong = []
    for visitor, expected in zip(walked.VISITORS, PERMISSIONS[row].split(), strict=True):
        with walked.rolled_back():
            response = walked.knock(world.visitors[visitor], method, url)
            got = walked.outcome(response)
            if walked.shows_markup(response):
                wrong.append(f"{visitor}: the markup typed as a name is in the page as markup")
            if got != expected:
                wrong.append(f"{visitor}: {got} ({walked.said(response)[:120]!r}), the table says {expected}")
            elif method == "POST" and expected in REFUSED:
                changed = walked.changed_tables(world.fingerprint, walked.database_fingerprint())
                if changed:
                    wrong.append(f"{visitor}: refused ({got}) yet changed {changed}")
            elif visitor == named:
                wrong += [f"{visitor}: {problem}" for problem in names_as_text(response)]
    assert not wrong, f"{method} {url}:\n" + "\n".join(wrong)


def names_as_text(response: walked.Answer) -> list[str]:
    """What is wrong with how a page shows the names typed: an HTML page shows them escaped; data
    (JSON, CSV, a calendar) carries them as text, under a type no browser sniffs into HTML."""
    content_type = response["Content-Type"]
    if content_type.startswith("text/event-stream"):
        return []  # its events, below
    body = response.content.decode()
    if content_type.startswith("text/html"):
        return [] if ESCAPED in body else ["shows no name typed (if it never should, say so in NAMELESS)"]
    if response.get("X-Content-Type-Options") != "nosniff":
        return [f"{content_type} without X-Content-Type-Options: nosniff"]
    if content_type.startswith("application/json"):
        return [] if carries_mark(json.loads(body)) else ["carries no name"]
    if content_type.startswith("text/csv"):
        cells = [cell for line in csv.reader(io.StringIO(body)) for cell in line]
        attached = response.get("Content-Disposition", "").startswith("attachment")
        return [] if attached and any(MARK in cell for cell in cells) else ["no CSV attachment with the names"]
    if content_type.startswith("text/calendar"):
        return [] if MARK in body and "&lt;" not in body else ["the names are not the calendar's text"]
    return [f"an answer of type {content_type}"]


def test_the_names_appear_on_the_pages_that_list_them(world: World) -> None:
    """The check above is not met by one name alone: each kind of name reaches a page escaped."""
    pages = {
        "games:night_host GET": "host", "tournaments:dashboard GET": "director", "clubs:roster GET": "host",
        "tables:table[kismet] GET": "seat", "clubs:party GET": "host", "live:connection_check_room GET": "host",
        "clubs:season GET": "host",
    }
    seen = ""
    for row, visitor in pages.items():
        url, _, _ = world.rows[row]
        with walked.rolled_back():
            seen += walked.knock(world.visitors[visitor], "GET", url).content.decode()
    names = [world.head_player.name, world.night.title, world.entrant.name, world.member.name, world.club.name,
             world.party.location, world.party.notes, world.season.name, world.tournament.name,
             world.tables["kismet"].seats.get(number=0).name, marked("Ada")]
    for name in names:
        assert name.startswith(MARK)
        assert escape(name) in seen, name


# --- The streams' events ---------------------------------------------------------------------------


def carries_mark(data: object) -> bool:
    """Whether a string somewhere in JSON data holds the markup (as data)."""
    if isinstance(data, str):
        return MARK in data
    if isinstance(data, dict):
        return any(carries_mark(value) for value in data.values())
    if isinstance(data, list):
        return any(carries_mark(value) for value in data)
    return False


def frames(encoded: bytes) -> list[tuple[str | None, str]]:
    """The SSE messages of an encoded event: (its event name or None, its data)."""
    found = []
    for block in encoded.decode().split("\n\n"):
        if not block.strip():
            continue
        name = None
        data = []
        for line in block.split("\n"):
            if line.startswith("event: "):
                name = line.removeprefix("event: ")
            elif line.startswith("data: "):
                data.append(line.removeprefix("data: "))
        found.append((name, "\n".join(data)))
    return found


def test_every_logged_event_carries_typed_markup_escaped(world: World) -> None:
    """Every event of the world's log (a night played to its end, the night in play, a tournament's
    round with a turn and a group at a game table, game tables and one played out, a ping), as the
    streams send it (live.rendering): an unnamed message is HTML that htmx swaps into the page, so
    the markup in it is escaped; a named one is a DOM event whose data is JSON, read by a script."""
    carried: dict[str, int] = {}
    events = list(Event.objects.order_by("id"))
    assert len(events) > 300
    for event in events:
        namespace = event.channel.split(":")[0]
        for name, data in frames(encode_event(event.as_message())):
            if name is None:
                assert RAW_TAG not in data and MARK not in data, f"{event.kind} on {event.channel}: {data}"
                carried[namespace] = carried.get(namespace, 0) + (ESCAPED in data)
            else:
                carried[namespace] = carried.get(namespace, 0) + carries_mark(json.loads(data))
    # The names do travel: the bell's winners, the seats of every move, the ping's sender.
    assert carried.get("night") and carried.get("table") and carried.get("check"), carried


def test_no_script_writes_a_named_events_data_as_html() -> None:
    """The JSON of the named events is drawn with textContent: the one script that writes HTML
    (site.js) writes the server's own HTML messages (the unnamed ones, escaped above)."""
    writes_html = re.compile(r"\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write|createContextualFragment")
    scripts = sorted((ROOT / "static" / "js").glob("*.js"))
    assert scripts
    writers = {script.name for script in scripts if writes_html.search(script.read_text())}
    assert writers == {"site.js"}, writers


# --- The calendars ---------------------------------------------------------------------------------


def test_the_calendars_carry_typed_markup_as_text(world: World) -> None:
    """iCal is text: the names go in verbatim (escaped the iCal way, which icalendar reads back),
    never HTML-escaped."""
    for row in ("clubs:club_feed GET", "clubs:member_feed GET"):
        url, _, _ = world.rows[row]
        with walked.rolled_back():
            response = walked.knock(world.visitors["screen"], "GET", url)
        assert response["Content-Type"].startswith("text/calendar")
        body = response.content.decode()
        assert "&lt;" not in body and "&amp;" not in body and "&quot;" not in body, row
        texts = [str(component.get(field)) for component in Calendar.from_ical(body).walk("VEVENT")
                 for field in ("SUMMARY", "LOCATION", "DESCRIPTION") if component.get(field) is not None]
        said = "\n".join(texts)
        assert world.club.name in said, row
        assert world.party.location in said and world.party.notes in said, row


def test_a_row_whose_url_holds_the_time_is_built_again_when_read(world: World) -> None:
    """The check-in code changes every 30 s: a module's tests read its row minutes after the world
    was built, and each must get a code the site still takes (walked.Entry.fresh)."""
    import time_machine
    from django.utils import timezone

    row = "tournaments:check_in_scan GET"
    built_with_the_world = dict.__getitem__(world.rows, row)[0]
    with time_machine.travel(timezone.now() + timedelta(minutes=10), tick=False):
        url, _, _ = world.rows[row]
        assert url != built_with_the_world
        assert walked.knock(world.visitors["phone"], "GET", url).status_code == 200
