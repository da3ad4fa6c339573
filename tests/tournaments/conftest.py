"""Tournament personas: a director with an account, a tournament of checked-in players."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from django.test import Client

from tests.builders import logged_in, make_user
from tournaments import actions
from tournaments.models import Entrant, Group, Tournament

START = datetime(2026, 11, 21, 14, 0, tzinfo=UTC)


def make_tournament(director: Any, players: int = 12, **fields: Any) -> Tournament:
    """A tournament with `players` registered and checked in ("Ann 01", "Ann 02", ...)."""
    fields.setdefault("name", "Autumn Open")
    fields.setdefault("seed", 7)
    tournament = actions.create_tournament(director=director, **fields)
    width = len(str(players))
    for number in range(1, players + 1):
        actions.register(tournament, f"Ann {number:0{width}d}", seed_rank=number, checked_in=True)
    return tournament


def entrant(tournament: Tournament, name: str) -> Entrant:
    return tournament.entrants.get(name=name)


def groups_of(tournament: Tournament) -> list[Group]:
    current = tournament.current_round()
    assert current is not None
    return list(current.groups.filter(play_off=0).order_by("number"))


@pytest.fixture
def director(db):
    return make_user("director")


@pytest.fixture
def director_client(director) -> Client:
    return logged_in(director)


@pytest.fixture
def tournament(director) -> Tournament:
    return make_tournament(director, 12)
