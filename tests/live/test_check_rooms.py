"""Connection-check rooms (issue 9): /check/ opens a fresh room behind a signed, expiring link; a
ping reaches the screens in its room and no other (the page, the slow poll, the stream); a forged
room is not found, an expired one says so and offers a new one."""

from __future__ import annotations

import asyncio
import html as html_escapes
import time

import pytest
from django.core import signing
from django.test import AsyncClient, Client
from django.urls import reverse

from live import actions
from live.actions import ROOM_MAX_AGE, CheckRoom, find_room, open_room
from live.models import Event
from live.streams import open_streams
from tests.live.test_events import in_a_thread, read_frames, run_async

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_streams")]

HTMX = {"HX-Request": "true"}


def text_of(response) -> str:
    """The response's body, HTML escapes undone ("isn&#x27;t" reads "isn't")."""
    return html_escapes.unescape(response.content.decode())


def page_of(room: CheckRoom) -> str:
    return reverse("live:connection_check_room", args=[room.token])


def feed_of(room: CheckRoom) -> str:
    return reverse("live:connection_check_feed", args=[room.token])


def ping_url_of(room: CheckRoom) -> str:
    return reverse("live:connection_check_ping", args=[room.token])


def stream_of(room: CheckRoom) -> str:
    return reverse("live:connection_check_events", args=[room.token])


def opened_ago(monkeypatch: pytest.MonkeyPatch, seconds: float) -> CheckRoom:
    """A room whose link was signed `seconds` ago."""
    signed_at = time.time() - seconds
    with monkeypatch.context() as past:
        past.setattr(time, "time", lambda: signed_at)  # the clock django.core.signing reads
        return open_room()


def forged_tokens() -> dict[str, str]:
    real = open_room().token
    room_id, stamp, signature = real.split(".")
    other_id = open_room().id
    return {
        "made up": "letmein",
        "another room's id under this signature": f"{other_id}.{stamp}.{signature}",
        "an altered signature": f"{room_id}.{stamp}.{signature[:-2]}{'AA' if signature[-2:] != 'AA' else 'BB'}",
        "cut short": real[:-5],
        "signed for join links": signing.TimestampSigner(salt="bunco-club.join", sep=".").sign(room_id),
        "not a room id, though signed": signing.TimestampSigner(salt=actions.SALT, sep=".").sign("a b"),
        "5,000 characters": "9" * 5000,
        "not ASCII": "é.٣.²",
    }


FORGED = forged_tokens()


# --- Opening and joining a room -----------------------------------------------------------------


def test_opening_the_check_starts_a_fresh_room_behind_a_signed_link():
    phone = Client()
    first, second = phone.get("/check/"), phone.get("/check/")
    assert first.status_code == second.status_code == 302
    assert first["Location"] != second["Location"]
    assert first["Location"].startswith("/check/")
    assert "no-cache" in first["Cache-Control"]  # every visit is a new room, never a cached one
    token = first["Location"].removeprefix("/check/").removesuffix("/")
    assert find_room(token).token == token


def test_the_room_page_shows_its_own_link_and_a_qr_code_for_the_others_to_join():
    room = open_room()
    page = Client().get(page_of(room))
    assert page.status_code == 200
    html = page.content.decode()
    link = f"http://testserver{page_of(room)}"
    assert f'id="room-link" href="{link}"' in html
    assert '<figure class="qr" id="room-qr"><svg' in html
    # The ping form, the poll and the stream all stay in this room.
    assert f'action="{ping_url_of(room)}"' in html
    assert f'hx-get="{feed_of(room)}"' in html
    assert f'hx-sse:connect="{stream_of(room)}"' in html


def test_a_ping_without_htmx_goes_back_to_its_room():
    room = open_room()
    response = Client().post(ping_url_of(room), {"name": "Ivy"})
    assert response.status_code == 302
    assert response["Location"] == page_of(room)
    assert Event.objects.get(kind="ping").channel == room.channel


def test_the_site_wide_check_is_gone():
    assert Client().get("/events/check/").status_code == 404
    # "ping" is read as a room's token now: a room's page, which takes no post (and logs nothing).
    assert Client().post("/check/ping/", {"name": "Old"}).status_code == 405
    assert not Event.objects.exists()


# --- One room's pings stay in that room ---------------------------------------------------------


def test_a_ping_in_one_room_never_shows_on_another_rooms_page_or_slow_poll():
    ours, theirs = open_room(), open_room()
    phone = Client()
    assert phone.post(ping_url_of(ours), {"name": "Alice"}, headers=HTMX).status_code == 200
    assert phone.post(ping_url_of(theirs), {"name": "Bea"}, headers=HTMX).status_code == 200

    our_page, their_page = phone.get(page_of(ours)).content.decode(), phone.get(page_of(theirs)).content.decode()
    assert "Alice" in our_page and "Bea" not in our_page
    assert "Bea" in their_page and "Alice" not in their_page

    our_feed, their_feed = phone.get(feed_of(ours)), phone.get(feed_of(theirs))
    assert our_feed.status_code == their_feed.status_code == 200
    assert "Alice" in our_feed.content.decode() and "Bea" not in our_feed.content.decode()
    assert "Bea" in their_feed.content.decode() and "Alice" not in their_feed.content.decode()


def test_a_fresh_room_shows_no_pings_from_rooms_before_it():
    actions.send_ping(open_room(), "Carmen")
    fresh = open_room()
    assert "No pings yet." in Client().get(page_of(fresh)).content.decode()
    assert "Carmen" not in Client().get(feed_of(fresh)).content.decode()


def test_a_ping_in_one_room_never_reaches_another_rooms_stream():
    ours, theirs = open_room(), open_room()
    actions.send_ping(ours, "Before")  # in the log before the streams open

    async def scenario() -> tuple[list[str], list[str]]:
        our_stream = await AsyncClient().get(stream_of(ours))
        their_stream = await AsyncClient().get(stream_of(theirs))
        ours_task = asyncio.create_task(read_frames(our_stream, 2))
        theirs_task = asyncio.create_task(read_frames(their_stream, 2))
        await asyncio.sleep(0.2)
        await in_a_thread(actions.send_ping)(ours, "Dana")
        # Their second frame is their own ping, sent after ours: ours never came in between.
        await asyncio.sleep(0.2)
        await in_a_thread(actions.send_ping)(theirs, "Eve")
        return await ours_task, await theirs_task

    (our_snapshot, our_live), (their_snapshot, their_live) = run_async(scenario())
    assert "Before" in our_snapshot and "Before" not in their_snapshot
    assert "Dana" in our_live
    assert "Eve" in their_live and "Dana" not in their_live


def test_a_reconnecting_stream_replays_only_its_own_rooms_pings():
    ours, theirs = open_room(), open_room()
    actions.send_ping(theirs, "Fay")
    actions.send_ping(ours, "Gus")

    async def scenario() -> list[str]:
        response = await AsyncClient().get(stream_of(ours), headers={"Last-Event-ID": "0"})
        return await read_frames(response, 1)

    [replayed] = run_async(scenario())
    assert "Gus" in replayed and "Fay" not in replayed


# --- Links that lead nowhere --------------------------------------------------------------------


@pytest.mark.parametrize("token", list(FORGED.values()), ids=list(FORGED))
def test_a_forged_room_is_not_found_everywhere_and_nothing_is_logged(token, settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "ping": "1/d"}
    phone = Client()
    page = phone.get(reverse("live:connection_check_room", args=[token]))
    assert page.status_code == 404
    assert "This connection check link isn't valid" in text_of(page)
    assert 'href="/check/"' in page.content.decode()  # a new check, one tap away

    feed = phone.get(reverse("live:connection_check_feed", args=[token]))
    assert feed.status_code == 404
    assert "hx-get" not in feed.content.decode()  # the slow poll stops

    ping_url = reverse("live:connection_check_ping", args=[token])
    for headers in ({}, HTMX):
        refused = phone.post(ping_url, {"name": "Forger"}, headers=headers)
        assert refused.status_code == 404
        assert "This connection check link isn't valid" in text_of(refused)
    assert phone.get(reverse("live:connection_check_events", args=[token])).status_code == 404
    assert open_streams.count("127.0.0.1") == 0

    assert not Event.objects.exists()
    # Not counted against the address either: its one ping of the day still goes through.
    assert phone.post(ping_url_of(open_room()), {"name": "Real"}).status_code == 302


def test_an_expired_room_says_so_and_offers_a_new_one(monkeypatch):
    room = opened_ago(monkeypatch, ROOM_MAX_AGE.total_seconds() + 60)
    phone = Client()

    page = phone.get(page_of(room))
    assert page.status_code == 410
    html = page.content.decode()
    assert "This connection check has expired" in html
    assert 'href="/check/">Start a new check' in html
    assert "ping-form" not in html

    feed = phone.get(feed_of(room))
    assert feed.status_code == 410
    assert "has expired" in feed.content.decode() and "hx-get" not in feed.content.decode()

    for headers in ({}, HTMX):
        refused = phone.post(ping_url_of(room), {"name": "Late"}, headers=headers)
        assert refused.status_code == 410
        assert "has expired" in refused.content.decode()
    stream = phone.get(stream_of(room))
    assert stream.status_code == 410
    assert "has expired" in stream.content.decode()
    assert not Event.objects.exists()


def test_a_room_still_works_until_its_day_is_up(monkeypatch):
    room = opened_ago(monkeypatch, ROOM_MAX_AGE.total_seconds() - 60)
    assert Client().get(page_of(room)).status_code == 200
    assert Client().post(ping_url_of(room), {"name": "Just in time"}, headers=HTMX).status_code == 200
    assert Event.objects.filter(channel=room.channel).count() == 1


# --- Ping input ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["x" * 41, "Nul\x00l"], ids=["41 characters", "a null character"])
def test_a_bad_ping_is_refused_with_400_and_a_message_and_changes_nothing(name):
    room = open_room()
    response = Client().post(ping_url_of(room), {"name": name}, headers=HTMX)
    assert response.status_code == 400
    html = response.content.decode()
    assert 'id="name-errors"' in html
    assert f'action="{ping_url_of(room)}"' in html  # the form stays in its room
    assert not Event.objects.exists()
