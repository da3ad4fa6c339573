"""At most one place per app turns refusals into responses (issue 17, acceptance 3): no view of the
night, the tournament or the club catches a refusal itself. Their one decorator (`refused`, made with
live.refusals.answers_refusals) answers it; a form page shows it on its form with live's
`shown_on`, the one way shared by every app."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path
from types import ModuleType

import pytest

from live.refusals import Refusal

ROOT = Path(__file__).resolve().parent.parent


def caught(handler: ast.ExceptHandler, module: ModuleType) -> list[type]:
    """The classes an `except` clause names, looked up in the module's namespace."""
    if handler.type is None:
        return [BaseException]
    nodes = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    classes = []
    for node in nodes:
        value: object = module
        for part in ast.unparse(node).split("."):
            value = getattr(value, part)
        assert isinstance(value, type)
        classes.append(value)
    return classes


def refusal_catches(path: str, module_name: str) -> list[tuple[int, str]]:
    """Every `except` in a views file that would catch a refusal: (line, clause)."""
    module = importlib.import_module(module_name)
    tree = ast.parse((ROOT / path).read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler) and any(
                issubclass(Refusal, cls) or issubclass(cls, Refusal) for cls in caught(node, module)):
            found.append((node.lineno, ast.unparse(node.type) if node.type else ""))
    return found


def test_the_tournaments_views_catch_no_refusal_their_one_answer_does():
    assert refusal_catches("tournaments/views.py", "tournaments.views") == []


def test_the_clubs_views_catch_no_refusal_their_one_answer_or_the_form_does():
    assert refusal_catches("bunco_club/views.py", "bunco_club.views") == []


@pytest.mark.parametrize("visitor", ["phone", "host", "screen", "shared"])
def test_the_nights_views_catch_no_refusal_but_in_their_one_answer(visitor):
    sites = refusal_catches(f"games/night/views/{visitor}.py", f"games.night.views.{visitor}")
    # shared.py holds `refused`, the night's one answer, built on answers_refusals: it catches none itself.
    assert sites == []


def test_the_check_finds_a_refusal_caught_in_a_view():
    source = "try:\n    pass\nexcept actions.ClubError as error:\n    form.add_error('name', str(error))\n"
    [handler] = [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ExceptHandler)]
    assert [issubclass(cls, Refusal) for cls in caught(handler, importlib.import_module("bunco_club.views"))] == [True]
