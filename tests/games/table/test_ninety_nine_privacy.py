"""Each phone holds only its own hand (issue 20, acceptance 2): whole games played on phones
through the site, every response body and every event payload each phone and the table screen is
sent captured, and none carries another seat's hand or the deck before the game ends; a request
for another seat's hand is 403."""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.http import HttpResponse
from django.test import Client

from games.table.models import Table
from games.table.views import phone as phone_views
from games.table.views import watch
from live.models import Event
from live.rendering import encode_event
from tests.builders import seated_phone
from tests.builders import table_url as url
from tests.games.table.ninety_nine_tables import hand_of, ninety_nine_table, state_of

pytestmark = pytest.mark.django_db

SCREEN = -1  # the table screen's captures

# Everything a page may be told, key by key: nothing else (a hand, the deck) can slip in unseen.
PAYLOAD = {"code", "status", "moves_made", "commitment", "seed", "seat", "seats", "public", "private",
           "on_turn", "said", "legal_moves", "can_undo", "snapshot", "error", "unheld"}
PUBLIC = {"game", "seats", "count", "direction", "turn", "dealer", "next_dealer", "round", "phase", "top_card",
          "draw_pile", "markers", "scores", "cards", "loser", "winner", "winners", "events"}
EVENT = {"kind", "seat", "card", "count", "size"}
PRIVATE = {"seat", "hand", "makes", "legal"}
MOVED = {"id", "move", "view", "said"}
MOVE = {"number", "seat", "move", "chance", "scores", "by_bot", "client"}
TABLE_STATE = {"what", "view", "seat", "level", "quiet", "seed", "commitment", "winners", "stopped"}
SEAT = {"number", "name", "bot", "taken", "kept"}


@dataclass
class Capture:
    who: int  # a seat, or SCREEN
    what: str
    data: Any
    hand: list[Any] = field(default_factory=list)  # the seat's own hand when it was sent


def check_public(view: dict[str, Any]) -> None:
    assert set(view) <= PUBLIC, set(view) - PUBLIC
    assert type(view["draw_pile"]) is int  # how many cards, never which
    assert all(type(n) is int for n in view["cards"])
    for event in view["events"]:
        assert set(event) <= EVENT, event  # a lost deal's cards stay with their player


def check_private(private: dict[str, Any], capture: Capture) -> None:
    assert capture.who != SCREEN and private, f"the screen was sent a hand: {private}"
    assert set(private) <= PRIVATE
    assert private["seat"] == capture.who, f"seat {capture.who} was sent seat {private['seat']}'s hand"
    if capture.hand:
        assert private["hand"] == capture.hand
    assert all(card in private["hand"] for card in private["legal"])


def check(capture: Capture) -> None:
    data = capture.data
    if capture.what == "moved":
        assert set(data) <= MOVED and set(data["move"]) <= MOVE
        assert data["move"]["chance"] == [], "the cards drawn went out on the table's channel"
        check_public(data["view"])
    elif capture.what == "hand":
        assert set(data) == {"private"}
        check_private(data["private"], capture)
    elif capture.what == "table_state":
        assert set(data) <= TABLE_STATE
        if "view" in data:
            check_public(data["view"])
        assert data.get("seed") is None, "the seed went out before the end"
    else:  # a page's payload, a move's answer, a poll, a snapshot
        assert set(data) <= PAYLOAD, set(data) - PAYLOAD
        if "error" in data:
            return
        assert data["seed"] is None, "the seed went out before the end"
        assert all(set(seat) <= SEAT for seat in data["seats"])
        check_public(data["public"])
        if data["private"]:
            check_private(data["private"], capture)
        for move in data.get("legal_moves", []):
            assert move.get("card", capture.hand[0] if capture.hand else None) in (capture.hand or [None])


def page_payload(html: str) -> dict[str, Any]:
    found = re.search(r'<script id="table-data" type="application/json">(.*?)</script>', html, re.S)
    assert found, "the page has no payload"
    return json.loads(found.group(1))


def sse_payloads(frames: bytes) -> list[tuple[str, Any]]:
    out = []
    for block in frames.decode().strip().split("\n\n"):
        lines = block.split("\n")
        name = next(line[7:] for line in lines if line.startswith("event: "))
        data = "\n".join(line[6:] for line in lines if line.startswith("data: "))
        out.append((name, json.loads(data)))
    return out


def play_on_phones(players: int, seed: int, monkeypatch: pytest.MonkeyPatch) -> tuple[Table, list[Capture]]:
    """A whole game, every seat a phone (its page, its polls, its moves), the screen watching."""
    followed: dict[int, list[str]] = {}
    snapshots: dict[int, str] = {}

    def stream_of(who: int):  # noqa: ANN202
        def record(request, channels, snapshot, private=(), languages=()):  # noqa: ANN001, ANN202
            followed[who] = [*channels, *(channel.name for channel in private)]
            snapshots[who] = snapshot()
            return HttpResponse("")
        return record

    table = ninety_nine_table(players, markers=1, seed=seed)
    phones = [seated_phone(table, seat) for seat in range(players)]
    screen = Client()
    rng = random.Random(seed)
    captures: list[Capture] = []

    def keep(who: int, what: str, data: Any) -> None:
        captures.append(Capture(who, what, data, hand_of(table, who) if who != SCREEN else []))

    for seat, phone in enumerate(phones):
        monkeypatch.setattr(phone_views, "event_stream_response", stream_of(seat))
        phone.get(url("events", table))
        keep(seat, "snapshot", json.loads(snapshots[seat]))
    monkeypatch.setattr(watch, "event_stream_response", stream_of(SCREEN))
    screen.get(url("screen_events", table, table.screen_token))
    keep(SCREEN, "snapshot", json.loads(snapshots[SCREEN]))
    assert followed[SCREEN] == [table.channel]
    assert all(followed[seat] == [table.channel, table.seat_channel(seat)] for seat in range(players))

    refused = 0
    while not Table.objects.get(pk=table.pk).is_over:
        table.refresh_from_db()
        seat = table.loaded().to_move()[0]
        other = (seat + 1) % players
        asked = phones[other].get(url("state", table) + f"?seat={seat}")
        assert asked.status_code == 403, "a phone was sent another seat's hand"
        keep(other, "refusal", asked.json())
        refused += 1
        answer = phones[seat].get(url("state", table))
        keep(seat, "state", answer.json())
        legal = answer.json()["legal_moves"]
        chosen = legal[rng.randrange(len(legal))]
        data = {"kind": chosen["kind"], "key": f"m{table.moves_made}"}
        if "card" in chosen:
            data["card"] = str(chosen["card"])
        made = phones[seat].post(url("move", table), data)
        assert made.status_code == 200, made.content
        if not Table.objects.get(pk=table.pk).is_over:
            keep(seat, "move", made.json())
            keep(other, "page", page_payload(phones[other].get(url("table", table)).content.decode()))
            keep(SCREEN, "poll", screen.get(url("screen", table, table.screen_token),
                                            HTTP_ACCEPT="application/json").json())
            if table.moves_made % 7 == 0:  # (once the game is over the seed is everyone's)
                keep(SCREEN, "page", page_payload(screen.get(url("screen", table, table.screen_token)).content.decode()))
    assert refused > 0

    over = Event.objects.get(channel=table.channel, kind="table_state", data__what="over")
    for who, channels in followed.items():
        for event in Event.objects.filter(channel__in=channels, id__lt=over.id).order_by("id"):
            for name, data in sse_payloads(encode_event(event.as_message())):
                captures.append(Capture(who, name, data))
    return table, captures


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 3)])
def test_no_phone_and_no_screen_is_sent_another_seats_hand_or_the_deck_before_the_game_ends(
    players: int, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    table, captures = play_on_phones(players, seed, monkeypatch)
    table.refresh_from_db()
    assert table.is_over and len(captures) > 50
    kinds = {capture.what for capture in captures}
    assert {"moved", "hand", "state", "move", "page", "poll", "snapshot", "refusal"} <= kinds
    for capture in captures:
        check(capture)
    hands_sent = {(c.who, c.data["private"]["seat"]) for c in captures if c.what == "hand"}
    assert hands_sent == {(seat, seat) for seat in range(players)}


def test_a_request_for_another_seats_hand_is_403_and_for_its_own_is_answered() -> None:
    table = ninety_nine_table(3)
    phone = seated_phone(table, 1)
    refused = phone.get(url("state", table) + "?seat=2")
    assert refused.status_code == 403 and "own seat" in refused.json()["error"]
    assert Client().get(url("state", table) + "?seat=0").status_code == 403
    mine = phone.get(url("state", table) + "?seat=1")
    assert mine.status_code == 200 and mine.json()["private"]["hand"] == hand_of(table, 1)
    spectator = Client().get(url("state", table)).json()
    assert spectator["private"] == {} and "hand" not in json.dumps(spectator)


def test_the_replay_shows_nothing_before_the_end_and_every_hand_after_it() -> None:
    table = ninety_nine_table(2, options={"markers": 1, "deck": {"10": 40}})
    hands = [hand_of(table, 0), hand_of(table, 1)]
    assert Client().get(url("replay", table)).status_code == 409
    phones = [seated_phone(table, 0), seated_phone(table, 1)]
    while not Table.objects.get(pk=table.pk).is_over:
        player = phones[state_of(table)["turn"]]
        assert player.post(url("move", table), {"kind": "play", "card": "10"}).status_code == 200
    page = Client().get(url("replay", table)).content.decode()
    assert f"Ada holds {', '.join(map(str, hands[0]))}" in page and "Bea wins!" in page
