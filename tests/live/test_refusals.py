"""Every app's errors are refusals: one base, one status each, a message for people."""

from __future__ import annotations

import pytest

from bunco_club import actions as club_actions
from bunco_club.actions import ClubError
from games import actions as night_actions
from games.actions import NightError
from live.refusals import KeyReused, Refusal
from tournaments import actions as tournament_actions
from tournaments.actions import TournamentError


@pytest.mark.parametrize("error", [NightError, TournamentError, ClubError, KeyReused])
def test_every_apps_errors_derive_from_the_one_refusal(error: type[Exception]) -> None:
    assert issubclass(error, Refusal)


def test_a_refusal_carries_its_status_and_its_message() -> None:
    refusal = KeyReused("That key was already used for another tap: tap again.")
    assert refusal.status == 409
    assert refusal.message == "That key was already used for another tap: tap again."


@pytest.mark.parametrize("app", [night_actions, tournament_actions, club_actions], ids=lambda app: app.__name__)
def test_every_apps_reused_key_is_the_one_key_reused_refusal_with_409(app) -> None:
    assert issubclass(app.KeyReused, KeyReused)
    assert app.KeyReused.status == 409
