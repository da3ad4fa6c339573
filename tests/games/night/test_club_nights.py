"""A club party's night: it starts with the club's house rules, and when its prizes are worked out
it reports every player's figures to the club, whose records (and so its season standings) follow
the night's corrected record."""

from __future__ import annotations

import io
import json
from collections import Counter
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from bunco_club.models import RSVP, NightRecord, Party, PrizeAmounts, Season
from games.night import actions
from games.rules import prizes
from tests.builders import (
    NAMES,
    PLAYERS_ALL_NIGHT,
    figures,
    fresh,
    make_club,
    make_member,
    make_user,
    played_night,
)

pytestmark = pytest.mark.django_db


def test_a_party_night_starts_with_the_clubs_house_rules(client):
    host = make_user()
    club = make_club(hosts=[host], tie_break="sudden_death", wipeout=True, one_prize_each=True,
                     prize_amounts=PrizeAmounts.DOLLARS_TO_MOST_BUNCOS)
    party = Party.objects.create(club=club, starts_at=timezone.now())
    client.force_login(host)

    form = client.get(reverse("games:night_new") + f"?party={party.pk}").context["form"]

    assert form.initial["tie_break"] == "sudden_death"
    assert form.initial["wipeout"] is True and form.initial["baby_bunco_ends_turn"] is False
    assert form.initial["one_prize_each"] is True
    assert form.initial["prize_amounts"] == "dollars_to_most_buncos"


def test_a_partys_night_starts_once_and_the_party_link_reopens_it(client):
    """Issue 16, C5: a second start would have made a second night whose end replaced the first's results."""
    host = make_user()
    club = make_club(hosts=[host])
    party = Party.objects.create(club=club, starts_at=timezone.now())
    client.force_login(host)
    night = actions.start_night(names=NAMES[:8], club=club, party=party)

    response = client.get(reverse("games:night_new") + f"?party={party.pk}")
    assert response.status_code == 302 and response["Location"] == reverse("games:night_host", args=[night.code])
    response = client.post(reverse("games:night_new") + f"?party={party.pk}", {"names": "\n".join(NAMES[:8])})
    assert response["Location"] == reverse("games:night_host", args=[night.code])
    with pytest.raises(actions.NotNow, match="started already"):
        actions.start_night(names=NAMES[:8], club=club, party=party)
    assert party.nights.count() == 1


def test_a_party_nights_prizes_are_reported_to_its_club_once_per_player():
    club = make_club()
    members = {name: make_member(club, name=name) for name in NAMES[:PLAYERS_ALL_NIGHT]}
    party = Party.objects.create(club=club, starts_at=timezone.now())
    night = played_night(PLAYERS_ALL_NIGHT, seed=7, club=club, party=party, members=members)

    awards = actions.award_prizes(night)

    records = {record.name: record for record in NightRecord.objects.filter(party=party)}
    sheets = figures(night)
    assert set(records) == set(sheets)  # the real players; never a ghost
    for name, player in sheets.items():
        record = records[name]
        assert (record.wins, record.losses, record.buncos) == (player.wins, player.losses, player.bunco_count)
        assert record.member == members[name]
        assert record.prize_cents == sum(a.amount_cents for a in awards if a.player.name == name)
        won = [prizes.PRIZE_TITLES[a.prize] for a in awards if a.player.name == name]
        assert record.prizes == ", ".join(won)  # as people read them on the club's page
    assert sum(record.prize_cents for record in records.values()) == night.pot_cents()


def test_working_a_party_nights_prizes_out_again_replaces_the_clubs_records():
    club = make_club()
    party = Party.objects.create(club=club, starts_at=timezone.now())
    night = played_night(PLAYERS_ALL_NIGHT, seed=7, club=club, party=party)
    actions.award_prizes(night)

    actions.reopen_last_round(fresh(night), table_number=1)
    actions.award_prizes(fresh(night))

    assert NightRecord.objects.filter(party=party).count() == PLAYERS_ALL_NIGHT


def test_season_standings_after_two_simulated_club_nights_are_the_sums_of_their_sheets(client):
    host = make_user()
    club = make_club(hosts=[host])
    members = [make_member(club, name=f"Member {number:02d}") for number in range(1, 14)]
    season = Season.objects.create(club=club, name="This year")
    expected: dict[str, Counter[str]] = {}
    for days_ago, coming, seed in ((30, members[:12], 1), (2, members, 2)):
        party = Party.objects.create(club=club, season=season, starts_at=timezone.now() - timedelta(days=days_ago))
        RSVP.objects.bulk_create(RSVP(party=party, member=member, answer=RSVP.Answer.YES) for member in coming)
        out = io.StringIO()
        call_command("simulate_night", "--party", str(party.pk), "--seed", str(seed), "--json", stdout=out)
        night = json.loads(out.getvalue())
        assert night["players"] == len(coming) and night["pot"] == club.buy_in_cents * len(coming)
        for sheet in night["sheets"]:
            expected.setdefault(sheet["name"], Counter()).update(
                {"nights": 1, "wins": sheet["wins"], "losses": sheet["losses"], "buncos": sheet["buncos"]})
        for award in night["prizes"]:
            expected[award["name"]]["prize_cents"] += award["amount"]
    client.force_login(host)

    table = client.get(reverse("clubs:standings", args=[club.slug, season.pk])).context["table"]

    assert {row.name: (row.nights, row.wins, row.losses, row.buncos, row.prize_cents) for row in table} == {
        name: (sums["nights"], sums["wins"], sums["losses"], sums["buncos"], sums["prize_cents"])
        for name, sums in expected.items()
    }
