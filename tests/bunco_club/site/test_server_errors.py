"""Every 500 is logged to the console (the server's log) with its traceback, DEBUG or not."""

from __future__ import annotations

import io
import logging

import pytest
from django.test import Client, override_settings


def request_errors_handler() -> logging.StreamHandler:
    """The console handler settings.LOGGING gives the "django.request" logger."""
    handlers = [handler for handler in logging.getLogger("django.request").handlers
                if isinstance(handler, logging.StreamHandler) and handler.level <= logging.ERROR]
    assert handlers, 'settings.LOGGING sends "django.request" errors to no console handler'
    return handlers[0]


@pytest.mark.django_db
@override_settings(ROOT_URLCONF="tests.bunco_club.broken_urls", DEBUG=False)
def test_a_server_error_is_logged_to_the_console_with_its_traceback(caplog):
    console = io.StringIO()
    handler = request_errors_handler()
    previous = handler.setStream(console)
    try:
        response = Client(raise_request_exception=False).get("/broken/")
    finally:
        handler.setStream(previous)
    assert response.status_code == 500
    logged = console.getvalue()
    assert "ERROR django.request: Internal Server Error: /broken/" in logged
    assert "Traceback (most recent call last)" in logged
    assert 'raise KitchenOnFire("the kitchen is on fire")' in logged
    assert any(record.exc_info for record in caplog.records if record.name == "django.request")
