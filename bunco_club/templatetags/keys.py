"""`{% request_key %}`: a fresh idempotency key for a form a phone may send twice (a retry finds its
first answer by it; docs/DESIGN.md §3). Each form of a page gets its own."""

from __future__ import annotations

import secrets

from django import template

register = template.Library()


@register.simple_tag
def request_key() -> str:
    return secrets.token_hex(16)
