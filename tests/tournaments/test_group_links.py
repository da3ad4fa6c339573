"""A tournament group's signed links (issue 17, issue 21): signed by live.signing like every other
link of the site, so a link dated in the future is refused as a join link is, with a message that
says what to do; a link made now still opens its group."""

from __future__ import annotations

import html
from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from tests.builders import groups_of
from tournaments import actions
from tournaments.links import FROM_THE_FUTURE, BadGroupLink, group_path, group_token, read_group_token

pytestmark = pytest.mark.django_db


def test_a_group_link_dated_in_the_future_is_refused_with_a_clear_message(tournament):
    actions.start_round(tournament)
    group = groups_of(tournament)[0]
    with time_machine.travel(timezone.now() + timedelta(hours=1), tick=False):
        future = group_path(group.code)
    response = Client().get(future)
    assert response.status_code == 403
    assert FROM_THE_FUTURE in html.unescape(response.content.decode())
    assert not response.cookies.get("sessionid")


def test_a_group_link_a_few_seconds_ahead_of_this_clock_still_opens_its_group(tournament):
    actions.start_round(tournament)
    group = groups_of(tournament)[0]
    with time_machine.travel(timezone.now() + timedelta(seconds=30), tick=False):
        ahead = group_token(group.code)
    assert read_group_token(ahead) == group.code
    assert Client().get(group_path(group.code)).status_code == 302


def test_reading_a_future_dated_group_token_names_the_reason():
    with time_machine.travel(timezone.now() + timedelta(days=1), tick=False):
        future = group_token("abc")
    with pytest.raises(BadGroupLink, match="isn't valid yet"):
        read_group_token(future)
