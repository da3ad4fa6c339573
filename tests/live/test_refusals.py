"""Every app's errors are refusals: one base, one status each, a message for people."""

from __future__ import annotations

import pytest

from bunco_club.actions import ClubError
from games.actions import NightError
from live.refusals import KeyReused, Refusal
from tournaments.actions import TournamentError


@pytest.mark.parametrize("error", [NightError, TournamentError, ClubError, KeyReused])
def test_every_apps_errors_derive_from_the_one_refusal(error: type[Exception]) -> None:
    assert issubclass(error, Refusal)


def test_a_refusal_carries_its_status_and_its_message() -> None:
    refusal = KeyReused("That key was already used for another tap: tap again.")
    assert refusal.status == 409
    assert refusal.message == "That key was already used for another tap: tap again."
