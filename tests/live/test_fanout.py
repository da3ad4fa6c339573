"""LocalFanout: a message reaches the subscriptions that follow its channel, and only those."""

from __future__ import annotations

import asyncio

from live.broadcasters import LocalFanout, Subscription
from tests.live.test_events import run_async


def message(event_id: int, channel: str) -> dict:
    return {"id": event_id, "channel": channel, "kind": "note", "data": {}}


def drained(subscription: Subscription) -> list[int]:
    ids = [message["id"] for message in subscription.waiting]
    subscription.waiting.clear()
    return ids


def test_a_message_reaches_only_the_subscriptions_following_its_channel():
    async def scenario() -> dict[str, list[int]]:
        fanout = LocalFanout()
        loop = asyncio.get_running_loop()
        public = Subscription(("night:1",), loop)
        private = Subscription(("night:1:player:7",), loop)
        phone = Subscription(("night:1", "night:1:player:7"), loop)
        elsewhere = Subscription(("night:2",), loop)
        for subscription in (public, private, phone, elsewhere):
            fanout.add(subscription)
        # Delivered from another thread, as a commit in a sync view would.
        await asyncio.to_thread(fanout.deliver, message(1, "night:1"))
        await asyncio.to_thread(fanout.deliver, message(2, "night:1:player:7"))
        await asyncio.to_thread(fanout.deliver, message(3, "night:1:player:8"))
        await asyncio.sleep(0.05)  # the loop runs the handed-over deliveries
        return {name: drained(sub) for name, sub in
                (("public", public), ("private", private), ("phone", phone), ("elsewhere", elsewhere))}

    assert run_async(scenario()) == {"public": [1], "private": [2], "phone": [1, 2], "elsewhere": []}


def test_a_subscription_with_two_channels_is_removed_from_both():
    async def scenario() -> tuple[list[int], list[int], list[int]]:
        fanout = LocalFanout()
        loop = asyncio.get_running_loop()
        phone = Subscription(("night:1", "night:1:player:7"), loop)
        stays = Subscription(("night:1",), loop)
        fanout.add(phone)
        fanout.add(stays)
        fanout.deliver(message(1, "night:1"))
        fanout.deliver(message(2, "night:1:player:7"))
        before = drained(phone)
        fanout.remove(phone)
        fanout.deliver(message(3, "night:1"))
        fanout.deliver(message(4, "night:1:player:7"))
        fanout.deliver_to_all(message(5, ""))
        return before, drained(phone), drained(stays)

    before, after, stays = run_async(scenario())
    assert before == [1, 2]
    assert after == []
    assert stays == [1, 3, 5]


def test_a_closing_message_reaches_a_two_channel_subscription_once():
    async def scenario() -> list[int]:
        fanout = LocalFanout()
        phone = Subscription(("night:1", "night:1:player:7"), asyncio.get_running_loop())
        fanout.add(phone)
        fanout.close_all()
        return drained(phone)

    assert run_async(scenario()) == [-1]


def test_removing_every_subscription_leaves_no_channel_behind():
    async def scenario() -> dict:
        fanout = LocalFanout()
        loop = asyncio.get_running_loop()
        subscriptions = [Subscription(("night:1", "night:1:player:7"), loop), Subscription(("night:1",), loop)]
        for subscription in subscriptions:
            fanout.add(subscription)
        for subscription in subscriptions:
            fanout.remove(subscription)
        return fanout._subscriptions

    assert run_async(scenario()) == {}
