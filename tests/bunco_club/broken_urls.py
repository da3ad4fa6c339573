"""A URLconf for tests only: views that fail, to see what the server says about a 500 and about a
database it cannot reach."""

from __future__ import annotations

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse
from django.urls import path


class KitchenOnFire(Exception):
    pass


def broken(request: HttpRequest) -> HttpResponse:
    raise KitchenOnFire("the kitchen is on fire")


def no_database(request: HttpRequest) -> HttpResponse:
    """What Django raises when the database refuses the connection (PostgreSQL down)."""
    raise OperationalError("connection refused\n\tIs the server running on that host?")


def lost_connection(request: HttpRequest) -> HttpResponse:
    """What Django raises on a connection the database has closed (PostgreSQL restarted)."""
    raise InterfaceError("the connection is closed")


urlpatterns = [path("broken/", broken), path("no-database/", no_database), path("lost-connection/", lost_connection)]
