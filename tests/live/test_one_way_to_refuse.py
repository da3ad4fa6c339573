"""One way to refuse (issue 43): no view or stream makes a 4xx answer by hand, every app reads its
signed links with live's one reader, and the apps' ladders of refusals are live's.

A refusal is raised (live.refusals: BadInput 400, NotYours 403, NotFound 404, NotNow 409,
TooMany 429, ...) and answered by the app's one `refused` (live.refusals.answers_refusals) with
the refusal's status and message; a form page says its status with `form_status`. So an integer
from 400 to 499 in a call's `status`, a `status`/`status_code` assigned, a status passed to a
helper of the view's own, or one of Django's 4xx response classes is a refusal made by hand."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
PACKAGES = ("bunco_club", "games", "live", "tournaments")
FOUR_XX_CLASSES = {"HttpResponseBadRequest", "HttpResponseForbidden", "HttpResponseNotFound",
                   "HttpResponseNotAllowed", "HttpResponseGone"}

# The places allowed a 4xx number outside a refusal's class, and why.
EXEMPT = {
    # The ASGI guard that cuts off a body over the size limit answers 413 itself: it runs before
    # Django has a request, so no view (and no refusal's answer) is there to answer it.
    "bunco_club/site/asgi.py": "an ASGI message below Django",
    # The settings answer nothing: 400 there is NIGHT_MAX_PLAYERS' default, a number of players.
    "bunco_club/site/settings.py": "a number of players, not a status",
}


def modules() -> list[Path]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" not in path.relative_to(ROOT).parts:
                found.append(path)
    return found


def _is_4xx(node: ast.AST) -> bool:
    return any(isinstance(inner, ast.Constant) and type(inner.value) is int and 400 <= inner.value <= 499
               for inner in ast.walk(node))


def _named_status(target: ast.AST) -> bool:
    name = target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else ""
    return name in ("status", "status_code")


def hand_made_4xx(source: str) -> list[tuple[int, str]]:
    """(line, code) of every 4xx answer made by hand in `source`. A refusal class saying its status
    (`status = 403` in its body) is how a refusal is declared, not an answer."""
    tree = ast.parse(source)
    class_bodies = {id(statement) for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
                    for statement in node.body}
    found = []
    for node in ast.walk(tree):
        hit: ast.AST | None = None
        if isinstance(node, ast.Call):
            if any(keyword.arg in ("status", "status_code") and _is_4xx(keyword.value) for keyword in node.keywords):
                hit = node
            elif any(isinstance(arg, ast.Constant) and _is_4xx(arg) for arg in node.args):
                hit = node  # a status handed to a helper: json_error("…", 400)
        elif isinstance(node, ast.Assign | ast.AnnAssign) and id(node) not in class_bodies:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if node.value is not None and any(_named_status(target) for target in targets) and _is_4xx(node.value):
                hit = node
        elif isinstance(node, ast.Dict):
            if any(isinstance(key, ast.Constant) and key.value == "status" and _is_4xx(value)
                   for key, value in zip(node.keys, node.values, strict=True)):
                hit = node
        elif isinstance(node, ast.Name | ast.Attribute):
            name = node.id if isinstance(node, ast.Name) else node.attr
            if name in FOUR_XX_CLASSES:
                hit = node
        if hit is not None:
            found.append((getattr(hit, "lineno", 0), ast.unparse(hit)[:100]))
    return sorted(set(found))


@pytest.mark.parametrize("path", [path.relative_to(ROOT).as_posix() for path in modules()])
def test_no_view_or_stream_makes_a_4xx_answer_by_hand(path):
    if path in EXEMPT:
        return
    assert hand_made_4xx((ROOT / path).read_text()) == []


def test_the_exempt_places_still_hold_what_they_are_exempt_for():
    # An exemption that no longer applies goes: the check would otherwise hide a new one there.
    for path in EXEMPT:
        assert hand_made_4xx((ROOT / path).read_text()) != [], path


@pytest.mark.parametrize("source", [
    'return json_error("That tap was malformed: choose a button.", 400)',
    'return render(request, "games/join_refused.html", {"message": why}, status=403)',
    'response.status_code = 429',
    'return HttpResponseForbidden("Only the test suite on this machine may quiet the server.")',
    'refused = HttpResponse(message, status=429 if over else 200)',
])
def test_the_check_finds_a_4xx_made_by_hand(source):
    assert hand_made_4xx(source) != []


def test_the_check_lets_a_refusal_declare_its_status_and_an_answer_use_it():
    source = ("class NotYours(Refusal):\n    status = 403\n"
              "def answer(request, refusal):\n"
              "    return render(request, 'refused.html', {'message': refusal.message}, status=refusal.status)\n")
    assert hand_made_4xx(source) == []


# --- One reader of signed links -------------------------------------------------------------------

# What only live/signing.py may name: Django's signing, and the verdicts of a token its `read_link`
# turns into each link's own refusal.
SIGNING_NAMES = {"BadSignature", "SignatureExpired", "TimestampSigner", "Signer", "BadToken", "ForgedToken",
                 "ExpiredToken", "FutureToken"}


def signing_uses(source: str) -> list[str]:
    """What a module uses of signing other than live's one link reader (`signing.read_link`)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module in ("django.core.signing", "live.signing"):
            found.append(f"from {node.module} import …")
        elif isinstance(node, ast.ImportFrom) and node.module == "django.core" and any(
                alias.name == "signing" for alias in node.names):
            found.append("from django.core import signing")
        elif isinstance(node, ast.Import) and any(alias.name == "django.core.signing" for alias in node.names):
            found.append("import django.core.signing")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "signing" \
                and node.attr in {"read", "loads", "dumps", *SIGNING_NAMES}:
            found.append(f"signing.{node.attr}")
        elif isinstance(node, ast.Name) and node.id in SIGNING_NAMES:
            found.append(node.id)
    return found


@pytest.mark.parametrize("path", [path.relative_to(ROOT).as_posix() for path in modules()
                                  if path.relative_to(ROOT).as_posix() != "live/signing.py"])
def test_every_link_is_read_by_lives_one_reader(path):
    assert signing_uses((ROOT / path).read_text()) == []


def test_every_app_with_a_signed_link_reads_it_with_read_link():
    readers = sorted(path.relative_to(ROOT).as_posix() for path in modules() if "signing.read_link(" in path.read_text())
    assert readers == ["bunco_club/links.py", "games/links.py", "live/actions.py", "tournaments/check_in.py",
                       "tournaments/links.py"]


def test_the_check_finds_a_link_read_by_hand():
    source = ("from django.core import signing\n"
              "try:\n    signing.loads(token, salt=SALT)\nexcept signing.BadSignature:\n    pass\n")
    assert sorted(signing_uses(source)) == ["from django.core import signing", "signing.BadSignature", "signing.loads"]

