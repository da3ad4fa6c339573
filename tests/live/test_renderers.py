"""The renderer registry (issue 17): renderers are registered per app namespace (the channels'
prefix: "night", "tournament", "check") and kind, so two apps may each have a kind of the same bare
name; a second renderer for a namespace and kind already registered is an error at start-up, never
a silent replacement; events already stored keep their kind strings and find their renderer by
their channel; and every kind the apps log on a followed channel has one."""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from live import rendering
from live.broadcasters import Message
from live.rendering import Frame, encode_event, renderer_for, renders

ROOT = Path(__file__).resolve().parent.parent.parent


@pytest.fixture
def scratch_registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The registry as the apps left it, restored after the test."""
    monkeypatch.setattr(rendering, "_renderers", dict(rendering._renderers))
    yield


def message(channel: str, kind: str, **data: object) -> Message:
    return {"id": 7, "channel": channel, "kind": kind, "data": data}


def test_a_second_renderer_for_a_kind_already_registered_is_an_error(scratch_registry):
    @renders("testing", "shown")
    def first(message: Message) -> list[Frame]:
        return [(None, "first")]

    with pytest.raises(ImproperlyConfigured, match="Two renderers for 'shown' events on 'testing' channels"):
        @renders("testing", "shown")
        def second(message: Message) -> list[Frame]:
            return [(None, "second")]

    assert renderer_for("testing:1", "shown") is first


def test_an_app_cannot_replace_another_apps_renderer_of_a_real_kind(scratch_registry):
    with pytest.raises(ImproperlyConfigured):
        renders("night", "state")(lambda message: [(None, "not the night's")])
    with pytest.raises(ImproperlyConfigured):
        renders("tournament", "tournament_turn")(lambda message: [(None, "not the tournament's")])


def test_registering_the_same_function_again_is_not_a_second_renderer(scratch_registry):
    existing = renderer_for("night:1", "state")
    assert existing is not None
    renders("night", "state")(existing)  # a module imported again registers what it registered before


def test_a_renderer_names_its_namespace_and_its_kind(scratch_registry):
    for namespace, kind in [("", "state"), ("night:1", "state"), ("night", "")]:
        with pytest.raises(ImproperlyConfigured):
            renders(namespace, kind)


def test_two_apps_may_each_register_a_kind_of_the_same_bare_name(scratch_registry):
    @renders("first", "state")
    def first(message: Message) -> list[Frame]:
        return [(None, "first's state")]

    @renders("second", "state")
    def second(message: Message) -> list[Frame]:
        return [(None, "second's state")]

    assert b"data: first's state" in encode_event(message("first:3", "state"))
    assert b"data: second's state" in encode_event(message("second:3:seat:1", "state"))


def test_a_stored_event_finds_its_renderer_by_its_channel_and_its_kind():
    """No data migration: events in the database keep their kind strings ("state", "tally")."""
    night_state = encode_event(message("night:12", "state", what="moved")).decode()
    assert "event: changed" in night_state
    private = encode_event(message("night:12:player:3", "state", what="seat_released")).decode()
    assert "event: changed" in private
    # The night's "tally" renderer is not the tournament's: an event of that bare kind on another
    # app's channel is not drawn as a night's tally.
    elsewhere = encode_event(message("tournament:4", "tally", a=1)).decode()
    assert elsewhere.startswith("event: tally") and json.dumps({"a": 1}) in elsewhere


# --- Every kind the apps log has a renderer ---------------------------------------------------------

# The namespace of the channels each part of the code logs on (longest prefix first). The club's
# channel (`club:<id>`) is followed by no stream: its events are a log, not drawn on any page.
NAMESPACES = (("games/table", "table"), ("games", "night"), ("tournaments", "tournament"), ("live", "check"))
LOGGERS = {"log_event", "insert_event"}


def logged_kinds() -> set[tuple[str, str]]:
    """(namespace, kind) of every `log_event(channel, "kind", ...)` (and the tap's `insert_event`)
    written with a literal kind in the apps whose channels a stream follows."""
    found = set()
    for folder, namespace in NAMESPACES:
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if "migrations" in path.parts or next(ns for f, ns in NAMESPACES if relative.startswith(f + "/")) != namespace:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, ast.Call) or len(node.args) < 2:
                    continue
                name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
                kind = node.args[1]
                if name in LOGGERS and isinstance(kind, ast.Constant) and isinstance(kind.value, str):
                    found.add((namespace, kind.value))
    return found


def test_every_event_kind_the_apps_log_on_a_followed_channel_has_a_renderer():
    kinds = logged_kinds()
    assert {("night", "tally"), ("night", "state"), ("tournament", "tournament_state"), ("check", "ping")} <= kinds
    missing = sorted(f"{namespace}:{kind}" for namespace, kind in kinds if renderer_for(namespace + ":1", kind) is None)
    assert missing == []


def test_the_frame_cache_does_not_give_one_event_another_events_frame_with_the_same_id(scratch_registry):
    # An id is unique in one database only: a server that outlives its database (a test server
    # between flushed databases) sees an id again, on another channel or kind.
    @renders("cachetest", "first")
    def first(message: Message) -> list[Frame]:
        return [(None, "first frame")]

    @renders("cachetest", "second")
    def second(message: Message) -> list[Frame]:
        return [(None, "second frame")]

    assert b"first frame" in rendering.render_message(message("cachetest:a", "first"))
    assert b"second frame" in rendering.render_message(message("cachetest:a", "second"))
