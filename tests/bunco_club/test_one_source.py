"""One source per rule across apps (docs/DESIGN.md §3): the club reads its house rules and its party
headcount from the pure engine (games.rules, the ground floor), so a club's nights and its pages
say what a night would do."""

from __future__ import annotations

import pytest

from bunco_club.forms import ClubForm
from bunco_club.headcount import Headcount
from bunco_club.models import Club, Member
from games.rules import bunco, prizes


def headcount_of(coming: int) -> Headcount:
    return Headcount(coming=[Member(name=f"Member {n}") for n in range(coming)], maybe=[], declined=[], waiting=[],
                     subs_invited=[], open_seats=0)


@pytest.mark.parametrize("coming", range(0, 41))
def test_a_partys_headcount_is_the_engines_tables_and_ghosts(coming):
    count = headcount_of(coming)
    assert (count.tables, count.ghosts) == bunco.tables_and_ghosts(coming)
    if coming >= bunco.MIN_PLAYERS:
        assert (count.tables, count.ghosts) == bunco.night_shape(coming)


def test_a_clubs_house_rules_are_the_engines_choices_with_the_engines_labels():
    assert Club._meta.get_field("tie_break").choices == list(bunco.TIE_BREAKS)
    assert Club._meta.get_field("prize_amounts").choices == list(prizes.PRIZE_AMOUNTS)
    form = ClubForm()
    assert list(form.fields["tie_break"].choices) == list(bunco.TIE_BREAKS)  # type: ignore[attr-defined]
    assert list(form.fields["prize_amounts"].choices) == list(prizes.PRIZE_AMOUNTS)  # type: ignore[attr-defined]
    labels = {**bunco.RULE_LABELS, **prizes.PRIZE_RULE_LABELS}
    assert {name: form.fields[name].label for name in labels} == labels


@pytest.mark.parametrize("amounts", list(prizes.PrizeAmounts))
def test_a_clubs_prize_amounts_stand_for_the_engines_prize_rules(amounts):
    club = Club(prize_amounts=amounts.value, one_prize_each=True, split_ties=False)
    rules = prizes.PrizeRules(**club.prize_rules())  # type: ignore[arg-type]
    assert rules == amounts.rules(one_prize_each=True)
    assert rules.amounts is amounts


def test_a_new_club_starts_with_the_rules_a_new_night_starts_with():
    club = Club()
    assert bunco.Rules(**club.night_rules()) == bunco.OFFICIAL  # type: ignore[arg-type]
    assert prizes.PrizeRules(**club.prize_rules()) == prizes.CLUB_PRIZE_RULES  # type: ignore[arg-type]
