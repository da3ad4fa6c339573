"""Turning events into Server-Sent Events frames, once per event per process.

Each app registers a renderer per event kind with `@renders(kind)`; a renderer works from the
event's data alone (no query), so a bell to a thousand phones is rendered once.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable

from live.broadcasters import Message

# A renderer turns one event into the SSE frames that carry it: (event name or None, data).
# None as name means "swap the data into the page" (htmx 4 swaps unnamed messages); a name makes
# a DOM event on the connecting element instead.
Frame = tuple[str | None, str]
Renderer = Callable[[Message], Iterable[Frame]]


_renderers: dict[str, Renderer] = {}


def renders(kind: str) -> Callable[[Renderer], Renderer]:
    """Register the function that turns events of `kind` into SSE frames.

    A renderer must not query the database: it runs on the event loop, once per event per
    process, from the event's data alone.
    """

    def register(function: Renderer) -> Renderer:
        _renderers[kind] = function
        return function

    return register


class _RenderCache:
    """The encoded frames of recent events: a bell to 1,000 phones is rendered once."""

    def __init__(self, size: int = 256) -> None:
        self._items: OrderedDict[int, bytes] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get_or_render(self, message: Message) -> bytes:
        key = message["id"]
        with self._lock:
            cached = self._items.get(key)
            if cached is not None:
                self._items.move_to_end(key)
                return cached
        encoded = encode_event(message)
        with self._lock:
            self._items[key] = encoded
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return encoded


_render_cache = _RenderCache()


def encode_event(message: Message) -> bytes:
    renderer = _renderers.get(message["kind"])
    frames: Iterable[Frame] = renderer(message) if renderer else [(message["kind"], json.dumps(message["data"]))]
    return b"".join(encode_frame(data, event=name, event_id=message["id"]) for name, data in frames)


def encode_frame(data: str, *, event: str | None = None, event_id: int | None = None) -> bytes:
    """One SSE message. Multi-line data becomes several `data:` lines, as the format requires."""
    lines = []
    if event:
        lines.append(f"event: {event}")
    if event_id is not None:
        lines.append(f"id: {event_id}")
    lines.extend(f"data: {line}" for line in data.splitlines() or [""])
    return ("\n".join(lines) + "\n\n").encode()


def render_message(message: Message) -> bytes:
    return _render_cache.get_or_render(message)

