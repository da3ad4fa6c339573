"""The house rules offered when starting a night are honoured on the phones (docs/DESIGN.md §3, docs/RULES.md
§4.2–§4.3): sudden death ends a roll-off at the first tally that breaks the tie; a wipeout (three
1s when 1s are not up) clears the team's points for the round, and its undo gives them back."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from games.night import actions
from games.night.actions import BadTally, NotNow, RoundClosed
from games.night.models import Night, Round, TableRound, Tally
from games.rules import bunco
from tests import builders
from tests.builders import add, fresh, night_host_page, phone_of, real_seat, table, tally, tap

pytestmark = pytest.mark.django_db

NAMES = ["Ada", "Bea", "Cal", "Dot", "Eve", "Fay", "Gus", "Hal"]  # 8 players: 2 tables, no ghosts
SUDDEN_DEATH = bunco.Rules(tie_break="sudden_death")
WIPEOUT = bunco.Rules(wipeout=True)
TALLY_JS = Path(__file__).resolve().parents[3] / "static" / "js" / "tally.js"


# --- Builders (the shared ones are in tests/builders.py) --------------------------------------


def started_night(rules: bunco.Rules = bunco.OFFICIAL) -> Night:
    """Round 1 under way at two tables (8 players, no ghost), under `rules`."""
    return builders.started_night(names=NAMES, seed=3, rules=rules)


def tied_at_table_2(rules: bunco.Rules) -> Night:
    """Table 2 tied 6–6 when the head table rings the bell and table 2 finishes its turn."""
    night = started_night(rules)
    add(night, 2, "A", 6)
    add(night, 2, "B", 6)
    add(night, 1, "A", 21)  # the bell
    assert actions.finish_turn(night=night, table_number=2).status == TableRound.Status.ROLL_OFF
    return fresh(night)


def in_round_2(rules: bunco.Rules) -> Night:
    """Round 2 (2s are up) under way: round 1 was played and closed."""
    night = started_night(rules)
    add(night, 2, "B", 3)
    add(night, 1, "A", 21)
    actions.finish_turn(night=night, table_number=2)
    night = fresh(night)
    assert night.current_round == 2
    actions.start_round(night)
    return fresh(night)


def phone_page(phone: Client, night: Night) -> str:
    response = phone.get(reverse("games:play", args=[night.code]))
    assert response.status_code == 200
    return response.content.decode()


# --- Sudden death -----------------------------------------------------------------------------


def test_a_sudden_death_roll_off_ends_at_the_first_tally_that_breaks_the_tie():
    night = tied_at_table_2(SUDDEN_DEATH)
    entry = tally(night, 2, "B", 2)
    assert entry.roll_off == 1
    decided = table(night, 2, round_number=1)
    assert (decided.status, decided.winner) == (TableRound.Status.DONE, "B")


def test_only_sudden_death_ends_a_roll_off_at_the_first_tally():
    full_turns = tied_at_table_2(bunco.OFFICIAL)
    sudden = tied_at_table_2(SUDDEN_DEATH)
    for night in (full_turns, sudden):
        tally(night, 2, "A", 1)
    assert (table(full_turns, 2).status, table(full_turns, 2).winner) == (TableRound.Status.ROLL_OFF, "")
    assert (table(sudden, 2, 1).status, table(sudden, 2, 1).winner) == (TableRound.Status.DONE, "A")


def test_the_round_closes_and_the_next_is_seated_when_the_last_sudden_death_is_decided():
    night = tied_at_table_2(SUDDEN_DEATH)
    assert Round.objects.get(night=night, number=1).status == Round.Status.BELL
    tally(night, 2, "A", 5)
    assert Round.objects.get(night=night, number=1).status == Round.Status.CLOSED
    assert fresh(night).current_round == 2
    assert Round.objects.get(night=night, number=2).tables.count() == 2


def test_a_tally_after_a_sudden_death_was_decided_is_refused():
    night = tied_at_table_2(SUDDEN_DEATH)
    tally(night, 2, "A", 1)
    with pytest.raises(RoundClosed):
        actions.record_tally(night=night, table_number=2, team="B", points=1, round_number=1)


def test_a_sudden_death_roll_off_has_no_every_seat_has_rolled_off_step():
    night = tied_at_table_2(SUDDEN_DEATH)
    with pytest.raises(NotNow, match="Sudden death"):
        actions.finish_roll_off(night=night, table_number=2)
    assert (table(night, 2).status, table(night, 2).roll_off) == (TableRound.Status.ROLL_OFF, 1)


def test_a_phones_tap_ends_a_sudden_death_roll_off():
    night = tied_at_table_2(SUDDEN_DEATH)
    player = real_seat(night, 2, "B")
    response = tap(phone_of(night, player), night, table=2, team="B", points=1, key="sd-1")
    assert response.status_code == 200
    assert (table(night, 2, 1).status, table(night, 2, 1).winner) == (TableRound.Status.DONE, "B")


def test_the_phone_says_sudden_death_and_offers_no_roll_off_done_button():
    sudden = tied_at_table_2(SUDDEN_DEATH)
    page = phone_page(phone_of(sudden, real_seat(sudden, 2, "A")), sudden)
    assert "Sudden death: the first team to score wins" in page
    assert "Every seat has rolled off" not in page
    assert 'id="tally-form"' in page

    full_turns = tied_at_table_2(bunco.OFFICIAL)
    page = phone_page(phone_of(full_turns, real_seat(full_turns, 2, "A")), full_turns)
    assert "Sudden death" not in page
    assert "Every seat has rolled off" in page


def test_the_host_page_offers_no_roll_off_done_button_under_sudden_death():
    night = tied_at_table_2(SUDDEN_DEATH)
    page = night_host_page(night)
    assert "Tie: sudden death" in page
    assert "Roll-off done" not in page


def test_the_new_night_form_offers_sudden_death_and_the_night_plays_it(client):
    page = client.get(reverse("games:night_new")).content.decode()
    assert 'value="sudden_death"' in page
    assert "Roll off a full turn each" in page  # the engine's label (bunco.TIE_BREAKS), as a club's form has it
    response = client.post(reverse("games:night_new"), {
        "names": "\n".join(NAMES), "buy_in": "5.00", "title": "Tie night", "tie_break": "sudden_death",
    })
    assert response.status_code == 302
    night = Night.objects.get(title="Tie night")
    assert night.bunco_rules().tie_break == "sudden_death"


def test_a_new_night_without_a_tie_break_choice_plays_full_turn_roll_offs(client):
    response = client.post(reverse("games:night_new"), {"names": "\n".join(NAMES), "buy_in": "5.00",
                                                        "title": "Plain night"})
    assert response.status_code == 302
    night = Night.objects.get(title="Plain night")
    assert night.rules["tie_break"] == "roll_off"
    assert 'name="tie_break" value="roll_off"' in client.get(reverse("games:night_new")).content.decode()


def test_a_new_night_refuses_an_unknown_tie_break(client):
    response = client.post(reverse("games:night_new"), {"names": "\n".join(NAMES), "buy_in": "5.00",
                                                        "tie_break": "coin_toss"})
    assert response.status_code == 400
    assert not Night.objects.exists()


# --- Prize amounts ----------------------------------------------------------------------------


@pytest.mark.parametrize(("choice", "whole_dollars", "remainder_to"), [
    (None, True, "draw"),
    ("dollars_to_most_buncos", True, "most_buncos"),
    ("cents", False, "draw"),
])
def test_a_new_night_pays_whole_dollars_unless_the_host_asks_for_cents(client, choice, whole_dollars, remainder_to):
    form = {"names": "\n".join(NAMES), "buy_in": "5.00", "title": "Prize night"}
    if choice:
        form["prize_amounts"] = choice
    assert client.post(reverse("games:night_new"), form).status_code == 302
    rules = Night.objects.get(title="Prize night").prize_house_rules()
    assert (rules.whole_dollars, rules.remainder_to) == (whole_dollars, remainder_to)


def test_a_new_night_refuses_an_unknown_way_of_cutting_the_pot(client):
    response = client.post(reverse("games:night_new"), {"names": "\n".join(NAMES), "buy_in": "5.00",
                                                        "prize_amounts": "pennies"})
    assert response.status_code == 400
    assert not Night.objects.exists()


# --- Wipeout ----------------------------------------------------------------------------------


def test_a_wipeout_clears_the_teams_points_for_the_round():
    night = in_round_2(WIPEOUT)
    for points in (5, 2):
        tally(night, 2, "A", points)
    tally(night, 2, "B", 1)
    entry = tally(night, 2, "A", 0, wipeout=True)
    assert (entry.kind, entry.points, entry.team) == (Tally.Kind.WIPEOUT, -7, "A")
    assert table(night, 2, 2).totals() == {"A": 0, "B": 1}
    tally(night, 2, "A", 2)
    assert table(night, 2, 2).totals() == {"A": 2, "B": 1}


def test_undoing_a_wipeout_gives_the_team_its_points_back():
    night = in_round_2(WIPEOUT)
    roller = real_seat(night, 2, "A")
    tally(night, 2, "A", 5, entered_by=roller)
    tally(night, 2, "A", 0, wipeout=True, entered_by=roller)
    undo = actions.undo_tally(night=night, table_number=2, entered_by=roller)
    assert undo.points == 5
    assert table(night, 2, 2).totals()["A"] == 5


def test_a_wipeout_is_refused_when_ones_are_up():
    night = started_night(WIPEOUT)  # round 1: 1s are up, three 1s are a Bunco
    tally(night, 2, "A", 5)
    with pytest.raises(NotNow, match="1s are up"):
        tally(night, 2, "A", 0, wipeout=True)
    assert table(night, 2).totals()["A"] == 5


def test_a_wipeout_is_refused_when_the_rule_is_off():
    night = in_round_2(bunco.OFFICIAL)
    tally(night, 2, "A", 5)
    with pytest.raises(BadTally, match="no wipeout"):
        tally(night, 2, "A", 0, wipeout=True)
    assert table(night, 2, 2).totals()["A"] == 5


def test_a_wipeout_comes_with_no_points_or_bunco():
    night = in_round_2(WIPEOUT)
    with pytest.raises(BadTally, match="its own tap"):
        tally(night, 2, "A", 2, wipeout=True)
    with pytest.raises(BadTally, match="its own tap"):
        tally(night, 2, "A", 0, wipeout=True, bunco_player=real_seat(night, 2, "A"))
    assert not Tally.objects.filter(kind=Tally.Kind.WIPEOUT).exists()


def test_a_wipeout_at_the_head_table_does_not_ring_the_bell():
    night = in_round_2(WIPEOUT)
    add(night, 1, "A", 20)
    tally(night, 1, "A", 0, wipeout=True)
    assert Round.objects.get(night=night, number=2).status == Round.Status.PLAYING
    assert table(night, 1, 2).totals()["A"] == 0


def test_a_wipeout_in_a_roll_off_clears_the_teams_points_in_the_roll_off():
    night = in_round_2(WIPEOUT)
    add(night, 2, "A", 3)
    add(night, 2, "B", 3)
    add(night, 1, "B", 21)
    actions.finish_turn(night=night, table_number=2)  # 3-3: a roll-off
    tally(night, 2, "A", 2)
    entry = tally(night, 2, "A", 0, wipeout=True)
    assert (entry.roll_off, entry.points) == (1, -2)
    assert table(night, 2, 2).totals() == {"A": 3, "B": 3}
    assert table(night, 2, 2).totals(1) == {"A": 0, "B": 0}


def test_a_phone_records_a_wipeout_through_the_tally_endpoint():
    night = in_round_2(WIPEOUT)
    player = real_seat(night, 2, "B")
    phone = phone_of(night, player)
    assert tap(phone, night, table=2, team="B", points=5, key="w-0").status_code == 200
    response = tap(phone, night, table=2, team="B", wipeout="1", key="w-1")
    assert response.status_code == 200
    assert (response.json()["b"], response.json()["kind"]) == (0, "wipeout")
    retried = tap(phone, night, table=2, team="B", wipeout="1", key="w-1")
    assert retried.status_code == 200
    assert Tally.objects.filter(kind=Tally.Kind.WIPEOUT).count() == 1
    assert table(night, 2, 2).totals()["B"] == 0


def test_a_phones_wipeout_is_refused_with_409_when_ones_are_up():
    night = started_night(WIPEOUT)
    player = real_seat(night, 2, "A")
    response = tap(phone_of(night, player), night, table=2, team="A", wipeout="1", key="w-1")
    assert response.status_code == 409
    assert "1s are up" in response.json()["error"]
    assert not Tally.objects.exists()


def test_a_phones_wipeout_is_refused_with_400_when_the_rule_is_off():
    night = in_round_2(bunco.OFFICIAL)
    player = real_seat(night, 2, "A")
    response = tap(phone_of(night, player), night, table=2, team="A", wipeout="1", key="w-1")
    assert response.status_code == 400
    assert "no wipeout" in response.json()["error"]
    assert not Tally.objects.filter(kind=Tally.Kind.WIPEOUT).exists()


def test_the_phone_offers_the_wipeout_button_only_when_the_rule_is_on_and_ones_are_not_up():
    button = "Wipeout (three 1s)"
    on = in_round_2(WIPEOUT)
    assert button in phone_page(phone_of(on, real_seat(on, 2, "A")), on)
    off = in_round_2(bunco.OFFICIAL)
    assert button not in phone_page(phone_of(off, real_seat(off, 2, "A")), off)
    ones_up = started_night(WIPEOUT)
    page = phone_page(phone_of(ones_up, real_seat(ones_up, 2, "A")), ones_up)
    assert 'id="tally-form"' in page
    assert button not in page


def test_the_wipeout_button_posts_the_wipeout_flag_through_the_tally_script():
    """The button carries `data-wipeout`; the phone's script sends it as `wipeout=1` with a key."""
    night = in_round_2(WIPEOUT)
    page = phone_page(phone_of(night, real_seat(night, 2, "A")), night)
    assert "data-wipeout" in page
    script = TALLY_JS.read_text()
    assert 'hasAttribute("data-wipeout")' in script
    assert 'body.set("wipeout", "1")' in script
