"""Turning events into Server-Sent Events frames, once per event per process.

Each app registers a renderer per event kind of its channels with `@renders(namespace, kind)`: the
namespace is its channels' prefix ("night" for `night:<id>` and `night:<id>:player:<pk>`,
"tournament", "check", "table", ...), so two apps may each have a kind of the same bare name, and
the events already stored keep their kind strings (an event's renderer is found by its channel's
prefix and its kind). A second renderer for a namespace and kind already registered is an error
at start-up (ImproperlyConfigured), never a silent replacement. A renderer works from the event's
data alone (no query), so a bell to a thousand phones is rendered once.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable

from django.core.exceptions import ImproperlyConfigured
from django.utils import translation

from live.bilingual import SEPARATOR, shown_in
from live.broadcasters import Message

# A renderer turns one event into the SSE frames that carry it: (event name or None, data).
# None as name means "swap the data into the page" (htmx 4 swaps unnamed messages); a name makes
# a DOM event on the connecting element instead.
Frame = tuple[str | None, str]
Renderer = Callable[[Message], Iterable[Frame]]


_renderers: dict[tuple[str, str], Renderer] = {}


def namespace_of(channel: str) -> str:
    """The app's part of a channel's name: "night" for `night:12` and `night:12:player:3`."""
    return channel.split(":", 1)[0]


def _name_of(function: Renderer) -> str:
    return f"{function.__module__}.{function.__qualname__}"


def renders(namespace: str, kind: str) -> Callable[[Renderer], Renderer]:
    """Register the function that turns events of `kind` on the channels of `namespace` (their
    prefix before the first ":") into SSE frames. ImproperlyConfigured if another renderer is
    registered for them already (the same function registered again, a module reloaded, is not
    another).

    A renderer must not query the database: it runs on the event loop, once per event per
    process, from the event's data alone.
    """
    if not namespace or ":" in namespace or not kind:
        raise ImproperlyConfigured(f"A renderer is registered for a channel prefix and a kind, not {namespace!r}, {kind!r}.")

    def register(function: Renderer) -> Renderer:
        existing = _renderers.get((namespace, kind))
        if existing is not None and _name_of(existing) != _name_of(function):
            raise ImproperlyConfigured(
                f"Two renderers for {kind!r} events on {namespace!r} channels: {_name_of(existing)} and "
                f"{_name_of(function)}. Give one of them another kind, or remove one.")
        _renderers[(namespace, kind)] = function
        return function

    return register


def renderer_for(channel: str, kind: str) -> Renderer | None:
    """The renderer registered for events of `kind` on `channel`, if any."""
    return _renderers.get((namespace_of(channel), kind))


class _RenderCache:
    """The encoded frames of recent events: a bell to 1,000 phones is rendered once a language."""

    def __init__(self, size: int = 256) -> None:
        # Keyed by more than the id: an id is unique in one database, but a process can outlive
        # its database's ids (a test server between flushed test databases, a restored backup).
        self._items: OrderedDict[tuple[int, str, str, str], bytes] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get_or_render(self, message: Message, language: str | None) -> bytes:
        key = (message["id"], message.get("channel", ""), message["kind"], language or "")
        with self._lock:
            cached = self._items.get(key)
            if cached is not None:
                self._items.move_to_end(key)
                return cached
        languages = (language or "").split(SEPARATOR)
        with translation.override(languages[0] or None), shown_in(languages if len(languages) > 1 else ()):
            encoded = encode_event(message)
        with self._lock:
            self._items[key] = encoded
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return encoded


_render_cache = _RenderCache()


def encode_event(message: Message) -> bytes:
    renderer = renderer_for(message.get("channel", ""), message["kind"])
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


def render_message(message: Message, language: str | None = None) -> bytes:
    """The event's frames in `language` (the phone's; None: the site's default; "en+es": a shared
    screen's languages, live/bilingual.py), rendered once per event and language per process."""
    return _render_cache.get_or_render(message, language)

