"""The Permissions-Policy header on every page (wiring): settings.PERMISSIONS_POLICY, e.g.
"camera=(), microphone=(), geolocation=(), payment=()": features no page uses stay off, even for
a script that got in. Django's SecurityMiddleware sends the other security headers.

Sync and async alike, with no thread hand-off on either path (the embedded default serves every
request through ASGI).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.core.exceptions import MiddlewareNotUsed
from django.http import HttpRequest, HttpResponseBase

HEADER = "Permissions-Policy"


class ResponseHeadersMiddleware:
    """A middleware that only sets headers on every response (`patch`), sync and async alike with
    no thread hand-off on either path."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def patch(self, response: HttpResponseBase) -> HttpResponseBase:
        raise NotImplementedError

    def __call__(self, request: HttpRequest) -> Any:
        if self.is_async:
            return self.__acall__(request)
        return self.patch(self.get_response(request))

    async def __acall__(self, request: HttpRequest) -> Any:
        return self.patch(await self.get_response(request))


class PermissionsPolicyMiddleware(ResponseHeadersMiddleware):
    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.policy = settings.PERMISSIONS_POLICY.strip()
        if not self.policy:
            raise MiddlewareNotUsed("PERMISSIONS_POLICY is empty")
        super().__init__(get_response)

    def patch(self, response: HttpResponseBase) -> HttpResponseBase:
        response.headers.setdefault(HEADER, self.policy)
        return response
