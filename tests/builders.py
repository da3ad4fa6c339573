"""Builders for the tests: plain functions with setdefault, as djangoproject.com does.

Each one makes or reads back one thing with sensible defaults; a test passes only what matters to
it. The personas built from them (a club host, a seated night, a joined phone...) are fixtures in
tests/conftest.py. Every draw and every played night is seeded, so a failure replays exactly.
"""

from __future__ import annotations

import hashlib
import html
import io
import json
import random
import secrets
from collections.abc import Callable
from datetime import UTC, datetime, time, timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from bunco_club import actions as club_actions
from bunco_club.export import canonical
from bunco_club.links import my_club_path
from bunco_club.models import Club, Member
from games.links import join_path, join_token
from games.night import actions
from games.night.models import Night, Player, Round, Seat, TableRound, Tally
from games.rules import bunco
from live.models import Event
from tournaments import actions as tournament_actions
from tournaments.models import Entrant, Group, Tournament

NAMES = [
    "Ada", "Bea", "Cal", "Dot", "Eve", "Fay", "Gus", "Hal",
    "Ivy", "Jo", "Kit", "Lou", "Mo", "Ned", "Oz", "Pat",
]  # fmt: skip

PLAYERS_ALL_NIGHT = 6  # the whole night of `finished_night`: 2 tables, 2 ghosts
PASSWORD = "bunco-night"  # every account `make_user` makes has it unless a test says otherwise
WRONG_PASSWORD = "wrong"


# --- Accounts and clubs -----------------------------------------------------------------------


def make_user(username: str = "host", password: str = PASSWORD, **fields: Any):
    user = get_user_model().objects.create_user(username=username, password=password, **fields)
    return user


def logged_in(user, **client_fields: Any) -> Client:
    """A browser in which `user` is logged in (without the login form: see `post_login` for that)."""
    client = Client(**client_fields)
    client.force_login(user)
    return client


def post_login(client: Client, password: str, *, username: str = "host", address: str = "10.0.0.1"):
    """`client` posts the login form from `address` (REMOTE_ADDR), as a person types it (a browser
    test logs in through the page with tests/e2e/pages.py's `log_in`)."""
    return client.post(reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=address)


def make_club(**fields: Any):
    fields.setdefault("name", "Maple Street Bunco")
    fields.setdefault("slug", fields["name"].lower().replace(" ", "-"))
    hosts = fields.pop("hosts", [])
    club = Club.objects.create(**fields)
    club.hosts.add(*hosts)
    return club


def make_member(club, **fields: Any):
    fields.setdefault("name", f"Member {Member.objects.count() + 1}")
    return Member.objects.create(club=club, **fields)


def member_phone(member: Member) -> Client:
    """A club member's phone that opened their personal link."""
    phone = Client()
    assert phone.get(my_club_path(member.code)).status_code == 200
    return phone


# --- A club's roster and dates -------------------------------------------------------------------

REGULARS = ["Ada", "Bea", "Cal", "Dot", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kit", "Lou"]
ALTERNATES = ["Sam", "Tia", "Uma"]


def email(name: str) -> str:
    return f"{name.lower()}@example.com"


def fill_roster(club: Club, regulars: list[str] = REGULARS, alternates: list[str] = ALTERNATES) -> None:
    for name in regulars:
        club_actions.add_member(club, name=name, email=email(name))
    for name in alternates:
        club_actions.add_member(club, name=name, email=email(name), alternate=True)


def soon(days: int = 10, hour: int = 19) -> datetime:
    """`hour` o'clock, `days` from today (the site's time zone)."""
    day = timezone.localdate() + timedelta(days=days)
    return timezone.make_aware(datetime.combine(day, time(hour, 0)))


# --- A club's export, through its commands (docs/CLUB_EXPORT.md) ---------------------------------


def exported(club: Club, by: str = "") -> str:
    """What `export_club` prints for the club (named by `by`, its id or slug; its slug by default)."""
    out = io.StringIO()
    call_command("export_club", by or club.slug, stdout=out)
    return out.getvalue()


def imported(tmp_path: Path, text: str) -> dict:
    """What `import_club` prints once it loaded `text`."""
    file = tmp_path / "club.json"
    file.write_text(text, encoding="utf-8")
    out = io.StringIO()
    call_command("import_club", str(file), stdout=out)
    return json.loads(out.getvalue())


def refused(tmp_path: Path, text: str) -> str:
    """What `import_club` says refusing `text` (it exits 2)."""
    file = tmp_path / "bad.json"
    file.write_text(text, encoding="utf-8")
    with pytest.raises(CommandError) as refusal:
        call_command("import_club", str(file), stdout=io.StringIO())
    assert refusal.value.returncode == 2
    return str(refusal.value)


def resealed(text: str, change: Callable[[dict], object]) -> str:
    """The export with its payload changed by `change` and its checksum made again: what a careful
    forger sends."""
    document = json.loads(text)
    change(document["payload"])
    document["sha256"] = hashlib.sha256(canonical(document["payload"])).hexdigest()
    return json.dumps(document)


# --- A Bunco night, through its actions -------------------------------------------------------


def make_night(players: int = 12, *, seed: int = 1, **fields) -> Night:
    """A night with `players` seated for round 1 (ready: the head table has not started it)."""
    fields.setdefault("names", NAMES[:players])
    fields.setdefault("rng", random.Random(seed))
    return actions.start_night(**fields)


def started_night(players: int = 12, **fields) -> Night:
    """A night whose head table has started round 1, read back afresh."""
    night = make_night(players, **fields)
    actions.start_round(night)
    return fresh(night)


def played_night(players: int = 12, *, seed: int = 1, **fields) -> Night:
    """A whole 24-round night played through the actions (`play_rounds`), read back afresh."""
    night = make_night(players, seed=seed, **fields)
    play_rounds(night, random.Random(seed), bunco.ROUNDS)
    return fresh(night)


def fresh(night: Night) -> Night:
    return Night.objects.get(pk=night.pk)


# --- Reading a night back ---------------------------------------------------------------------


def seating_of(night: Night, number: int) -> list[list[str]]:
    """Round `number`'s seating as names, table 1 first, in seat order."""
    return night.round_obj(number).seating()


def ghosts_of(night: Night) -> set[str]:
    return set(night.players.filter(is_ghost=True).values_list("name", flat=True))


def table(night: Night, number: int, round_number: int = 1) -> TableRound:
    return TableRound.objects.get(round__night=night, round__number=round_number, number=number)


def seated(night: Night, table_number: int, position: int, round_number: int = 1) -> Player:
    return Seat.objects.get(
        round__night=night, round__number=round_number, table_round__number=table_number, position=position
    ).player


def real_seat(night: Night, table_number: int, team: str, round_number: int | None = None) -> Player:
    """A real player of `team` at the table in round `round_number` (by default the night's current
    round), the first in seat order (a ghost's partner is always real)."""
    round_number = round_number or fresh(night).current_round
    positions = (0, 2) if team == "A" else (1, 3)
    for position in positions:
        player = seated(night, table_number, position, round_number)
        if not player.is_ghost:
            return player
    raise AssertionError("two ghosts are partners")


def bells(night: Night) -> int:
    return Event.objects.on(night.channel).filter(kind="bell").count()


def figures(night: Night) -> dict[str, Player]:
    return {player.name: player for player in Player.objects.filter(night=night).real().with_figures()}


def partners(seating: list[list[str]]) -> dict[str, str]:
    return {name: seats[(seat + 2) % 4] for seats in seating for seat, name in enumerate(seats)}


# --- Scoring ----------------------------------------------------------------------------------


def tally(night: Night, table_number: int, team: str, points: int = 1, **fields) -> Tally:
    return actions.record_tally(night=night, table_number=table_number, team=team, points=points, **fields)


def taps(total: int) -> list[int]:
    """Button presses (+5, +2, +1) that add up to `total`."""
    fives, rest = divmod(total, 5)
    twos, ones = divmod(rest, 2)
    return [5] * fives + [2] * twos + [1] * ones


def add(night: Night, table_number: int, team: str, total: int, **fields) -> None:
    for points in taps(total):
        tally(night, table_number, team, points, **fields)


# --- Playing whole rounds quickly, through the actions ------------------------------------------


def play_round(night: Night, rng: random.Random) -> None:
    """Start the current round, score a little everywhere, ring the bell at the head table and
    finish every other table's turn, rolling off ties until every table has a winner."""
    if fresh(night).status == Night.Status.BREAK:
        actions.resume_after_break(night)
    round_ = actions.start_round(night)
    number = round_.number
    count = round_.tables.count()
    # Before the bell: the other tables score (a tie now and then, a Bunco now and then).
    for table_number in range(2, count + 1):
        a = [rng.choice(actions.POINT_BUTTONS) for _ in range(rng.randint(0, 2))]
        b = a if rng.random() < 0.3 else [rng.choice(actions.POINT_BUTTONS) for _ in range(rng.randint(0, 2))]
        for team, presses in (("A", a), ("B", b)):
            for points in presses:
                tally(night, table_number, team, points)
        if rng.random() < 0.15:
            team = rng.choice("AB")
            seat = rng.choice((0, 2) if team == "A" else (1, 3))
            tally(night, table_number, team, 0, bunco_player=seated(night, table_number, seat, number))
    # The head table: the losers score up to 20, the winners reach 21 or roll a Bunco.
    winner = rng.choice("AB")
    add(night, 1, "B" if winner == "A" else "A", rng.randint(0, 20))
    if rng.random() < 0.25:
        tally(night, 1, winner, 0, bunco_player=real_seat(night, 1, winner, number))
    else:
        add(night, 1, winner, 21)
    # After the bell: each other table finishes the turn under way and rolls off a tie.
    for table_number in range(2, count + 1):
        if rng.random() < 0.5:
            tally(night, table_number, rng.choice("AB"), rng.choice(actions.POINT_BUTTONS))
        decided = actions.finish_turn(night=night, table_number=table_number)
        while decided.status == TableRound.Status.ROLL_OFF:
            for team in "AB":
                tally(night, table_number, team, rng.choice(actions.POINT_BUTTONS))
            decided = actions.finish_roll_off(night=night, table_number=table_number)
    assert Round.objects.get(night=night, number=number).status == Round.Status.CLOSED


def play_rounds(night: Night, rng: random.Random, rounds: int) -> None:
    for _ in range(rounds):
        play_round(night, rng)


# --- Phones and the host's browser, as test clients -------------------------------------------


def joined_phone(night: Night, player: Player | None = None) -> Client:
    """A phone with the session the night's QR code leaves (`joined:<night pk>`) and, given a
    player, what tapping their name leaves (`player:<code>`, and the phone's token, which the
    player's seat holds: `Player.claimed_by`), without going through the pages."""
    phone = Client()
    session = phone.session
    session[f"joined:{night.pk}"] = True
    if player is not None:
        token = secrets.token_urlsafe(24)
        session["phone-token"] = token
        session[f"player:{night.code}"] = player.pk
        Player.objects.filter(pk=player.pk).update(claimed_by=token)
        player.claimed_by = token
    session.save()
    return phone


def night_host_browser(night: Night) -> Client:
    """The browser that created the night: its session holds the night's host key."""
    host = Client()
    session = host.session
    session[f"host:{night.pk}"] = night.host_key
    session.save()
    return host


def night_host_page(night: Night) -> str:
    """The night's host page, as the browser that created the night reads it."""
    response = night_host_browser(night).get(reverse("games:night_host", args=[night.code]))
    assert response.status_code == 200
    return response.content.decode()


def phone_of(night: Night, who: str | Player) -> Client:
    """A phone that scanned the night's code and tapped `who` (a player or a player's name)."""
    phone = Client()
    assert phone.get(join_path(night.code)).status_code == 200
    player = night.players.get(name=who) if isinstance(who, str) else who
    response = phone.post(reverse("games:claim", args=[night.code]), {"player": player.pk})
    assert response.status_code == 302
    return phone


def forged_path(code: str) -> str:
    """A join link for the night `code` whose signature was tampered with."""
    token = join_token(code)
    return reverse("games:join", args=[token[:-3] + ("aaa" if not token.endswith("aaa") else "bbb")])


def text(response) -> str:
    """A page as a person reads it (entities such as &#x27; unescaped)."""
    return html.unescape(response.content.decode())


def seat_of(night: Night, name: str) -> Seat:
    """`name`'s seat in the night's current round."""
    return Seat.objects.select_related("table_round", "player").get(round__night=night, round__number=night.current_round,
                                                                    player__name=name)


def someone_at(night: Night, table: int) -> str:
    """The name of a real player at `table` in the night's current round."""
    return Seat.objects.filter(round__night=night, round__number=night.current_round,
                               table_round__number=table, player__is_ghost=False).values_list("player__name", flat=True)[0]


def tap(phone: Client, night: Night, **data: object):
    """A phone's tap on a scoring button, as the page posts it."""
    return phone.post(reverse("games:tally", args=[night.code]), data, headers={"HX-Request": "true"})


def undo(phone: Client, night: Night, **data: object):
    """A phone's Undo, as the page posts it."""
    return phone.post(reverse("games:undo", args=[night.code]), data, headers={"HX-Request": "true"})


def seated_names(night: Night, number: int) -> set[str]:
    """Everyone seated in round `number` (ghosts included)."""
    return {name for seats in seating_of(night, number) for name in seats}


def statements_besides_the_session(captured: CaptureQueriesContext) -> list[str]:
    """The SQL a request ran (savepoints left out), once its session is seen read as the layout
    reads it: from memory in one process (no Redis), from the database once with several. What is
    left is what the request itself costs, the same on both layouts."""
    sql = [query["sql"] for query in captured.captured_queries if "SAVEPOINT" not in query["sql"]]
    session_reads = [text for text in sql if "django_session" in text]
    assert len(session_reads) == (1 if settings.REDIS_URL else 0), sql
    return [text for text in sql if "django_session" not in text]


def http_scope(method: str, path: str, headers: dict[str, str]) -> dict[str, Any]:
    """An ASGI HTTP scope for `method` `path`, as a server hands a request to the site's app."""
    return {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
        "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"", "root_path": "",
        "client": ("127.0.0.1", 50000), "server": ("testserver", 80),
        "headers": [(name.lower().encode(), value.encode()) for name, value in headers.items()],
    }


# --- Tournaments ------------------------------------------------------------------------------

START = datetime(2026, 11, 21, 14, 0, tzinfo=UTC)  # when a tournament test's clock reads "now"


def make_tournament(director: Any, players: int = 12, **fields: Any) -> Tournament:
    """A tournament with `players` registered and checked in ("Ann 01", "Ann 02", ...)."""
    fields.setdefault("name", "Autumn Open")
    fields.setdefault("seed", 7)
    tournament = tournament_actions.create_tournament(director=director, **fields)
    width = len(str(players))
    for number in range(1, players + 1):
        tournament_actions.register(tournament, f"Ann {number:0{width}d}", seed_rank=number, checked_in=True)
    return tournament


def entrant(tournament: Tournament, name: str) -> Entrant:
    return tournament.entrants.get(name=name)


def groups_of(tournament: Tournament) -> list[Group]:
    current = tournament.current_round()
    assert current is not None
    return list(current.groups.filter(play_off=0).order_by("number"))


# --- Reading a page's parts -----------------------------------------------------------------------


class _ElementText(HTMLParser):
    """The text inside the first element whose attributes include all of `wanted`."""

    def __init__(self, wanted: dict[str, str]) -> None:
        super().__init__()
        self.wanted = wanted
        self.depth = 0  # inside the element: how many of its tags are open
        self.found: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.depth:
            self.depth += tag not in VOID_TAGS
        elif self.found is None and all(dict(attrs).get(key) == value for key, value in self.wanted.items()):
            self.found, self.depth = [], 1

    def handle_endtag(self, tag: str) -> None:
        if self.depth:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth and self.found is not None:
            self.found.append(data)


VOID_TAGS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


def element_text(page: str, **wanted: str) -> str:
    """The text (whitespace collapsed) of the first element of `page` with these attributes, e.g.
    element_text(page, id="host-state") or element_text(page, role="alert"); fails if none has."""
    parser = _ElementText({key.rstrip("_"): value for key, value in wanted.items()})
    parser.feed(page)
    assert parser.found is not None, f"no element with {wanted} in the page"
    return " ".join("".join(parser.found).split())


def alert_of(response) -> str:
    """The message of a refused request: the page's alert (role="alert"), or a phone's JSON error."""
    if response["Content-Type"].startswith("application/json"):
        return json.loads(response.content)["error"]
    return element_text(response.content.decode(), role="alert")


# --- Game tables ---------------------------------------------------------------------------------


def make_table(players: int = 3, *, bots: list[str] | None = None, seed: int = 1, **fields: Any):
    """An open Fill or Bust table, short goal, its seed derived from `seed`; people in every seat
    unless `bots` names a level per seat. Started unless `started=False`."""
    from games.rules.fill_or_bust_table import SHORT_GOAL
    from games.table import actions as table_actions

    started = fields.pop("started", True)
    fields.setdefault("game", "fill_or_bust")
    fields.setdefault("names", NAMES[:players])
    fields.setdefault("options", {"goal": SHORT_GOAL})
    fields.setdefault("seed", f"{seed:064x}")
    fields.setdefault("code", a_table_code(seed))
    table = table_actions.open_table(bots=bots, **fields)
    if started and table.status == table.Status.SEATING:
        table = table_actions.start_table(table=table)
    return table


def version_1_tables(monkeypatch: Any) -> None:
    """From now on in the test, tables open as they did before docs/FAIRNESS.md version 2 (their chance
    from `random.Random(f"{seed}:{step}")`, dealt once at the open): a table stored back then."""
    from games.table.models import Table

    monkeypatch.setattr(Table._meta.get_field("fairness"), "default", 1)


def a_table_code(seed: int) -> str:
    """A code for a test's table made from its seed (and how many tables the test has opened), so
    that the same test deals the same cards and dice every time: docs/FAIRNESS.md version 2 mixes the
    table's code into every step's chance."""
    from games.table.models import Table

    return f"t{seed}n{Table.objects.count()}"


def play_out(table: Any) -> Any:
    """Every bot move of a table of bots, through the actions, until the game ends."""
    from games.table.tasks import play_bot_move

    while play_bot_move(table, waiting=False) is not None:
        pass
    table.refresh_from_db()
    return table


def to_move(table: Any) -> int:
    """The seat whose move it is at `table` (as stored now)."""
    table.refresh_from_db()
    return table.loaded().to_move()[0]


def table_url(name: str, table: Any, *args: Any) -> str:
    """The address of one of a table's pages or doors (`tables:<name>`)."""
    return reverse(f"tables:{name}", args=[table.code, *args])


def seated_phone(table: Any, seat: int) -> Client:
    """A phone that tapped seat `seat` at `table`."""
    phone = Client()
    assert phone.post(table_url("claim", table), {"seat": str(seat)}).status_code == 302
    return phone


def is_sqlite() -> bool:
    """Whether the suite runs on the embedded default (`make test`) rather than PostgreSQL."""
    return connection.vendor == "sqlite"


FAIRNESS_GAMES = 200
# Games a part: parallel workers share the parts, and a part stays short even on a busy machine.
FAIRNESS_PART = 10
FAIRNESS_GAMES_ON_POSTGRESQL = 50


def fairness_parts() -> list[Any]:
    """The parts of a 200-game fairness test (each given by its first game), as pytest parameters.
    The first part, 10 games, runs in `make test`: the suite a newcomer runs still proves, through
    the actions, that bot games verify from their revealed seed. The other parts are the long proof
    (the `proof` marker), which `make proof` and CI run: a correct test never fails for being slow,
    and 200 games cost minutes of a busy 2-core machine. On PostgreSQL the first 50 games alone:
    the games' moves and their verification are the same code on both."""
    games = FAIRNESS_GAMES if is_sqlite() else FAIRNESS_GAMES_ON_POSTGRESQL
    return [first if first == 0 else pytest.param(first, marks=pytest.mark.proof)
            for first in range(0, games, FAIRNESS_PART)]


def every_game_verifies(bot_game: Any, numbers: range) -> None:
    """Bot games `bot_game(number)` played out through the actions each verify from their revealed
    seed (a fairness test's part: parallel workers share the parts)."""
    from games.table.replay import verify

    for number in numbers:
        table = bot_game(number)
        assert table.is_over and table.revealed_seed == table.seed
        verdict = verify(table)
        assert verdict.verified, f"game {number} ({table.code}): {verdict.message}"


# --- Tournament groups on phones ------------------------------------------------------------------


def phones_round(tournament: Tournament, now: datetime = START, **fields: Any) -> Any:
    """The next round of `tournament`, started at `now` and played on phones (a game table a group)."""
    return tournament_actions.start_round(tournament, now=now, on_phones=True, **fields)


def table_move(group: Group, *, through_group: bool = False, now: datetime | None = None, seed: int = 3) -> Any:
    """One move at a group's game table, chosen as the threshold bot would for the seat on turn:
    made as the table's phone page makes it (games.table.actions.make_move) or, `through_group`,
    through the tournament (tournaments.actions.play_group_move at `now`)."""
    from games.table import actions as table_actions
    from games.table import bots

    assert group.table is not None
    group.table.refresh_from_db()
    game = group.table.loaded()
    seat = game.to_move()[0]
    move = bots.choose_move(game, seat, "threshold", random.Random(f"{seed}:{group.table.moves_made}"))
    if through_group:
        return tournament_actions.play_group_move(group=group, seat=seat, move=move, now=now)
    return table_actions.make_move(table=group.table, seat=seat, move=move)


def table_game(group: Group) -> Any:
    """The Fill or Bust game at a group's table as it stands (`fill_or_bust.Game`)."""
    assert group.table is not None
    group.table.refresh_from_db()
    return group.table.loaded().state  # type: ignore[attr-defined]


def finish_table_turn(group: Group, **move_fields: Any) -> None:
    """Moves at the group's table until one more turn is finished."""
    played = len(table_game(group).turns)
    while len(table_game(group).turns) == played and not table_game(group).is_over:
        table_move(group, **move_fields)


def start_table_turn(group: Group, **move_fields: Any) -> None:
    """Moves at the group's table until a turn is under way (a card turned, the turn not over)."""
    while not table_game(group).turn_under_way:
        table_move(group, **move_fields)
