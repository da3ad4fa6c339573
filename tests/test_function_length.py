"""No function of the project is longer than a person can hold in their head (issue 43): 50 code lines.

`long_functions(root)` reads every .py file of bunco_club/, games/, live/ and tournaments/ with `ast`
and counts, for each function (methods and nested functions included, each on its own), the lines
between its `def` and its last line that hold code: not blank, not only a comment, not a docstring
(its own or a nested one's). A statement written over several lines counts each of them.

The pure engines are left out: games/rules/, tournaments/brackets.py and bunco_club/rotation.py hold
the rules of the games and of the rotation, read against docs/RULES.md line by line; migrations are
written by Django.
"""

from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bunco_club", "games", "live", "tournaments")
MOST = 50
PURE_ENGINES = ("games/rules/", "tournaments/brackets.py", "bunco_club/rotation.py")


NOT_CODE = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
            tokenize.ENCODING, tokenize.ENDMARKER}
Function = ast.FunctionDef | ast.AsyncFunctionDef


def code_lines(source: str) -> set[int]:
    """The numbers of the lines holding a token of code (a string spanning lines holds each of them)."""
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in NOT_CODE:
            lines.update(range(token.start[0], token.end[0] + 1))
    return lines


def docstring_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | Function) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                lines.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return lines


def functions_of(tree: ast.AST, prefix: str = "") -> list[tuple[str, Function]]:
    """Every function with its qualified name (`Class.method`, `outer.inner`)."""
    found: list[tuple[str, Function]] = []
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, Function):
            found.append((prefix + node.name, node))
            found += functions_of(node, f"{prefix}{node.name}.")
        elif isinstance(node, ast.ClassDef):
            found += functions_of(node, f"{prefix}{node.name}.")
        else:
            found += functions_of(node, prefix)
    return found


def function_lengths(source: str) -> dict[str, int]:
    """Each function of one file's source, by qualified name: its code lines."""
    tree = ast.parse(source)
    code = code_lines(source) - docstring_lines(tree)
    return {name: sum(1 for line in code if node.lineno <= line <= (node.end_lineno or node.lineno))
            for name, node in functions_of(tree)}


def measured_files(root: Path) -> list[Path]:
    files = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            where = path.relative_to(root).as_posix()
            if "migrations" in path.parts or "__pycache__" in path.parts or where.startswith(PURE_ENGINES):
                continue
            files.append(path)
    return files


def long_functions(root: Path) -> dict[str, int]:
    """`path:qualified name` -> code lines, for each function over MOST lines."""
    found = {}
    for path in measured_files(root):
        where = path.relative_to(root).as_posix()
        for name, length in function_lengths(path.read_text(encoding="utf-8")).items():
            if length > MOST:
                found[f"{where}:{name}"] = length
    return found


# --- The counter itself, on small sources ----------------------------------------------------------


def test_a_functions_docstring_comments_and_blank_lines_are_not_code() -> None:
    source = (
        "def f(a,\n"  # 1: code
        "      b):\n"  # 2: code
        '    """What f does.\n'
        "\n"
        '    More words."""\n'
        "    # a comment\n"
        "\n"
        "    total = (a +\n"  # 3: code
        "             b)  # a comment after code\n"  # 4: code
        '    text = """one\n'  # 5: code
        "\n"  # 6: inside a string, not a docstring
        'two"""\n'  # 7: code
        "    return total, text\n"  # 8: code
    )
    assert function_lengths(source) == {"f": 8}


def test_methods_and_nested_functions_are_each_measured_and_count_in_their_outer_function() -> None:
    source = (
        "class Sheet:\n"
        '    """A sheet."""\n'
        "\n"
        "    def total(self):\n"
        "        def add(x, y):\n"
        '            """Adds."""\n'
        "            return x + y\n"
        "        return add(1, 2)\n"
    )
    assert function_lengths(source) == {"Sheet.total": 4, "Sheet.total.add": 2}


def test_a_function_over_fifty_code_lines_is_reported_and_the_pure_engines_are_not_read(tmp_path: Path) -> None:
    long = "def long():\n" + "".join(f"    x{n} = {n}\n" for n in range(50)) + "\n"
    short = "def short():\n" + "".join(f"    x{n} = {n}\n" for n in range(49)) + "\n"
    for name, source in {"games/night/a.py": long + short, "games/rules/kismet.py": long,
                         "tournaments/brackets.py": long, "bunco_club/rotation.py": long,
                         "bunco_club/migrations/0001_initial.py": long, "live/b.py": short}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(source)
    assert long_functions(tmp_path) == {"games/night/a.py:long": 51}


# --- The real tree ---------------------------------------------------------------------------------


def test_no_function_is_over_fifty_code_lines() -> None:
    too_long = long_functions(ROOT)
    assert too_long == {}, "Functions over 50 code lines (split them into well-named steps):\n" + "\n".join(
        f"{where}: {length} code lines" for where, length in sorted(too_long.items()))

