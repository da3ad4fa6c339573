"""No answer of the site is kept by a cache, and none stands in for another (wiring, issue 42).

Every page here is live: a phone's table, a host's night, a seat's hand, a club's roster. Two
faults followed from caches keeping them:
* Back to a page that had refreshed a region of itself (htmx asks the page's own URL with
  `HX-Request: true` and gets the region alone) showed that region as the whole page, unstyled,
  without its scripts, its stream or its bell: the browser's cache keeps one answer per URL, and
  the last one was the fragment. `Vary: HX-Request, Accept` says the answer depends on those
  headers (the table's screen answers its poll's `Accept: application/json` with JSON), and
  `no-store` makes Back ask the server again for the whole page, which then draws the state as it
  is now rather than as it was.
* A shared phone's cache kept a seat's hand and the players' names.

So every answer a view makes carries both, unless the view set a Cache-Control of its own (the
service worker's script). Static files are served before Django and keep their long max-age.
"""

from __future__ import annotations

from django.http import HttpResponseBase
from django.utils.cache import add_never_cache_headers, patch_vary_headers

from bunco_club.site.security import ResponseHeadersMiddleware

# The request headers an answer of this site may depend on besides its URL and cookies.
VARIES_ON = ("HX-Request", "Accept")


def keep_out_of_caches(response: HttpResponseBase) -> HttpResponseBase:
    patch_vary_headers(response, VARIES_ON)
    if not response.has_header("Cache-Control"):
        add_never_cache_headers(response)  # no-cache, no-store, must-revalidate, private, max-age=0
    return response


class KeptByNoCacheMiddleware(ResponseHeadersMiddleware):
    def patch(self, response: HttpResponseBase) -> HttpResponseBase:
        return keep_out_of_caches(response)
