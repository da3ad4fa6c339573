"""Unguessable codes and tokens for the URLs of every place a phone joins: a night, a game table.

Places are never numbered in public: a readable counter tells how many nights the site has run and
where the next one is. The night's and the table's models both draw their codes here.
"""

from __future__ import annotations

import secrets


def new_code() -> str:
    """An unguessable short code for URLs. Never one that begins with "-": a command line would
    take it for an option (`manage.py verify_table -Xb3k9Qa` refused the code), and "_" looks
    alike when read out."""
    while True:
        code = secrets.token_urlsafe(6)
        if code[0] not in "-_":
            return code


def new_token() -> str:
    """A longer token, for a read-only screen link or a host's key."""
    return secrets.token_urlsafe(18)
