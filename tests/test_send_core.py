"""One phone script core (issue 43): static/js/send.js is the only script that makes an
idempotency key, tries a post again, waits between tries (a `sleep`) or gives a try a time limit;
every page whose script posts with a key loads it first.

A fast check, read from the files (the browser tests tests/e2e/test_stalled_taps.py,
test_undo_retry.py, test_table_away.py and test_table_seats.py watch the tries themselves).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "static" / "js"
CORE = "static/js/send.js"
CORE_TAG = "<script src=\"{% static 'js/send.js' %}\""

# What only the core writes, each by the marks it leaves in a script.
OWN_WAYS = {
    "a key maker": re.compile(r"getRandomValues|randomUUID"),
    "a sleep": re.compile(r"function\s+sleep\b|new Promise\(\s*(function\s*)?\(?\s*\w+\s*\)?\s*(=>|\{)\s*\{?\s*setTimeout"),
    "a retry loop": re.compile(r"\b(for|while)\s*\([^)]*\b(attempt|tries|tri|retr)\w*", re.IGNORECASE),
    "a try's time limit": re.compile(r"\bAbortController\b"),
}

# The scripts that post with a key (or make one), and so need the core loaded before them.
KEYED_SCRIPTS = ("tally.js", "table_live.js", "tournament.js")


def own_ways(text: str) -> list[str]:
    return [what for what, mark in OWN_WAYS.items() if mark.search(text)]


def test_the_marks_of_a_key_maker_a_sleep_a_retry_loop_and_a_time_limit_are_recognised() -> None:
    assert own_ways("function newKey() { var b = new Uint8Array(16); crypto.getRandomValues(b); }") == ["a key maker"]
    assert own_ways("var key = crypto.randomUUID();") == ["a key maker"]
    assert own_ways("function sleep(ms) { return 1; }") == ["a sleep"]
    assert own_ways("await new Promise(function (resolve) { setTimeout(resolve, 500); });") == ["a sleep"]
    assert own_ways("await new Promise((r) => setTimeout(r, 500));") == ["a sleep"]
    assert own_ways("for (var attempt = 0; attempt < 4; attempt++) { send(); }") == ["a retry loop"]
    assert own_ways("while (tries-- > 0) { send(); }") == ["a retry loop"]
    assert own_ways("var controller = new AbortController();") == ["a try's time limit"]
    assert own_ways("setTimeout(function () { button.classList.remove('is-tapped'); }, 250);") == []


def test_the_core_is_what_makes_keys_waits_tries_and_time_limits() -> None:
    assert own_ways((ROOT / CORE).read_text()) == list(OWN_WAYS)


def test_no_other_script_makes_its_own_key_sleep_retry_loop_or_time_limit() -> None:
    found = {}
    for path in sorted(SCRIPTS.rglob("*.js")):
        where = path.relative_to(ROOT).as_posix()
        if where != CORE and own_ways(path.read_text()):
            found[where] = own_ways(path.read_text())
    assert found == {}, f"use {CORE} (Send.newKey, Send.post) instead: {found}"


def test_every_page_loading_a_script_that_posts_with_a_key_loads_the_core_first() -> None:
    pages = 0
    for page in sorted((ROOT / "templates").rglob("*.html")):
        text = page.read_text()
        for script in KEYED_SCRIPTS:
            at = text.find(f"<script src=\"{{% static 'js/{script}' %}}\"")
            if at == -1:
                continue
            pages += 1
            core = text.find(CORE_TAG)
            assert 0 <= core < at, f"{page.relative_to(ROOT)} loads js/{script} without js/send.js before it"
    assert pages >= 6  # the phone's and the host's page, the game table's pages, the tournament's pages
