"""Text the site takes from a request without a Django form: the one rule for an idempotency key's
shape, and for the characters typed text may hold.

A form's CharField refuses NUL; text an action takes straight from a request (a host's key, a late
arrival's name, a member's note) must too: SQLite stores a NUL, PostgreSQL refuses it in text and
in JSON (the event log's data), which made such a request a 500 there (issue 21's walked fuzz).
"""

from __future__ import annotations

KEY_MAX = 64  # the keys the pages make are 32 hex digits or a UUID


def has_control_characters(text: str) -> bool:
    """Whether `text` holds NUL or another control character (C0, DEL or C1). Tabs and line breaks
    count too: names and notes are collapsed to single spaces before this is asked."""
    return any(ord(character) < 32 or 127 <= ord(character) < 160 for character in text)


def well_formed_key(key: str) -> bool:
    """An idempotency key as the pages make them: 1 to 64 characters, none of them a control
    character. Every action that takes a key asks this (a retry finds its first answer by it)."""
    return 0 < len(key) <= KEY_MAX and not has_control_characters(key)
