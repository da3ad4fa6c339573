"""No answer of the site is kept by a browser's or a proxy's cache, and none stands in for another
(issue 42: P1, S2). Every URL of the site, walked from the URLconf, GET and POST, by the visitor the
permission table lets in and by an outsider: each answer says Cache-Control: no-store, private (a
seat's hand, a phone's page, a host's night, a roster: a shared phone keeps none of them) and
Vary: HX-Request, Accept (a page and the region of it that its own refresh asks for share one URL;
Back after the refresh showed the region alone, unstyled and dead).

The one answer with a Cache-Control of its own is the service worker's script: checked with the
server at each visit (tests/bunco_club/site/test_installable.py)."""

from __future__ import annotations

import pytest
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.test import Client, override_settings
from django.urls import path

from bunco_club.site.caching import KeptByNoCacheMiddleware
from tests.security import walked
from tests.security.walked import World, world_fixture  # noqa: F401 (the fixture)
from tests.security.walked_table import who_knocks

pytestmark = pytest.mark.django_db

OWN_CACHE_CONTROL = {"service_worker GET": "no-cache", "javascript_catalog GET": "public"}


def cache_control(response: walked.Answer) -> set[str]:
    return {part.strip() for part in response.get("Cache-Control", "").split(",")}


def varies_on(response: walked.Answer) -> set[str]:
    return {part.strip().lower() for part in response.get("Vary", "").split(",")}


def test_every_answer_of_every_url_is_kept_by_no_cache_and_varies_on_htmx_and_accept(world: World) -> None:
    wrong = []
    for row, (url, method, _entry) in world.rows.items():
        for visitor in who_knocks(row, walked.VISITORS):
            with walked.rolled_back():
                response = walked.knock(world.visitors[visitor], method, url)
            control = cache_control(response)
            expected = OWN_CACHE_CONTROL.get(row)
            if expected is None and not {"no-store", "private"} <= control:
                wrong.append(f"{row} as {visitor} ({response.status_code}): Cache-Control {control}")
            if expected is not None and expected not in control:
                wrong.append(f"{row} as {visitor}: Cache-Control {control}, not {expected}")
            if not {"hx-request", "accept"} <= varies_on(response):
                wrong.append(f"{row} as {visitor} ({response.status_code}): Vary {response.get('Vary')!r}")
    assert not wrong, "\n".join(wrong)
    assert len(world.rows) > 100  # every URL of the site, not a few


def test_the_phones_pages_and_a_seats_hand_are_among_them(world: World) -> None:
    """The pages issue 42 found without Cache-Control (S2): the night's phone pages, the table's
    page and its state (a seat's hand)."""
    rows = set(world.rows)
    for row in ("games:play GET", "games:sheet GET", "tables:table[fill_or_bust] GET",
                "tables:state[fill_or_bust seat 0] GET"):
        assert row in rows, row


def _fragment_or_page(request: HttpRequest) -> HttpResponse:
    if request.headers.get("HX-Request"):
        return HttpResponse("<section>the region</section>")
    return JsonResponse({"page": True}) if request.headers.get("Accept") == "application/json" else HttpResponse(
        "<html>the page</html>")


def _own_cache_control(request: HttpRequest) -> HttpResponse:
    response = HttpResponse("checked each time")
    response["Cache-Control"] = "no-cache"
    return response


urlpatterns = [path("either/", _fragment_or_page), path("own/", _own_cache_control)]


@override_settings(ROOT_URLCONF=__name__)
def test_a_view_that_sets_its_own_cache_control_keeps_it_and_still_varies() -> None:
    response = Client().get("/own/")
    assert response["Cache-Control"] == "no-cache"
    assert {"hx-request", "accept"} <= varies_on(response)


@override_settings(ROOT_URLCONF=__name__)
def test_the_page_and_its_region_at_one_url_say_they_differ_by_the_request_headers() -> None:
    page = Client().get("/either/")
    region = Client().get("/either/", headers={"HX-Request": "true"})
    assert page.content != region.content
    for response in (page, region):
        assert {"hx-request", "accept"} <= varies_on(response)
        assert "no-store" in cache_control(response)


def test_the_middleware_serves_sync_and_async_stacks_alike() -> None:
    import asyncio

    async def answer(request: HttpRequest) -> HttpResponse:
        return HttpResponse("async")

    middleware = KeptByNoCacheMiddleware(answer)
    response = asyncio.run(middleware(HttpRequest()))
    assert "no-store" in cache_control(response) and "hx-request" in varies_on(response)
