"""The dependency directions of docs/DESIGN.md §2, checked on every import of every project module.

`layout_violations(root)` reads each .py file of the project packages (bunco_club, live, games,
tournaments, migrations included) with `ast`, collects every import wherever it is written (at the
top, inside a function, under `if TYPE_CHECKING:`), resolves relative imports, puts the importing
module and the imported one in their layers, and reports each import that goes the wrong way.

The layers:
- pure rules   games/rules/ and tournaments/brackets.py: the standard library and games.rules
- pure club    bunco_club/rotation.py, bunco_club/standings.py, bunco_club/custody.py: the standard
               library only (and the pure games.rules' words)
- live         live/: Django, other third-party packages and the standard library; no domain app
- club domain  every other file of bunco_club/ (models, actions, views, forms, tasks, mail, headcount,
               ical, admin, apps, migrations, ...): never games or tournaments, never the wiring;
               but the pure games.rules, the ground floor, so a house rule lives once, in its engine
- games        games/: live and the club domain; never tournaments, never the wiring
- tournaments  tournaments/: games, live and the club domain; never the wiring
- wiring       the folder bunco_club/site/ (settings, secrets_file, security, urls, asgi, wsgi, celery,
               the clock, between_tests, the site views, static, the load_demo command): anything

The layers are read from the folders: a new file of bunco_club/site/ is wiring, any other new file of
bunco_club/ is club domain and gets the stricter rules.

`import_circles(root)` reports every circle of project modules importing each other: what a Celery
task calls sits one floor below the actions that enqueue it (bunco_club/mail.py,
tournaments/deciding.py). `importers_of(root, module)` shows that segno (QR codes) and
django.core.signing each have one importer in the project: live/qr.py and live/signing.py.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bunco_club", "live", "games", "tournaments")
DESIGN = "(docs/DESIGN.md §2)"

# Layers.
PURE_RULES = "pure rules"
PURE_CLUB = "pure club"
LIVE = "live"
CLUB = "club domain"
GAMES = "games"
TOURNAMENTS = "tournaments"
WIRING = "wiring"
STDLIB = "standard library"
THIRD_PARTY = "third-party"

WIRING_PACKAGE = "bunco_club.site"  # the folder bunco_club/site/: settings, urls, asgi, the clock, load_demo...
PURE_CLUB_MODULES = frozenset({"bunco_club.rotation", "bunco_club.standings", "bunco_club.custody"})


def layer_of(module: str) -> str:
    """The layer of a dotted module name (a project module, or a package outside the project)."""
    top = module.partition(".")[0]
    if module == "games.rules" or module.startswith("games.rules."):
        return PURE_RULES
    if module == "tournaments.brackets" or module.startswith("tournaments.brackets."):
        return PURE_RULES
    if top == "games":
        return GAMES
    if top == "tournaments":
        return TOURNAMENTS
    if top == "live":
        return LIVE
    if top == "bunco_club":
        if module == WIRING_PACKAGE or module.startswith(WIRING_PACKAGE + "."):
            return WIRING
        if any(module == pure or module.startswith(pure + ".") for pure in PURE_CLUB_MODULES):
            return PURE_CLUB
        return CLUB
    if top in sys.stdlib_module_names:
        return STDLIB
    return THIRD_PARTY


# What each layer may import, and the rule in plain words when it imports something else.
ALLOWED: dict[str, frozenset[str]] = {
    PURE_RULES: frozenset({STDLIB, PURE_RULES}),
    PURE_CLUB: frozenset({STDLIB, PURE_CLUB, PURE_RULES}),
    LIVE: frozenset({STDLIB, THIRD_PARTY, LIVE}),
    CLUB: frozenset({STDLIB, THIRD_PARTY, LIVE, CLUB, PURE_CLUB, PURE_RULES}),
    GAMES: frozenset({STDLIB, THIRD_PARTY, LIVE, CLUB, PURE_CLUB, GAMES, PURE_RULES}),
    TOURNAMENTS: frozenset({STDLIB, THIRD_PARTY, LIVE, CLUB, PURE_CLUB, GAMES, PURE_RULES, TOURNAMENTS}),
    WIRING: frozenset({STDLIB, THIRD_PARTY, LIVE, CLUB, PURE_CLUB, GAMES, PURE_RULES, TOURNAMENTS, WIRING}),
}


def rule_broken(importer: str, imported: str) -> str:
    """The rule an import from layer `importer` of layer `imported` breaks, in plain words."""
    if importer == PURE_RULES:
        return "games/rules/ and tournaments/brackets.py are pure: the standard library and games.rules only"
    if importer == PURE_CLUB:
        return "bunco_club/rotation.py and standings.py are pure: the standard library only"
    if importer == LIVE:
        return "live imports no domain app (Django and the standard library only)"
    if imported == WIRING:
        return f"{importer} never imports a wiring module of bunco_club (only the wiring may import everything)"
    if importer == CLUB:
        return "the club domain never imports games or tournaments"  # the pure games.rules excepted
    if importer == GAMES:
        return "games never imports tournaments"
    return f"{importer} may not import {imported}"  # not reached with the table above


@dataclass(frozen=True)
class Import:
    path: str  # the importing file, relative to the root, with forward slashes
    line: int
    importer: str  # dotted name of the importing module
    imported: str  # dotted name of the imported module


def module_name(relative: Path) -> str:
    parts = list(relative.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_module(root: Path, name: str) -> bool:
    """Whether a dotted name is a module or package of the tree under `root`."""
    path = root.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or path.is_dir()  # a package, __init__.py or not


def imports_of(root: Path, path: Path) -> list[Import]:
    """Every import statement in one file, wherever it is written, relative ones resolved."""
    relative = path.relative_to(root)
    importer = module_name(relative)
    is_package = path.name == "__init__.py"
    package = importer.split(".") if is_package else importer.split(".")[:-1]
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Import | ast.ImportFrom):
            continue
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                if node.level - 1 >= len(package):
                    raise ValueError(f"{relative}:{node.lineno}: relative import beyond the top level")
                base = package[: len(package) - (node.level - 1)]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            for alias in node.names:
                # `from games import models` imports the module games.models; `from games.models
                # import Night` imports from games.models.
                candidate = f"{source}.{alias.name}" if source else alias.name
                if alias.name != "*" and is_module(root, candidate):
                    names.append(candidate)
                else:
                    names.append(source)
        for name in names:
            found.append(Import(relative.as_posix(), node.lineno, importer, name))
    return found


def project_modules(root: Path) -> list[Path]:
    """Every .py file of the project packages (migrations included; tests, bench, scripts are not
    project packages)."""
    files = []
    for package in PACKAGES:
        directory = root / package
        if directory.is_dir():
            files += [p for p in directory.rglob("*.py") if "__pycache__" not in p.parts]
    return sorted(files)


def project_imports(root: Path) -> list[Import]:
    return [found for path in project_modules(root) for found in imports_of(root, path)]


# Packages of one layer that never import each other (docs/DESIGN.md §2: the Bunco night and the game
# tables share games/phones.py and games/rules/, not each other's code).
APART = (("games.night", "games.table"),)


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def layout_violations(root: Path) -> list[str]:
    """One message per import that breaks docs/DESIGN.md §2: file:line, what it imports, which rule."""
    violations = []
    for found in project_imports(root):
        importer, imported = layer_of(found.importer), layer_of(found.imported)
        if imported not in ALLOWED[importer]:
            violations.append(
                f"{found.path}:{found.line} imports {found.imported}: {rule_broken(importer, imported)} {DESIGN}"
            )
        for first, second in APART:
            for mine, theirs in ((first, second), (second, first)):
                if within(found.importer, mine) and within(found.imported, theirs):
                    violations.append(
                        f"{found.path}:{found.line} imports {found.imported}: {first} and {second} "
                        f"never import each other {DESIGN}"
                    )
    return violations


def import_circles(root: Path) -> list[str]:
    """One message per circle of project modules importing each other, wherever the imports are
    written (a function-level import closes a circle as surely as a top-level one: it only hides it
    until that function runs). Each message names the modules in order, back to the first."""
    graph: dict[str, set[str]] = {}
    for found in project_imports(root):
        if found.imported != found.importer and is_module(root, found.imported):
            graph.setdefault(found.importer, set()).add(found.imported)
    circles = []
    for component in strongly_connected(graph):
        if len(component) > 1:
            circles.append("import circle: " + " -> ".join(circle_through(graph, component)) + f" {DESIGN}")
    return sorted(circles)


def strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's algorithm: the groups of modules that can each reach all the others."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            components.append(component)

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


def circle_through(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """A shortest way round from the component's first module back to itself."""
    start = min(component)
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for target in sorted(graph.get(node, set()) & component):
            if target == start:
                return [*paths[node], start]
            if target not in paths:
                paths[target] = [*paths[node], target]
                queue.append(target)
    raise AssertionError("unreachable: a strongly connected component has a way round")


# --- The checker itself, on small fake trees ------------------------------------------------------


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for name, source in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
    return root


def test_a_club_file_importing_games_is_reported(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "bunco_club/__init__.py": "",
            "bunco_club/models.py": (
                "from django.db import models\n"
                "\n"
                "\n"
                "def night_of(party):\n"
                "    from games.models import Night\n"
                "    return Night.objects.filter(party=party)\n"
            ),
            "games/__init__.py": "",
            "games/models.py": "from django.db import models\n",
        },
    )
    assert layout_violations(root) == [
        "bunco_club/models.py:5 imports games.models: the club domain never imports games or "
        "tournaments (docs/DESIGN.md §2)"
    ]


def test_a_club_file_may_read_the_pure_rules_but_not_the_nights_code(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "bunco_club/__init__.py": "",
            "bunco_club/models.py": "from games.rules import bunco, prizes\nfrom games.forms import NewNightForm\n",
            "games/__init__.py": "",
            "games/forms.py": "",
            "games/rules/__init__.py": "",
            "games/rules/bunco.py": "",
            "games/rules/prizes.py": "",
        },
    )
    assert layout_violations(root) == [
        "bunco_club/models.py:2 imports games.forms: the club domain never imports games or "
        "tournaments (docs/DESIGN.md §2)"
    ]


def test_an_import_under_type_checking_is_reported(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "bunco_club/views.py": (
                "from typing import TYPE_CHECKING\n"
                "\n"
                "if TYPE_CHECKING:\n"
                "    from tournaments.models import Tournament\n"
            ),
        },
    )
    assert layout_violations(root) == [
        "bunco_club/views.py:4 imports tournaments.models: the club domain never imports games or "
        "tournaments (docs/DESIGN.md §2)"
    ]


def test_a_pure_module_importing_django_is_reported(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "games/rules/__init__.py": "",
            "games/rules/kismet.py": "import random\n\nfrom django.utils import timezone\n",
            "tournaments/brackets.py": "import math\n\n\ndef cut():\n    import django.db\n",
            "bunco_club/rotation.py": "from itertools import cycle\nfrom celery import shared_task\n",
        },
    )
    assert layout_violations(root) == [
        "bunco_club/rotation.py:2 imports celery: bunco_club/rotation.py and standings.py are pure: "
        "the standard library only (docs/DESIGN.md §2)",
        "games/rules/kismet.py:3 imports django.utils: games/rules/ and tournaments/brackets.py are "
        "pure: the standard library and games.rules only (docs/DESIGN.md §2)",
        "tournaments/brackets.py:5 imports django.db: games/rules/ and tournaments/brackets.py are "
        "pure: the standard library and games.rules only (docs/DESIGN.md §2)",
    ]


def test_a_relative_import_is_resolved_before_it_is_judged(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "games/__init__.py": "",
            "games/models.py": "",
            "games/rules/__init__.py": "",
            "games/rules/dice.py": "",
            "games/rules/bunco.py": "from . import dice\nfrom .dice import roll\nfrom ..models import Night\n",
        },
    )
    assert layout_violations(root) == [
        "games/rules/bunco.py:3 imports games.models: games/rules/ and tournaments/brackets.py are "
        "pure: the standard library and games.rules only (docs/DESIGN.md §2)"
    ]


def test_live_importing_games_is_reported(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "live/__init__.py": "",
            "live/streams.py": "import redis\nfrom django.http import StreamingHttpResponse\nimport games.models\n",
            "live/log.py": "from bunco_club.models import Club\n",
        },
    )
    assert layout_violations(root) == [
        "live/log.py:1 imports bunco_club.models: live imports no domain app (Django and the standard "
        "library only) (docs/DESIGN.md §2)",
        "live/streams.py:3 imports games.models: live imports no domain app (Django and the standard "
        "library only) (docs/DESIGN.md §2)",
    ]


def test_games_importing_a_wiring_module_or_tournaments_is_reported(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "bunco_club/__init__.py": "",
            "bunco_club/site/settings.py": "",
            "bunco_club/site/views.py": "",
            "games/views.py": (
                "from django.conf import settings\n"
                "from bunco_club.site import views as site_views\n"
                "from bunco_club.site.settings import DEBUG\n"
                "from tournaments.models import Tournament\n"
            ),
        },
    )
    assert layout_violations(root) == [
        "games/views.py:2 imports bunco_club.site.views: games never imports a wiring module of "
        "bunco_club (only the wiring may import everything) (docs/DESIGN.md §2)",
        "games/views.py:3 imports bunco_club.site.settings: games never imports a wiring module of "
        "bunco_club (only the wiring may import everything) (docs/DESIGN.md §2)",
        "games/views.py:4 imports tournaments.models: games never imports tournaments (docs/DESIGN.md §2)",
    ]


def test_imports_in_the_allowed_directions_are_not_reported(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "bunco_club/__init__.py": "",
            "bunco_club/site/__init__.py": "from bunco_club.site.celery import app\n",
            "bunco_club/site/celery.py": "from celery import Celery\n",
            "live/limits.py": "from redis.exceptions import RedisError\n",
            "bunco_club/models.py": "from django.db import models\nfrom live.log import log_event\n",
            "bunco_club/standings.py": "from collections import Counter\nfrom bunco_club import rotation\n",
            "bunco_club/rotation.py": "import itertools\n",
            "bunco_club/site/views.py": "from games.models import Night\nfrom tournaments import models\n",
            "bunco_club/site/management/commands/load_demo.py": "def handle():\n    from games.actions import start_night\n",
            "live/models.py": "from django.db import models\n",
            "games/rules/bunco.py": "from __future__ import annotations\nimport random\nfrom games.rules import dice\n",
            "games/views.py": (
                "import segno\n"
                "from live.limits import limited\n"
                "from bunco_club.models import Party\n"
                "from live.streams import event_stream_response\n"
                "from games.rules import bunco\n"
            ),
            "tournaments/brackets.py": "import math\nfrom games.rules import dice\n",
            "tournaments/actions.py": "from games.models import Night\nfrom bunco_club.models import Club\nfrom live.log import log_event\n",
        },
    )
    assert layout_violations(root) == []


def test_an_import_circle_is_reported_even_through_a_function_level_import(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "bunco_club/__init__.py": "",
            "bunco_club/actions.py": "from bunco_club import tasks\n",
            "bunco_club/tasks.py": "def remind():\n    from bunco_club.actions import send\n",
            "games/__init__.py": "",
            "games/a.py": "import games.b\n",
            "games/b.py": "from games import c\n",
            "games/c.py": "from games.a import thing\n",
            "games/d.py": "from games import a\n",  # leads into a circle, is not part of one
        },
    )
    assert import_circles(root) == [
        "import circle: bunco_club.actions -> bunco_club.tasks -> bunco_club.actions (docs/DESIGN.md §2)",
        "import circle: games.a -> games.b -> games.c -> games.a (docs/DESIGN.md §2)",
    ]


def test_a_tree_without_circles_has_none_reported(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "tournaments/__init__.py": "",
            "tournaments/actions.py": "from tournaments import deciding, tasks\n",
            "tournaments/tasks.py": "from tournaments import deciding\n",
            "tournaments/deciding.py": "from tournaments.models import Round\n",
            "tournaments/models.py": "from django.db import models\n",
        },
    )
    assert import_circles(root) == []


def test_the_night_and_the_game_tables_importing_each_other_is_reported(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "games/__init__.py": "",
            "games/phones.py": "",
            "games/night/__init__.py": "",
            "games/night/views.py": "from games import phones\nfrom games.table.models import Table\n",
            "games/table/__init__.py": "",
            "games/table/models.py": "from games.rules import table\n",
            "games/table/actions.py": "def f():\n    from games.night import views\n",
        },
    )
    assert layout_violations(root) == [
        "games/night/views.py:2 imports games.table.models: games.night and games.table never import "
        "each other (docs/DESIGN.md §2)",
        "games/table/actions.py:2 imports games.night.views: games.night and games.table never import "
        "each other (docs/DESIGN.md §2)",
    ]


# --- The real tree ---------------------------------------------------------------------------------


def test_the_checker_reads_every_project_package_of_the_real_tree() -> None:
    read = {found.path.partition("/")[0] for found in project_imports(ROOT)}
    assert read == set(PACKAGES)
    assert any(p.parts[-2] == "migrations" for p in project_modules(ROOT))


@pytest.mark.parametrize("package", PACKAGES)
def test_the_real_tree_follows_the_import_directions(package: str) -> None:
    violations = [v for v in layout_violations(ROOT) if v.startswith(package + "/")]
    assert violations == [], "\n".join(violations)


def test_the_real_tree_has_no_import_circles() -> None:
    """What a Celery task calls sits one floor below the actions that enqueue it (bunco_club/mail.py,
    tournaments/deciding.py): actions -> tasks -> the lower module, never back."""
    circles = import_circles(ROOT)
    assert circles == [], "\n".join(circles)


# --- One of each: the QR helper and the signing of links --------------------------------------------


def importers_of(root: Path, target: str) -> list[str]:
    """The project modules that import `target` (a module, `from x import target`'s `x.target`
    included, wherever the import is written)."""
    found = set()
    for path in project_modules(root):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            else:
                continue
            if any(within(name, target) for name in names):
                found.add(module_name(path.relative_to(root)))
    return sorted(found)


def test_the_checker_finds_who_imports_a_module_however_it_is_written(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "games/a.py": "import segno\n",
            "games/b.py": "def f():\n    from django.core import signing\n",
            "live/c.py": "from django.core.signing import TimestampSigner\n",
            "live/d.py": "from django.core import mail\n",
        },
    )
    assert importers_of(root, "segno") == ["games.a"]
    assert importers_of(root, "django.core.signing") == ["games.b", "live.c"]


def test_one_module_draws_qr_codes() -> None:
    assert importers_of(ROOT, "segno") == ["live.qr"]


def test_one_module_signs_and_reads_tokens() -> None:
    """Join links, group links, members' links and check rooms keep their own salts and messages,
    and share live/signing.py's mechanics: refusing forged, expired and future-dated tokens."""
    assert importers_of(ROOT, "django.core.signing") == ["live.signing"]


# --- A game is one folder (issue 30): games/table/ and its shared pages name no game ---------------
#
# The games are named in games/rules/registry.py and in each game's own modules (games/rules/<game>*)
# and folders (templates/games/table/<game>/, the game's script). The table's code, its shared
# templates and its shared scripts ask the game's `GameRules` for everything: they hold no
# `isinstance(..., <a game's class>)` and no game's name as a literal (a comparison, a dispatch
# table's key, a branch of a template), so a fourth game is its folder and a line in the registry.

TABLE_CODE = "games/table"
# The commands that play and check any game at a table (docs/CONTRACT.md): they name no game either.
TABLE_COMMANDS = tuple(f"games/management/commands/{name}.py" for name in ("simulate_table", "verify_table", "table_record"))
SHARED_TABLE_TEMPLATES = "templates/games/table"  # its *.html only: each game's folder below is its own
SHARED_TABLE_SCRIPTS = ("static/js/table_live.js", "static/js/table_new.js")
COMPARISON = ("==", "!=", "===", "!==")


def game_names_and_classes() -> tuple[set[str], set[str]]:
    """The registry's games and the names of the classes their engines are (each `TableGame`)."""
    from games.rules.registry import GAMES
    from games.rules.table import TableGame

    return set(GAMES), {cls.__name__ for cls in TableGame.__subclasses__()}


def _names_in(node: ast.AST) -> set[str]:
    return {n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(node) if isinstance(n, ast.Name | ast.Attribute)}


def _strings_in(node: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def naming_a_game(root: Path, games: set[str], classes: set[str]) -> dict[str, list[str]]:
    """Where the table's code and shared pages name a game, by kind: "isinstance" (on a game's
    class), "comparison" (`== "kismet"`, `in ("kismet", ...)`, a template's `table.game == "..."`)
    and "literal" (any other place a game's name is written as a string: a dispatch table's key)."""
    found: dict[str, list[str]] = {"isinstance": [], "comparison": [], "literal": []}
    code = sorted((root / TABLE_CODE).rglob("*.py")) + [root / name for name in TABLE_COMMANDS if (root / name).exists()]
    for path in code:
        where = path.relative_to(root).as_posix()
        tree = ast.parse(path.read_text(), filename=where)
        compared: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "isinstance" \
                    and len(node.args) == 2 and _names_in(node.args[1]) & classes:
                found["isinstance"].append(f"{where}:{node.lineno}")
            if isinstance(node, ast.Compare):
                for part in (node.left, *node.comparators):
                    if set(_strings_in(part)) & games:
                        found["comparison"].append(f"{where}:{node.lineno}")
                        compared.update(id(n) for n in ast.walk(part))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and node.value in games and id(node) not in compared:
                found["literal"].append(f"{where}:{node.lineno}")
    pages = sorted((root / SHARED_TABLE_TEMPLATES).glob("*.html")) + [
        root / script for script in SHARED_TABLE_SCRIPTS if (root / script).exists()]
    for path in pages:
        where = path.relative_to(root).as_posix()
        for number, line in enumerate(path.read_text().splitlines(), 1):
            for game in games:
                for quoted in (f'"{game}"', f"'{game}'"):
                    at = line.find(quoted)
                    while at != -1:
                        around = line[max(0, at - 6):at] + line[at + len(quoted):at + len(quoted) + 6]
                        kind = "comparison" if any(op in around for op in COMPARISON) else "literal"
                        found[kind].append(f"{where}:{number}")
                        at = line.find(quoted, at + 1)
    return found


def test_naming_a_game_in_the_tables_code_or_its_shared_pages_is_reported(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {
        "games/table/bots.py": "from games.rules.kismet import KismetTable\n\n"
                               "def f(game):\n    if isinstance(game, KismetTable):\n        return 1\n",
        "games/table/forms.py": "def g(data):\n    if data['game'] == 'kismet':\n        return 2\n"
                                "    return {'fill_or_bust': 3}[data['game']]\n",
        "templates/games/table/table.html": '{% if table.game == "kismet" %}<p>{% endif %}\n',
        "templates/games/table/kismet/_play.html": '<p data-for-game="kismet"></p>\n',
        "static/js/table_new.js": 'if (game.value === "kismet") show();\n',
        "games/rules/registry.py": "GAMES = {'kismet': 1}\n",
        "games/management/commands/simulate_table.py": "def h(game):\n    if game == 'fill_or_bust':\n        return 4\n",
    })
    found = naming_a_game(root, {"kismet", "fill_or_bust"}, {"KismetTable"})
    assert found == {
        "isinstance": ["games/table/bots.py:4"],
        "comparison": ["games/table/forms.py:2", "games/management/commands/simulate_table.py:2",
                       "templates/games/table/table.html:1", "static/js/table_new.js:1"],
        "literal": ["games/table/forms.py:4"],
    }


def test_the_tables_code_and_shared_pages_name_no_game() -> None:
    """0 isinstance on a game's class and 0 comparisons with a game's name outside the rules and
    the registry (issue 30); tests/games/table/test_a_fourth_game.py plays a game the table has never
    heard of through the real views."""
    games, classes = game_names_and_classes()
    assert {"fill_or_bust", "kismet", "ninety_nine"} <= games and "KismetTable" in classes
    assert naming_a_game(ROOT, games, classes) == {"isinstance": [], "comparison": [], "literal": []}


def test_each_game_has_its_template_folder_with_the_same_partials() -> None:
    from games.rules.registry import GAMES

    partials = {"_head.html", "_play.html", "_screen.html", "_options.html", "_replay_head.html",
                "_replay_top.html", "_replay_step.html"}
    for name in GAMES:
        folder = ROOT / SHARED_TABLE_TEMPLATES / name
        assert partials <= {path.name for path in folder.glob("*.html")}, name


# --- Each game's script and stylesheet in its game's folder (issue 30) ------------------------------
#
# A game's script is static/js/games/<game>/table.js and its stylesheet static/css/games/<game>/,
# each loaded only by the game's own partials. The table's shared scripts (static/js/table*.js: the
# stream, the new-table form, the replay's stepper) and its shared stylesheet (static/css/table*.css)
# name no game at all, not even in a comment or a class name: what is one game's lives in its folder.

SHARED_TABLE_ASSETS = ("static/js/table*.js", "static/css/table*.css")


def game_spellings(game: str) -> set[str]:
    """A registry key as code writes it: `ninety_nine`, `ninety-nine` (a class name), `ninety nine`."""
    return {game, game.replace("_", "-"), game.replace("_", " ")}


def shared_assets_naming_a_game(root: Path, games: set[str]) -> list[str]:
    found = []
    for pattern in SHARED_TABLE_ASSETS:
        for path in sorted(root.glob(pattern)):
            where = path.relative_to(root).as_posix()
            for number, line in enumerate(path.read_text().lower().splitlines(), 1):
                if any(spelling in line for game in games for spelling in game_spellings(game)):
                    found.append(f"{where}:{number}")
    return found


def test_a_shared_table_script_or_stylesheet_naming_a_game_is_reported(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {
        "static/js/table_live.js": "// Shared.\nif (x) draw();\n",
        "static/js/table_replay.js": "// Kismet's sheets are shown too.\n",
        "static/css/table.css": ".play {}\n.ninety-nine-hand { gap: 1px; }\n",
        "static/js/games/kismet/table.js": 'var game = "kismet";\n',
        "static/css/games/ninety_nine/table.css": ".ninety-table {}\n",
    })
    assert shared_assets_naming_a_game(root, {"kismet", "ninety_nine"}) == [
        "static/js/table_replay.js:1", "static/css/table.css:2"]


def test_the_shared_table_scripts_and_stylesheets_name_no_game() -> None:
    games, _ = game_names_and_classes()
    assert shared_assets_naming_a_game(ROOT, games) == []


def test_each_games_script_is_in_its_folder_and_loaded_only_by_its_own_partials() -> None:
    from games.rules.registry import GAMES

    for name in GAMES:
        script = f"js/games/{name}/table.js"
        assert (ROOT / "static" / script).exists(), name
        assert script in (ROOT / SHARED_TABLE_TEMPLATES / name / "_head.html").read_text(), name
    for page in sorted((ROOT / SHARED_TABLE_TEMPLATES).rglob("*.html")):
        loaded = set(re.findall(r"static '(?:js|css)/games/([a-z_]+)/", page.read_text()))
        own = {page.parent.name} if page.parent.name in GAMES else set()
        assert loaded <= own, page
