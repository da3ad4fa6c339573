"""Every POST of the site, walked from the URLconf (issue 21): fuzzed with nasty values, and refused
without its CSRF token.

The fuzz posts, as a visitor the permission table lets in, what the route's forms and scripts post
(walked.REGISTRY's fields): each field missing or filled with something no form should take (a huge
number, a negative one, a float, "²", digits of other scripts, 5,000 digits, NUL, markup, 3,000
letters); a valid body with a field or two spoiled so; a JSON body, a text body, a body of a
megabyte; as a plain form post or an htmx one. Whatever it sends, the answer is never a 500. A
refusal is a 4xx, or a form post sent back to its page, with a message in words, and every table of
the database (the event log included) is as it was. Only a free-text field (walked.Entry.free: a
name, a note, a key) may take a nasty value, and never one with a control character, or a checkbox
(walked.Entry.ticks), which any value ticks; a button that posts nothing answers any body as it
answers an empty POST.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlencode

import pytest
from django.test import Client
from django.urls import reverse
from hypothesis import HealthCheck, example, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from live.text import has_control_characters
from tests.security import walked
from tests.security.walked import MARK, World, world_fixture  # noqa: F401 (the module's fixture)
from tests.security.walked_table import PERMISSIONS

pytestmark = pytest.mark.django_db

REFUSED_VISITORS = {"403", "404", "405", "LOG"}

# Values no form of the site should take for a number, a choice or an id (a free-text field may take
# some of them: walked.Entry.free and walked.Entry.ticks say which fields).
NASTY = (
    "",
    "9" * 30,  # a number no database column holds
    "-1",
    "-9223372036854775809",  # one below the smallest 64-bit id
    "1.5",
    "1e3",
    "NaN",
    "²",  # str.isdigit() says yes; int() says no
    "٣",  # an Arabic-Indic three: int() takes it
    "７",  # a fullwidth seven: int() takes it too
    "1" * 5000,  # 5,000 digits: int() refuses to read it
    "\x00",
    "1\x00",
    MARK,
    "é" * 3000,
)

MEGABYTE = 1024 * 1024
HTMX = {"HX-Request": "true"}  # the header htmx sends with its requests

# The fields read as lists (request.POST.getlist, a multiple choice): every value sent is read.
MULTIPLE = {"dates", "order", "dice", "keep"}


@dataclass(frozen=True)
class Body:
    """One POST's body: form fields (values or lists of values), or raw content of a type.
    `spoiled`: the fields of a valid body given nasty values (None: every field sent is nasty)."""

    kind: str  # "form", "urlencoded", "json", "text", "megabyte"
    content: Any
    htmx: bool = False
    spoiled: tuple[str, ...] | None = None

    def request(self) -> dict[str, Any]:
        headers = HTMX if self.htmx else {}
        if self.kind == "form":
            return {"data": self.content, "headers": headers}
        content_type = {"urlencoded": "application/x-www-form-urlencoded", "megabyte": "application/x-www-form-urlencoded",
                        "json": "application/json", "text": "text/plain; charset=utf-8"}[self.kind]
        return {"data": self.content, "content_type": content_type, "headers": headers}

    def nasty_fields(self) -> dict[str, list[str]]:
        """The fields in which the route reads nasty values, with those values: of a field sent
        several times, the last value (what QueryDict.get and a form's single field read), all of
        them for the fields read as lists (MULTIPLE); an empty value is no value (an optional field
        takes it, as a field not sent)."""
        if self.kind == "form":
            sent = {name: value if isinstance(value, list) else [value] for name, value in self.content.items()}
        elif self.kind == "urlencoded":
            sent = parse_qs(self.content, keep_blank_values=True)
        else:
            return {}  # JSON, text, or a body too large to read: no form field at all
        read = {name: values if name in MULTIPLE else values[-1:] for name, values in sent.items()
                if self.spoiled is None or name in self.spoiled}
        return {name: [value for value in values if value] for name, values in read.items()
                if any(values)}

    def __repr__(self) -> str:
        shown = repr(self.content)
        return (f"Body({self.kind}, {shown[:300] + '…' if len(shown) > 300 else shown}, htmx={self.htmx}, "
                f"spoiled={self.spoiled})")


def megabyte_body(fields: tuple[str, ...]) -> Body:
    """A form whose first field holds a megabyte and more: Django refuses to read it."""
    return Body("megabyte", f"{fields[0] if fields else 'x'}={'9' * (MEGABYTE + 1)}")


def bodies(entry: walked.Entry, world: World) -> st.SearchStrategy[Body]:
    """Bodies of nasty values for the route's fields, some missing; or raw JSON and text; or, for a
    route with a valid body, that body with one or two of its fields spoiled."""
    fields = entry.fields or ("x",)
    value = st.sampled_from(NASTY)
    values = st.one_of(value, st.lists(value, min_size=2, max_size=3))
    form = st.dictionaries(st.sampled_from(fields), values, max_size=len(fields))
    htmx = st.booleans()
    nasty = st.one_of(
        st.builds(Body, st.just("form"), form, htmx),
        st.builds(Body, st.just("urlencoded"), form.map(lambda data: urlencode(data, doseq=True)), htmx),
        st.builds(Body, st.just("json"), st.one_of(form.map(json.dumps), st.sampled_from(
            ["[]", "null", "1e999", "{", json.dumps(MARK), json.dumps({"kind": ["toss"] * 3})])), htmx),
        st.builds(Body, st.just("text"), value, htmx),
    )
    if entry.valid is None:
        return nasty
    base = entry.valid(world)

    def spoil(chosen: list[str], spoilt: list[Any], htmx: bool) -> Body:
        return Body("form", {**base, **dict(zip(chosen, spoilt, strict=False))}, htmx, tuple(chosen))

    spoiled = st.builds(spoil, st.lists(st.sampled_from(entry.spoils or fields), min_size=1, max_size=2, unique=True),
                        st.lists(values, min_size=2, max_size=2), htmx)
    return st.one_of(spoiled, nasty)  # spoiled first: the bodies that reach deepest are drawn most


def may_take(entry: walked.Entry, body: Body) -> bool:
    """Whether the route may take this body: it takes anything (`takes`), or every nasty value it
    was sent is in a checkbox, or in a free-text field and holds no control character."""
    return bool(entry.takes) or all(
        name in entry.ticks or (name in entry.free and not any(has_control_characters(value) for value in values))
        for name, values in body.nasty_fields().items())


def post_rows() -> list[str]:
    return [key for key in PERMISSIONS if key.endswith(" POST")]


def actor(row: str) -> str:
    """The first visitor the permission table lets post `row` (the host, a phone, the director...)."""
    cells = dict(zip(walked.VISITORS, PERMISSIONS[row].split(), strict=True))
    allowed = [visitor for visitor, cell in cells.items() if cell not in REFUSED_VISITORS]
    assert allowed, f"{row}: nobody may post it"
    return allowed[0]


# Django's own bodies for a request it cannot read: a status, no sentence for the person.
DJANGO_BARE = ("Bad Request (400)", "Forbidden (403)", "Not Found", "Server Error (500)")


def has_words(message: str) -> bool:
    """A sentence a person can act on, not Django's bare status line."""
    return sum(character.isalpha() for character in message) >= 10 and not message.startswith(DJANGO_BARE)


# Examples hypothesis draws per URL, beside the given ones (`given_bodies`): 1,067 POSTs over the 93
# POST URLs. Measured on the 2-core development machine, busy with other work, in one process: 21 s
# (19 s of CPU) on SQLite, 44 s (25 s of CPU) with PostgreSQL and Redis. derandomize: the same
# examples every run, so a failure reproduces.
EXAMPLES = 8


@pytest.mark.parametrize("row", post_rows())
def test_every_post_refuses_nasty_input_with_a_message_and_changes_nothing(world: World, row: str) -> None:
    url, _, entry = world.rows[row]
    visitor = world.visitors[actor(row)]
    empty = {}  # the answer to an empty POST, plain and by htmx (which may answer otherwise: a 204)
    for htmx in (False, True):
        with walked.rolled_back():
            empty[htmx] = walked.outcome(walked.knock(visitor, "POST", url, headers=HTMX if htmx else {}))

    def posted(body: Body) -> None:
        with walked.rolled_back():
            response = walked.knock(visitor, "POST", url, **body.request())
            status = response.status_code
            assert status < 500, f"{row}: {status} for {body!r}"
            if walked.refused(response):
                message = walked.said(response)
                assert has_words(message), f"{row}: {status} without a message in words ({message!r}) for {body!r}"
                changed = walked.changed_tables(world.fingerprint, walked.database_fingerprint())
                assert not changed, f"{row}: refused ({status}: {message}) yet changed {changed} for {body!r}"
            elif walked.outcome(response) == empty[body.htmx] and not walked.changed_tables(
                    world.fingerprint, walked.database_fingerprint()):
                pass  # what was posted was not read: the answer to an empty POST (a page that exists already)
            elif not entry.fields:
                assert walked.outcome(response) == empty[body.htmx], \
                    f"{row}: a button that posts nothing answered {status} to {body!r}, {empty[body.htmx]} to an empty POST"
            else:
                assert may_take(entry, body), f"{row}: took nasty input ({status}) {body!r}"

    fuzzed = given(body=bodies(entry, world))(posted)
    for body in given_bodies(entry, world):
        fuzzed = example(body=body)(fuzzed)
    hypothesis_settings(max_examples=EXAMPLES, derandomize=True, database=None,
                        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])(fuzzed)()


def given_bodies(entry: walked.Entry, world: World) -> list[Body]:
    """The bodies every route is sent, beside the ones hypothesis draws: a megabyte, JSON, text,
    and NUL in each free-text field of a valid body (what reached PostgreSQL: a 500 there)."""
    given = [megabyte_body(entry.fields), Body("json", json.dumps(dict.fromkeys(entry.fields or ("x",), MARK))),
             Body("text", "\x00" + MARK, htmx=True)]
    if entry.valid is not None:
        base = entry.valid(world)
        given += [Body("form", {**base, name: "Ada\x00"}, spoiled=(name,)) for name in entry.free]
    return given


# --- CSRF -------------------------------------------------------------------------------------------


def with_csrf_checks(visitor: Client) -> Client:
    """The same browser (its cookies: session, log in, seats), with Django's CSRF checks enforced as
    a real browser meets them (the test client skips them unless told)."""
    browser = Client(enforce_csrf_checks=True)
    browser.cookies = walked.cookies_of(visitor)
    return browser


@pytest.mark.parametrize("row", post_rows())
def test_every_post_without_its_csrf_token_is_refused_and_changes_nothing(world: World, row: str) -> None:
    url, _, _ = world.rows[row]
    browser = with_csrf_checks(world.visitors[actor(row)])
    with walked.rolled_back():
        response = browser.post(url, {}, headers={"HX-Request": "true"})
        assert response.status_code == 403, f"{row}: {response.status_code}"
        assert "CSRF" in response.content.decode()
        assert not walked.changed_tables(world.fingerprint, walked.database_fingerprint())


def csrf_token_of(browser: Client, page: str) -> str:
    """The token a page gives its forms (base.html puts it in the body's htmx headers too)."""
    response = browser.get(page)
    assert response.status_code == 200
    return str(response.context["csrf_token"])


def test_a_post_with_its_csrf_token_is_taken(world: World) -> None:
    """The refusals above are the token's: the same browsers' posts with the token are taken (a
    phone's tap, by htmx with the header; a host's form, with the form's hidden field)."""
    phone = with_csrf_checks(world.visitors["phone"])
    host = with_csrf_checks(world.visitors["host"])
    code, slug = world.night.code, world.club.slug
    with walked.rolled_back():
        token = csrf_token_of(phone, reverse("games:play", args=[code]))
        tap = phone.post(reverse("games:tally", args=[code]), {"team": "A", "points": "1", "key": walked.KEY},
                         headers={"HX-Request": "true", "X-CSRFToken": token})
        assert tap.status_code == 200, tap.content
        token = csrf_token_of(host, reverse("clubs:roster", args=[slug]))
        added = host.post(reverse("clubs:roster", args=[slug]), {"name": "Zoe", "csrfmiddlewaretoken": token})
        assert added.status_code == 302
        changed = walked.changed_tables(world.fingerprint, walked.database_fingerprint())
        assert {"bunco_club_member", "games_tally"} <= set(changed)
