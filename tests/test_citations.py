"""Every file the code, the tests and the docs cite is in the repository, and every section cited is there.

A person who clones the repository must be able to follow each reference it makes ("docs/RULES.md
§1.4", "games/rules/dice.py", "DESIGN.md §2") without anything from outside it.

What counts as a citation (`citations()`):
- Where: the prose of the repository's tracked files: the whole text of Markdown files; the comments
  and docstrings (a string standing alone as a statement) of Python files; `{# #}`, `{% comment %}`
  and `<!-- -->` comments of templates; `/* */` and `//` comments of JavaScript and CSS; `#` comments
  of the Makefile, shell scripts, `.ci/run` and TOML. Code itself (a template name passed to
  `render`, a path a test writes to) is not a citation: running it is its check. Vendored files
  (static/vendor/), migrations (written by Django) and third-party folders (.venv, node_modules) are
  not read.
- What: a path token ending in a known extension (.md .py .html .js .css .txt .toml .cfg .json .sh)
  with at least one folder in it (`games/rules/dice.py`, `../README.md`), and a bare document name in
  capitals (`DESIGN.md`, `RULES.md`, `CONTRACT.md`, `FAIRNESS.md`). Not a citation: a token with a
  placeholder (`<code>`, `{name}`, `*`, `…`), a URL (`http://…`, `/g/<code>/record.json` is a URL path
  with a placeholder), an absolute path (`/etc/…`, `/usr/…`: the machine's, not the repository's), and
  a bare lower-case file name (`actions.py`), whose folder the sentence around it names.
- Where it must be: a path, relative to the repository's root, or to the citing file's folder or one
  of its parents (a file of games/ may cite its night/ files from there), or under a `templates/` or `static/` folder
  (where Django looks template and static names up); a Markdown link's target `[..](path)` relative to
  the Markdown file. A bare document name must be under docs/ (or at the root, like README.md).

`ALLOWED` lists the few tokens that look like paths but name no repository file, each with why.

`sections()` checks the other half: each "§N" cited against docs/DESIGN.md or docs/RULES.md
("docs/RULES.md §1.4", "DESIGN.md §7", "RULES.md §4.3, §4.4") names a numbered heading of that document.
"""

from __future__ import annotations

import ast
import io
import re
import subprocess
import tokenize
from collections.abc import Iterator
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

EXTENSIONS = "md|py|html|js|css|txt|toml|cfg|json|sh"
# A path with a folder (optionally ../ or ./ first), or a bare document name in capitals.
PATH = re.compile(
    r"(?<![\w/.\-~$<{:])"
    rf"((?:\.\.?/)*(?:[\w.\-]+/)+[\w.\-]+\.(?:{EXTENSIONS})|[A-Z][A-Z_]+\.md)"
    r"(?![\w/<{*…-])"
)
MARKDOWN_LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")
SKIPPED_FOLDERS = ("static/vendor/", ".venv/", "node_modules/")

# Tokens shaped like paths that name no file of this repository, and why.
ALLOWED = {
    # The files a fresh clone's `make run` writes beside the database (README's "what make run leaves").
    ".bunco-secret.json",
}


def tracked_files() -> list[str]:
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    return [
        name
        for name in listed.stdout.splitlines()
        if not name.startswith(SKIPPED_FOLDERS) and "/migrations/" not in name and (ROOT / name).is_file()
    ]


def python_prose(text: str) -> Iterator[tuple[int, str]]:
    """The comments and the docstrings (strings standing alone as statements) of a Python file."""
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            yield node.lineno, node.value.value


def block_comments(text: str, pattern: re.Pattern[str]) -> Iterator[tuple[int, str]]:
    for match in pattern.finditer(text):
        yield text.count("\n", 0, match.start()) + 1, match.group(0)


TEMPLATE_COMMENT = re.compile(r"\{#.*?#\}|\{% comment %\}.*?\{% endcomment %\}|<!--.*?-->", re.S)
SCRIPT_COMMENT = re.compile(r"/\*.*?\*/|(?<![:\\\"'])//[^\n]*", re.S)
HASH_COMMENT = re.compile(r"(?:^|(?<=\s))#[^\n]*")


def prose(name: str, text: str) -> Iterator[tuple[int, str]]:
    """The parts of a file that a person reads as prose (see the module's docstring), with their line."""
    if name.endswith(".md"):
        yield from enumerate(text.splitlines(), 1)
    elif name.endswith(".py"):
        yield from python_prose(text)
    elif name.endswith((".html", ".txt")) and ("templates/" in name):
        yield from block_comments(text, TEMPLATE_COMMENT)
    elif name.endswith((".js", ".css")):
        yield from block_comments(text, SCRIPT_COMMENT)
    elif name.endswith((".sh", ".toml")) or name in ("Makefile", ".ci/run"):
        yield from block_comments(text, HASH_COMMENT)


def search_roots(name: str) -> list[Path]:
    """Where a path cited in `name` may be: the root, the file's folder and its parents, templates/, static/."""
    folder = (ROOT / name).parent
    roots = [ROOT, *[parent for parent in [folder, *folder.parents] if ROOT in [parent, *parent.parents]]]
    roots += sorted(ROOT.glob("templates")) + sorted(ROOT.glob("*/templates")) + sorted(ROOT.glob("static"))
    return roots


def resolves(name: str, cited: str, *, link: bool = False) -> bool:
    if link:
        return ((ROOT / name).parent / cited).exists()
    if "/" not in cited:
        return (ROOT / "docs" / cited).exists() or (ROOT / cited).exists()
    return any((root / cited).exists() for root in search_roots(name))


def is_external(line: str, start: int, cited: str) -> bool:
    before = line[:start]
    return bool(re.search(r"[a-z]+://\S*$", before)) or cited in ALLOWED


def citations() -> Iterator[tuple[str, int, str, bool]]:
    """(file, line, cited path, whether it resolves) for every citation of the repository."""
    for name in tracked_files():
        try:
            text = (ROOT / name).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for first_line, part in prose(name, text):
            for offset, line in enumerate(part.splitlines()):
                for match in PATH.finditer(line):
                    cited = match.group(1)
                    if not is_external(line, match.start(), cited):
                        yield name, first_line + offset, cited, resolves(name, cited)
                if name.endswith(".md"):
                    for match in MARKDOWN_LINK.finditer(line):
                        cited = match.group(1)
                        if "://" not in cited and not cited.startswith(("mailto:", "/")):
                            yield name, first_line + offset, cited, resolves(name, cited, link=True)


@cache
def all_citations() -> tuple[tuple[str, int, str, bool], ...]:
    """`citations()` read once for the tests below (reading every file takes a couple of seconds)."""
    return tuple(citations())


def test_every_file_the_repository_cites_is_in_it() -> None:
    missing = sorted({f"{name}:{line}: {cited}" for name, line, cited, found in all_citations() if not found})
    assert not missing, f"{len(missing)} citations name no file of the repository:\n" + "\n".join(missing)


def test_the_citations_are_found_where_people_write_them() -> None:
    found = {(name, cited) for name, _, cited, _ in all_citations()}
    # A docstring, a comment, a Makefile comment and a Markdown document are all read.
    assert ("games/rules/dice.py", "docs/FAIRNESS.md") in found
    assert any(name == "tests/test_layout.py" and cited == "docs/DESIGN.md" for name, cited in found)
    assert any(name == "Makefile" and cited.startswith("docs/") for name, cited in found)
    assert any(name == "README.md" for name, _ in found)


NUMBERED_DOCS = ("DESIGN.md", "RULES.md")
# "DESIGN.md §7", "docs/RULES.md §1.4, §1.5", "RULES.md §4.3 and §4.4": the document, then its sections.
SECTION_CITE = re.compile(r"\b(DESIGN|RULES)\.md\W{0,4}(§\s?\d+(?:\.\d+)*(?:(?:,|,? and| or|/)\s*§?\s?\d+(?:\.\d+)*)*)")
HEADING = re.compile(r"^#{2,4}\s+(\d+(?:\.\d+)*)\.?\s", re.M)


def sections() -> Iterator[tuple[str, int, str, str]]:
    """(file, line, document, section) for each "§N" cited against a numbered document."""
    for name in tracked_files():
        try:
            text = (ROOT / name).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for match in SECTION_CITE.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            for number in re.findall(r"\d+(?:\.\d+)*", match.group(2)):
                yield name, line, f"{match.group(1)}.md", number.rstrip(".")


def test_every_section_cited_is_a_heading_of_its_document() -> None:
    headings = {doc: set(HEADING.findall((ROOT / "docs" / doc).read_text(encoding="utf-8"))) for doc in NUMBERED_DOCS}
    missing = sorted(
        {f"{name}:{line}: docs/{doc} §{number}" for name, line, doc, number in sections() if number not in headings[doc]}
    )
    assert not missing, "sections cited that their document does not have:\n" + "\n".join(missing)
