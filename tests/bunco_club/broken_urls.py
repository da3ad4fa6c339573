"""A URLconf for tests only: a view that fails, to see what the server says about a 500."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.urls import path


class KitchenOnFire(Exception):
    pass


def broken(request: HttpRequest) -> HttpResponse:
    raise KitchenOnFire("the kitchen is on fire")


urlpatterns = [path("broken/", broken)]
