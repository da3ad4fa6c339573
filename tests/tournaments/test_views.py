"""The tournament's pages: the director's dashboard, a group's phone by its signed QR link, the
projector by its token. Permissions first; bad input is a 4xx with a message and changes nothing."""

from __future__ import annotations

import html
from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tests.builders import alert_of, element_text, groups_of, logged_in, make_club, make_tournament, make_user
from tournaments import actions, deciding
from tournaments.links import group_path, group_token
from tournaments.models import Entrant, Group, Tournament, Turn

pytestmark = pytest.mark.django_db


def dashboard_url(tournament: Tournament) -> str:
    return reverse("tournaments:dashboard", args=[tournament.code])


def phone_for(group: Group) -> Client:
    """A phone that scanned the group's QR code."""
    phone = Client()
    response = phone.get(group_path(group.code))
    assert response.status_code == 302
    return phone


def started(tournament: Tournament) -> list[Group]:
    actions.start_round(tournament)
    return groups_of(tournament)


def turn_url(group: Group) -> str:
    return reverse("tournaments:group_turn", args=[group.code])


# --- The director ---------------------------------------------------------------------------------


def test_a_director_creates_a_tournament_and_lands_on_its_dashboard(director_client, director):
    response = director_client.post(reverse("tournaments:new"), {
        "name": "Spring Open", "format": "double", "round_minutes": "25", "face_off_minutes": "15",
        "grace_seconds": "120", "ties": "play_off", "grouping": "random", "point_goal": "10000",
        "vengeance_penalty": "2500",
    })
    tournament = Tournament.objects.get(name="Spring Open")
    assert response.status_code == 302 and response["Location"] == dashboard_url(tournament)
    assert (tournament.director, tournament.format, tournament.round_minutes) == (director, "double", 25)
    page = director_client.get(dashboard_url(tournament))
    assert page.status_code == 200
    assert "Register a player" in page.content.decode()


def test_a_round_length_written_oddly_is_refused_with_a_message(director_client):
    response = director_client.post(reverse("tournaments:new"), {
        "name": "Odd", "format": "single", "round_minutes": "２５", "face_off_minutes": "15",
        "grace_seconds": "120", "ties": "play_off", "grouping": "random", "point_goal": "10000",
        "vengeance_penalty": "2500",
    })
    assert response.status_code == 400
    assert "digits 0 to 9" in response.content.decode()
    assert not Tournament.objects.exists()


def test_an_outsider_reaches_no_director_page_and_a_visitor_is_sent_to_log_in(tournament):
    outsider = logged_in(make_user("outsider"))
    group_id = 1
    for url in (dashboard_url(tournament), reverse("tournaments:codes", args=[tournament.code]),
                reverse("tournaments:director_group", args=[tournament.code, group_id])):
        assert outsider.get(url).status_code == 403, url
    assert outsider.post(reverse("tournaments:start", args=[tournament.code])).status_code == 403
    assert outsider.post(reverse("tournaments:register", args=[tournament.code]), {"name": "Eve"}).status_code == 403
    assert outsider.post(reverse("tournaments:seed", args=[tournament.code])).status_code == 403
    assert Client().get(dashboard_url(tournament)).status_code == 302
    assert not tournament.rounds.exists()
    assert not tournament.entrants.filter(name="Eve").exists()


def test_the_director_registers_checks_in_and_starts_round_one(director_client, director):
    tournament = make_tournament(director, 0)
    url = reverse("tournaments:register", args=[tournament.code])
    for name in ("Ann", "Bea", "Cal"):
        director_client.post(url, {"name": name, "checked_in": "1"})
    late = director_client.post(url, {"name": "Dee"})
    assert late.status_code == 302
    dee = tournament.entrants.get(name="Dee")
    director_client.post(reverse("tournaments:check_in", args=[tournament.code, dee.pk]), {"present": "1"})
    response = director_client.post(reverse("tournaments:start", args=[tournament.code]), HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert "Round 1" in response.content.decode()
    assert tournament.players_in().count() == 4


def test_an_empty_or_duplicate_name_gets_a_clear_message_and_changes_nothing(director_client, tournament):
    url = reverse("tournaments:register", args=[tournament.code])
    for name, said in (("   ", "name"), ("ann 01", "already registered")):
        response = director_client.post(url, {"name": name}, HTTP_HX_REQUEST="true")
        assert response.status_code == 400
        assert said in response.content.decode()
    assert tournament.entrants.count() == 12


def test_a_drop_during_a_round_is_refused_with_409(director_client, tournament):
    started(tournament)
    someone = tournament.entrants.first()
    assert someone is not None
    response = director_client.post(reverse("tournaments:drop", args=[tournament.code, someone.pk]),
                                     HTTP_HX_REQUEST="true")
    assert response.status_code == 409
    someone.refresh_from_db()
    assert someone.status == Entrant.Status.IN


def test_the_dashboard_shows_every_groups_live_totals_and_clock(director_client, tournament):
    groups = started(tournament)
    player = groups[0].players()[0]
    actions.record_turn(group=groups[0], entrant=player, points=750)
    page = director_client.get(dashboard_url(tournament)).content.decode()
    assert f'id="tg{groups[0].pk}-e{player.pk}">750<' in page
    assert page.count("data-countdown") >= 2
    assert "+2 min" in page


def test_the_dashboard_offers_drop_only_between_rounds(director_client, tournament):
    drop = ">Drop</button>"
    assert drop in director_client.get(dashboard_url(tournament)).content.decode()  # before round 1
    round_ = actions.start_round(tournament)
    assert drop not in director_client.get(dashboard_url(tournament)).content.decode()  # during it
    points = 0
    for group in groups_of(tournament):
        for player in group.players():
            points += 50  # everyone's score differs: no play-off at the cut
            actions.record_turn(group=group, entrant=player, points=points)
    deciding.close_round_if_due(round_.ends_at + timedelta(minutes=10))
    tournament.refresh_from_db()
    assert tournament.round_under_way() is None
    assert drop in director_client.get(dashboard_url(tournament)).content.decode()  # decided


def test_a_correction_or_a_strike_sent_twice_from_the_directors_page_is_applied_once(director_client, tournament):
    """Issue 16 T3 for the director: each showing of the group's page carries fresh keys, so a
    double click or a resend is applied once, and a key reused for something else is refused."""
    group = started(tournament)[0]
    first, second, *_ = group.players()
    turn = actions.record_turn(group=group, entrant=first, points=500)
    page_url = reverse("tournaments:director_group", args=[tournament.code, group.pk])
    page = director_client.get(page_url).content.decode()
    correction_key = page.split('action="' + reverse("tournaments:correct", args=[tournament.code, group.pk]))[1]
    correction_key = correction_key.split('name="key" value="')[1].split('"')[0]
    strike_key = page.split('name="key" value="')[1].split('"')[0]
    assert correction_key != strike_key
    correct_url = reverse("tournaments:correct", args=[tournament.code, group.pk])
    for _ in range(2):
        director_client.post(correct_url, {"entrant": first.pk, "points": "150", "key": correction_key})
    assert group.scores()[first.name] == 650
    refused = director_client.post(correct_url, {"entrant": second.pk, "points": "150", "key": correction_key},
                                   follow=True)
    assert "already used for another entry" in refused.content.decode()
    assert group.scores()[second.name] == 0
    strike_url = reverse("tournaments:strike", args=[tournament.code, turn.pk])
    for _ in range(2):
        response = director_client.post(strike_url, {"key": strike_key}, follow=True)
        assert "already undone" not in response.content.decode()
    assert group.scores()[first.name] == 150
    assert director_client.get(page_url).content.decode().count(strike_key) == 0  # a fresh page, fresh keys


def test_the_director_extends_a_group_and_strikes_out_an_entry(director_client, tournament):
    group = started(tournament)[0]
    player = group.players()[0]
    turn = actions.record_turn(group=group, entrant=player, points=500)
    before = group.ends_at
    director_client.post(reverse("tournaments:extend", args=[tournament.code, group.pk]), {"minutes": "2"})
    group.refresh_from_db()
    assert before is not None and group.ends_at is not None and group.ends_at >= before + timedelta(minutes=2)
    director_client.post(reverse("tournaments:strike", args=[tournament.code, turn.pk]))
    assert group.scores()[player.name] == 0
    bad = director_client.post(reverse("tournaments:extend", args=[tournament.code, group.pk]), {"minutes": "99"},
                               HTTP_HX_REQUEST="true")
    assert bad.status_code == 400


def test_the_director_decides_a_tie_from_the_dashboard(director_client, director):
    tournament = make_tournament(director, 4, ties=Tournament.Ties.DIRECTOR)
    round_ = actions.start_round(tournament)
    deciding.close_round_if_due(round_.ends_at + timedelta(minutes=3))
    round_.refresh_from_db()
    assert round_.status == "play_off"
    page = director_client.get(dashboard_url(tournament)).content.decode()
    assert "Decide the tie" in page
    response = director_client.post(reverse("tournaments:decide", args=[tournament.code, 1]),
                                    {"order": ["Ann 4", "Ann 3", "Ann 2", "Ann 1"]})
    assert response.status_code == 302
    round_.refresh_from_db()
    assert round_.outcome["advancing"] == ["Ann 4", "Ann 3"]


# --- A group's phone ------------------------------------------------------------------------------


def test_a_phone_opens_its_group_by_the_signed_link_and_enters_a_turn(tournament):
    group = started(tournament)[0]
    phone = phone_for(group)
    page = phone.get(reverse("tournaments:group", args=[group.code]))
    assert page.status_code == 200
    first = group.players()[0]
    response = phone.post(turn_url(group), {"entrant": first.pk, "points": "1250", "key": "k1"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert f'id="tg{group.pk}-e{first.pk}">1250<' in response.content.decode()
    # The page moves on to the next player.
    assert 'class="is-next"' in response.content.decode()


def test_a_retried_turn_is_entered_once(tournament):
    group = started(tournament)[0]
    phone = phone_for(group)
    first = group.players()[0]
    for _ in range(3):
        phone.post(turn_url(group), {"entrant": first.pk, "points": "500", "key": "same"}, HTTP_HX_REQUEST="true")
    assert group.scores()[first.name] == 500


def test_bust_enters_zero_and_undo_takes_back_the_last_entry_once(tournament):
    group = started(tournament)[0]
    phone = phone_for(group)
    first, second, *_ = group.players()
    phone.post(turn_url(group), {"entrant": first.pk, "points": "500", "key": "a"})
    phone.post(turn_url(group), {"entrant": second.pk, "points": "", "bust": "1", "key": "b"})
    assert Turn.objects.filter(group=group, entrant=second, points=0).exists()
    for _ in range(2):
        phone.post(reverse("tournaments:group_undo", args=[group.code]), {"key": "undo-1"})
    phone.post(reverse("tournaments:group_undo", args=[group.code]), {"key": "undo-2"})
    assert group.scores()[first.name] == 0
    assert group.live_turns().count() == 0


def test_a_vengeance_entered_on_the_phone_hits_the_leader(tournament):
    group = started(tournament)[0]
    phone = phone_for(group)
    first, second, *_ = group.players()
    phone.post(turn_url(group), {"entrant": first.pk, "points": "3000", "key": "a"})
    phone.post(turn_url(group), {"entrant": second.pk, "points": "600", "vengeance": "1", "key": "b"})
    assert group.scores()[first.name] == 500
    assert group.scores()[second.name] == 600


def test_a_bust_with_a_vengeance_ticked_is_refused_with_a_message_and_changes_nothing(tournament):
    group = started(tournament)[0]
    phone = phone_for(group)
    first, second, *_ = group.players()
    phone.post(turn_url(group), {"entrant": first.pk, "points": "3000", "key": "a"})
    response = phone.post(turn_url(group), {"entrant": second.pk, "points": "", "bust": "1", "vengeance": "1",
                                            "key": "b"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert "A Vengeance bites only when the turn fills" in response.content.decode()
    assert group.scores()[first.name] == 3000
    assert group.turns.count() == 1


def test_a_key_reused_for_another_turn_gets_409_with_a_message_and_changes_nothing(tournament):
    group = started(tournament)[0]
    phone = phone_for(group)
    first, second, *_ = group.players()
    assert phone.post(turn_url(group), {"entrant": first.pk, "points": "500", "key": "k"}).status_code == 200
    response = phone.post(turn_url(group), {"entrant": second.pk, "points": "700", "key": "k"},
                          HTTP_HX_REQUEST="true")
    assert response.status_code == 409
    assert 'role="alert"' in response.content.decode()
    assert "already used for another entry" in response.content.decode()
    assert group.turns.count() == 1
    assert group.scores()[second.name] == 0


@pytest.mark.parametrize("points", ["abc", "²", "1_000", "9" * 5000, "75"])
def test_malformed_points_get_400_with_a_message_and_change_nothing(tournament, points):
    group = started(tournament)[0]
    phone = phone_for(group)
    response = phone.post(turn_url(group), {"entrant": group.players()[0].pk, "points": points}, HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert 'role="alert"' in response.content.decode()
    assert not Turn.objects.exists()


def test_a_group_phone_cannot_post_for_another_group(tournament):
    here, there = started(tournament)
    phone = phone_for(here)
    assert phone.post(turn_url(there), {"entrant": there.players()[0].pk, "points": "50"}).status_code == 403
    assert phone.post(turn_url(here), {"entrant": there.players()[0].pk, "points": "50"}).status_code == 403
    assert phone.get(reverse("tournaments:group", args=[there.code])).status_code == 403
    assert not Turn.objects.exists()


def test_a_phone_cannot_post_after_its_scores_are_final(tournament):
    group = started(tournament)[0]
    phone = phone_for(group)
    assert group.final_at is not None
    with time_machine.travel(group.final_at + timedelta(seconds=1), tick=False):
        deciding.close_round_if_due(timezone.now())
        response = phone.post(turn_url(group), {"entrant": group.players()[0].pk, "points": "50"},
                              HTTP_HX_REQUEST="true")
    assert response.status_code == 409
    assert alert_of(response) == "Time is up: Table 1's scores are final. That turn was not added."
    assert not Turn.objects.exists()


def test_a_tampered_or_foreign_link_is_refused(tournament):
    group = started(tournament)[0]
    token = group_token(group.code)
    response = Client().get(reverse("tournaments:group_join", args=[token[:-2] + "xx"]))
    assert response.status_code == 403
    assert "Scan the QR code on your table again" in response.content.decode()
    assert Client().get(reverse("tournaments:group", args=[group.code])).status_code == 403


# --- The projector and the stream -----------------------------------------------------------------


def test_the_projector_needs_its_token_and_shows_the_bracket(tournament):
    started(tournament)
    good = Client().get(reverse("tournaments:screen", args=[tournament.code, tournament.screen_token]))
    assert good.status_code == 200
    assert "data-countdown" in good.content.decode()
    assert Client().get(reverse("tournaments:screen", args=[tournament.code, "guess"])).status_code == 403


def test_the_stream_refuses_a_visitor_without_the_token_or_a_group_link(tournament):
    started(tournament)
    url = reverse("tournaments:events", args=[tournament.code])
    assert Client().get(url).status_code == 403
    assert Client().get(url + "?screen=guess").status_code == 403


def test_the_events_render_the_groups_new_totals(tournament):
    from live.models import Event
    from live.rendering import encode_event

    group = started(tournament)[0]
    player = group.players()[0]
    actions.record_turn(group=group, entrant=player, points=950)
    event = Event.objects.filter(channel=tournament.channel, kind="tournament_turn").latest("id")
    frame = encode_event(event.as_message()).decode()
    assert f'hx-target="#tg{group.pk}-e{player.pk}"' in frame and ">950<" in frame


def test_the_director_exports_every_rounds_results_as_csv(director_client, director):
    import csv
    import io

    tournament = make_tournament(director, 3)
    round_ = actions.start_round(tournament)
    group = groups_of(tournament)[0]
    for player, points in zip(group.players(), (500, 1000, 1500), strict=True):
        actions.record_turn(group=group, entrant=player, points=points)
    deciding.close_round_if_due(round_.ends_at + timedelta(minutes=3))
    response = director_client.get(reverse("tournaments:results_csv", args=[tournament.code]))
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == ["round", "kind", "group", "player", "score", "result"]
    results = {row[3]: row[5] for row in rows[1:]}
    assert sorted(results.values()) == ["eliminated", "through", "through"]
    outsider = logged_in(make_user("outsider"))
    assert outsider.get(reverse("tournaments:results_csv", args=[tournament.code])).status_code == 403


def test_a_name_that_looks_like_a_formula_is_exported_as_text():
    from tournaments.views.printouts import _csv_cell

    assert _csv_cell("=HYPERLINK(1)") == "'=HYPERLINK(1)"
    assert _csv_cell("Ann") == "Ann"


def test_the_director_registers_players_from_the_club_roster(director_client, director):
    from tests.builders import make_club, make_member

    club = make_club(hosts=[director])
    dana = make_member(club, name="Dana")
    tournament = make_tournament(director, 0, club=club)
    roster = element_text(director_client.get(dashboard_url(tournament)).content.decode(), **{"aria-label": "Club roster"})
    assert "Dana Register" in roster
    director_client.post(reverse("tournaments:register_member", args=[tournament.code, dana.pk]))
    assert tournament.entrants.get(member=dana).name == "Dana"
    again = director_client.post(reverse("tournaments:register_member", args=[tournament.code, dana.pk]),
                                 HTTP_HX_REQUEST="true")
    assert again.status_code == 400


def test_a_director_sees_only_their_own_tournaments(director_client, director, tournament):
    make_tournament(make_user("someone-else"), 2, name="Elsewhere Cup")
    page = director_client.get(reverse("tournaments:list")).content.decode()
    assert "Autumn Open" in page and "Elsewhere Cup" not in page
    assert Client().get(reverse("tournaments:list")).status_code == 302


def test_a_phone_on_last_rounds_group_is_told_to_scan_its_new_table(tournament):
    groups = started(tournament)
    phone = phone_for(groups[0])
    for group in groups:
        for n, player in enumerate(group.players()):
            actions.record_turn(group=group, entrant=player, points=(n + 1) * 100 + group.number * 1000)
    round_ = tournament.current_round()
    assert round_ is not None
    deciding.close_round_if_due(round_.ends_at + timedelta(minutes=3))
    actions.start_round(tournament)
    page = phone.get(reverse("tournaments:group", args=[groups[0].code])).content.decode()
    assert "scan the QR code of your new table" in page


def test_the_director_enters_a_play_off_from_the_dashboard(director_client, director):
    tournament = make_tournament(director, 3)
    round_ = actions.start_round(tournament)
    deciding.close_round_if_due(round_.ends_at + timedelta(minutes=3))  # 0-0-0: everyone tied at the line
    play_off = round_.groups.get(play_off=1)
    page = director_client.get(dashboard_url(tournament)).content.decode()
    assert reverse("tournaments:group", args=[play_off.code]) in page
    for points, player in zip((300, 200, 100), play_off.players(), strict=True):
        response = director_client.post(turn_url(play_off), {"entrant": player.pk, "points": str(points)},
                                        HTTP_HX_REQUEST="true")
        assert response.status_code == 200
    round_.refresh_from_db()
    assert round_.status == "decided"
    assert len(round_.outcome["advancing"]) == 2


def test_bad_group_links_from_one_address_are_limited_but_a_good_one_still_opens(tournament):
    from django.conf import settings

    group = started(tournament)[0]
    limit = int(settings.RATE_LIMITS["bad-join"].split("/")[0])
    phone = Client()
    statuses = [phone.get(reverse("tournaments:group_join", args=[f"bad-{n}"])).status_code for n in range(limit + 1)]
    assert statuses[0] == 403 and statuses[-1] == 429
    assert phone.get(group_path(group.code)).status_code == 302


@pytest.mark.parametrize("bad", ["9" * 5000, str(10**30)], ids=["5,000 digits", "10**30"])
@pytest.mark.parametrize("route", ["check_in", "drop", "extend", "strike", "director_group", "decide"])
def test_a_huge_number_in_a_director_url_is_not_found_rather_than_an_error(director_client, tournament, route, bad):
    url = reverse(f"tournaments:{route}", args=[tournament.code, 1]).replace("/1/", f"/{bad}/")
    response = director_client.get(url) if route == "director_group" else director_client.post(url)
    assert response.status_code == 404


def test_the_projector_reads_a_big_round_in_a_few_queries(director, django_assert_max_num_queries):
    tournament = make_tournament(director, 120, name="Big Hall")
    groups = started(tournament)
    for group in groups:
        actions.record_turn(group=group, entrant=group.players()[0], points=500)
    url = reverse("tournaments:screen", args=[tournament.code, tournament.screen_token])
    with django_assert_max_num_queries(25):
        page = Client().get(url)
    assert page.content.decode().count('<article class="bracket-group') == 20


def test_the_director_seeds_a_club_tournament_from_the_dashboard(director_client, director):
    club = make_club(name="Dash Club")
    tournament = make_tournament(director, 3, club=club, grouping=Tournament.Grouping.SEEDED)
    assert "Seed from the Dash Club standings" in director_client.get(dashboard_url(tournament)).content.decode()
    tournament.entrants.update(seed_rank=None)

    response = director_client.post(reverse("tournaments:seed", args=[tournament.code]))

    assert response.status_code == 302
    assert sorted(rank or 0 for rank in tournament.entrants.values_list("seed_rank", flat=True)) == [1, 2, 3]


# --- Issue 29, T8: a phone follows on to the next play-off ------------------------------------------


def group_url(group: Group) -> str:
    return reverse("tournaments:group", args=[group.code])


def test_a_play_off_that_ties_again_leads_its_phone_to_the_next(director):
    tournament = make_tournament(director, 3)
    round_ = actions.start_round(tournament)
    deciding.close_round_if_due(round_.ends_at + timedelta(minutes=3))  # 0-0-0: everyone tied at the line
    first = round_.groups.get(play_off=1)
    phone = phone_for(first)
    answers = [phone.post(turn_url(first), {"entrant": player.pk, "points": "100"}, HTTP_HX_REQUEST="true")
               for player in first.players()]
    second = round_.groups.get(play_off=2)  # 100-100-100: tied again
    # The turn that tied them again takes the phone on to the next play-off...
    assert [answer.status_code for answer in answers] == [200, 200, 204]
    assert answers[-1]["HX-Redirect"] == group_url(second)
    # ...and so does its page, asked again by the live region or opened afresh.
    assert phone.get(group_url(first), HTTP_HX_REQUEST="true")["HX-Redirect"] == group_url(second)
    assert phone.get(group_url(first))["Location"] == group_url(second)
    page = phone.get(group_url(second))
    assert page.status_code == 200
    assert 'id="turn-form"' in page.content.decode()
    for points, player in zip((300, 200, 100), second.players(), strict=True):
        assert phone.post(turn_url(second), {"entrant": player.pk, "points": str(points)},
                          HTTP_HX_REQUEST="true").status_code == 200
    round_.refresh_from_db()
    assert round_.status == "decided"
    assert "is decided" in phone.get(group_url(second)).content.decode()  # the end of the line: it stays


def test_a_tables_phone_goes_on_to_the_play_off_of_its_players_tied_at_the_line(director):
    tournament = make_tournament(director, 3)
    round_ = actions.start_round(tournament)
    table = groups_of(tournament)[0]
    phone = phone_for(table)
    deciding.close_round_if_due(round_.ends_at + timedelta(minutes=3))
    play_off = round_.groups.get(play_off=1)
    assert phone.get(group_url(table))["Location"] == group_url(play_off)
    assert 'id="turn-form"' in phone.get(group_url(play_off)).content.decode()


# --- Issue 29, T9 ------------------------------------------------------------------------------------


def test_players_tied_when_eliminated_share_a_place_on_the_board_and_the_dashboard(director, director_client):
    tournament = make_tournament(director, 4)
    round_ = actions.start_round(tournament)
    group = groups_of(tournament)[0]
    scores = {"Ann 1": 1500, "Ann 2": 1600, "Ann 3": 1350, "Ann 4": 1350}
    for player in group.players():
        actions.record_turn(group=group, entrant=player, points=scores[player.name])
    deciding.close_round_if_due(round_.ends_at + timedelta(minutes=3))
    face_off = actions.start_round(tournament)
    final = groups_of(tournament)[0]
    actions.record_turn(group=final, entrant=final.players()[0], points=500)
    deciding.close_round_if_due(face_off.ends_at + timedelta(minutes=3))
    places = dict(tournament.entrants.values_list("name", "final_place"))
    assert places["Ann 3"] == places["Ann 4"] == 3
    screen = Client().get(reverse("tournaments:screen", args=[tournament.code, tournament.screen_token]))
    assert screen.content.decode().count("3rd (tied)") == 2
    page = dashboard_url(tournament)
    assert director_client.get(page).content.decode().count('<li value="3">') == 2


def test_a_play_off_sheet_shows_no_vengeance(director):
    tournament = make_tournament(director, 3)
    round_ = actions.start_round(tournament)
    deciding.close_round_if_due(round_.ends_at + timedelta(minutes=3))
    page = phone_for(round_.groups.get(play_off=1)).get(group_url(round_.groups.get(play_off=1))).content.decode()
    assert "Vengeance" not in page.replace("(no Vengeance)", "")
    assert "one turn each, scored alone" in page


def test_end_round_now_makes_the_phones_say_the_director_ended_the_round(director, director_client):
    tournament = make_tournament(director, 4)
    group = started(tournament)[0]
    for points, player in enumerate(group.players(), start=1):  # no tie at the line
        actions.record_turn(group=group, entrant=player, points=points * 100)
    phone = phone_for(group)
    director_client.post(reverse("tournaments:end_now", args=[tournament.code]), {"round": "1"})
    page = html.unescape(phone.get(group_url(group)).content.decode())
    assert f"The director ended Round 1 now: {group}'s scores are final." in page
    assert "data-ended-now" in page and "Time is up" not in page
