"""Check-in on the day (issue 46): the projector's rotating code, a player's personal link, the
director's tap, the window, the no-shows dropped and round 1 drawn from those checked in."""

from __future__ import annotations

import html
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from live.models import Event
from tests.builders import START, make_tournament
from tournaments import actions, check_in
from tournaments.links import group_token
from tournaments.models import CheckIn, Entrant, Tournament

pytestmark = pytest.mark.django_db

MINUTE = timedelta(minutes=1)
KEY = "0123456789abcdef0123456789abcdef"
OPEN = START - 30 * MINUTE  # inside the window: it opens an hour before the start


@pytest.fixture
def hall(director) -> Tournament:
    """Eight registered players, none checked in; round 1 due at START, check-in from an hour before."""
    tournament = make_tournament(director, 0)
    for number in range(1, 9):
        actions.register(tournament, f"Bea {number}")
    return actions.set_check_in_window(tournament, starts_at=START, minutes=60)


def bea(tournament: Tournament, number: int) -> Entrant:
    return tournament.entrants.get(name=f"Bea {number}")


def nothing_recorded(tournament: Tournament) -> bool:
    return not CheckIn.objects.filter(tournament=tournament).exists() and not tournament.entrants.filter(
        checked_in=True).exists()


def test_a_player_scanning_the_code_of_the_moment_is_checked_in_on_their_phone(hall):
    token = check_in.code_token(hall.code, OPEN)
    actions.check_in_by_code(hall, bea(hall, 1), token=token, phone="bea-1", now=OPEN + 10 * timedelta(seconds=1))
    player = bea(hall, 1)
    assert player.checked_in and player.phone == "bea-1"
    assert CheckIn.objects.get(entrant=player).how == CheckIn.How.CODE
    assert Event.objects.filter(channel=hall.channel, data__what="checked_in").exists()


def test_a_code_two_minutes_old_is_refused_as_expired_and_nothing_is_recorded(hall):
    token = check_in.code_token(hall.code, OPEN)
    with pytest.raises(check_in.BadCheckInCode, match="expired"):
        actions.check_in_by_code(hall, bea(hall, 1), token=token, phone="bea-1", now=OPEN + 2 * MINUTE)
    assert nothing_recorded(hall)


def test_a_forged_code_is_refused_and_nothing_is_recorded(hall):
    token = check_in.code_token(hall.code, OPEN)
    forged = token[:-3] + ("abc" if not token.endswith("abc") else "xyz")
    with pytest.raises(check_in.BadCheckInCode, match="isn't valid"):
        actions.check_in_by_code(hall, bea(hall, 1), token=forged, phone="bea-1", now=OPEN)
    with pytest.raises(check_in.BadCheckInCode, match="isn't valid"):  # the group links' salt opens nothing here
        actions.check_in_by_code(hall, bea(hall, 1), token=group_token("ABC"), phone="bea-1", now=OPEN)
    assert nothing_recorded(hall)


def test_another_tournaments_code_is_refused_and_nothing_is_recorded(hall, director):
    other = make_tournament(director, 2, name="Another Open")
    token = check_in.code_token(other.code, OPEN)
    with pytest.raises(check_in.BadCheckInCode, match="another tournament"):
        actions.check_in_by_code(hall, bea(hall, 1), token=token, phone="bea-1", now=OPEN)
    assert nothing_recorded(hall)


def test_a_code_used_after_the_window_is_refused_and_nothing_is_recorded(hall):
    token = check_in.code_token(hall.code, START - 10 * timedelta(seconds=1))
    with pytest.raises(actions.NotNow, match="closed at the start"):
        actions.check_in_by_code(hall, bea(hall, 1), token=token, phone="bea-1", now=START + timedelta(seconds=5))
    early = START - 2 * 60 * MINUTE
    with pytest.raises(actions.NotNow, match="opens at"):
        actions.check_in_by_code(hall, bea(hall, 1), token=check_in.code_token(hall.code, early), phone="bea-1",
                                 now=early)
    assert nothing_recorded(hall)


def test_a_phone_checks_in_one_player_and_a_player_from_one_phone(hall):
    token = check_in.code_token(hall.code, OPEN)
    actions.check_in_by_code(hall, bea(hall, 1), token=token, phone="bea-1", now=OPEN)
    with pytest.raises(actions.NotYourGroup, match="each player checks in on their own phone"):
        actions.check_in_by_code(hall, bea(hall, 2), token=token, phone="bea-1", now=OPEN)
    with pytest.raises(actions.NotYourGroup, match="another phone"):
        actions.check_in_by_code(hall, bea(hall, 1), token=token, phone="someone-else", now=OPEN)
    assert not bea(hall, 2).checked_in


def test_a_retried_check_in_counts_once_and_its_key_for_another_player_is_refused(hall):
    token = check_in.code_token(hall.code, OPEN)
    first = actions.check_in_by_code(hall, bea(hall, 1), token=token, phone="bea-1", key=KEY, now=OPEN)
    again = actions.check_in_by_code(hall, bea(hall, 1), token=token, phone="bea-1", key=KEY, now=OPEN)
    assert again.pk == first.pk and CheckIn.objects.count() == 1
    with pytest.raises(actions.KeyReused):
        actions.check_in_by_code(hall, bea(hall, 2), token=token, phone="bea-2", key=KEY, now=OPEN)
    assert not bea(hall, 2).checked_in


def test_a_personal_link_checks_its_player_in_within_the_window(hall):
    actions.check_in_by_link(hall, bea(hall, 3), phone="bea-3", now=OPEN)
    assert bea(hall, 3).checked_in
    with pytest.raises(actions.NotNow, match="closed at the start"):
        actions.check_in_by_link(hall, bea(hall, 4), phone="bea-4", now=START)
    assert not bea(hall, 4).checked_in


def test_at_the_start_the_no_shows_are_dropped_and_round_one_is_drawn_from_those_checked_in(hall):
    token = check_in.code_token(hall.code, OPEN)
    for number in range(1, 6):
        actions.check_in_by_code(hall, bea(hall, number), token=token, phone=f"bea-{number}", now=OPEN)
    actions.check_in(hall, bea(hall, 6))  # the director's tap

    dropped = actions.drop_no_shows(hall)

    assert sorted(entrant.name for entrant in dropped) == ["Bea 7", "Bea 8"]
    assert bea(hall, 7).status == Entrant.Status.NO_SHOW
    round_ = actions.start_round(hall, now=START)
    seated = {player.name for group in round_.groups.all() for player in group.players()}
    assert seated == {f"Bea {number}" for number in range(1, 7)}


def test_the_director_checks_in_a_no_show_who_comes_after_all(hall):
    actions.drop_no_shows(hall)
    actions.check_in(hall, bea(hall, 8))
    assert bea(hall, 8).status == Entrant.Status.REGISTERED and bea(hall, 8).checked_in
    with pytest.raises(actions.NotNow, match="no-show"):  # but not themself: the director decided
        actions.check_in_by_link(hall, bea(hall, 7), phone="bea-7", now=OPEN)


def test_the_window_is_the_directors_to_set_before_round_one(hall):
    with pytest.raises(actions.BadEntry, match="minutes before the start"):
        actions.set_check_in_window(hall, starts_at=START, minutes=1)
    actions.check_in(hall, bea(hall, 1))
    actions.check_in(hall, bea(hall, 2))
    actions.start_round(hall, now=START)
    with pytest.raises(actions.NotNow, match="Registration is closed"):
        actions.set_check_in_window(hall, starts_at=START, minutes=60)


# --- On the pages -----------------------------------------------------------------------------------


@pytest.fixture
def open_hall(director) -> Tournament:
    """Check-in open now: round 1 starts in half an hour."""
    tournament = make_tournament(director, 0)
    for number in range(1, 5):
        actions.register(tournament, f"Bea {number}")
    return actions.set_check_in_window(tournament, starts_at=timezone.now() + 30 * MINUTE, minutes=60)


def test_the_projector_shows_the_code_of_the_moment_and_the_count(open_hall):
    page = Client().get(reverse("tournaments:screen", args=[open_hall.code, open_hall.screen_token])).content.decode()
    assert 'id="check-in-code"' in page and "<svg" in page
    assert f"/t/{open_hall.code}/check-in/" in page
    assert "0 of 4 checked in" in page


def test_the_projector_shows_no_code_outside_the_window(director):
    tournament = make_tournament(director, 4)
    page = Client().get(reverse("tournaments:screen", args=[tournament.code, tournament.screen_token])).content.decode()
    assert 'id="check-in-code"' not in page


def test_a_phone_scans_the_code_taps_its_name_and_is_checked_in(open_hall):
    url = check_in.code_path(open_hall.code, timezone.now())
    phone = Client()
    page = phone.get(url).content.decode()
    assert "Tap your name" in page and "Bea 2" in page
    response = phone.post(url, {"entrant": bea(open_hall, 2).pk, "key": KEY})
    assert response.status_code == 302
    assert bea(open_hall, 2).checked_in
    assert "checked in. Wait for the director" in phone.get(url).content.decode()


def test_a_phone_scanning_an_old_code_is_told_to_scan_again(open_hall):
    url = check_in.code_path(open_hall.code, timezone.now() - 2 * MINUTE)
    response = Client().get(url)
    assert response.status_code == 403 and "has expired" in response.content.decode()
    response = Client().post(url, {"entrant": bea(open_hall, 1).pk, "key": KEY})
    assert response.status_code == 403 and nothing_recorded(open_hall)


def test_a_personal_link_opens_its_players_page_and_checks_them_in(open_hall):
    player = bea(open_hall, 3)
    phone = Client()
    page = phone.get(player.personal_path()).content.decode()
    assert "Bea 3" in page and "check me in" in page
    token = player.personal_path().rstrip("/").rsplit("/", 1)[1]
    response = phone.post(reverse("tournaments:player_check_in", args=[open_hall.code, token]), {"key": KEY})
    assert response.status_code == 302 and bea(open_hall, 3).checked_in
    assert CheckIn.objects.get(entrant=player).how == CheckIn.How.LINK


def test_a_personal_link_of_another_tournament_opens_nothing(open_hall, director):
    other = make_tournament(director, 2, name="Another Open")
    stranger = other.entrants.first()
    assert stranger is not None
    token = stranger.personal_path().rstrip("/").rsplit("/", 1)[1]
    response = Client().get(reverse("tournaments:player", args=[open_hall.code, token]))
    assert response.status_code == 403


def test_the_director_sets_the_window_and_drops_the_no_shows_from_the_dashboard(open_hall, director_client):
    dashboard = director_client.get(reverse("tournaments:dashboard", args=[open_hall.code])).content.decode()
    assert "Check-in is open" in dashboard and "Drop the no-shows" in dashboard
    response = director_client.post(reverse("tournaments:no_shows", args=[open_hall.code]))
    assert response.status_code == 302
    assert open_hall.entrants.filter(status=Entrant.Status.NO_SHOW).count() == 4
    response = director_client.post(reverse("tournaments:check_in_window", args=[open_hall.code]),
                                    {"starts_at": "2030-01-05T19:00", "minutes": "45"})
    assert response.status_code == 302
    open_hall.refresh_from_db()
    assert open_hall.check_in_minutes == 45 and open_hall.starts_at is not None


def _forged(tournament: Tournament) -> str:
    token = check_in.code_token(tournament.code, timezone.now())
    return token[:-3] + ("abc" if not token.endswith("abc") else "xyz")


def _another_tournaments(tournament: Tournament) -> str:
    other = make_tournament(tournament.director, 2, name="Another Open")
    return check_in.code_token(other.code, timezone.now())


@pytest.mark.parametrize(("code_of", "said"), [
    (lambda tournament: check_in.code_token(tournament.code, timezone.now() - 2 * MINUTE), "has expired"),
    (_forged, "isn't valid. Scan the code on the projector again"),
    (_another_tournaments, "is for another tournament. Scan the code on this tournament's projector"),
], ids=["expired", "forged", "from another tournament"])
def test_a_phone_with_a_bad_code_is_told_why_on_the_page_and_nothing_is_recorded(open_hall, code_of, said):
    url = reverse("tournaments:check_in_scan", args=[open_hall.code, code_of(open_hall)])
    phone = Client()
    for response in (phone.get(url), phone.post(url, {"entrant": bea(open_hall, 1).pk, "key": KEY})):
        assert response.status_code == 403
        assert said in html.unescape(response.content.decode())
    assert nothing_recorded(open_hall)


def test_a_code_reused_after_the_window_is_refused_on_the_page_and_nothing_more_is_recorded(open_hall):
    url = check_in.code_path(open_hall.code, timezone.now())
    phone = Client()
    assert phone.post(url, {"entrant": bea(open_hall, 1).pk, "key": KEY}).status_code == 302
    Tournament.objects.filter(pk=open_hall.pk).update(starts_at=timezone.now() - timedelta(seconds=1))  # the start
    latecomer = Client()  # the same code, still on a phone, used again once the window has closed
    for response in (latecomer.get(url), latecomer.post(url, {"entrant": bea(open_hall, 2).pk, "key": KEY[::-1]})):
        assert response.status_code >= 400
        assert "Check-in closed at the start" in response.content.decode()
    assert list(CheckIn.objects.filter(tournament=open_hall).values_list("entrant__name", flat=True)) == ["Bea 1"]
    assert not bea(open_hall, 2).checked_in
