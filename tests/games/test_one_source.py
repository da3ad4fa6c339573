"""One source per rule (DESIGN.md §3): whether a table takes tallies is one model predicate that the
tally action and the phone page both ask; whether the night can be re-opened or ended are model
predicates that the actions and the host's page both ask; the night's templates take its rounds,
sets and break from the engine; the page data (a table's teams, standings, a score sheet, the
tables at a glance) are model and QuerySet methods."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.urls import reverse

from games import actions
from games.actions import WrongState
from games.models import Night, Player, Round, Seat, TableRound, Tally
from games.rules import bunco
from games.templatetags.bunco import bunco_numbers
from tests.builders import add, fresh, make_night, night_host_page, phone_of, someone_at

pytestmark = pytest.mark.django_db

NAMES = ["Ada", "Bea", "Cal", "Dot", "Eve", "Fay", "Gus", "Hal"]  # 2 tables, no ghosts
TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "games"


# --- Builders ---------------------------------------------------------------------------------


def new_night(names: list[str] = NAMES) -> Night:
    return make_night(names=names, seed=5)


def play_round_1(night: Night) -> Night:
    """Round 1 played and closed; round 2 seated, not started."""
    actions.start_round(night)
    add(night, 2, "B", 2)
    add(night, 1, "A", 21)
    actions.finish_turn(night=night, table_number=2)
    night = fresh(night)
    assert (night.current_round, night.round_obj().status) == (2, Round.Status.READY)
    return night


# --- Whether a table takes tallies: one predicate, asked by the action and by the phone ----------

# (round status, table number, table status, whether a phone may score there)
STATES = [
    (Round.Status.READY, 2, TableRound.Status.PLAYING, False),
    (Round.Status.PLAYING, 1, TableRound.Status.PLAYING, True),
    (Round.Status.PLAYING, 2, TableRound.Status.PLAYING, True),
    (Round.Status.BELL, 1, TableRound.Status.DONE, False),
    (Round.Status.BELL, 1, TableRound.Status.ROLL_OFF, True),
    (Round.Status.BELL, 2, TableRound.Status.FINISHING, True),
    (Round.Status.BELL, 2, TableRound.Status.ROLL_OFF, True),
    (Round.Status.BELL, 2, TableRound.Status.DONE, False),
    (Round.Status.CLOSED, 2, TableRound.Status.DONE, False),
]


@pytest.mark.parametrize(("round_status", "number", "table_status", "takes"), STATES)
def test_the_phone_offers_the_buttons_exactly_when_the_tally_action_takes_a_tally(
    round_status, number, table_status, takes
):
    night = new_night()
    Round.objects.filter(night=night, number=1).update(status=round_status)
    roll_off = 1 if table_status == TableRound.Status.ROLL_OFF else 0
    TableRound.objects.filter(round__night=night, number=number).update(status=table_status, roll_off=roll_off)
    table = TableRound.objects.select_related("round").get(round__night=night, number=number)
    refusal = table.tally_refusal()
    assert (refusal is None) == takes

    player = night.players.get(name=someone_at(night, number))
    phone = phone_of(night, player)
    page = phone.get(reverse("games:play", args=[night.code])).content.decode()
    assert ('id="tally-form"' in page) == takes
    seat = Seat.objects.get(round__night=night, player=player)
    response = phone.post(reverse("games:tally", args=[night.code]),
                          {"table": number, "team": seat.team, "points": 1, "key": "k"})
    if takes:
        assert response.status_code == 200
        assert Tally.objects.count() == 1
    else:
        assert (response.status_code, response.json()["error"]) == (409, refusal)
        assert not Tally.objects.exists()


def test_the_head_table_rolling_off_a_tie_after_the_bell_takes_its_roll_off_tallies():
    night = new_night()
    Round.objects.filter(night=night, number=1).update(status=Round.Status.BELL)
    TableRound.objects.filter(round__night=night, number=1).update(status=TableRound.Status.ROLL_OFF, roll_off=1)
    entry = actions.record_tally(night=night, table_number=1, team="A", points=2)
    assert entry.roll_off == 1


def test_the_host_corrects_any_table_of_a_started_round_but_not_before_it_starts():
    night = new_night()
    table = TableRound.objects.select_related("round").get(round__night=night, number=1)
    assert table.tally_refusal(by_host=True) == "Round 1 has not started yet."
    with pytest.raises(WrongState, match="has not started yet"):
        actions.correct_tally(night=night, table_number=1, team="A", points=3)
    TableRound.objects.filter(pk=table.pk).update(status=TableRound.Status.DONE)
    Round.objects.filter(night=night).update(status=Round.Status.CLOSED)
    table = TableRound.objects.select_related("round").get(pk=table.pk)
    assert table.tally_refusal(by_host=True) is None
    assert actions.correct_tally(night=night, table_number=1, team="A", points=3).points == 3


# --- Re-opening and ending the night: model predicates the host's page reads ---------------------


def test_the_host_page_hides_end_night_and_reopen_when_the_night_cannot_end():
    night = new_night()
    actions.start_round(night)
    night = fresh(night)
    assert not night.can_end()
    assert not night.can_reopen_last_round()
    page = night_host_page(night)
    assert "End the night now" not in page
    assert "Re-open last round" not in page


def test_the_host_page_offers_end_night_and_reopen_between_rounds():
    night = play_round_1(new_night())
    assert night.can_end()
    assert night.can_reopen_last_round()
    page = night_host_page(night)
    assert "End the night now" in page
    assert "Re-open last round" in page


def test_after_the_night_the_host_page_offers_reopen_but_not_end():
    night = play_round_1(new_night())
    actions.end_night(night)
    night = fresh(night)
    assert not night.can_end()
    assert night.can_reopen_last_round()
    page = night_host_page(night)
    assert "End the night now" not in page
    assert "Re-open last round" in page
    assert "The night ended after round 1." in page


def test_ending_the_night_is_refused_with_the_reason_the_predicate_gives():
    night = new_night()
    reason = night.end_refusal()
    assert reason == "No round has been played yet."
    with pytest.raises(WrongState) as refused:
        actions.end_night(night)
    assert str(refused.value) == reason
    actions.start_round(night)
    night = fresh(night)
    reason = night.end_refusal()
    assert reason == "Round 1 is under way: finish it first, then end the night."
    with pytest.raises(WrongState) as refused:
        actions.end_night(night)
    assert str(refused.value) == reason


def test_reopening_the_last_round_is_refused_with_the_reason_the_predicate_gives():
    night = new_night()
    reason = night.reopen_refusal()
    assert reason is not None
    with pytest.raises(WrongState) as refused:
        actions.reopen_last_round(night)
    assert str(refused.value) == reason


# --- The night's numbers come from the engine --------------------------------------------------


def night_numbers_written_in(template: str) -> list[str]:
    """The night's own numbers (rounds, rounds a set, the break, the bell, team seats) written as
    digits in a template's text or in its template tags, with a little context each."""
    numbers = {
        bunco.ROUNDS, bunco.ROUNDS_PER_SET, bunco.SETS, bunco.BREAK_AFTER_ROUND, bunco.BREAK_AFTER_ROUND + 1,
        bunco.BREAK_AFTER_ROUND // bunco.ROUNDS_PER_SET, bunco.BELL_POINTS,
    }
    template = re.sub(r"\{#.*?#\}", " ", template, flags=re.S)
    tags = re.findall(r"\{%.*?%\}|\{\{.*?\}\}", template, flags=re.S)
    text = re.sub(r"<[^>]*>", " ", re.sub(r"\{%.*?%\}|\{\{.*?\}\}", " ", template, flags=re.S), flags=re.S)
    found = []
    for chunk in [*tags, text]:
        for match in re.finditer(r"(?<![+\-\w.:])\d+(?!\w|\.\d)", chunk):
            if int(match.group()) in numbers:
                found.append(chunk[max(0, match.start() - 30):match.end() + 10])
    return found


def test_the_night_templates_write_none_of_the_nights_numbers_themselves():
    written = {path.name: night_numbers_written_in(path.read_text()) for path in sorted(TEMPLATES.glob("*.html"))}
    assert {name: found for name, found in written.items() if found} == {}


def test_the_pages_show_the_engines_numbers():
    numbers = bunco_numbers()
    assert (numbers["rounds"], numbers["rounds_per_set"], numbers["break_after_set"]) == (
        bunco.ROUNDS, bunco.ROUNDS_PER_SET, bunco.BREAK_AFTER_ROUND // bunco.ROUNDS_PER_SET
    )
    assert numbers["team_seats"] == {"A": "1 & 3", "B": "2 & 4"}
    night = new_night()
    actions.start_round(night)
    night = fresh(night)
    assert f"Round 1 of {bunco.ROUNDS}" in night_host_page(night)
    phone = phone_of(night, someone_at(night, 2))
    page = phone.get(reverse("games:play", args=[night.code])).content.decode()
    assert f"round 1 of {bunco.ROUNDS_PER_SET}" in page
    assert f"rings the bell at {bunco.BELL_POINTS}" in page


# --- Page data as model and QuerySet methods -----------------------------------------------------


def test_a_tables_teams_list_its_players_in_seat_order_by_the_engines_teams():
    night = new_night()
    table = TableRound.objects.get(round__night=night, number=2)
    seated = [seat.player for seat in table.seats.select_related("player").order_by("position")]
    assert table.seated() == seated
    assert table.teams() == {"A": [seated[0], seated[2]], "B": [seated[1], seated[3]]}


def test_a_seats_partner_and_opponents_come_from_the_engine_and_the_phone_names_the_partner():
    night = new_night()
    seat = Seat.objects.select_related("player").get(round__night=night, table_round__number=2, position=1)
    assert (seat.partner_position, seat.opponent_positions, seat.other_team) == (3, (2, 0), "A")
    partner = Seat.objects.select_related("player").get(round__night=night, table_round__number=2, position=3)
    page = phone_of(night, seat.player).get(reverse("games:play", args=[night.code])).content.decode()
    assert f"Your partner is <strong>{partner.player.name}</strong>" in page


def test_the_standings_are_a_queryset_of_the_real_players_most_wins_first():
    night = play_round_1(new_night(["Ada", "Bea", "Cal", "Dot", "Eve", "Fay", "Gus"]))  # one ghost
    standings = list(Player.objects.filter(night=night).standings())
    assert len(standings) == 7
    assert not any(player.is_ghost for player in standings)
    assert [player.wins for player in standings] == sorted((player.wins for player in standings), reverse=True)
    assert sum(player.wins for player in standings) >= 3
    assert night.standings() == standings


def test_a_score_sheet_has_a_row_per_round_with_the_mark_and_the_break():
    night = play_round_1(new_night())
    player = night.players.get(name=someone_at(fresh(night), 1))
    seat = Seat.objects.select_related("table_round").get(round__night=night, round__number=1, player=player)
    rows = player.score_sheet_rows()
    assert [row["number"] for row in rows] == list(range(1, bunco.ROUNDS + 1))
    assert [row["number"] for row in rows if row["after_break"]] == [bunco.BREAK_AFTER_ROUND + 1]
    assert rows[0]["mark"] == ("W" if seat.table_round.winner == seat.team else "L")
    assert rows[0]["table"] == seat.table_round.number
    assert rows[1]["mark"] == ""
    assert [row["target"] for row in rows[:7]] == [1, 2, 3, 4, 5, 6, 1]


def test_the_tables_at_a_glance_carry_each_tables_points_and_teams():
    night = new_night()
    actions.start_round(night)
    add(night, 2, "B", 4)
    round_ = fresh(night).round_obj()
    rows = round_.tables_at_a_glance()
    assert [row["table"].number for row in rows] == [1, 2]
    assert (rows[1]["table"].points_a, rows[1]["table"].points_b) == (0, 4)
    table = TableRound.objects.get(round=round_, number=2)
    assert (rows[1]["a"], rows[1]["b"]) == (table.teams()["A"], table.teams()["B"])
