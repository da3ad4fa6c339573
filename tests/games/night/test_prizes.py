"""The prizes: they wait for the end of the night, then share the pot, one award a prize, with ties
rolled off once and every throw kept; asking again hands back the same awards."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse

from games.night import actions
from games.night.actions import NotNow
from games.night.models import Player, PrizeAward
from games.rules import prizes
from games.templatetags.bunco import dollars
from tests.builders import (
    PLAYERS_ALL_NIGHT,
    figures,
    fresh,
    make_night,
    night_host_browser,
    play_round,
    played_night,
)

pytestmark = pytest.mark.django_db


def test_prizes_wait_for_the_end_of_the_night():
    night = make_night(12, seed=2)
    play_round(night, random.Random(2))
    with pytest.raises(NotNow, match="end of the night"):
        actions.award_prizes(night, rng=random.Random(1))
    assert not PrizeAward.objects.exists()


def _leaders(prize: str, sheets: dict[str, Player], traveler: Player | None) -> list[str]:
    if prize == "traveling":
        return [traveler.name] if traveler else []
    if prize == "fifty_fifty":
        return [name for name, player in sheets.items() if player.wins == player.losses]
    figure = {"most_buncos": "bunco_count", "most_wins": "wins", "most_losses": "losses"}[prize]
    best = max(getattr(player, figure) for player in sheets.values())
    return [name for name, player in sheets.items() if getattr(player, figure) == best] if best else []


def test_the_prizes_after_a_whole_night_share_the_pot_one_award_a_prize_ties_rolled_off_once(finished_night):
    night = finished_night
    awards = actions.award_prizes(night, rng=random.Random(3))
    pot = 500 * PLAYERS_ALL_NIGHT
    assert night.pot_cents() == pot
    assert sum(award.amount_cents for award in awards) == pot

    # Exactly one award for each prize somebody qualifies for, and the draw.
    sheets = figures(night)
    traveler = night.traveler()
    expected = [prize for prize in prizes.PRIZES[:-1] if _leaders(prize, sheets, traveler)] + ["draw"]
    assert [award.prize for award in awards] == expected
    amounts = prizes.prize_amounts(pot)
    for award in awards:
        assert not award.player.is_ghost
        if award.prize != "draw":
            assert award.amount_cents == amounts[award.prize]
            assert award.player.name in _leaders(award.prize, sheets, traveler)
    if traveler is not None:
        assert next(a for a in awards if a.prize == "traveling").player == traveler

    # A tie for a prize was rolled off, and every throw is kept to show; no tie, no throws.
    tied = 0
    for award in PrizeAward.objects.filter(night=night).select_related("player"):
        leaders = _leaders(award.prize, sheets, traveler) if award.prize != "draw" else []
        if len(leaders) <= 1:
            assert award.roll_off == []
            continue
        tied += 1
        first, last = award.roll_off[0], award.roll_off[-1]
        assert sorted(name for name, _ in first) == sorted(leaders)
        assert all(3 <= total <= 18 for throws in award.roll_off for _, total in throws)
        best = max(total for _, total in last)
        assert [name for name, total in last if total == best] == [award.player.name]
    assert tied, "this seeded night should have had at least one tied prize"

    # Asking again (another phone, another generator) hands back the same awards.
    again = actions.award_prizes(fresh(night), rng=random.Random(99))
    assert [(a.pk, a.prize, a.player_id, a.amount_cents, a.roll_off) for a in again] == [
        (a.pk, a.prize, a.player_id, a.amount_cents, a.roll_off) for a in awards
    ]
    assert PrizeAward.objects.filter(night=night).count() == len(awards)


# --- Whole dollars, the prizes nobody won, a draw that stays put (issue 9) ---


def test_a_night_in_whole_dollars_pays_whole_dollar_prizes_adding_up_to_the_pot():
    night = played_night(PLAYERS_ALL_NIGHT, seed=7, buy_in_cents=550, prize_rules=prizes.CLUB_PRIZE_RULES)
    awards = actions.award_prizes(night)

    assert sum(award.amount_cents for award in awards) == 550 * PLAYERS_ALL_NIGHT
    assert all(award.amount_cents % 100 == 0 for award in awards)


def test_working_the_prizes_out_again_from_the_same_record_draws_the_same_winners(finished_night):
    night = finished_night
    first = [(a.prize, a.player.name, a.amount_cents, a.roll_off) for a in actions.award_prizes(night)]

    # The host re-opens the head table of the last round to look, changes nothing, and the night
    # ends again: the prizes are worked out anew, from the same record (four times: a draw among
    # three players that came out the same by chance would not, four times running).
    for _ in range(4):
        actions.reopen_last_round(fresh(night), table_number=1)
        night = fresh(night)
        assert night.status == night.Status.FINISHED and not night.awards.exists()
        again = [(a.prize, a.player.name, a.amount_cents, a.roll_off) for a in actions.award_prizes(night)]
        assert again == first


def test_the_prizes_page_says_where_the_money_of_each_prize_nobody_won_went():
    # Ended after one round: one result each, so nobody has wins equal to losses.
    night = make_night(12, seed=3)
    play_round(night, random.Random(3))
    actions.end_night(fresh(night))
    night = fresh(night)
    awards = actions.award_prizes(night)
    given = {award.prize for award in awards}
    unclaimed = [prize for prize in prizes.PRIZES[:-1] if prize not in given]
    assert "fifty_fifty" in unclaimed
    amounts = prizes.prize_amounts(night.pot_cents(), night.prize_house_rules())

    page = night_host_browser(night).get(reverse("games:prizes", args=[night.code])).content.decode()

    for prize in unclaimed:
        assert f"Nobody qualified: its {dollars(amounts[prize])} went to the draw." in page
    assert night.unclaimed_prizes() == [(prize, amounts[prize]) for prize in unclaimed]
