"""Unguessable codes and tokens for the URLs of every place a phone joins: a night, a game table.

Places are never numbered in public: a readable counter tells how many nights the site has run and
where the next one is. The night's and the table's models both draw their codes here.
"""

from __future__ import annotations

import secrets


def new_code() -> str:
    """An unguessable short code for URLs."""
    return secrets.token_urlsafe(6)


def new_token() -> str:
    """A longer token, for a read-only screen link or a host's key."""
    return secrets.token_urlsafe(18)
