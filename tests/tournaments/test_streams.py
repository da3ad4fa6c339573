"""The projector's stream: a snapshot, then each group's new totals as turns are entered."""

from __future__ import annotations

import asyncio

import pytest
from django.test import AsyncClient
from django.urls import reverse

from tests.builders import groups_of, make_tournament, make_user
from tests.live.test_events import in_a_thread, read_frames, run_async
from tournaments import actions

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_streams")]


def test_the_projector_hears_a_groups_new_totals_as_the_turn_is_entered():
    tournament = make_tournament(make_user("director"), 6)
    actions.start_round(tournament)
    group = groups_of(tournament)[0]
    player = group.players()[0]
    url = reverse("tournaments:events", args=[tournament.code]) + f"?screen={tournament.screen_token}"

    async def scenario() -> list[str]:
        response = await AsyncClient().get(url)
        assert response.status_code == 200
        assert response["Content-Type"] == "text/event-stream"
        frames = asyncio.create_task(read_frames(response, 2))
        await asyncio.sleep(0.2)  # the stream has subscribed
        await in_a_thread(lambda: actions.record_turn(group=group, entrant=player, points=1100))()
        return await frames

    _snapshot, totals = run_async(scenario())
    assert f'hx-target="#tg{group.pk}-e{player.pk}"' in totals
    assert ">1100<" in totals
