"""Text the site takes from a request without a Django form: the one rule for an idempotency key's
shape, and for the characters typed text may hold.

A form's CharField refuses NUL; text an action takes straight from a request (a host's key, a late
arrival's name, a member's note) must too: SQLite stores a NUL, PostgreSQL refuses it in text and
in JSON (the event log's data), which made such a request a 500 there (issue 21's walked fuzz).
"""

from __future__ import annotations

import re

KEY_MAX = 64  # the keys the pages make are 32 hex digits or a UUID
_CONTROL_CHARACTERS = "\x00-\x1f\x7f-\x9f"  # C0, DEL and C1; tabs and line breaks among them
_ANY_CONTROL_CHARACTER = re.compile(f"[{_CONTROL_CHARACTERS}]")
# An idempotency key as the pages make them: 1 to KEY_MAX characters, none of them a control
# character. A tap, the hot path, asks the pattern itself (`WELL_FORMED_KEY.fullmatch(key)`).
WELL_FORMED_KEY = re.compile(f"[^{_CONTROL_CHARACTERS}]{{1,{KEY_MAX}}}")


def has_control_characters(text: str) -> bool:
    """Whether `text` holds NUL or another control character (C0, DEL or C1). Tabs and line breaks
    count too: names and notes are collapsed to single spaces before this is asked."""
    return _ANY_CONTROL_CHARACTER.search(text) is not None


def well_formed_key(key: str) -> bool:
    """An idempotency key as the pages make them (`WELL_FORMED_KEY`). Every action that takes a
    key asks this (a retry finds its first answer by it)."""
    return WELL_FORMED_KEY.fullmatch(key) is not None
