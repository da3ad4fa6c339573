"""How big a night may be, how often nights may be started, and how long an abandoned one is kept.

A night seats at most settings.NIGHT_MAX_PLAYERS (400: 100 tables); starting nights is rate limited
per address and per host account; a "just play tonight" night (no club, no host account) nothing has
happened in for settings.NIGHT_RETENTION_DAYS is deleted with all its rows by a periodic job.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.conf import settings as django_settings
from django.core.management import call_command
from django.db.models import Q
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from games.night import actions, tasks
from games.night.models import Night, Player, Round, Seat, TableRound, Tally
from live.models import Event
from tests.builders import make_club, make_night, make_user, seated, started_night, tally

pytestmark = pytest.mark.django_db


def names(count: int) -> str:
    return "\n".join(f"Player {number}" for number in range(1, count + 1))


def start(client: Client, count: int = 12, **headers: Any):
    return client.post(reverse("games:night_new"), {"names": names(count), "buy_in": "5.00"}, **headers)


# --- How big ------------------------------------------------------------------------------------


def test_401_names_are_refused_with_a_message_and_no_night_starts():
    response = start(Client(), 401)
    assert response.status_code == 400
    page = response.content.decode()
    assert "A night takes at most 400 players (100 tables), and there are 401 names" in page
    assert not Night.objects.exists()


def test_400_names_start_a_night_of_100_tables():
    response = start(Client(), 400)
    assert response.status_code == 302
    night = Night.objects.get()
    assert night.round_obj(1).tables.count() == 100


def test_the_live_hint_under_the_names_says_how_many_players_a_night_takes():
    hint = Client().post(reverse("games:night_shape"), {"names": names(401)}).content.decode()
    assert "A night takes at most 400 players (100 tables)" in hint


def test_the_player_limit_is_a_setting_and_the_start_action_keeps_it_too(settings):
    settings.NIGHT_MAX_PLAYERS = 8
    assert "at most 8 players (2 tables)" in start(Client(), 9).content.decode()
    with pytest.raises(actions.BadTally, match="at most 8 players"):
        make_night(9)


# --- How often ----------------------------------------------------------------------------------


def test_starting_nights_from_one_address_is_rate_limited_with_a_message(settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "night-new": "2/d"}
    browser = Client()
    assert start(browser).status_code == 302
    assert start(browser).status_code == 302
    refused = start(browser)
    assert refused.status_code == 429
    assert "Too many nights started from here just now" in refused.content.decode()
    assert Night.objects.count() == 2
    assert start(Client(REMOTE_ADDR="10.1.1.1")).status_code == 302  # another address starts its own


def test_a_failed_form_is_not_counted_as_a_night_started(settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "night-new": "1/d"}
    browser = Client()
    assert start(browser, 2).status_code == 400  # 2 players cannot be seated: fix the list
    assert start(browser, 12).status_code == 302


def test_starting_nights_is_rate_limited_per_host_account_whatever_the_address(settings):
    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "night-new-host": "2/d"}
    host = make_user("busy-host")
    for address in ("10.0.0.1", "10.0.0.2"):
        browser = Client(REMOTE_ADDR=address)
        browser.force_login(host)
        assert start(browser).status_code == 302
    elsewhere = Client(REMOTE_ADDR="10.0.0.3")
    elsewhere.force_login(host)
    assert start(elsewhere).status_code == 429
    assert start(Client(REMOTE_ADDR="10.0.0.3")).status_code == 302  # someone else at that address


# --- How long -----------------------------------------------------------------------------------

NOW = timezone.now()
LONG_AGO = NOW - timedelta(days=31)


def night_started_long_ago(**fields) -> Night:
    """A night started (and a point scored in it) 31 days ago, with nothing since."""
    with time_machine.travel(LONG_AGO, tick=False):
        night = started_night(**fields)
        tally(night, 1, "A", 2)
    return night


def rows_of(night: Night) -> dict[str, int]:
    return {
        "players": Player.objects.filter(night=night).count(),
        "rounds": Round.objects.filter(night=night).count(),
        "tables": TableRound.objects.filter(round__night=night).count(),
        "seats": Seat.objects.filter(round__night=night).count(),
        "tallies": Tally.objects.filter(night=night).count(),
        "events": Event.objects.filter(Q(channel=night.channel) | Q(channel__startswith=f"{night.channel}:")).count(),
    }


def test_an_abandoned_night_is_purged_with_all_its_rows():
    night = night_started_long_ago()
    player = seated(night, 1, 0)
    with time_machine.travel(LONG_AGO, tick=False):  # the host handed a seat over: a private channel's event
        Player.objects.filter(pk=player.pk).update(claimed_by="a phone")
        assert actions.release_seat(night=night, player=player)
    assert all(rows_of(night).values())

    assert actions.purge_abandoned_nights(NOW) == 1

    assert not Night.objects.filter(pk=night.pk).exists()
    assert not any(rows_of(night).values())
    assert not Event.objects.filter(channel__startswith=f"{night.channel}:").exists()


def test_a_club_night_a_host_accounts_night_and_a_recent_night_are_kept():
    club_night = night_started_long_ago(club=make_club())
    hosted_night = night_started_long_ago(host_user=make_user("host-with-account"))
    recent_night = started_night()
    kept = [club_night, hosted_night, recent_night]

    assert actions.purge_abandoned_nights(NOW) == 0
    assert Night.objects.filter(pk__in=[night.pk for night in kept]).count() == 3


def test_an_old_night_played_within_the_retention_period_is_kept():
    night = night_started_long_ago()
    tally(night, 1, "B", 1)  # today
    assert actions.purge_abandoned_nights(NOW) == 0
    assert Night.objects.filter(pk=night.pk).exists()


def test_the_purge_can_run_again_and_again():
    night_started_long_ago()
    other = started_night()
    assert actions.purge_abandoned_nights(NOW) == 1
    assert actions.purge_abandoned_nights(NOW) == 0
    assert list(Night.objects.all()) == [other]


def test_the_retention_period_is_a_setting(settings):
    settings.NIGHT_RETENTION_DAYS = 40
    night = night_started_long_ago()
    assert actions.purge_abandoned_nights(NOW) == 0
    assert actions.purge_abandoned_nights(NOW + timedelta(days=10)) == 1
    assert not Night.objects.filter(pk=night.pk).exists()


def test_purge_nights_is_a_command_for_cron(capsys):
    night_started_long_ago()
    call_command("purge_nights")
    assert "Purged 1 abandoned night" in capsys.readouterr().out
    assert not Night.objects.exists()


def test_the_in_process_clock_purges_at_most_hourly(monkeypatch):
    monkeypatch.setattr(tasks.PURGE, "last", None)
    night_started_long_ago()
    tasks.purge_abandoned_nights_when_due()
    assert not Night.objects.exists()

    night_started_long_ago()
    tasks.purge_abandoned_nights_when_due()  # a second later: not yet
    assert Night.objects.count() == 1

    assert tasks.PURGE.last is not None
    monkeypatch.setattr(tasks.PURGE, "last", tasks.PURGE.last - django_settings.NIGHT_PURGE_INTERVAL_SECONDS)
    tasks.purge_abandoned_nights_when_due()  # an hour later
    assert not Night.objects.exists()


def test_the_purge_is_scheduled_in_both_layouts():
    assert django_settings.CELERY_BEAT_SCHEDULE["purge-abandoned-nights"] == {
        "task": "games.tasks.purge_abandoned_nights", "schedule": 24 * 60 * 60.0,
    }
    if django_settings.IN_PROCESS_CLOCK:
        assert "games.tasks.purge_abandoned_nights_when_due" in django_settings.CLOCK_TICKERS
