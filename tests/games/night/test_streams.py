"""A phone's stream follows the night's public channel and its own seat's private one.

One Last-Event-ID covers both (the log's ids are global), and a private channel's events reach
only the phone that plays as that seat: any other browser asking for it is refused.
"""

from __future__ import annotations

import asyncio
import re

import pytest
from django.db import transaction
from django.test import AsyncClient, Client, override_settings
from django.urls import reverse

from games.night.models import Night, Player
from live.log import log_event
from live.models import Event
from live.streams import REPLAY_OVERLAP_IDS
from tests.builders import joined_phone, night_host_browser, seated
from tests.live.test_events import in_a_thread, read_frames, run_async
from tests.live.test_log_watch import (
    a_watch_that_has_looked,
    open_stream,
    pub_sub_loses_everything,
    reads,  # noqa: F401  (a fixture)
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_streams")]


def stream_path(night: Night, player: Player) -> str:
    return reverse("games:player_events", args=[night.code, player.pk])


def async_phone(phone: Client) -> AsyncClient:
    """An async client with `phone`'s session cookie: the same browser, able to read a stream."""
    client = AsyncClient()
    client.cookies = phone.cookies
    return client


def frame_id(frame: str) -> int:
    match = re.search(r"^id: (\d+)$", frame, re.MULTILINE)
    assert match, frame
    return int(match.group(1))


def note(channel: str, text: str) -> int:
    """Log one event on `channel` in its own transaction, as an action would; its id."""
    with transaction.atomic():
        return log_event(channel, "note", {"text": text}).id


@pytest.fixture
def two_players(night):
    """Two real players of `night`, each with a joined phone."""
    first, second = seated(night, 1, 0), seated(night, 2, 0)
    return (first, joined_phone(night, first)), (second, joined_phone(night, second))


def test_a_phone_stream_gets_the_public_channel_and_its_own_private_one(night, two_players):
    (player, phone), _ = two_players

    def log_both() -> tuple[int, int]:
        with transaction.atomic():
            public = log_event(night.channel, "note", {"text": "for everyone"})
            private = log_event(player.private_channel, "note", {"text": "just for you"})
        return public.id, private.id

    async def scenario() -> tuple[tuple[int, int], list[str]]:
        response = await async_phone(phone).get(stream_path(night, player))
        assert response.status_code == 200
        assert response["Content-Type"] == "text/event-stream"
        frames_task = asyncio.create_task(read_frames(response, 3))
        await asyncio.sleep(0.2)  # the stream has subscribed
        ids = await in_a_thread(log_both)()
        return ids, await frames_task

    (public_id, private_id), (_snapshot, first, second) = run_async(scenario())
    assert (frame_id(first), frame_id(second)) == (public_id, private_id)
    assert "for everyone" in first
    assert "just for you" in second


def test_only_the_phone_playing_as_the_player_may_follow_their_private_channel(night, two_players):
    (player, _phone), (_other, other_phone) = two_players
    path = stream_path(night, player)

    refused_other = other_phone.get(path)
    assert refused_other.status_code == 403
    assert "another player&#x27;s stream" in refused_other.content.decode()

    refused_outsider = Client().get(path)
    assert refused_outsider.status_code == 403
    assert "join the game" in refused_outsider.content.decode()

    # The night's host follows the public stream, never a player's private one.
    assert night_host_browser(night).get(path).status_code == 403
    # A phone that scanned the code but has not tapped a name yet, too.
    assert joined_phone(night).get(path).status_code == 403


def test_an_unknown_night_is_not_found_and_an_unknown_player_refused(night, two_players):
    (player, phone), _ = two_players
    assert phone.get(reverse("games:player_events", args=["nosuchcode", player.pk])).status_code == 404
    assert phone.get(reverse("games:player_events", args=[night.code, player.pk + 1000])).status_code == 403


def test_a_private_event_never_reaches_another_players_stream(night, two_players):
    (player, phone), (other, other_phone) = two_players

    def log_private_then_public() -> tuple[int, int]:
        private = note(player.private_channel, "only for the first")
        public = note(night.channel, "for everyone")
        return private, public

    async def scenario() -> tuple[tuple[int, int], list[str], list[str]]:
        mine = await async_phone(phone).get(stream_path(night, player))
        theirs = await async_phone(other_phone).get(stream_path(night, other))
        mine_task = asyncio.create_task(read_frames(mine, 3))
        theirs_task = asyncio.create_task(read_frames(theirs, 2))
        await asyncio.sleep(0.2)
        ids = await in_a_thread(log_private_then_public)()
        return ids, await mine_task, await theirs_task

    (private_id, public_id), mine, theirs = run_async(scenario())
    assert [frame_id(frame) for frame in mine[1:]] == [private_id, public_id]
    # Had the private event leaked, it would have come first: it was committed first.
    assert frame_id(theirs[1]) == public_id
    assert all("only for the first" not in frame for frame in theirs)


def test_a_reconnect_replays_what_was_missed_on_both_channels_in_order(night, two_players):
    (player, phone), (other, _other_phone) = two_players
    seen = note(night.channel, "seen before the drop")
    missed = [
        note(night.channel, "public 1"),
        note(player.private_channel, "private 1"),
        note(night.channel, "public 2"),
    ]
    note(other.private_channel, "someone else's")  # not this phone's: skipped by the replay
    missed.append(note(player.private_channel, "private 2"))

    # What was missed comes after the last few this phone's channels had before it, once more
    # (live/streams.py REPLAY_OVERLAP_IDS: an event committed out of id order is not lost).
    again = list(Event.objects.on(night.channel, player.private_channel)
                 .after(seen - REPLAY_OVERLAP_IDS).filter(id__lte=seen).values_list("id", flat=True))
    assert seen in again

    async def scenario() -> list[str]:
        response = await async_phone(phone).get(
            stream_path(night, player), headers={"Last-Event-ID": str(seen)}
        )
        return await read_frames(response, len(again) + len(missed))

    frames = run_async(scenario())
    assert [frame_id(frame) for frame in frames] == again + missed
    assert "someone else" not in "".join(frames)


def test_the_phone_page_follows_its_own_stream(night, two_players):
    (player, phone), _ = two_players
    page = phone.get(reverse("games:play", args=[night.code])).content.decode()
    assert f'hx-sse:connect="{stream_path(night, player)}"' in page


@override_settings(EVENTS_HEARTBEAT_SECONDS=0.2)
def test_a_private_event_pub_sub_lost_reaches_only_its_players_stream_by_the_processs_look(
        night, two_players, monkeypatch, reads):  # noqa: F811  (reads: the imported fixture)
    (player, phone), (other, other_phone) = two_players

    def log_private_then_public() -> tuple[int, int]:
        private = note(player.private_channel, "only for the first")
        public = note(night.channel, "for everyone")
        return private, public

    async def scenario() -> tuple[tuple[int, int], str, str]:
        await a_watch_that_has_looked()  # the streams below are in each of its looks
        mine = await open_stream(async_phone(phone), stream_path(night, player))
        theirs = await open_stream(async_phone(other_phone), stream_path(night, other))
        pub_sub_loses_everything(monkeypatch)
        ids = await in_a_thread(log_private_then_public)()
        await mine.until(lambda s: f"id: {ids[1]}\n" in s.text, "the public note on the first phone")
        await theirs.until(lambda s: f"id: {ids[1]}\n" in s.text, "the public note on the second phone")
        texts = mine.text, theirs.text
        for stream in (mine, theirs):
            await stream.close()
        return ids, *texts

    (private_id, public_id), mine, theirs = run_async(scenario())
    # Found by the process's look, not by each stream reading for itself.
    assert reads.own == []
    assert mine.count(f"id: {private_id}\n") == 1 and "only for the first" in mine
    # The look found both at once, in id order: had the private one leaked, it would be there too.
    assert f"id: {private_id}\n" not in theirs and "only for the first" not in theirs
    assert theirs.count(f"id: {public_id}\n") == 1
