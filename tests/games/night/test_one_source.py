"""One source per rule (docs/DESIGN.md §3): whether a table takes tallies is one model predicate that the
tally action and the phone page both ask; whether the night can be re-opened or ended are model
predicates that the actions and the host's page both ask; the night's templates take its rounds,
sets and break from the engine; the page data (a table's teams, standings, a score sheet, the
tables at a glance) are model and QuerySet methods."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from django.urls import reverse

from bunco_club.forms import ClubForm
from bunco_club.models import Club
from games.night import actions
from games.night.actions import NotNow
from games.night.forms import NewNightForm, shape_of
from games.night.models import Night, Player, Round, Seat, TableRound, Tally
from games.rules import bunco, prizes
from games.templatetags.bunco import bunco_numbers
from tests.builders import add, fresh, make_night, night_host_page, phone_of, someone_at

pytestmark = pytest.mark.django_db

NAMES = ["Ada", "Bea", "Cal", "Dot", "Eve", "Fay", "Gus", "Hal"]  # 2 tables, no ghosts
ROOT = Path(__file__).resolve().parents[3]
TEMPLATES = ROOT / "templates" / "games"


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
    with pytest.raises(NotNow, match="has not started yet"):
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
    with pytest.raises(NotNow) as refused:
        actions.end_night(night)
    assert str(refused.value) == reason
    actions.start_round(night)
    night = fresh(night)
    reason = night.end_refusal()
    assert reason == "Round 1 is under way: finish it first, then end the night."
    with pytest.raises(NotNow) as refused:
        actions.end_night(night)
    assert str(refused.value) == reason


def test_reopening_the_last_round_is_refused_with_the_reason_the_predicate_gives():
    night = new_night()
    reason = night.reopen_refusal()
    assert reason is not None
    with pytest.raises(NotNow) as refused:
        actions.reopen_last_round(night)
    assert str(refused.value) == reason


# --- The night's numbers come from the engine --------------------------------------------------


def night_numbers_written_in(template: str) -> list[str]:
    """The night's own numbers (rounds, rounds a set, the break, the bell, team seats) written as
    digits in a template's text or in its template tags, with a little context each."""
    numbers = {
        bunco.ROUNDS, bunco.ROUNDS_PER_SET, bunco.SETS, bunco.BREAK_AFTER_ROUND, bunco.BREAK_AFTER_ROUND + 1,
        bunco.BREAK_AFTER_ROUND // bunco.ROUNDS_PER_SET, bunco.BELL_POINTS, bunco.BUNCO_POINTS,
    }
    template = re.sub(r"\{#.*?#\}", " ", template, flags=re.S)
    # An attribute's words, marked for translation, are read as its words were before: not at all
    # (a tap button's "Add 2 points" is the button's own number, not the night's).
    template = re.sub(r'="\{% translate "[^"]*" %\}"', '=""', template)
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


def test_the_phones_script_writes_no_points_of_the_engines_itself():
    """A Bunco's 21 was written in tally.js beside the engine's BUNCO_POINTS (issue 43): the
    phone's script reads it from the page, which has it from the engine."""
    script = (ROOT / "static" / "js" / "tally.js").read_text()
    code = re.sub(r"//[^\n]*|/\*.*?\*/", " ", script, flags=re.S)  # comments may name the rule
    points = {bunco.BUNCO_POINTS, bunco.BELL_POINTS}
    assert [number for number in re.findall(r"(?<![\w.])\d+(?![\w.])", code) if int(number) in points] == []


def test_the_bunco_chooser_carries_the_engines_points_for_a_bunco():
    night = new_night()
    actions.start_round(night)
    night = fresh(night)
    page = phone_of(night, someone_at(night, 1)).get(reverse("games:play", args=[night.code])).content.decode()
    assert f'data-bunco-points="{bunco.BUNCO_POINTS}"' in page


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


# --- House rules offered on a form: the engine's choices and labels, read by every form -----------


def test_the_club_and_the_night_offer_the_engines_tie_break_choices():
    engine = list(bunco.TIE_BREAKS)
    assert [value for value, _ in engine] == ["roll_off", "sudden_death"]  # the values stored in clubs and nights
    assert list(Club._meta.get_field("tie_break").choices or []) == engine
    assert list(ClubForm().fields["tie_break"].choices) == engine  # type: ignore[attr-defined]
    assert list(NewNightForm().fields["tie_break"].choices) == engine  # type: ignore[attr-defined]
    assert Club._meta.get_field("tie_break").default == ClubForm().fields["tie_break"].initial \
        == NewNightForm().fields["tie_break"].initial == bunco.OFFICIAL.tie_break


def test_the_club_and_the_night_offer_the_engines_prize_amounts():
    engine = list(prizes.PRIZE_AMOUNTS)
    assert [value for value, _ in engine] == ["dollars_to_draw", "dollars_to_most_buncos", "cents"]
    assert list(Club._meta.get_field("prize_amounts").choices or []) == engine
    assert list(ClubForm().fields["prize_amounts"].choices) == engine  # type: ignore[attr-defined]
    assert list(NewNightForm().fields["prize_amounts"].choices) == engine  # type: ignore[attr-defined]
    assert Club._meta.get_field("prize_amounts").default == ClubForm().fields["prize_amounts"].initial \
        == NewNightForm().fields["prize_amounts"].initial == prizes.CLUB_PRIZE_RULES.amounts


def test_the_club_and_the_night_label_every_house_rule_as_the_engine_does():
    labels = {**bunco.RULE_LABELS, **prizes.PRIZE_RULE_LABELS}
    for form in (ClubForm(), NewNightForm()):
        assert {name: form.fields[name].label for name in labels} == labels


@pytest.mark.parametrize("amounts", [value for value, _ in prizes.PRIZE_AMOUNTS])
@pytest.mark.parametrize(("one_prize_each", "split_ties"), [(False, False), (True, False), (False, True)])
def test_a_prize_amounts_choice_means_the_same_prize_rules_to_the_club_the_night_form_and_the_engine(
    amounts, one_prize_each, split_ties
):
    engine = prizes.PrizeAmounts(amounts).rules(one_prize_each=one_prize_each, split_ties=split_ties)
    assert engine.amounts == amounts
    club = Club(prize_amounts=amounts, one_prize_each=one_prize_each, split_ties=split_ties)
    assert prizes.PrizeRules(**club.prize_rules()) == engine  # type: ignore[arg-type]
    data = {"names": "\n".join(NAMES), "buy_in": "5", "prize_amounts": amounts}
    data.update({name: "on" for name, ticked in (("one_prize_each", one_prize_each), ("split_ties", split_ties)) if ticked})
    form = NewNightForm(data)
    assert form.is_valid(), form.errors
    assert form.prize_rules() == engine
    # A club night's form starts from the club's scheme and gives it back unchanged.
    initial = NewNightForm.initial_for_rules(club.night_rules(), club.prize_rules())
    assert (initial["prize_amounts"], initial["one_prize_each"], initial["split_ties"]) == (
        amounts, one_prize_each, split_ties)


# --- The tables-and-ghosts headcount: one engine function, the form's hint and the seating ---------


@pytest.mark.parametrize("count", range(bunco.MIN_PLAYERS, 41))
def test_the_night_forms_hint_says_the_engines_tables_and_ghosts_and_the_draw_seats_them(count):
    names = [f"Player {n}" for n in range(1, count + 1)]
    tables, ghosts = bunco.tables_and_ghosts(count)
    assert bunco.night_shape(count) == (tables, ghosts)
    ghost_text = plural(ghosts, "ghost seat") if ghosts else "no ghosts"
    assert str(shape_of(names)) == f"{plural(count, 'player')} · {plural(tables, 'table')} · {ghost_text}"
    draw = bunco.draw_seating(names, random.Random(count))
    assert (len(draw.tables), len(draw.ghosts)) == (tables, ghosts)


@pytest.mark.parametrize("count", [-1, 1.5, "4", None])
def test_the_headcount_refuses_what_is_not_a_number_of_people(count):
    with pytest.raises(bunco.IllegalSeating):
        bunco.tables_and_ghosts(count)


def test_the_headcount_counts_any_number_of_people_but_a_night_needs_three():
    assert [bunco.tables_and_ghosts(n) for n in range(6)] == [(0, 0), (1, 3), (1, 2), (1, 1), (1, 0), (2, 3)]
    for count in (1, 2):
        with pytest.raises(bunco.IllegalSeating, match="at least 3 players") as refused:
            bunco.night_shape(count)
        assert str(refused.value) == bunco.night_refusal(count)
    assert bunco.night_refusal(bunco.MIN_PLAYERS) is None


# --- Between rounds: one predicate, asked by the arrival action and by the host's page ------------


def players_card(night: Night) -> str:
    return night_host_page(night).split('id="players-card"', 1)[1].split("</section>", 1)[0]


def night_at(moment: str) -> Night:
    """A night of 7 (one ghost) at a moment of the evening."""
    night = new_night(NAMES[:7])
    if moment == "before round 1":
        return night
    if moment in ("round 1 playing", "round 1 at the bell"):
        actions.start_round(night)
        if moment == "round 1 at the bell":
            Round.objects.filter(night=night, number=1).update(status=Round.Status.BELL)
        return fresh(night)
    night = play_round_1(night)
    if moment == "the night ended":
        actions.end_night(night)
    return fresh(night)


@pytest.mark.parametrize(("moment", "between"), [
    ("before round 1", True), ("round 1 playing", False), ("round 1 at the bell", False),
    ("between rounds 1 and 2", True), ("the night ended", False),
])
def test_the_host_page_offers_arrivals_exactly_when_the_arrival_action_seats_them(moment, between):
    night = night_at(moment)
    refusal = night.seat_change_refusal()
    assert (refusal is None) == between == night.is_between_rounds()
    card = players_card(night)
    assert ("Someone arrived" in card) == between
    assert ("Someone is leaving" in card) == between
    ghost = Player.objects.get(night=night, is_ghost=True)
    if between:
        arrived = actions.seat_late_arrival(night, name="Zed", ghost=ghost)
        assert arrived.name == "Zed"
    else:
        with pytest.raises(NotNow) as refused:
            actions.seat_late_arrival(night, name="Zed", ghost=ghost)
        assert str(refused.value) == refusal
        assert not Player.objects.filter(night=night, name="Zed").exists()


def test_the_host_page_asks_the_nights_between_rounds_predicate_and_derives_nothing(monkeypatch):
    night = night_at("between rounds 1 and 2")
    assert "Someone arrived" in players_card(night)
    monkeypatch.setattr(Night, "seat_change_refusal", lambda self, current=None: "Not now.")
    assert "Someone arrived" not in players_card(night)


# --- A ghost's Bunco: the engine says whose it is, the action and the phone both ask ---------------


def test_a_ghosts_bunco_goes_to_its_partner_by_the_engines_rule():
    assert [bunco.bunco_credit_seat(seat, set()) for seat in range(bunco.SEATS)] == [0, 1, 2, 3]
    assert [bunco.bunco_credit_seat(seat, {1}) for seat in range(bunco.SEATS)] == [0, 3, 2, 3]
    assert [bunco.bunco_credit_seat(seat, {0, 3}) for seat in range(bunco.SEATS)] == [2, 1, 2, 1]
    with pytest.raises(bunco.IllegalSeating, match="ghosts never partner"):
        bunco.bunco_credit_seat(0, {0, 2})


def ghost_table(night: Night) -> tuple[TableRound, Player]:
    ghost = Player.objects.get(night=night, is_ghost=True)
    table = Seat.objects.select_related("table_round__round").get(round__night=night, round__number=1,
                                                                 player=ghost).table_round
    return table, ghost


def bunco_buttons(night: Night, table: TableRound) -> dict[str, str]:
    """The phone's "Who rolled it?" buttons at `table`: {player id: the button's words}."""
    phone = phone_of(night, someone_at(night, table.number))
    page = phone.get(reverse("games:play", args=[night.code])).content.decode()
    chooser = page.split('id="bunco-chooser"', 1)[1].split("data-bunco-cancel", 1)[0]
    return dict(re.findall(r'data-bunco-player="(\d+)">([^<]*)</button>', chooser))


def test_the_phone_says_whose_a_ghosts_bunco_is_as_the_tally_action_credits_it():
    night = new_night(NAMES[:7])
    actions.start_round(night)
    night = fresh(night)
    table, ghost = ghost_table(night)
    partner = table.bunco_credit(ghost)
    seat = Seat.objects.get(table_round=table, player=ghost)
    assert partner == Seat.objects.get(table_round=table, position=bunco.partner_seat(seat.position)).player
    buttons = bunco_buttons(night, table)
    assert buttons[str(ghost.pk)] == f"{ghost.name} (goes to {partner.name})"
    assert {pk: words for pk, words in buttons.items() if pk != str(ghost.pk)} == {
        str(player.pk): player.name for player in table.seated() if not player.is_ghost}
    entry = actions.record_tally(night=night, table_number=table.number, team=seat.team, points=bunco.BUNCO_POINTS,
                                 bunco_player=ghost)
    assert entry.bunco_player == partner


def test_the_phone_asks_the_tables_bunco_credits_and_derives_nothing(monkeypatch):
    night = new_night(NAMES[:7])
    actions.start_round(night)
    night = fresh(night)
    table, ghost = ghost_table(night)
    someone = next(player for player in table.seated() if not player.is_ghost)
    real = TableRound.bunco_credits
    monkeypatch.setattr(TableRound, "bunco_credits", lambda self, seated=None: [
        (player, someone if player.is_ghost else credited) for player, credited in real(self, seated)])
    assert bunco_buttons(night, table)[str(ghost.pk)] == f"{ghost.name} (goes to {someone.name})"


def plural(count: int, word: str) -> str:
    """ "1 table", "3 tables": the hint's English, written out."""
    return f"{count} {word}{'' if count == 1 else 's'}"
