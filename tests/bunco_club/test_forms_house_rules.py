"""The house rules on a form, once (issue 30): a club's form and tonight's form share one mixin,
HouseRulesForm, with the fields, their one mapping to the engines' bunco.Rules and
prizes.PrizeRules (bunco.Rules.from_fields), and the one check of the buy-in."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bunco_club.forms import ClubForm, HouseRulesForm
from games.night.forms import NewNightForm
from games.rules import bunco, prizes

ROOT = Path(__file__).resolve().parents[2]
HOUSE_RULES = ["baby_bunco_ends_turn", "wipeout", "head_losers_to_last_table", "tie_break", "one_prize_each",
               "split_ties", "prize_amounts"]
CLUB = {"name": "Thursday club", "usual_time": "19:00", "buy_in": "5", "rsvp_nudge_days": "3"}
NIGHT = {"names": "Ada\nBea\nCal\nDot", "buy_in": "5"}


def test_both_forms_take_the_house_rules_from_the_mixin_in_their_old_order():
    assert issubclass(ClubForm, HouseRulesForm) and issubclass(NewNightForm, HouseRulesForm)
    assert list(ClubForm().fields) == ["name", "place", "usual_time", "buy_in", "time_zone", "rsvp_nudge_days",
                                       "attending_by_default", "answer_cutoff_hours", "language", *HOUSE_RULES]
    assert list(NewNightForm().fields) == ["names", "buy_in", "title", *HOUSE_RULES]
    assert list(HouseRulesForm.base_fields) == HOUSE_RULES
    assert list(bunco.RULE_FIELDS) == HOUSE_RULES[:4]


def test_the_house_rule_fields_and_the_buy_in_check_are_written_once():
    pattern = re.compile(r"(baby_bunco_ends_turn|one_prize_each) = forms\.|def clean_buy_in\b|r\"\[0-9\]\{1,4\}")
    places = sorted({path.relative_to(ROOT).as_posix() for folder in ("bunco_club", "games", "tournaments", "live")
                     for path in (ROOT / folder).rglob("*.py") if pattern.search(path.read_text())})
    assert places == ["bunco_club/forms.py"]
    assert ClubForm.clean_buy_in is NewNightForm.clean_buy_in is HouseRulesForm.clean_buy_in


@pytest.mark.parametrize("form_class, data", [(ClubForm, CLUB), (NewNightForm, NIGHT)])
@pytest.mark.parametrize("ticked", [(), ("wipeout",), ("baby_bunco_ends_turn", "head_losers_to_last_table", "split_ties")])
@pytest.mark.parametrize("tie_break", ["roll_off", "sudden_death"])
@pytest.mark.parametrize("amounts", [choice.value for choice in prizes.PrizeAmounts])
def test_each_form_maps_its_house_rules_to_the_engines_the_same_way(form_class, data, ticked, tie_break, amounts):
    form = form_class({**data, **dict.fromkeys(ticked, "on"), "tie_break": tie_break, "prize_amounts": amounts})
    assert form.is_valid(), form.errors
    expected = bunco.Rules(**{name: name in ticked for name in bunco.RULE_FIELDS[:3]}, tie_break=tie_break)
    assert form.rules() == expected
    scheme = prizes.PrizeAmounts(amounts).rules(one_prize_each=False, split_ties="split_ties" in ticked)
    assert form.prize_rules() == scheme
    # The form's starting values from the engines' keyword arguments give the same rules back.
    initial = HouseRulesForm.initial_for_rules(
        {name: getattr(expected, name) for name in bunco.RULE_FIELDS}, {
            "one_prize_each": scheme.one_prize_each, "split_ties": scheme.split_ties,
            "whole_dollars": scheme.whole_dollars, "remainder_to": scheme.remainder_to})
    again = form_class({**data, **{k: ("on" if v is True else v) for k, v in initial.items() if v is not False}})
    assert again.is_valid(), again.errors
    assert (again.rules(), again.prize_rules()) == (expected, scheme)


def test_a_club_states_its_tie_break_and_a_night_left_blank_plays_the_official_one():
    assert "tie_break" in ClubForm(CLUB).errors
    night = NewNightForm(NIGHT)
    assert night.is_valid(), night.errors
    assert night.rules() == bunco.OFFICIAL
    assert night.prize_rules() == prizes.CLUB_PRIZE_RULES


@pytest.mark.parametrize("form_class, data", [(ClubForm, CLUB), (NewNightForm, NIGHT)])
@pytest.mark.parametrize("buy_in", ["٣", "1_000", "1e2", "5.505", "12345"])
def test_both_forms_refuse_a_buy_in_not_written_with_the_digits_0_to_9(form_class, data, buy_in):
    form = form_class({**data, "tie_break": "roll_off", "buy_in": buy_in})
    assert not form.is_valid()
    assert form.errors["buy_in"]
