"""Tournament personas: a director with an account, a tournament of checked-in players."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.builders import logged_in, make_tournament, make_user
from tournaments.models import Tournament


@pytest.fixture
def director(db):
    return make_user("director")


@pytest.fixture
def director_client(director) -> Client:
    return logged_in(director)


@pytest.fixture
def tournament(director) -> Tournament:
    return make_tournament(director, 12)
