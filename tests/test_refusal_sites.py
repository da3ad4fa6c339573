"""At most one place per app turns refusals into responses (issue 17, acceptance 3): the tournament's
and the club's views catch no refusal themselves; their one decorator (`refused`, answering
through live.refusals.answers_refusals) does. The club's form pages may still put an action's
refusal on the form it came from (`form.add_error`, the page then shown again with the person's
input), which answers nothing by itself."""

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


def puts_it_on_its_form(handler: ast.ExceptHandler) -> bool:
    [statement] = handler.body if len(handler.body) == 1 else [None]
    return (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
            and ast.unparse(statement.value.func) == "form.add_error")


def refusal_catches(path: str, module_name: str) -> list[tuple[int, str, bool]]:
    """Every `except` in a views file that would catch a refusal: (line, clause, puts it on its form)."""
    module = importlib.import_module(module_name)
    tree = ast.parse((ROOT / path).read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler) and any(
                issubclass(Refusal, cls) or issubclass(cls, Refusal) for cls in caught(node, module)):
            found.append((node.lineno, ast.unparse(node.type) if node.type else "", puts_it_on_its_form(node)))
    return found


def test_the_tournaments_views_catch_no_refusal_their_one_answer_does():
    assert refusal_catches("tournaments/views.py", "tournaments.views") == []


def test_the_clubs_views_catch_no_refusal_but_to_put_it_on_the_form_it_came_from():
    assert [site for site in refusal_catches("bunco_club/views.py", "bunco_club.views") if not site[2]] == []


@pytest.mark.parametrize("source, expected", [
    ("try:\n    pass\nexcept actions.ClubError as error:\n    return _refused(request, error, back)\n", False),
    ("try:\n    pass\nexcept actions.ClubError as error:\n    form.add_error('name', str(error))\n", True),
])
def test_the_check_tells_a_response_made_from_a_refusal_from_a_form_error(source, expected):
    [handler] = [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ExceptHandler)]
    assert puts_it_on_its_form(handler) is expected
    assert [issubclass(cls, Refusal) for cls in caught(handler, importlib.import_module("bunco_club.views"))] == [True]
