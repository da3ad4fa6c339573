"""The slow poll under every live page's stream: `every {% phone_poll_seconds %}s` in the htmx
triggers, and `data-poll-seconds` for static/js/table_live.js (settings.PHONE_POLL_SECONDS)."""

from __future__ import annotations

from django import template
from django.conf import settings

register = template.Library()


@register.simple_tag
def phone_poll_seconds() -> int:
    """How often a live page re-fetches itself, whatever its stream missed."""
    return int(settings.PHONE_POLL_SECONDS)
