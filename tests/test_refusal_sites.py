"""At most one place per app turns refusals into responses (issue 17, acceptance 3): no view of the
night, the tables, the tournament, the club or the connection check, and no stream, catches a
refusal itself. Their one decorator (`refused`, made with live.refusals.answers_refusals) answers
it; a form page shows it on its form with live's `shown_on`, the one way shared by every app.

And every refusal is a Refusal (issue 30): every exception class the apps define derives from the
one base, so a bad number, a bad link or a room that is gone is answered like any other refusal;
the few that are not refusals are named below, each with the reason. The refusals every app gives
alike (bad input, not yours, not found, a reused key, not now, a seat taken, too many) are defined
once, in live/refusals.py (issue 43: the apps' XError/BadX/NotYourX ladders were three copies of it)."""

from __future__ import annotations

import ast
import builtins
import importlib
from pathlib import Path
from types import ModuleType

import pytest

from live.refusals import Refusal

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("live", "games", "bunco_club", "tournaments")


def caught(handler: ast.ExceptHandler, module: ModuleType) -> list[type]:
    """The classes an `except` clause names, looked up in the module's namespace."""
    if handler.type is None:
        return [BaseException]
    nodes = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    classes = []
    for node in nodes:
        first, *rest = ast.unparse(node).split(".")
        value: object = getattr(module, first) if hasattr(module, first) else getattr(builtins, first)
        for part in rest:
            value = getattr(value, part)
        assert isinstance(value, type)
        classes.append(value)
    return classes


def refusal_catches(path: str, module_name: str) -> list[tuple[int, str]]:
    """Every `except` in a views file that would catch a refusal and answer it: (line, clause). One
    that lets it go on (cleans up, then a bare `raise`) answers nothing."""
    module = importlib.import_module(module_name)
    tree = ast.parse((ROOT / path).read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler) and not _raises_again(node) and any(
                issubclass(Refusal, cls) or issubclass(cls, Refusal) for cls in caught(node, module)):
            found.append((node.lineno, ast.unparse(node.type) if node.type else ""))
    return found


def _raises_again(handler: ast.ExceptHandler) -> bool:
    last = handler.body[-1]
    return isinstance(last, ast.Raise) and last.exc is None


@pytest.mark.parametrize("topic", ["new", "director", "group_sheet", "printouts", "group", "screen", "contexts",
                                   "shared"])
def test_the_tournaments_views_catch_no_refusal_their_one_answer_does(topic):
    assert refusal_catches(f"tournaments/views/{topic}.py", f"tournaments.views.{topic}") == []


def test_the_clubs_views_catch_no_refusal_their_one_answer_or_the_form_does():
    assert refusal_catches("bunco_club/views.py", "bunco_club.views") == []


@pytest.mark.parametrize("visitor", ["phone", "host", "screen", "shared"])
def test_the_nights_views_catch_no_refusal_but_in_their_one_answer(visitor):
    sites = refusal_catches(f"games/night/views/{visitor}.py", f"games.night.views.{visitor}")
    # shared.py holds `refused`, the night's one answer, built on answers_refusals: it catches none itself.
    assert sites == []


def _views_and_streams() -> list[str]:
    """Every file of views (by its name, wherever it sits) and live's stream."""
    found = {"live/streams.py"}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            relative = path.relative_to(ROOT)
            if relative.name in ("views.py", "site_views.py") or relative.parent.name == "views":
                found.add(relative.as_posix())
    return sorted(found)


def _module_name(relative: str) -> str:
    return relative.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


@pytest.mark.parametrize("path", _views_and_streams())
def test_no_view_or_stream_catches_a_refusal_by_hand(path):
    # Each app's `refused` (or a stream's text answer) is an answers_refusals: none catches one itself.
    assert refusal_catches(path, _module_name(path)) == []

# The exception classes defined in the apps that are not refusals, and why. Pure rules keep their
# own errors (games/rules/ is not scanned: it imports no Django, let alone live); an action
# translates them into refusals.
NOT_REFUSALS = {
    # A stream's control flow: the phone lost its seat, so the stream ends (never raised to a view).
    "live.streams._SeatLost",
    # A signature check's verdict, its message for logs: live's one link reader (signing.read_link)
    # turns it into the link's own refusal (BadJoinLink, BadGroupLink, BadMemberLink, RoomNotFound,
    # RoomExpired).
    "live.signing.BadToken",
    "live.signing.ForgedToken",
    "live.signing.ExpiredToken",
    "live.signing.FutureToken",
    # A pure rule's error (bunco_club/rotation.py imports the standard library only): the club's
    # actions translate it into a ClubError.
    "bunco_club.rotation.RotationError",
    # A pure rule's error (bunco_club/custody.py, the Bunco box's counts): the box's actions
    # translate it into a ClubError.
    "bunco_club.custody.BoxError",
    # A pure rule's error (bunco_club/money.py, the standard library only): an amount typed that is no
    # money; actions.read_amount translates it into a ClubError that says what to write.
    "bunco_club.money.BadAmount",
    # The ledger's guard against code that would change or delete an entry in place (issue 45): a
    # bug, never a person's request; no action does either (a correction is a reversing entry).
    "bunco_club.models.LedgerRefused",
}


def exception_classes() -> dict[str, type]:
    """Every exception class defined in live/, games/ (outside games/rules/), bunco_club/ and
    tournaments/, by its dotted name (migrations left out: they define none)."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT)
            if "migrations" in relative.parts or relative.parts[:2] == ("games", "rules"):
                continue
            tree = ast.parse(path.read_text())
            classes = [node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]
            if not classes:
                continue
            name = _module_name(relative.as_posix())
            module = importlib.import_module(name)
            for class_name in classes:
                value = getattr(module, class_name, None)
                if isinstance(value, type) and issubclass(value, BaseException) and value.__module__ == name:
                    found[f"{name}.{class_name}"] = value
    return found


def test_every_exception_class_of_the_apps_is_a_refusal_but_those_named():
    classes = exception_classes()
    assert {name for name, cls in classes.items() if not issubclass(cls, Refusal)} == NOT_REFUSALS
    assert {"live.http.BadNumber", "games.links.BadJoinLink", "bunco_club.links.BadMemberLink",
            "tournaments.links.BadGroupLink", "live.actions.RoomNotFound", "live.actions.RoomExpired"} <= set(classes)


# A class named as one of the refusals every app gives alike, defined anywhere but live/refusals.py.
SHARED = ("BadInput", "NotYours", "NotFound", "KeyReused", "NotNow", "SeatTaken", "TooMany", "WrongMoment",
          "WrongState", "MoveKeyReused")


# The apps' own kinds of them, each kept because something tells it apart from the shared one.
KEPT_KINDS = {
    # A step-ending request for a step already ended: the night's `refused` answers it with the
    # page as it stands, not as an error.
    "games.night.actions.refusals.StepAlreadyEnded",
    # A tally after its table's round closed (the bell): the tallies' concurrency proof counts these
    # apart from every other refusal.
    "games.night.actions.refusals.RoundClosed",
    # "Start the clock" while seats nobody holds: it names them, and the dashboard shows each beside
    # the message with its "Hand … to a bot" (issue 42, T1).
    "tournaments.actions.SeatsNobodyHolds",
    # A number that is not one: a form reading several numbers tells which field it was about
    # (games/table/forms.py catches it apart from the move's other refusals).
    "live.http.BadNumber",
}


def test_the_refusals_every_app_gives_alike_are_defined_once_in_live():
    classes = exception_classes()
    defined = sorted(name for name in classes if name.rsplit(".", 1)[1] in SHARED)
    assert defined == ["live.refusals.BadInput", "live.refusals.KeyReused", "live.refusals.NotFound",
                       "live.refusals.NotNow", "live.refusals.NotYours", "live.refusals.SeatTaken",
                       "live.refusals.TooMany"]
    shared = tuple(classes[name] for name in defined)
    kinds = {name for name, cls in classes.items() if issubclass(cls, shared) and name not in defined}
    assert kinds == KEPT_KINDS


def test_the_check_finds_a_refusal_caught_in_a_view():
    source = "try:\n    pass\nexcept actions.ClubError as error:\n    form.add_error('name', str(error))\n"
    [handler] = [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ExceptHandler)]
    assert [issubclass(cls, Refusal) for cls in caught(handler, importlib.import_module("bunco_club.views"))] == [True]


# The apps' ladders (XError, BadX 400, NotYourX 403), once three copies, are names of live's classes.
LADDER_NAMES = {
    "games.night.actions.refusals": ("BadTally", "NotYourTable", "NoSuchNight"),
    "games.table.actions": ("BadMove", "NotYourSeat"),
    "tournaments.actions": ("BadEntry", "NotYourGroup"),
    "bunco_club.actions.refusals": ("ClubError",),
}


@pytest.mark.parametrize("module_name", LADDER_NAMES)
def test_the_apps_ladders_of_refusals_are_lives_own_classes_by_their_names(module_name):
    module = importlib.import_module(module_name)
    for name in LADDER_NAMES[module_name]:
        cls = getattr(module, name)
        assert cls.__module__ == "live.refusals", name
    classes = exception_classes()
    assert not any(name.startswith(module_name + ".") and name.rsplit(".", 1)[1].endswith("Error")
                   for name in classes), "an app's own XError base is back"
