"""The page readers in tests/builders.py read the one element a test names, not the whole page: a
word elsewhere on the page must not pass a check meant for the alert."""

from __future__ import annotations

import pytest
from django.http import HttpResponse, JsonResponse

from tests.builders import alert_of, element_text

PAGE = """<main><h1>Round 3 of 24</h1>
<p class="notice notice-error" role="alert">The <b>points</b> must be a whole number.<br> Try again.</p>
<section id="host-state"><p>Round 4</p><p>ready</p></section></main>"""


def test_it_reads_the_text_of_the_named_element_only_nested_tags_included():
    assert element_text(PAGE, role="alert") == "The points must be a whole number. Try again."
    assert element_text(PAGE, id="host-state") == "Round 4ready"


def test_it_fails_when_no_element_has_the_attributes():
    with pytest.raises(AssertionError, match="no element"):
        element_text(PAGE, id="missing")


def test_a_refusal_is_read_from_the_pages_alert_or_the_phones_json():
    assert alert_of(HttpResponse(PAGE, status=400)) == "The points must be a whole number. Try again."
    assert alert_of(JsonResponse({"error": "Not saved: ask the host."}, status=409)) == "Not saved: ask the host."
