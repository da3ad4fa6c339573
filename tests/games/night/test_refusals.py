"""The night's one answer to a refusal (games/night/views/shared.py `refused`): a refusal raised by
an action reaches a phone as JSON with its message, and the host's page as its partial (or, for
a plain form post, the host's page with the message on top), with nothing changed (issue 17,
acceptance 3, for the night)."""

from __future__ import annotations

import html

import pytest
from django.contrib.messages import get_messages
from django.db import models
from django.urls import reverse

from games.night import actions
from games.night.models import Night, Player, PrizeAward, Round, Seat, TableRound, Tally
from live.models import Event
from live.refusals import Refusal
from tests.builders import joined_phone, make_night, night_host_browser, seated, tap

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def everything() -> dict[str, list[dict[str, object]]]:
    """Every row the night's actions may write, to show a refused request wrote none."""
    kinds: tuple[type[models.Model], ...] = (Night, Player, Round, TableRound, Seat, Tally, PrizeAward, Event)
    return {kind.__name__: list(kind._default_manager.order_by("pk").values()) for kind in kinds}


def refusal_of(attempt) -> Refusal:
    with pytest.raises(Refusal) as refused:
        attempt()
    return refused.value


def test_it_answers_an_actions_refusal_to_a_phone_as_json_with_its_message_and_changes_nothing():
    night = make_night()  # round 1 is seated but not started: no table takes a tally yet
    player = seated(night, 2, 0)
    phone = joined_phone(night, player)
    before = everything()
    expected = refusal_of(lambda: actions.record_tally(night=night, table_number=2, team="A", points=1,
                                                       entered_by=player, key="k-1"))

    response = tap(phone, night, team="A", points="1", table="2", key="k-1")

    assert response.status_code == expected.status
    assert response["Content-Type"].startswith("application/json")
    assert response.json() == {"error": expected.message}
    assert everything() == before


def test_it_answers_an_actions_refusal_to_the_hosts_button_as_the_message_partial_and_changes_nothing():
    night = make_night()
    host = night_host_browser(night)
    before = everything()
    expected = refusal_of(lambda: actions.end_night(night, round_number=1))  # round 1 has not been played

    response = host.post(reverse("games:host_end", args=[night.code]), {"round": "1"}, headers=HTMX)

    assert response.status_code == expected.status
    assert [template.name for template in response.templates] == ["games/_message.html"]
    assert response.content.decode().strip() == (
        f'<p class="notice notice-error" role="alert">{html.escape(expected.message)}</p>')
    assert everything() == before


def test_it_answers_a_plain_post_from_the_hosts_page_with_that_page_and_the_message_on_top():
    night = make_night()
    host = night_host_browser(night)
    before = everything()
    expected = refusal_of(lambda: actions.end_night(night, round_number=1))

    response = host.post(reverse("games:host_end", args=[night.code]), {"round": "1"})

    assert response.status_code == 302
    assert response["Location"] == reverse("games:night_host", args=[night.code])
    assert [str(message) for message in get_messages(response.wsgi_request)] == [expected.message]
    assert everything() == before
