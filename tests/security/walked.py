"""The site walked from its URLconf (issue 21): every route, the world its URLs are filled from,
and the visitors who knock on them.

`routes()` lists every route Django resolves (url patterns and includes, recursively). `REGISTRY`
says, for each, how to fill its URL from the `World` and what a POST to it may carry, and
walked_table.PERMISSIONS who may use each URL; a route missing from them fails
tests/security/test_walked_pages.py, so a new page cannot be forgotten by the checks that
walk them all (permissions, markup, fuzzing, CSRF).

The world is one of everything a URL can point at: a club with members, a party, a season and its
calendars; a Bunco night in play (a club party's night) with phones at its tables, another night,
a finished night with prizes; a Fill or Bust tournament with groups typed on phones and one played
at a game table; a game table of each game (Fill or Bust, Kismet, Ninety-Nine or Bust) with seats
taken, and a finished one; a connection check room. Every name a person can type in it carries
MARK, markup that must reach every page as text.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import importlib
import io
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from html.parser import HTMLParser
from typing import Any

import pytest
from django.apps import apps
from django.conf import settings
from django.contrib import messages
from django.core.cache import caches
from django.db import connection, transaction
from django.http import HttpResponse
from django.shortcuts import resolve_url
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone
from django.utils.html import escape
from PIL import Image

from bunco_club import actions as club_actions
from bunco_club.links import member_token
from bunco_club.models import (
    BoxHandOver,
    Club,
    DishOffer,
    DishSignup,
    DishSlot,
    LedgerEntry,
    Member,
    Party,
    Season,
    SubInvitation,
    SwapRequest,
)
from games.links import join_token
from games.night import actions as night_actions
from games.night.models import Night, Player, Tally
from games.rules import bunco
from games.rules.fill_or_bust_table import SHORT_GOAL
from games.table import actions as table_actions
from games.table.models import Table
from live.actions import CheckRoom, open_room, send_ping
from tests.builders import (
    NAMES,
    VOID_TAGS,
    fresh,
    joined_phone,
    logged_in,
    make_user,
    member_phone,
    play_out,
    play_rounds,
    seated,
    soon,
)
from tournaments import actions as tournament_actions
from tournaments.check_in import code_token as check_in_code
from tournaments.check_in import player_token
from tournaments.links import group_token
from tournaments.models import Entrant, Group, Tournament, Turn

# Markup a person might type as a name: every page must show it as text (escaped), never as a tag.
MARK = "<img src=x onerror=alert(1)>\"'&"
RAW_TAG = "<img src=x onerror=alert(1)>"
ESCAPED = escape(MARK)  # &lt;img src=x onerror=alert(1)&gt;&quot;&#x27;&amp;


def marked(name: str) -> str:
    return f"{MARK}{name}"


# --- The URLconf, walked ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Route:
    key: str  # "namespace:name", or the pattern itself for a route without a name
    pattern: str  # the whole pattern, includes joined: "n/<str:code>/host/"
    view: Callable[..., Any]
    name: str | None  # the name to reverse
    args: tuple[str, ...]  # the pattern's URL arguments
    namespace: str | None  # of the include it is in


def _walk(patterns: list[Any], prefix: str, namespace: str | None) -> Iterator[Route]:
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            inner = ":".join(part for part in (namespace, pattern.namespace) if part) or None
            yield from _walk(pattern.url_patterns, prefix + str(pattern.pattern), inner)
        elif isinstance(pattern, URLPattern):
            name = f"{namespace}:{pattern.name}" if namespace and pattern.name else pattern.name
            whole = prefix + str(pattern.pattern)
            yield Route(key=name or whole, pattern=whole, view=pattern.callback, name=name,
                        args=tuple(pattern.pattern.converters), namespace=namespace)


# Routes the walk leaves out, each for a reason:
# - Django's admin site (`admin/…`): Django's own views behind its own staff check, not this
#   project's pages. The project's own view in front of the admin's log in (`admin/login/`, the
#   lock-out after wrong passwords) is walked like any other.
# - `between-tests/…` exists only in a server the suite starts (settings.TESTS_BETWEEN_TESTS_HOOKS),
#   never on a real site; it is not in this process's URLconf anyway.
# - Static files are served in front of Django (servestatic wrapping the application:
#   bunco_club/site/static.py), never by a URL pattern, so there is nothing of theirs to leave out.
EXCLUDED_NAMESPACES = ("admin",)
EXCLUDED_PREFIXES = ("between-tests/",)


def routes() -> list[Route]:
    """Every route of the URLconf the walk covers, in the URLconf's order."""
    found = []
    for route in _walk(get_resolver().url_patterns, "", None):
        if route.namespace and route.namespace.split(":")[0] in EXCLUDED_NAMESPACES:
            continue
        if route.pattern.startswith(EXCLUDED_PREFIXES):
            continue
        found.append(route)
    return found


# --- The world --------------------------------------------------------------------------------------


@dataclass
class World:
    """Everything a walked URL points at (built by `build_world`), and the visitors."""

    host: Any
    other_host: Any
    director: Any
    other_director: Any
    outsider: Any
    club: Club
    other_club: Club
    member: Member  # the member visitor, by their link
    alternate: Member  # invited as a sub to the next party
    asked: Member  # asked to swap hosting dates
    season: Season
    party: Party  # the next party (its night is `night`)
    past_party: Party  # the party whose night is `finished`
    invitation: SubInvitation
    swap: SwapRequest
    dish_slot: DishSlot  # the party's desserts: `member` brings one
    dish_signup: DishSignup  # `member`'s dessert
    dish_other: DishSignup  # another member's drinks, which `member` may trade for
    dish_empty: DishSlot  # a dish nobody brings yet (which the host may remove)
    dish_offer: DishOffer  # the host's suggestion to `member`: bring the salad
    night: Night  # in play, round 1 started: a club party's night
    head_player: Player  # at table 1 (the phone visitor)
    table2_player: Player  # at table 2 (the phone at another table)
    tally: Tally
    other_night: Night  # "just play tonight", between rounds: round 1 seated, not started
    finished: Night  # 24 rounds played, prizes awarded
    tournament: Tournament  # round 1: groups 1 and 2 typed on their group phones, group 3 at a game table
    groups: list[Group]
    turn: Turn
    unregistered: Member  # a club member not yet entered in the tournament
    entrant: Entrant
    other_tournament: Tournament
    tables: dict[str, Table]  # one of each game, started, seats 0 and 1 taken by phones
    over_table: Table  # played out by bots
    room: CheckRoom
    handover: BoxHandOver  # the Bunco box received for `party` by its host, a die missing
    supply: LedgerEntry  # a supply bought for the party, with its receipt photo (the treasury's)
    visitors: dict[str, Client] = field(default_factory=dict)
    fingerprint: dict[str, tuple[int, str]] = field(default_factory=dict)  # the database as built
    rows: Rows = field(default_factory=lambda: Rows())  # row -> (URL, method, entry)


# Who knocks (issue 21's kinds of visitor). Each is a browser with what such a visitor's session
# holds, made as the site makes it (a log in, a join link opened, a name or a seat tapped).
VISITORS = (
    "host",  # the host of this club, so of its party night and of the tables opened for the party
    "other_host",  # hosts another club and its night
    "phone",  # a phone playing at table 1 (the head table) of the night in play
    "phone_table2",  # a phone playing at table 2 of the same night
    "phone_other_night",  # a phone playing at another night
    "member",  # a member of the club, by their personal link
    "other_member",  # a member of another club, by theirs
    "director",  # directs the tournament
    "other_director",  # directs another tournament
    "group",  # the phone of group 1 of the tournament (opened its QR link)
    "other_group",  # the phone of group 2
    "seat",  # a phone holding seat 0 at each game table
    "other_seat",  # a phone holding seat 1 at each game table
    "screen",  # a table screen: a browser that opened the screens' links and nothing else
    "outsider",  # logged in, with no club, night, tournament or table
)


def _night(names: list[str], seed: int, **fields: Any) -> Night:
    return night_actions.start_night(names=names, rng=random.Random(seed), **fields)


def build_world() -> World:
    """The world (about a second to build on SQLite): call inside a transaction that is rolled back."""
    host, other_host = make_user("host"), make_user("other-host")
    director, other_director = make_user("director"), make_user("other-director")
    outsider = make_user("outsider")

    # The site's address as its hosts reach it (the test client's): a host's page notes it otherwise.
    site = "http://testserver"
    club = Club.objects.create(name=marked("Maple Street"), slug="maple", place=marked(" 12 Elm Row"),
                               site_address=site)
    club.hosts.add(host)
    for name in NAMES[:8]:
        club_actions.add_member(club, name=marked(name), email=f"{name.lower()}@example.com")
    for name in ("Sam", "Tia"):
        club_actions.add_member(club, name=marked(name), alternate=True)
    unregistered = club_actions.add_member(club, name=marked("Uma"))
    season = club_actions.create_season(club, name=marked("Season"),
                                        starts=[soon(-30), soon(10), soon(40), soon(70)])
    club_actions.assign_hosts(season, now=soon(-31))
    parties = list(season.parties.order_by("starts_at"))
    past_party, party = parties[0], parties[1]
    club_actions.edit_party(party, starts_at=party.starts_at, location=marked(" 12 Elm Row"),
                            notes=marked(" bring dice"), host=party.host, cohost=party.cohost, season=season)
    party.refresh_from_db()
    member = club.members.get(name=marked("Ada"))
    for someone in club.members.regulars().exclude(pk=unregistered.pk):
        club_actions.answer_rsvp(party, someone, "yes", note=marked(" see you"))
    invitation = club_actions.invite_another_sub(party)
    alternate = invitation.member
    # The Bunco box: its checklist, received by the party's host one die short.
    club_actions.set_box_kit(club, [(marked("Bell"), "1"), (marked("Dice"), "12")])
    bell, dice = club.box_items.all()
    handover = club_actions.receive_box(party, [(str(bell.pk), "1"), (str(dice.pk), "11")], key="the world's count",
                                        member=party.host)
    later = [p for p in parties[2:] if p.host is not None]
    give, take = later[0], later[1]
    assert give.host is not None and take.host is not None and give.host != take.host
    swap = club_actions.request_swap(give.host, give=give, take=take)
    asked = take.host

    dish_slot = club_actions.add_dish_slot(party, marked(" Dessert"), 3)
    drinks = club_actions.add_dish_slot(party, marked(" Drinks"), 2)
    dish_empty = club_actions.add_dish_slot(party, marked(" Salad"), 1)
    dish_signup = club_actions.sign_up_for_dish(dish_slot, member, key="1" * 32)
    dish_other = club_actions.sign_up_for_dish(drinks, club.members.get(name=marked("Bea")), key="2" * 32)
    dish_offer = club_actions.send_dish_suggestion(dish_empty, member, key="3" * 32, host_id=host.pk)

    other_club = Club.objects.create(name=marked("Oak Lane"), slug="oak", site_address=site)
    other_club.hosts.add(other_host)
    club_actions.add_member(other_club, name=marked("Zed"))

    members = {m.name: m for m in club.members.all()}
    night = _night([marked(name) for name in NAMES[:8]], 1, club=club, party=party, host_user=host,
                   members=members, title=marked(" night"))
    night_actions.start_round(night)
    night = fresh(night)
    head_player, table2_player = seated(night, 1, 0), seated(night, 2, 0)
    tally = night_actions.record_tally(night=night, table_number=1, team="A", points=2)
    night_actions.record_tally(night=night, table_number=2, team="B", points=1)
    other_night = _night([marked(name) for name in ("Kit", "Lou", "Mo", "Ned", "Oz", "Pat")], 2, host_user=other_host)
    finished = _night([marked(name) for name in NAMES[8:12]], 7, club=club, party=past_party, host_user=host,
                      members=members)
    play_rounds(finished, random.Random(7), bunco.ROUNDS)
    night_actions.award_prizes(fresh(finished))
    finished = fresh(finished)

    tournament = tournament_actions.create_tournament(director=director, name=marked(" Autumn Open"), seed=7,
                                                      club=club)
    for number in range(1, 14):  # 13 players: three groups
        tournament_actions.register(tournament, marked(f"Ann {number}"), seed_rank=number, checked_in=True)
    first_round = tournament_actions.start_round(tournament)
    groups = list(first_round.groups.order_by("number"))
    first = groups[0].players()[0]
    turn = tournament_actions.record_turn(group=groups[0], entrant=first, points=500)
    tournament_actions.put_group_on_phones(group=groups[2])
    groups = [Group.objects.get(pk=group.pk) for group in groups]
    other_tournament = tournament_actions.create_tournament(director=other_director, name=marked(" Spring Open"))
    tournament_actions.register(other_tournament, marked("Bo"), checked_in=True)
    tournament_actions.register(other_tournament, marked("Cy"))  # not checked in yet: the window is open
    # Its check-in window open for the next four hours (the projector's code, a player's link).
    tournament_actions.set_check_in_window(other_tournament, starts_at=timezone.now() + timedelta(minutes=239),
                                           minutes=240)

    seat_names = [marked(name) for name in ("Ada", "Bea", "Cal")]
    tables = {
        game: table_actions.start_table(table=table_actions.open_table(
            game=game, names=seat_names, options=options, host_user=host, party=party, seed=f"{n:064x}"))
        for n, (game, options) in enumerate([("fill_or_bust", {"goal": SHORT_GOAL}), ("kismet", {}),
                                             ("ninety_nine", {})], start=1)
    }
    over_table = play_out(table_actions.open_table(
        game="fill_or_bust", names=[marked(name) for name in ("Dot", "Eve")], bots=["easy", "easy"],
        options={"goal": SHORT_GOAL}, seed=f"{9:064x}"))

    room = open_room()
    send_ping(room, marked("Ada"))

    # The treasury: the member's buy-in owed, the finished night's payouts (reported by its prizes),
    # and a supply bought with a receipt photo.
    club_actions.record_buy_in(party, member, "owes")
    supply = club_actions.record_entry(club, "supply", 1250, what=marked(" pencils"), party=party,
                                       receipt=receipt_photo(), by=club_actions.Writer(user=host))
    assert supply is not None

    world = World(
        host=host, other_host=other_host, director=director, other_director=other_director, outsider=outsider,
        club=club, other_club=other_club, member=member, alternate=alternate, asked=asked, season=season,
        party=party, past_party=past_party, invitation=invitation, swap=swap, dish_slot=dish_slot,
        dish_signup=dish_signup, dish_other=dish_other, dish_empty=dish_empty, dish_offer=dish_offer, night=night,
        head_player=head_player, table2_player=table2_player, tally=tally, other_night=other_night,
        finished=finished, tournament=tournament, groups=groups, turn=turn, unregistered=unregistered,
        entrant=first, other_tournament=other_tournament, tables=tables, over_table=over_table, room=room,
        handover=handover,
        supply=supply,
    )
    world.visitors = _visitors(world)
    return world


def receipt_photo() -> bytes:
    """A small JPEG, as a phone would send a receipt's photo."""
    out = io.BytesIO()
    Image.new("RGB", (40, 30), (230, 230, 220)).save(out, format="JPEG")
    return out.getvalue()


def _seated_everywhere(tables: dict[str, Table], seat: int) -> Client:
    phone = Client()
    for table in tables.values():
        assert phone.post(reverse("tables:claim", args=[table.code]), {"seat": str(seat)}).status_code == 302
    return phone


def _opened(path: str) -> Client:
    browser = Client()
    assert browser.get(path).status_code in (200, 302), path
    return browser


def _visitors(world: World) -> dict[str, Client]:
    other_member = world.other_club.members.get()
    screen = Client()
    for table in world.tables.values():
        assert screen.get(reverse("tables:screen", args=[table.code, table.screen_token])).status_code == 200
    visitors = {
        "host": logged_in(world.host),
        "other_host": logged_in(world.other_host),
        "phone": joined_phone(world.night, world.head_player),
        "phone_table2": joined_phone(world.night, world.table2_player),
        "phone_other_night": joined_phone(world.other_night, world.other_night.players.real().first()),
        "member": member_phone(world.member),
        "other_member": member_phone(other_member),
        "director": logged_in(world.director),
        "other_director": logged_in(world.other_director),
        "group": _opened(reverse("tournaments:group_join", args=[group_token(world.groups[0].code)])),
        "other_group": _opened(reverse("tournaments:group_join", args=[group_token(world.groups[1].code)])),
        "seat": _seated_everywhere(world.tables, 0),
        "other_seat": _seated_everywhere(world.tables, 1),
        "screen": screen,
        "outsider": logged_in(world.outsider),
    }
    assert tuple(visitors) == VISITORS
    return visitors


# --- Keeping a visitor's browser as it was ------------------------------------------------------------


def cookies_of(visitor: Client) -> Any:
    return copy.deepcopy(visitor.cookies)


def restore_cookies(visitor: Client, cookies: Any) -> None:
    """The browser's cookies as they were (a log out, a new session or a message set by a request
    that was rolled back must not follow the visitor to their next request)."""
    visitor.cookies = copy.deepcopy(cookies)


# --- The database, every table of it ----------------------------------------------------------------


def database_fingerprint() -> dict[str, tuple[int, str]]:
    """Every table of every model (the event log included, and the many-to-many tables): its row
    count and a hash of every row's every column, in primary-key order."""
    fingerprint = {}
    with connection.cursor() as cursor:
        for model in apps.get_models(include_auto_created=True):
            table = model._meta.db_table
            quoted = connection.ops.quote_name(table)
            order = connection.ops.quote_name(str(model._meta.pk.column))
            cursor.execute(f"SELECT * FROM {quoted} ORDER BY {order}")
            rows = cursor.fetchall()
            digest = hashlib.sha256(repr(rows).encode()).hexdigest()
            fingerprint[table] = (len(rows), digest)
    return fingerprint


# The sessions hold each browser's own state, which a request may change whatever its answer: a
# member's personal link opened is remembered on the phone (even when what it posted is refused), a
# log out ends the session it was sent with. Every other table is compared.
BROWSERS_OWN = ("django_session",)
# The rate limits' counts (live.limits, in the database since issue 42, S3): a refused knock is
# counted, as it was when the counts lived in the cache.
KNOCKS_COUNTED = ("live_rate_limits",)


def changed_tables(before: dict[str, tuple[int, str]], after: dict[str, tuple[int, str]]) -> list[str]:
    """The tables whose rows differ (the sessions' and the knocks' left out: BROWSERS_OWN, KNOCKS_COUNTED)."""
    return sorted(table for table in before.keys() | after.keys()
                  if table not in (*BROWSERS_OWN, *KNOCKS_COUNTED) and before.get(table) != after.get(table))


def token_of(member: Member) -> str:
    return member_token(member.code)


def join_token_of(night: Night, table: int | None = None) -> str:
    return join_token(night.code, table)


def group_token_of(group: Group) -> str:
    return group_token(group.code)


# --- The registry: how each route's URL is filled, and what a POST to it carries ----------------------


@dataclass(frozen=True)
class Instance:
    """One URL of a route: its arguments and query. `label` tells apart the URLs of a route that
    has several (one per game, a table in play and one over...)."""

    kwargs: dict[str, Any]
    label: str = ""
    query: str = ""


def one(**kwargs: Any) -> Callable[[World], list[Instance]]:
    """A route with one URL, its arguments given as functions of the world (or constants)."""

    def urls(world: World) -> list[Instance]:
        return [Instance({name: value(world) if callable(value) else value for name, value in kwargs.items()})]

    return urls


def per_game(**kwargs: Any) -> Callable[[World], list[Instance]]:
    """A game table's route: one URL per game, its arguments functions of the table (or constants)."""

    def urls(world: World) -> list[Instance]:
        return [Instance({name: value(table) if callable(value) else value for name, value in kwargs.items()},
                         label=game) for game, table in world.tables.items()]

    return urls


def fob(**kwargs: Any) -> Callable[[World], list[Instance]]:
    """A game table's route whose permission is the same code for every game (the opener's
    buttons, a seat's claim): the Fill or Bust table's URL alone."""

    def urls(world: World) -> list[Instance]:
        table = world.tables["fill_or_bust"]
        return [Instance({name: value(table) if callable(value) else value for name, value in kwargs.items()})]

    return urls


GET, POST, BOTH = ("GET",), ("POST",), ("GET", "POST")


@dataclass(frozen=True)
class Entry:
    """A route as the walked checks see it.

    `methods`: what it answers (the other of GET and POST is answered 405, which a test checks).
    `fields`: what its forms and scripts post, the fields the fuzz fills with nasty values.
    `free`: the fields that take any text (a name, a note, an idempotency key): a nasty value there
    may be taken, as long as it holds no control character (NUL...). `ticks`: the checkboxes and
    flags, which any value sent ticks (Django's BooleanField, as a browser sends "on"). Every other
    field must refuse every nasty value.
    `valid`: a body the route takes (a function of the world), of which the fuzz spoils a field or
    two (of `spoils`, by default all its fields): what is left valid carries the nasty value deeper
    than a form's first check.
    `takes`: why this route may take whatever it is posted (it reads nothing, or stores nothing).
    A button that posts no fields answers any body as it answers an empty POST, or refuses it."""

    urls: Callable[[World], list[Instance]]
    methods: tuple[str, ...] = GET
    fields: tuple[str, ...] = ()
    free: tuple[str, ...] = ()
    ticks: tuple[str, ...] = ()
    valid: Callable[[World], dict[str, Any]] | None = None
    spoils: tuple[str, ...] = ()
    takes: str = ""
    # Its URL holds the time (the check-in code changes every 30 s and is refused two steps later):
    # built again each time a test reads its row, not once with the world, which a module's tests
    # may read minutes later.
    fresh: bool = False


def _code(world: World) -> str:
    return world.night.code


def _tcode(world: World) -> str:
    return world.tournament.code


def _slug(world: World) -> str:
    return world.club.slug


def _between_rounds(world: World) -> list[Instance]:
    """The night in play, and the other night between two rounds (its round 1 seated, not started):
    where late arrivals and leavers are taken."""
    return [Instance({"code": world.night.code}), Instance({"code": world.other_night.code}, "between rounds")]


def valid(**fields: Any) -> Callable[[World], dict[str, Any]]:
    """A body the route takes, its values functions of the world (or constants)."""

    def body(world: World) -> dict[str, Any]:
        return {name: value(world) if callable(value) else value for name, value in fields.items()}

    return body


def _pk(attribute: str) -> Callable[[World], str]:
    def pk(world: World) -> str:
        return str(getattr(world, attribute).pk)

    return pk


NIGHT_BOXES = ("baby_bunco_ends_turn", "wipeout", "head_losers_to_last_table", "one_prize_each", "split_ties")
CLUB_BOXES = (*NIGHT_BOXES, "attending_by_default")
NIGHT_RULES = (*NIGHT_BOXES, "tie_break", "prize_amounts")
CLUB_FIELDS = ("name", "place", "usual_time", "buy_in", "time_zone", "rsvp_nudge_days", "attending_by_default",
               "answer_cutoff_hours", *NIGHT_RULES, "language")
A_CLUB = valid(name="Elm Court", place="12 Elm Row", usual_time="19:00", buy_in="5", time_zone="UTC",
               rsvp_nudge_days="3", tie_break="roll_off")
PARTY_FIELDS = ("date", "time", "location", "notes", "host", "cohost", "season")
A_PARTY = valid(date="2031-02-07", time="19:00", location="12 Elm Row", notes="Bring dice")
TABLE_BOXES = ("combo5", "must_bust_penalty", "show_down", "no_straight", "hint", "real_0", "real_1", "real_2")
TABLE_FIELDS = ("game", "markers", "goal", "vengeance", *TABLE_BOXES,
                *(f"{field}_{row}" for row in range(3) for field in ("name", "who")))
TOURNAMENT_FIELDS = ("name", "date", "format", "round_minutes", "per_player_minutes", "practice_minutes",
                     "face_off_minutes", "grace_seconds", "ties", "grouping", "point_goal", "vengeance_penalty",
                     "must_bust_penalty", "club")
A_TOURNAMENT = valid(name="Winter Open", format="single", round_minutes="20", face_off_minutes="15",
                     grace_seconds="120", ties="play_off", grouping="random", point_goal="10000",
                     vengeance_penalty="2500")
MEMBER_FIELDS = ("name", "email", "phone")
A_MEMBER = valid(name="Zoe", email="zoe@example.com", phone="555-0101")
ROUND_1 = valid(round="1")
KEY = "0123456789abcdef0123456789abcdef"  # as the pages make them


def _night_new(world: World) -> list[Instance]:
    later = world.season.parties.order_by("starts_at")[2]
    return [Instance({}), Instance({}, "its party's night started", f"party={world.party.pk}"),
            Instance({}, "for a party", f"party={later.pk}")]


def _table_new(world: World) -> list[Instance]:
    return [Instance({}), Instance({}, "for a party", f"party={world.party.pk}")]


def _replay(world: World) -> list[Instance]:
    return [Instance({"code": world.tables["fill_or_bust"].code}, "in play"),
            Instance({"code": world.over_table.code}, "over")]


def _state(world: World) -> list[Instance]:
    return [*per_game(code=lambda table: table.code)(world),
            *(Instance({"code": table.code}, f"{game} seat 0", "seat=0") for game, table in world.tables.items())]


def _night_events(world: World) -> list[Instance]:
    return [Instance({"code": world.night.code}),
            Instance({"code": world.night.code}, "the screen's", f"screen={world.night.screen_token}")]


def _tournament_events(world: World) -> list[Instance]:
    return [Instance({"code": world.tournament.code}),
            Instance({"code": world.tournament.code}, "the screen's", f"screen={world.tournament.screen_token}")]


def _tournaments(world: World) -> list[Instance]:
    """The tournament under way, and the other director's, not begun (which may be deleted)."""
    return [Instance({"code": world.tournament.code}),
            Instance({"code": world.other_tournament.code}, "not begun")]


def _join(world: World) -> list[Instance]:
    return [Instance({"token": join_token_of(world.night)}, "the night's"),
            Instance({"token": join_token_of(world.night, 1)}, "table 1's")]


def _box_count(world: World) -> dict[str, Any]:
    """A "received" body the box takes: every item of the checklist, all there, with a key."""
    items = list(world.club.box_items.all())
    return {"item": [str(item.pk) for item in items], "count": [str(item.count) for item in items], "key": KEY}


def _party_dates(world: World) -> list[str]:
    return [party.day.isoformat() for party in world.club.parties.upcoming()][:1]


def _a_move(world: World) -> dict[str, Any]:
    return {"kind": "draw", "key": KEY}


def _first_of_group(index: int) -> Callable[[World], str]:
    def entrant(world: World) -> str:
        return str(world.groups[index].players()[0].pk)

    return entrant


def _players_token(world: World) -> str:
    """The personal link of the other tournament's first player (its check-in is open)."""
    return player_token(world.other_tournament.code, world.other_tournament.entrants.order_by("pk")[0].pk)


def _unclaimed(world: World) -> str:
    return str(world.night.players.real().filter(claimed_by="").first().pk)  # type: ignore[union-attr]


def _leaver(world: World) -> str:
    return str(world.other_night.players.real().last().pk)  # type: ignore[union-attr]


REGISTRY: dict[str, Entry] = {
    # The site's front door
    "home": Entry(one()),
    "alive": Entry(one()),
    "health": Entry(one()),
    # The installed app: its manifest, its service worker and the page it shows without a connection
    "manifest": Entry(one()),
    "service_worker": Entry(one()),
    "offline": Entry(one()),
    "javascript_catalog": Entry(one(language="es")),
    "switch_language": Entry(one(), POST, ("language", "next"), free=("next",),
                             valid=valid(language="es", next="/")),
    "tables:verifier": Entry(one()),
    "login": Entry(one(), BOTH, ("username", "password", "next")),
    "logout": Entry(one(), POST, ("next",), takes="logging out reads nothing posted: whoever posts is logged out"),
    "admin/login/": Entry(one(), BOTH, ("username", "password", "next")),
    # The connection check
    "live:connection_check": Entry(one()),
    "live:connection_check_room": Entry(one(room=lambda w: w.room.token)),
    "live:connection_check_feed": Entry(one(room=lambda w: w.room.token)),
    "live:connection_check_ping": Entry(one(room=lambda w: w.room.token), POST, ("name",), free=("name",),
                                        valid=valid(name="Ada")),
    "live:connection_check_events": Entry(one(room=lambda w: w.room.token)),
    # A Bunco night
    "games:host_nights": Entry(one()),
    "games:night_new": Entry(_night_new, BOTH, ("names", "buy_in", "title", *NIGHT_RULES), free=("title",),
                             ticks=NIGHT_BOXES,
                             valid=valid(names="Ada\nBea\nCal\nDot", buy_in="5", title="Friday")),
    "games:night_shape": Entry(one(), POST, ("names",), takes="the hint under the names: it stores nothing"),
    "games:join": Entry(_join),
    "games:claim": Entry(one(code=_code), POST, ("player",), valid=valid(player=_unclaimed)),
    "games:play": Entry(one(code=_code)),
    "games:tally": Entry(one(code=_code), POST, ("team", "points", "bunco_player", "key", "wipeout", "table"),
                         free=("key",), ticks=("wipeout",), valid=valid(team="A", points="1", key=KEY, table="1")),
    "games:undo": Entry(one(code=_code), POST, ("key", "table"), free=("key",), valid=valid(key=KEY, table="1")),
    "games:table_start": Entry(one(code=_code), POST, ("round",), valid=ROUND_1),
    "games:table_turn_over": Entry(one(code=_code), POST, ("round",), valid=ROUND_1),
    "games:table_roll_off_done": Entry(one(code=_code), POST, ("round", "roll_off"), valid=valid(round="1", roll_off="1")),
    "games:sheet": Entry(one(code=_code)),
    "games:not_me": Entry(one(code=_code), POST),
    "games:night_host": Entry(one(code=_code)),
    "games:night_codes": Entry(one(code=_code)),
    "games:host_correct_check": Entry(one(code=_code), POST, ("table", "team", "points", "round", "key"), free=("key",),
                                      valid=valid(table="1", team="A", points="2", round="1")),
    "games:host_correct": Entry(one(code=_code), POST, ("table", "team", "points", "round", "key"), free=("key",),
                                valid=valid(table="1", team="A", points="2", round="1", key=KEY)),
    "games:host_players": Entry(one(code=_code)),
    "games:host_arrival": Entry(_between_rounds, POST, ("name", "ghost", "round", "key"), free=("name", "key"),
                                valid=valid(name="Zoe", round="1", key=KEY)),
    "games:host_leave": Entry(_between_rounds, POST, ("player", "round", "key"), free=("key",),
                              valid=valid(player=_leaver, round="1", key=KEY)),
    "games:night_table": Entry(one(code=_code, number=1)),
    "games:host_undo": Entry(one(code=_code, tally_id=lambda w: w.tally.pk), POST),
    "games:host_release": Entry(one(code=_code, player_id=lambda w: w.head_player.pk), POST),
    "games:host_start": Entry(one(code=_code), POST, ("round",), valid=ROUND_1),
    "games:host_resume": Entry(one(code=_code), POST, ("round",), valid=ROUND_1),
    "games:host_reopen": Entry(one(code=_code), POST, ("table", "round"), valid=valid(table="1", round="1")),
    "games:host_turn_over": Entry(one(code=_code), POST, ("table", "round"), valid=valid(table="2", round="1")),
    "games:host_roll_off_done": Entry(one(code=_code), POST, ("table", "round", "roll_off"),
                                      valid=valid(table="2", round="1", roll_off="1")),
    "games:host_end": Entry(one(code=_code), POST, ("round",), valid=ROUND_1),
    "games:host_prizes": Entry(one(code=_code), POST),
    "games:screen": Entry(one(code=_code, token=lambda w: w.night.screen_token)),
    "games:prizes": Entry(one(code=_code)),
    "games:night_events": Entry(_night_events),
    "games:player_events": Entry(one(code=_code, player_id=lambda w: w.head_player.pk)),
    # Game tables
    "tables:new": Entry(_table_new, BOTH, TABLE_FIELDS, free=("name_0", "name_1", "name_2"), ticks=TABLE_BOXES,
                        valid=valid(game="fill_or_bust", goal="2000", vengeance="2500", name_0="Ada", name_1="Bea",
                                    who_0="person", who_1="person")),
    "tables:table": Entry(per_game(code=lambda t: t.code)),
    "tables:claim": Entry(fob(code=lambda t: t.code), POST, ("seat",), valid=valid(seat="2")),
    "tables:not_me": Entry(fob(code=lambda t: t.code), POST),
    "tables:move": Entry(per_game(code=lambda t: t.code), POST, ("kind", "dice", "card", "box", "keep", "key", "seat"),
                         free=("key",), valid=_a_move),
    "tables:here": Entry(fob(code=lambda t: t.code), POST),
    "tables:back": Entry(fob(code=lambda t: t.code), POST),
    "tables:state": Entry(_state),
    "tables:start": Entry(fob(code=lambda t: t.code), POST),
    "tables:to_bot": Entry(fob(code=lambda t: t.code, number=2), POST, ("level",), valid=valid(level="easy")),
    "tables:take_back": Entry(fob(code=lambda t: t.code, number=2), POST),
    "tables:free": Entry(fob(code=lambda t: t.code, number=0), POST),
    "tables:screen": Entry(fob(code=lambda t: t.code, token=lambda t: t.screen_token)),
    "tables:replay": Entry(_replay),
    "tables:check": Entry(_replay),
    "tables:record": Entry(_replay),
    "tables:events": Entry(per_game(code=lambda t: t.code)),
    "tables:screen_events": Entry(fob(code=lambda t: t.code, token=lambda t: t.screen_token)),
    # A tournament
    "tournaments:list": Entry(one()),
    "tournaments:new": Entry(one(), BOTH, TOURNAMENT_FIELDS, free=("name",), ticks=("must_bust_penalty",),
                             valid=A_TOURNAMENT),
    "tournaments:dashboard": Entry(one(code=_tcode)),
    "tournaments:register": Entry(one(code=_tcode), POST, ("name", "seed_rank", "checked_in"), free=("name",),
                                  ticks=("checked_in",),
                                  valid=valid(name="Zed", seed_rank="14")),
    "tournaments:register_member": Entry(one(code=_tcode, member_id=lambda w: w.unregistered.pk), POST),
    "tournaments:check_in": Entry(one(code=_tcode, entrant_id=lambda w: w.entrant.pk), POST, ("present",),
                                  ticks=("present",),  # "1" checks in, anything else out
                                  valid=valid(present="1")),
    "tournaments:seed": Entry(one(code=_tcode), POST),
    "tournaments:drop": Entry(one(code=_tcode, entrant_id=lambda w: w.entrant.pk), POST),
    "tournaments:delete": Entry(_tournaments, POST),
    "tournaments:start": Entry(one(code=_tcode), POST, ("on_phones",), ticks=("on_phones",),
                               valid=valid(on_phones="on")),
    "tournaments:practice": Entry(one(code=_tcode), POST, ("on_phones",), ticks=("on_phones",),
                                  valid=valid(on_phones="on")),
    "tournaments:pause": Entry(one(code=_tcode), POST, ("round",), valid=ROUND_1),
    "tournaments:resume": Entry(one(code=_tcode), POST, ("round",), valid=ROUND_1),
    "tournaments:end_now": Entry(one(code=_tcode), POST, ("round",), valid=ROUND_1),
    "tournaments:start_clock": Entry(one(code=_tcode), POST, ("round",), valid=ROUND_1),
    "tournaments:seat_to_bot": Entry(one(code=_tcode, group_id=lambda w: w.groups[0].pk), POST, ("seat",),
                                     valid=valid(seat="0")),
    "tournaments:extend": Entry(one(code=_tcode, group_id=lambda w: w.groups[0].pk), POST, ("minutes",),
                                valid=valid(minutes="5")),
    "tournaments:decide": Entry(one(code=_tcode, number=1), POST, ("order",),
                                valid=valid(order=lambda w: [w.entrant.name])),
    "tournaments:codes": Entry(one(code=_tcode)),
    "tournaments:results_csv": Entry(one(code=_tcode)),
    "tournaments:director_group": Entry(one(code=_tcode, group_id=lambda w: w.groups[0].pk)),
    "tournaments:correct": Entry(one(code=_tcode, group_id=lambda w: w.groups[0].pk), POST,
                                 ("entrant", "points", "key"), free=("key",),
                                 valid=valid(entrant=_first_of_group(0), points="50", key=KEY)),
    "tournaments:on_phones": Entry(one(code=_tcode, group_id=lambda w: w.groups[1].pk), POST),
    "tournaments:strike": Entry(one(code=_tcode, turn_id=lambda w: w.turn.pk), POST, ("key",), free=("key",),
                                valid=valid(key=KEY)),
    "tournaments:screen": Entry(one(code=_tcode, token=lambda w: w.tournament.screen_token)),
    "tournaments:group_join": Entry(one(token=lambda w: group_token_of(w.groups[0]))),
    "tournaments:group": Entry(one(code=lambda w: w.groups[0].code)),
    "tournaments:group_turn": Entry(one(code=lambda w: w.groups[0].code), POST,
                                    ("entrant", "points", "bust", "vengeance", "key"), free=("key",),
                                    ticks=("bust", "vengeance"),
                                    valid=valid(entrant=_first_of_group(0), points="50", key=KEY)),
    "tournaments:group_undo": Entry(one(code=lambda w: w.groups[0].code), POST, ("key",), free=("key",),
                                    valid=valid(key=KEY)),
    "tournaments:group_confirm": Entry(one(code=lambda w: w.groups[0].code), POST, ("entrant", "key"), free=("key",),
                                       valid=valid(entrant=_first_of_group(0), key=KEY)),
    "tournaments:group_dispute": Entry(one(code=lambda w: w.groups[0].code), POST, ("entrant", "key"), free=("key",),
                                       valid=valid(entrant=_first_of_group(0), key=KEY)),
    "tournaments:settle": Entry(one(code=_tcode, group_id=lambda w: w.groups[0].pk), POST, ("key",), free=("key",),
                                valid=valid(key=KEY)),
    "tournaments:desk": Entry(one(code=_tcode)),
    "tournaments:alert": Entry(one(code=_tcode), POST, ("minutes",), valid=valid(minutes="5")),
    "tournaments:check_in_window": Entry(one(code=_tcode), POST, ("starts_at", "minutes"),
                                         valid=valid(starts_at="2030-01-05T19:00", minutes="60")),
    "tournaments:no_shows": Entry(one(code=_tcode), POST),
    "tournaments:check_in_scan": Entry(one(code=lambda w: w.other_tournament.code,
                                           token=lambda w: check_in_code(w.other_tournament.code, timezone.now())),
                                       BOTH, ("entrant", "key"), free=("key",),
                                       valid=valid(entrant=lambda w: str(w.other_tournament.entrants.last().pk),
                                                   key=KEY), fresh=True),
    "tournaments:player": Entry(one(code=lambda w: w.other_tournament.code, token=_players_token)),
    "tournaments:player_check_in": Entry(one(code=lambda w: w.other_tournament.code, token=_players_token), POST,
                                         ("key",), free=("key",), valid=valid(key=KEY)),
    "tournaments:events": Entry(_tournament_events),
    # A club
    "clubs:club_new": Entry(one(), BOTH, CLUB_FIELDS, free=("name", "place"), ticks=CLUB_BOXES, valid=A_CLUB),
    "clubs:my_club": Entry(one(token=lambda w: token_of(w.member))),
    "clubs:my_rsvp": Entry(one(token=lambda w: token_of(w.member), party_pk=lambda w: w.party.pk), POST,
                           ("answer", "note", "key", "back"), free=("note", "key"),
                           ticks=("back",),  # "party": back to the party's page, anything else to the member's
                           valid=valid(answer="maybe", note="Running late", key=KEY)),
    "clubs:my_sub_accept": Entry(one(token=lambda w: token_of(w.alternate), pk=lambda w: w.invitation.pk), POST),
    "clubs:my_sub_decline": Entry(one(token=lambda w: token_of(w.alternate), pk=lambda w: w.invitation.pk), POST),
    "clubs:my_swap_request": Entry(one(token=lambda w: token_of(w.asked)), POST, ("give", "take"),
                                   valid=valid(give=lambda w: str(w.swap.take.pk), take=lambda w: str(w.swap.give.pk))),
    "clubs:my_swap_accept": Entry(one(token=lambda w: token_of(w.asked), pk=lambda w: w.swap.pk), POST),
    "clubs:my_swap_decline": Entry(one(token=lambda w: token_of(w.asked), pk=lambda w: w.swap.pk), POST),
    "clubs:my_claim": Entry(one(token=lambda w: token_of(w.member)), POST),
    "clubs:my_blackouts": Entry(one(token=lambda w: token_of(w.member)), POST, ("dates",),
                                takes="no date ticked is a valid answer: no dates away",
                                valid=valid(dates=_party_dates)),
    "clubs:my_language": Entry(one(token=lambda w: token_of(w.member)), POST, ("language",),
                               valid=valid(language="es")),
    "clubs:my_box_received": Entry(one(token=lambda w: token_of(w.party.host), party_pk=lambda w: w.party.pk), POST,
                                   ("item", "count", "key", "back"), free=("key",),
                                   ticks=("back",),  # "party": back to the party's page, anything else to the member's
                                   valid=_box_count),
    "clubs:member_feed": Entry(one(token=lambda w: token_of(w.member))),
    "clubs:my_dish_signup": Entry(one(token=lambda w: token_of(w.member), slot_pk=lambda w: w.dish_other.slot_id), POST,
                                  ("key", "back"), free=("key",), ticks=("back",), valid=valid(key=KEY)),
    "clubs:my_dish_withdraw": Entry(one(token=lambda w: token_of(w.member), pk=lambda w: w.dish_signup.pk), POST,
                                    ("key", "back"), free=("key",), ticks=("back",), valid=valid(key=KEY)),
    "clubs:my_dish_give": Entry(one(token=lambda w: token_of(w.member), pk=lambda w: w.dish_signup.pk), POST,
                                ("member", "key", "back"), free=("key",), ticks=("back",),
                                valid=valid(member=lambda w: str(w.dish_other.member_id), key=KEY)),
    "clubs:my_dish_trade": Entry(one(token=lambda w: token_of(w.member), pk=lambda w: w.dish_signup.pk), POST,
                                 ("take", "key", "back"), free=("key",), ticks=("back",),
                                 valid=valid(take=lambda w: str(w.dish_other.pk), key=KEY)),
    "clubs:my_dish_accept": Entry(one(token=lambda w: token_of(w.member), pk=lambda w: w.dish_offer.pk), POST,
                                  ("key", "back"), free=("key",), ticks=("back",), valid=valid(key=KEY)),
    "clubs:my_dish_decline": Entry(one(token=lambda w: token_of(w.member), pk=lambda w: w.dish_offer.pk), POST,
                                   ("key", "back"), free=("key",), ticks=("back",), valid=valid(key=KEY)),
    "clubs:club_feed": Entry(one(feed_code=lambda w: w.club.feed_code)),
    "clubs:club": Entry(one(slug=_slug)),
    "clubs:club_edit": Entry(one(slug=_slug), BOTH, CLUB_FIELDS, free=("name", "place"), ticks=CLUB_BOXES,
                             valid=A_CLUB),
    "clubs:club_export": Entry(one(slug=_slug)),
    "clubs:box": Entry(one(slug=_slug)),
    "clubs:box_kit": Entry(one(slug=_slug), POST, ("name", "count"), free=("name",),
                           valid=valid(name=["Bell", "Dice"], count=["1", "12"])),
    "clubs:cohost_add": Entry(one(slug=_slug), POST, ("username",), valid=valid(username="outsider")),
    "clubs:cohost_remove": Entry(one(slug=_slug, user_pk=lambda w: w.host.pk), POST),
    "clubs:roster": Entry(one(slug=_slug), BOTH, (*MEMBER_FIELDS, "alternate"), free=("name", "phone"),
                          ticks=("alternate",), valid=A_MEMBER),
    "clubs:member_edit": Entry(one(slug=_slug, pk=lambda w: w.member.pk), BOTH, MEMBER_FIELDS, free=("name", "phone"),
                               valid=A_MEMBER),
    "clubs:member_blackouts": Entry(one(slug=_slug, pk=lambda w: w.member.pk), POST, ("dates",),
                                    takes="no date ticked is a valid answer: no dates away",
                                    valid=valid(dates=_party_dates)),
    "clubs:member_up": Entry(one(slug=_slug, pk=lambda w: w.alternate.pk), POST),
    "clubs:member_down": Entry(one(slug=_slug, pk=lambda w: w.alternate.pk), POST),
    "clubs:member_promote": Entry(one(slug=_slug, pk=lambda w: w.alternate.pk), POST),
    "clubs:member_to_subs": Entry(one(slug=_slug, pk=lambda w: w.member.pk), POST),
    "clubs:member_retire": Entry(one(slug=_slug, pk=lambda w: w.member.pk), POST),
    "clubs:member_reinstate": Entry(one(slug=_slug, pk=lambda w: w.member.pk), POST),
    "clubs:member_new_link": Entry(one(slug=_slug, pk=lambda w: w.member.pk), POST),
    "clubs:member_pair": Entry(one(slug=_slug, pk=lambda w: w.member.pk), POST, ("partner",),
                               valid=valid(partner=lambda w: str(w.club.members.regulars().exclude(
                                   pk=w.member.pk).exclude(cohost__isnull=False).last().pk))),
    "clubs:member_split": Entry(one(slug=_slug, pk=lambda w: w.member.pk), POST),
    "clubs:season_new": Entry(one(slug=_slug), BOTH,
                              ("how", "name", "first_month", "months", "nth", "weekday", "time", "dates"),
                              free=("name",), valid=valid(how="hand", name="2031", dates="2031-03-07", time="19:00"),
                              spoils=("how", "name", "dates", "time")),  # by hand: the rule's fields are not read
    "clubs:season": Entry(one(slug=_slug, pk=lambda w: w.season.pk)),
    "clubs:season_plan": Entry(one(slug=_slug, pk=lambda w: w.season.pk), POST),
    "clubs:standings": Entry(one(slug=_slug, pk=lambda w: w.season.pk)),
    "clubs:party_new": Entry(one(slug=_slug), BOTH, PARTY_FIELDS, free=("location", "notes"), valid=A_PARTY),
    "clubs:party": Entry(one(slug=_slug, pk=lambda w: w.party.pk)),
    "clubs:party_edit": Entry(one(slug=_slug, pk=lambda w: w.party.pk), BOTH, PARTY_FIELDS, free=("location", "notes"),
                              valid=A_PARTY),
    "clubs:party_invite_sub": Entry(one(slug=_slug, pk=lambda w: w.party.pk), POST),
    "clubs:party_counts": Entry(one(slug=_slug, pk=lambda w: w.past_party.pk), POST, ("counts",),
                                valid=valid(counts="0")),
    "clubs:party_cancel": Entry(one(slug=_slug, pk=lambda w: w.party.pk), POST),
    "clubs:party_dish_add": Entry(one(slug=_slug, pk=lambda w: w.party.pk), POST, ("name", "wanted"), free=("name",),
                                  valid=valid(name="Fruit", wanted="2")),
    "clubs:party_dish_wanted": Entry(one(slug=_slug, pk=lambda w: w.party.pk, slot_pk=lambda w: w.dish_slot.pk), POST,
                                     ("wanted",), valid=valid(wanted="4")),
    "clubs:party_dish_remove": Entry(one(slug=_slug, pk=lambda w: w.party.pk, slot_pk=lambda w: w.dish_empty.pk), POST),
    "clubs:party_dish_suggest": Entry(one(slug=_slug, pk=lambda w: w.party.pk, slot_pk=lambda w: w.dish_slot.pk), POST,
                                      ("member", "key"), free=("key",),
                                      valid=valid(member=lambda w: str(w.dish_other.member_id), key=KEY)),
    "clubs:party_paid": Entry(one(slug=_slug, pk=lambda w: w.party.pk, member_pk=lambda w: w.member.pk), POST,
                              ("how", "key", "back"), free=("key",),
                              ticks=("back",),  # "treasury": back to the treasury, anything else to the party
                              valid=valid(how="cash", key=KEY)),
    "clubs:party_release_seats": Entry(one(slug=_slug, pk=lambda w: w.party.pk), POST),
    "clubs:my_money": Entry(one(token=lambda w: token_of(w.member))),
    "clubs:treasury": Entry(one(slug=_slug)),
    "clubs:treasury_entry": Entry(one(slug=_slug), POST, ("kind", "amount", "what", "direction", "member", "party", "key"),
                                  free=("what", "key"),
                                  valid=valid(kind="adjustment", amount="12.50", what="Float counted", direction="out",
                                              member=lambda w: str(w.member.pk), party=lambda w: str(w.party.pk),
                                              key=KEY)),
    "clubs:treasury_reverse": Entry(one(slug=_slug, pk=lambda w: w.supply.pk), POST, ("key",), free=("key",),
                                    valid=valid(key=KEY)),
    "clubs:treasury_settings": Entry(one(slug=_slug), POST, ("visible_to", "paid_keeps_seat", "treasurer"),
                                     ticks=("paid_keeps_seat",),
                                     valid=valid(visible_to="hosts", treasurer=lambda w: str(w.member.pk))),
    "clubs:treasury_statement": Entry(one(slug=_slug)),
    "clubs:treasury_csv": Entry(one(slug=_slug)),
    "clubs:treasury_receipt": Entry(one(slug=_slug, pk=lambda w: w.supply.pk)),
    "clubs:party_box_received": Entry(one(slug=_slug, pk=lambda w: w.party.pk), POST, ("item", "count", "key"),
                                      free=("key",), valid=_box_count),
}


def url_of(route: Route, instance: Instance) -> str:
    path = reverse(route.name, kwargs=instance.kwargs) if route.name else "/" + route.pattern
    return f"{path}?{instance.query}" if instance.query else path


def cell_key(route: Route, instance: Instance, method: str) -> str:
    """How the permission table names one URL and method: "games:night_host GET",
    "tables:move[kismet] POST"."""
    return f"{route.key}[{instance.label}] {method}" if instance.label else f"{route.key} {method}"


# --- Knocking without leaving a trace -----------------------------------------------------------------


class _RolledBack(Exception):
    pass


@contextlib.contextmanager
def rolled_back() -> Iterator[None]:
    """Whatever a request inside does is undone afterwards: the database (a savepoint rolled back,
    so every knock finds the world as it was built) and the caches (the sessions, read back from the
    database; the rate limits, counted afresh)."""
    try:
        with transaction.atomic():
            yield
            raise _RolledBack
    except _RolledBack:
        pass
    finally:
        for alias in settings.CACHES:
            caches[alias].clear()


# What the test client answers (django-stubs' _MonkeyPatchedWSGIResponse: an HttpResponse, or a
# streaming one).
Answer = Any


def knock(visitor: Client, method: str, url: str, **request: Any) -> Answer:
    """`visitor` GETs or POSTs `url`; their browser's cookies are left as they were (a log out, a
    new session or a message of a request that is rolled back must not follow them)."""
    saved = cookies_of(visitor)
    try:
        response = visitor.get(url, **request) if method == "GET" else visitor.post(url, **request)
        if response.streaming:
            response.close()
        return response
    finally:
        restore_cookies(visitor, saved)


def outcome(response: Answer) -> str:
    """A response as the permission table writes it: its status, or LOG for the redirect to the
    log-in page that an account-only page gives a browser that is not logged in."""
    if response.status_code == 302 and response["Location"].startswith(resolve_url(settings.LOGIN_URL)):
        return "LOG"
    return str(response.status_code)


@contextlib.contextmanager
def streams_answered_at_once() -> Iterator[None]:
    """The event streams' views answer with a plain 200 once they have let the visitor in: their
    permission is the view's own code, run as ever; what a stream then sends is tested in
    tests/live and tests/games (a sync test client cannot read an endless stream)."""

    def stream(request: Any, channels: Any, snapshot: Any, private: Any = (), languages: Any = ()) -> HttpResponse:
        return HttpResponse("stream", content_type="text/event-stream")

    with pytest.MonkeyPatch.context() as patcher:
        for route in routes():
            module = importlib.import_module(route.view.__module__)
            if hasattr(module, "event_stream_response"):
                patcher.setattr(module, "event_stream_response", stream)
        yield


# --- What an answer says ----------------------------------------------------------------------------


class _Text(HTMLParser):
    """A page's text as a person reads it, scripts and styles left out: what its alerts say
    (role="alert", and Django's form errors: class errorlist, the admin's errornote) and what its
    main region says."""

    def __init__(self) -> None:
        super().__init__()
        self.alerts: list[str] = []
        self.main: list[str] = []
        self._stack: list[tuple[str, bool, bool]] = []  # (tag, in an alert, in main)
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID_TAGS:
            return
        values = dict(attrs)
        classes = (values.get("class") or "").split()
        alert = ((self._stack[-1][1] if self._stack else False) or values.get("role") == "alert"
                 or "errorlist" in classes or "errornote" in classes)
        main = (self._stack[-1][2] if self._stack else False) or tag == "main"
        self._stack.append((tag, alert, main))
        self._hidden += tag in ("script", "style")

    def handle_endtag(self, tag: str) -> None:
        while self._stack:
            opened, _, _ = self._stack.pop()
            self._hidden -= opened in ("script", "style")
            if opened == tag:
                break

    def handle_data(self, data: str) -> None:
        if self._hidden:
            return
        if self._stack and self._stack[-1][1]:
            self.alerts.append(data)
        if self._stack and self._stack[-1][2]:
            self.main.append(data)


def _words(parts: list[str]) -> str:
    return " ".join("".join(parts).split())


def said(response: Answer) -> str:
    """The message a refusal carries, in words: a phone's JSON {"error": ...}, a plain text body,
    a page's or a partial's alert (role="alert", a form's errors; the "Not found" page's main
    text), or the error message a form post is sent back with (Django's messages, shown by the page
    it is redirected to)."""
    if response.streaming:
        return ""
    if response.status_code < 400:  # a page or a redirect: only an error message says it refused
        queued = getattr(getattr(response, "wsgi_request", None), "_messages", None) or []
        return " ".join(str(message) for message in queued if message.level >= messages.ERROR)
    content_type = response.get("Content-Type", "")
    body = response.content.decode(errors="replace")
    if content_type.startswith("application/json"):
        try:
            data = json.loads(body)
        except ValueError:
            return ""
        return str(data.get("error") or data.get("message") or "") if isinstance(data, dict) else ""
    if not content_type.startswith("text/html"):
        return " ".join(body.split())
    text = _Text()
    text.feed(body)
    if response.status_code == 404:  # the site's "Not found" page says it in its main text
        return _words(text.alerts) or _words(text.main)
    return _words(text.alerts)


def shows_markup(response: Answer) -> bool:
    """Whether an HTML answer carries the markup typed as a name as markup (unescaped)."""
    if response.streaming or not response.get("Content-Type", "").startswith("text/html"):
        return False
    body = response.content.decode(errors="replace")
    return RAW_TAG in body or MARK in body


def refused(response: Answer) -> bool:
    """A refusal: a 4xx, or a form post sent back to its page with an error message."""
    return 400 <= response.status_code < 500 or (response.status_code < 400 and bool(said(response)))


# --- The world as a module's fixture ----------------------------------------------------------------


class Rows(dict[str, tuple[str, str, "Entry"]]):
    """The walked rows: row -> (URL, method, entry), each URL built with the world, but a `fresh`
    entry's built again each time its row is read (`Entry.fresh`)."""

    def __init__(self, world: World | None = None) -> None:
        super().__init__()
        self.world = world
        self.fresh: dict[str, tuple[Route, int]] = {}

    def add(self, row: str, route: Route, index: int, method: str, entry: Entry, url: str) -> None:
        self[row] = (url, method, entry)
        if entry.fresh:
            self.fresh[row] = (route, index)

    def __getitem__(self, row: str) -> tuple[str, str, Entry]:
        url, method, entry = super().__getitem__(row)
        if row in self.fresh and self.world is not None:
            route, index = self.fresh[row]
            url = url_of(route, entry.urls(self.world)[index])
        return url, method, entry

    def items(self) -> Any:  # every row as read now
        return [(row, self[row]) for row in self]


@pytest.fixture(scope="module", name="world")
def world_fixture(django_db_setup: None, django_db_blocker: Any) -> Iterator[World]:
    """The world, built once for a test module (per pytest-xdist worker) inside a transaction rolled
    back at the module's end; each test's own transaction (pytest-django's) is a savepoint in it,
    and each knock a savepoint in that (`rolled_back`), so every knock finds the world as built.
    The event streams answer at once (`streams_answered_at_once`)."""
    with django_db_blocker.unblock(), transaction.atomic():
        world = build_world()
        world.fingerprint = database_fingerprint()
        world.rows = Rows(world)
        for route in routes():
            entry = REGISTRY[route.key]
            for index, instance in enumerate(entry.urls(world)):
                for method in entry.methods:
                    world.rows.add(cell_key(route, instance, method), route, index, method, entry, url_of(route, instance))
        with streams_answered_at_once():
            yield world
        transaction.set_rollback(True)
