"""The site's settings with First to Ten installed: for a browser test's server (a process of its
own, which the test's registry fixture does not reach), its templates and script found in this
folder and the game in the registry."""

from __future__ import annotations

from typing import Any

from bunco_club.site.settings import *  # noqa: F403
from bunco_club.site.settings import STATICFILES_DIRS, TEMPLATES
from games.rules import registry
from tests.games.table.first_to_ten import STATIC
from tests.games.table.first_to_ten import TEMPLATES as GAME_TEMPLATES
from tests.games.table.first_to_ten.rules import RULES

_DIRS: list[Any] = list(TEMPLATES[0]["DIRS"])  # type: ignore[call-overload]
TEMPLATES = [{**TEMPLATES[0], "DIRS": [*_DIRS, GAME_TEMPLATES]}]
STATICFILES_DIRS = [*STATICFILES_DIRS, STATIC]
registry.GAMES[RULES.name] = RULES
