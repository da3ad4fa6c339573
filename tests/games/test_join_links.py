"""Join links (issue 8): a link names its night by an unguessable code, not a readable counter; a
forged, old-format or future-dated link is refused with a clear message; a link lives as long as
its night (capped at days), and once the night is over it admits no new phone and shows no names."""

from __future__ import annotations

import random
import zlib
from datetime import timedelta

import pytest
import time_machine
from django.core import signing
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.links import SALT, join_path, join_token, read_join_token
from games.night import actions
from games.night.models import Night
from tests.builders import NAMES, alert_of, make_night, phone_of, play_round, text

pytestmark = pytest.mark.django_db


def payload_of(token: str) -> dict:
    """What anyone can read in a link without the site's secret (signing hides nothing)."""
    data = token.split(":", 1)[0]
    compressed = data.startswith(".")
    raw = signing.b64_decode(data.lstrip(".").encode())
    if compressed:
        raw = zlib.decompress(raw)
    return signing.JSONSerializer().loads(raw)


def with_payload(token: str, payload: dict) -> str:
    """The same signature over another payload: what someone editing a readable link sends."""
    data = signing.b64_encode(signing.JSONSerializer().dumps(payload)).decode()
    return ":".join([data, *token.split(":")[1:]])


def joined(client: Client, night: Night) -> bool:
    return bool(client.session.get(f"joined:{night.pk}"))


# What a link carries


def test_a_link_names_its_night_by_its_code_and_never_by_its_id(night):
    assert payload_of(join_token(night.code)) == {"c": night.code}
    assert payload_of(join_token(night.code, 2)) == {"c": night.code, "t": 2}
    with pytest.raises(TypeError):
        join_token(night.pk)


def test_a_link_whose_readable_payload_is_edited_to_another_night_is_refused(night, client):
    other = make_night(seed=2)
    forged = with_payload(join_token(night.code), {"c": other.code})
    response = client.get(reverse("games:join", args=[forged]))
    assert response.status_code == 403
    assert "isn't valid" in text(response)
    assert not joined(client, other) and not joined(client, night)


def test_a_link_whose_payload_is_edited_to_another_table_is_refused(night, client):
    forged = with_payload(join_token(night.code, 1), {"c": night.code, "t": 2})
    assert client.get(reverse("games:join", args=[forged])).status_code == 403
    assert not joined(client, night)


def test_a_link_signed_with_the_old_readable_counter_is_refused_with_a_clear_message(night, client):
    old = signing.dumps({"n": night.pk, "t": 1}, salt=SALT, compress=True)  # the site's links before issue 8
    response = client.get(reverse("games:join", args=[old]))
    assert response.status_code == 403
    assert "older version of the site" in text(response)
    assert not joined(client, night)


# When a link works


def test_a_link_dated_in_the_future_is_refused(night, client):
    with time_machine.travel(timezone.now() + timedelta(hours=1), tick=False):
        path = join_path(night.code, 1)
    response = client.get(path)
    assert response.status_code == 403
    assert "isn't valid yet" in text(response)
    assert not joined(client, night)


def test_a_link_a_few_seconds_ahead_of_this_clock_still_works(night, client):
    """Another process whose clock runs a little fast signed it: within the allowed skew."""
    with time_machine.travel(timezone.now() + timedelta(seconds=30), tick=False):
        path = join_path(night.code, 1)
    assert client.get(path).status_code == 200


def test_a_link_works_all_night_even_a_day_after_it_was_printed(night, client):
    path = join_path(night.code, 1)
    with time_machine.travel(timezone.now() + timedelta(hours=26), tick=False):
        response = client.get(path)
    assert response.status_code == 200
    assert joined(client, night)


def test_a_link_still_expires_after_the_cap_for_a_night_nobody_ended(night, client, settings):
    path = join_path(night.code, 1)
    with time_machine.travel(timezone.now() + timedelta(seconds=settings.JOIN_LINK_MAX_AGE_SECONDS + 60), tick=False):
        response = client.get(path)
    assert response.status_code == 403
    assert alert_of(response) == "This join link has expired. Ask the host for tonight's QR code."
    assert settings.JOIN_LINK_MAX_AGE_SECONDS >= 2 * 24 * 60 * 60  # days, not the hours of a night


def test_reading_a_link_gives_the_code_and_table_it_was_made_for(night):
    ticket = read_join_token(join_token(night.code, 3))
    assert (ticket.code, ticket.table) == (night.code, 3)


# After the night


def ended(night: Night) -> Night:
    play_round(night, random.Random(1))
    return actions.end_night(night)


def test_a_link_of_an_ended_night_admits_no_new_phone_and_shows_no_names(night, client):
    names = list(night.players.real().values_list("name", flat=True))
    path = join_path(night.code, 2)
    ended(night)
    response = client.get(path)
    page = text(response)
    assert "Tonight's game is over" in page
    assert 'name="player"' not in page
    assert not any(f">{name}<" in page for name in names)
    assert not joined(client, night)


def test_a_phone_that_scanned_before_the_end_cannot_claim_a_name_after_it(night):
    phone = Client()
    assert phone.get(join_path(night.code)).status_code == 200
    ended(night)
    player = night.players.real().first()
    response = phone.post(reverse("games:claim", args=[night.code]), {"player": player.pk})
    assert response.status_code == 403
    assert alert_of(response) == "Tonight's game is over. See the prizes on the host's screen."
    player.refresh_from_db()
    assert player.claimed_by == ""
    assert f"player:{night.code}" not in phone.session


def test_a_player_of_an_ended_night_is_pointed_to_the_prizes(night):
    name = NAMES[0]
    phone = phone_of(night, name)
    ended(night)
    page = phone.get(join_path(night.code)).content.decode()
    assert reverse("games:prizes", args=[night.code]) in page
