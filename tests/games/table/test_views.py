"""The game table's pages and requests, through Django's client: opening a table, seats, moves
(whose seat, bad input, keys), the screen's token, the replay, and the seed kept secret until the end."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection
from django.http import HttpResponse
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from bunco_club.models import RSVP, Party
from games.table import actions
from games.table.models import Move, Table
from games.table.tasks import play_bot_move
from games.table.views import phone as phone_views
from tests.builders import (
    is_sqlite,
    logged_in,
    make_club,
    make_member,
    make_table,
    make_user,
    play_out,
    seated_phone,
    statements_besides_the_session,
    to_move,
    version_1_tables,
)
from tests.builders import table_url as url

pytestmark = pytest.mark.django_db


def move(phone: Client, table: Table, kind: str, *, key: str | None = None, **fields: Any):
    data: dict[str, Any] = {"kind": kind, **fields}
    if key is not None:
        data["key"] = key
    return phone.post(url("move", table), data)


def phones_at(table: Table) -> list[Client]:
    return [seated_phone(table, seat) for seat in range(table.seats.count())]


def unchanged(table: Table, before: Table) -> bool:
    after = Table.objects.get(pk=table.pk)
    return after.moves_made == before.moves_made and after.state == before.state


# --- Opening a table -----------------------------------------------------------------------------

NEW_TABLE = {"game": "fill_or_bust", "goal": "2000", "vengeance": "2500", "combo5": "on",
             "name_0": "Ann", "who_0": "person", "name_1": "Bob", "who_1": "person",
             "name_2": "Robo", "who_2": "strong"}


def test_it_opens_a_table_from_play_a_game_and_only_its_opener_starts_it() -> None:
    opener, other = Client(), Client()
    assert "Play a game" in opener.get("/").content.decode()
    response = opener.post(reverse("tables:new"), NEW_TABLE)
    assert response.status_code == 302
    table = Table.objects.get()
    assert response["Location"] == url("table", table)
    assert table.options == {"goal": 2000, "combo5": True, "must_bust_penalty": False, "vengeance": 2500,
                             "show_down": False}
    assert [(s.name, s.bot_level) for s in table.seats.all()] == [("Ann", ""), ("Bob", ""), ("Robo", "strong")]
    assert other.post(url("start", table)).status_code == 403
    assert Table.objects.get(pk=table.pk).status == Table.Status.SEATING
    assert opener.post(url("start", table)).status_code == 302
    assert Table.objects.get(pk=table.pk).status == Table.Status.PLAYING


def test_a_table_opened_for_a_party_starts_with_the_members_coming_in_its_seats() -> None:
    host = make_user()
    club = make_club(hosts=[host])
    party = Party.objects.create(club=club, starts_at=timezone.now())
    for name, answer in [("Zoe", RSVP.Answer.YES), ("Amy", RSVP.Answer.YES), ("Max", RSVP.Answer.NO)]:
        RSVP.objects.create(party=party, member=make_member(club, name=name), answer=answer)
    form = logged_in(host).get(reverse("tables:new") + f"?party={party.pk}").context["form"]
    assert [form[f"name_{row}"].value() for row in range(3)] == ["Amy", "Zoe", None]
    assert Client().get(reverse("tables:new")).context["form"]["name_0"].value() == ""


def test_a_table_with_one_seat_or_two_seats_of_one_name_is_refused_and_the_form_says_why() -> None:
    response = Client().post(reverse("tables:new"), {**NEW_TABLE, "name_1": "", "name_2": ""})
    assert response.status_code == 400 and "at least 2 seats" in response.content.decode()
    response = Client().post(reverse("tables:new"), {**NEW_TABLE, "name_1": "ann"})
    assert response.status_code == 400 and "different name" in response.content.decode()
    assert not Table.objects.exists()


def test_opening_tables_is_rate_limited_per_address_like_nights(settings) -> None:
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "table-new": "2/d"}
    phone = Client()
    for _ in range(2):
        assert phone.post(reverse("tables:new"), NEW_TABLE).status_code == 302
    refused = phone.post(reverse("tables:new"), NEW_TABLE)
    assert refused.status_code == 429 and "Too many tables" in refused.content.decode()
    assert Table.objects.count() == 2


def test_a_signed_in_host_opening_tables_is_counted_per_account_not_with_the_strangers_at_the_address(
    settings,
) -> None:
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "table-new": "2/d", "table-new-host": "3/d"}
    strangers = Client(REMOTE_ADDR="10.0.0.1")
    for _ in range(2):
        assert strangers.post(reverse("tables:new"), NEW_TABLE).status_code == 302
    assert strangers.post(reverse("tables:new"), NEW_TABLE).status_code == 429
    host = Client(REMOTE_ADDR="10.0.0.1")
    host.force_login(make_user("party-host"))
    for _ in range(3):
        assert host.post(reverse("tables:new"), NEW_TABLE).status_code == 302  # the address's count is not hers
    refused = host.post(reverse("tables:new"), NEW_TABLE)
    assert refused.status_code == 429 and "Too many tables" in refused.content.decode()
    assert Table.objects.count() == 5


# --- The lobby and the seats ---------------------------------------------------------------------


def test_the_lobby_shows_the_code_a_qr_code_of_its_link_and_the_commitment() -> None:
    table = make_table(started=False)
    page = Client().get(url("table", table)).content.decode()
    assert table.code in page and "<svg" in page and f"http://testserver{url('table', table)}" in page
    assert table.commitment in page
    assert "I'm Ada" in page


def test_a_phone_keeps_its_seat_through_reloads_and_hands_it_back_with_thats_not_me() -> None:
    table = make_table(started=False)
    phone = seated_phone(table, 1)
    assert "You play <strong>Bea</strong>" in phone.get(url("table", table)).content.decode()
    assert phone.get(url("state", table)).json()["seat"] == 1
    assert Client().post(url("claim", table), {"seat": "1"}).status_code == 409  # another phone
    assert phone.post(url("not_me", table)).status_code == 302
    assert table.seats.get(number=1).claimed_by == ""
    assert phone.get(url("state", table)).json()["seat"] is None


def test_the_opener_hands_a_quiet_seat_to_a_bot_takes_it_back_and_frees_a_seat_and_others_cannot() -> None:
    opener = Client()
    opener.post(reverse("tables:new"), NEW_TABLE)
    table = Table.objects.get()
    bob = seated_phone(table, 1)
    stranger = Client()
    for name, data in (("to_bot", {"level": "easy"}), ("take_back", {}), ("free", {})):
        assert stranger.post(url(name, table, 1), data).status_code == 403
    assert opener.post(url("free", table, 1)).status_code == 302
    assert table.seats.get(number=1).claimed_by == ""
    bob = seated_phone(table, 1)
    assert opener.post(url("to_bot", table, 1), {"level": "easy"}).status_code == 302
    assert table.seats.get(number=1).bot_level == "easy"
    assert bob.get(url("state", table)).json()["seat"] is None  # the bot plays it now
    assert opener.post(url("to_bot", table, 0), {"level": "genius"}).status_code == 400
    assert opener.post(url("take_back", table, 1)).status_code == 302
    assert table.seats.get(number=1).bot_level == ""


# --- Moves ---------------------------------------------------------------------------------------


def test_the_seat_on_turn_moves_and_gets_its_view_back_as_json() -> None:
    table = make_table()
    seat = to_move(table)
    phone = seated_phone(table, seat)
    answer = move(phone, table, "draw", key="k-1", seat=str(seat))
    assert answer.status_code == 200
    data = answer.json()
    assert data["moves_made"] == 1 and data["seat"] == seat and data["said"].startswith(table.seats.get(number=seat).name)


def test_a_move_runs_six_statements_its_answer_included() -> None:
    """The game table's hot path (issues 22 and 34 pin it): the table with its seats (the phone's
    among them, and the answer's), the table's lock and game, the key's lookup, the game written
    back, the move, the event (the move and its event one statement on PostgreSQL). With several
    processes the session is one statement more."""
    table = make_table()
    seat = to_move(table)
    phone = seated_phone(table, seat)
    with CaptureQueriesContext(connection) as statements:
        assert move(phone, table, "draw", key="k-1", seat=str(seat)).status_code == 200
    sql = statements_besides_the_session(statements)
    assert len(sql) == (6 if is_sqlite() else 5), sql
    assert Move.objects.filter(table=table).count() == 1


def test_a_phone_moves_only_for_the_seat_it_holds_and_is_refused_403_otherwise() -> None:
    table = make_table()
    seat = to_move(table)
    other = (seat + 1) % 3
    before = Table.objects.get(pk=table.pk)
    no_seat = Client()
    assert move(no_seat, table, "draw").status_code == 403
    not_on_turn = seated_phone(table, other)
    forged = move(not_on_turn, table, "draw", seat=str(seat))
    assert forged.status_code == 403 and "error" in forged.json()
    out_of_turn = move(not_on_turn, table, "draw")
    assert out_of_turn.status_code == 409 and out_of_turn.json()["error"]
    assert unchanged(table, before)


@pytest.mark.parametrize("fields", [
    {"kind": "keep", "dice": "²"},
    {"kind": "keep", "dice": "1" * 5000},
    {"kind": "keep", "dice": ["1"] * 7},
    {"kind": "roll the table over"},
    {"kind": "k" * 5000},
    {"kind": "teleport"},
    {"kind": "draw", "seat": "²"},
    {"kind": "draw", "seat": "9" * 5000},
    {"kind": "draw", "key": "k" * 65},
])
def test_bad_input_is_a_clear_400_and_changes_nothing(fields: dict[str, Any]) -> None:
    table = make_table()
    phone = seated_phone(table, to_move(table))
    before = Table.objects.get(pk=table.pk)
    answer = phone.post(url("move", table), fields)
    assert answer.status_code == 400
    assert answer.json()["error"]
    assert unchanged(table, before)


@pytest.mark.parametrize("fields", [{"kind": "draw", "card": "7"}, {"kind": "draw", "box": "ones"},
                                    {"kind": "draw", "keep": "1"}, {"kind": "draw", "x": "1"}])
def test_a_field_fill_or_bust_does_not_read_is_refused_as_malformed_and_changes_nothing(fields: dict[str, Any]) -> None:
    """Each game reads its own move's fields (GameRules.read_move): another game's, or no game's,
    is no move of this one."""
    table = make_table()
    phone = seated_phone(table, to_move(table))
    before = Table.objects.get(pk=table.pk)
    answer = phone.post(url("move", table), fields)
    assert answer.status_code == 400 and answer.json()["error"] == "That move was malformed: tap one of the buttons."
    assert unchanged(table, before)
    assert phone.post(url("move", table), {"kind": "draw", "key": "k-1"}).status_code == 200


def test_a_retried_move_counts_once_and_a_key_reused_for_another_move_is_refused_409() -> None:
    table = make_table()
    seat = to_move(table)
    phone = seated_phone(table, seat)
    first = move(phone, table, "draw", key="same-key")
    again = move(phone, table, "draw", key="same-key")
    assert first.status_code == again.status_code == 200
    assert Move.objects.filter(table=table).count() == 1
    other = move(phone, table, "toss", key="same-key")
    assert other.status_code == 409 and "key" in other.json()["error"]
    assert Move.objects.filter(table=table).count() == 1


def test_only_the_seat_on_turn_gets_its_legal_moves_and_keeps_with_their_points() -> None:
    table = make_table(seed=7)
    phones = phones_at(table)
    while True:
        table.refresh_from_db()
        public = table.loaded().view(None).public
        if public["phase"] == "keep":
            break
        kind = "toss" if "toss" in public["legal"] else public["legal"][0]
        assert move(phones[to_move(table)], table, kind).status_code == 200
    seat = to_move(table)
    mine = phones[seat].get(url("state", table)).json()
    assert mine["on_turn"] and mine["keeps"] and all(isinstance(k["points"], int) for k in mine["keeps"])
    assert {tuple(k["dice"]) for k in mine["keeps"]} == {
        tuple(m["dice"]) for m in mine["legal_moves"] if m["kind"] == "keep"}
    for other in (phones[(seat + 1) % 3], Client()):
        theirs = other.get(url("state", table)).json()
        assert not theirs["on_turn"] and "keeps" not in theirs and "legal_moves" not in theirs
        assert theirs["public"]["last_toss"] == mine["public"]["last_toss"]


def test_undo_is_offered_only_when_the_action_allows_it() -> None:
    table = make_table(seed=7)
    phones = phones_at(table)
    for _ in range(200):  # to the first keep that can be undone
        table.refresh_from_db()
        public = table.loaded().view(None).public
        seat = to_move(table)
        phone = phones[seat]
        if public["phase"] == "keep":
            state = phone.get(url("state", table)).json()
            assert state["can_undo"] is False  # the toss before it: chance
            kept = move(phone, table, "keep", dice=[str(d) for d in state["keeps"][-1]["dice"]]).json()
            assert kept["can_undo"] is (actions.undo_refusal(Table.objects.get(pk=table.pk), seat) is None)
            if kept["can_undo"]:
                assert move(phone, table, "undo").status_code == 200
                assert phone.get(url("state", table)).json()["public"]["phase"] == "keep"
                return
        kind = "toss" if "toss" in public["legal"] else public["legal"][0]
        move(phone, table, kind)
    pytest.fail("no keep that could be undone")


# --- The stream ----------------------------------------------------------------------------------


def test_a_phones_stream_follows_the_public_channel_and_only_its_own_seats(monkeypatch) -> None:
    followed: list[list[str]] = []
    snapshots: list[str] = []

    def record(request, channels, snapshot, private=()):
        followed.append([*channels, *(channel.name for channel in private)])
        snapshots.append(snapshot())
        return HttpResponse("")

    monkeypatch.setattr(phone_views, "event_stream_response", record)
    table = make_table()
    seated_phone(table, 2).get(url("events", table))
    Client().get(url("events", table))
    assert followed == [[table.channel, table.seat_channel(2)], [table.channel]]
    assert json.loads(snapshots[0])["seat"] == 2 and table.seed not in snapshots[0]


def test_the_screen_needs_its_own_token_and_follows_the_public_channel_only(monkeypatch) -> None:
    from games.table.views import watch

    table = make_table()
    followed: list[list[str]] = []

    def record(request, channels, snapshot, languages=()):
        followed.append(list(channels))
        return HttpResponse("")

    monkeypatch.setattr(watch, "event_stream_response", record)
    page = Client().get(url("screen", table, table.screen_token))
    assert page.status_code == 200 and table.commitment in page.content.decode()
    assert Client().get(url("screen", table, "forged-token")).status_code == 403
    assert Client().get(url("screen_events", table, "forged-token")).status_code == 403
    Client().get(url("screen_events", table, table.screen_token))
    assert followed == [[table.channel]]


# --- The seed, the replay and the check -----------------------------------------------------------


def play_to_the_end(phone: Client, table: Table, seat: int, seen: list[str]) -> Table:
    """Seat `seat` plays through `phone` (draw, play, toss, the biggest keep, bank when it can);
    bots play the other seats. Every answer's text goes into `seen`."""
    for _ in range(5000):
        table.refresh_from_db()
        if table.is_over:
            return table
        if to_move(table) != seat:
            assert play_bot_move(table, waiting=False) is not None
            continue
        state = phone.get(url("state", table))
        seen.append(state.content.decode())
        kinds = [m["kind"] for m in state.json()["legal_moves"]]
        if "keep" in kinds:
            answer = move(phone, table, "keep", dice=[str(d) for d in state.json()["keeps"][0]["dice"]])
        else:
            kind = next(k for k in ("stop", "end", "draw", "play", "toss", "continue") if k in kinds)
            answer = move(phone, table, kind)
        assert answer.status_code == 200, answer.content
        seen.append(answer.content.decode())
        seen.append(phone.get(url("table", table)).content.decode())
    pytest.fail("the game did not end")


def test_the_seed_is_in_no_response_before_the_end_and_in_the_replay_after() -> None:
    table = make_table(2, bots=["", "threshold"], seed=11)
    phone = seated_phone(table, 0)
    seen: list[str] = []
    for path in (url("table", table), url("state", table), url("screen", table, table.screen_token),
                 url("replay", table), url("check", table)):
        seen.append(phone.get(path).content.decode())
    assert phone.get(url("replay", table)).status_code == 409
    table = play_to_the_end(phone, table, 0, seen)
    assert not [text for text in seen if table.seed in text]
    replay = phone.get(url("replay", table)).content.decode()
    assert table.seed in replay and table.commitment in replay
    assert replay.count('class="replay-step"') == table.moves_made
    checked = phone.get(url("check", table)).content.decode()
    assert "Verified." in checked


def test_the_check_of_a_version_1_table_says_verified_once_in_plain_words_with_the_number_of_moves(
        monkeypatch: pytest.MonkeyPatch) -> None:
    version_1_tables(monkeypatch)  # a table of before version 2: the site's check alone
    table = play_out(make_table(2, bots=["threshold", "threshold"], started=True, seed=12))
    assert table.fairness == 1
    page = Client().get(url("check", table)).content.decode()
    verdict = page.split('role="status">', 1)[1].split("</p>", 1)[0]
    text = " ".join(verdict.replace("<strong>", "").replace("</strong>", "").split())
    assert text == f"Verified. All {table.moves_made} moves match the seed revealed at the end."


def test_the_check_of_a_version_2_table_runs_on_the_phone_from_the_record_and_says_the_sites_verdict_too() -> None:
    table = play_out(make_table(2, bots=["threshold", "threshold"], started=True, seed=12))
    page = Client().get(url("check", table)).content.decode()
    assert f'data-phone-check="{url("record", table)}"' in page and "js/verify_record.js" in page
    assert page.count('role="status"') == 1  # the phone's verdict: the site's is said without one
    assert f"All {table.moves_made} moves replay through the game's rules to the same scores." in page


def test_the_check_shows_the_first_difference_of_an_altered_record() -> None:
    table = make_table(2, bots=["threshold", "threshold"], started=True, seed=12)
    table = play_out(table)
    toss = table.moves.filter(move__kind="toss").first()
    toss.chance = [["toss", [6, 6, 6, 6, 6, 6]]]
    toss.save()
    checked = Client().get(url("check", table)).content.decode()
    assert "Not verified" in checked and f"move {toss.number}" in checked


def test_the_openers_page_shows_the_table_screens_link_and_qr_code_and_no_other_page_does() -> None:
    opener = Client()
    opened = opener.post(reverse("tables:new"), NEW_TABLE)
    table = Table.objects.get()
    screen = f"http://testserver{url('screen', table, table.screen_token)}"
    lobby = opener.get(opened["Location"]).content.decode()
    assert screen in lobby and lobby.count("<svg") >= 2  # the join code's and the screen's
    assert table.screen_token not in Client().get(url("table", table)).content.decode()
    assert table.screen_token not in seated_phone(table, 1).get(url("table", table)).content.decode()
    actions.start_table(table=table)
    assert screen in opener.get(url("table", table)).content.decode()  # mid-game, under Seats


def test_every_page_is_told_which_seats_the_game_waits_on_that_nobody_plays() -> None:
    table = make_table(2)
    phones = [seated_phone(table, seat) for seat in range(2)]
    on_turn = table.loaded().to_move()[0]
    assert phones[1 - on_turn].get(url("state", table)).json()["unheld"] == []
    actions.release_seat(table=table, number=on_turn)
    assert phones[1 - on_turn].get(url("state", table)).json()["unheld"] == [on_turn]
    assert Client().get(url("state", table)).json()["unheld"] == [on_turn]
    actions.hand_seat_to_bot(table=table, number=on_turn, level="easy")
    assert Client().get(url("state", table)).json()["unheld"] == []


def test_a_seat_taken_back_from_a_bot_is_its_phones_again_unless_that_phone_plays_another_seat_now() -> None:
    table = make_table(3)
    phones = [seated_phone(table, seat) for seat in range(3)]
    actions.hand_seat_to_bot(table=table, number=1, level="easy")
    assert phones[1].get(url("state", table)).json()["seat"] is None
    actions.take_seat_back(table=table, number=1)
    assert phones[1].get(url("state", table)).json()["seat"] == 1
    actions.hand_seat_to_bot(table=table, number=2, level="easy")
    actions.release_seat(table=table, number=0)
    assert phones[2].post(url("claim", table), {"seat": "0"}).status_code == 302  # no hidden hands here
    actions.take_seat_back(table=table, number=2)
    assert phones[2].get(url("state", table)).json()["seat"] == 0
    assert "I'm Cal" in Client().get(url("table", table)).content.decode(), "seat 2 waits for a phone"


def test_a_table_stopped_with_its_game_under_way_tells_its_phones_the_turn_was_stopped_and_counts_nothing() -> None:
    from games.table.renderers import STOPPED

    table = make_table(2)
    phone = seated_phone(table, to_move(table))
    assert phone.post(url("move", table), {"kind": "draw", "key": "k1"}).status_code == 200
    assert phone.get(url("state", table)).json()["said"] != STOPPED
    actions.end_table(table=table)
    assert phone.get(url("state", table)).json()["said"] == STOPPED
    assert Client().get(url("state", table)).json()["said"] == STOPPED
