"""live/forms.py: reading a plain form's fields without making the form (a tap's hot path) cleans
exactly what the form would, and refuses exactly what it would."""

from __future__ import annotations

import pytest
from django import forms
from django.http import QueryDict

from games.night.forms import TallyForm
from live.forms import cleaned_by_its_fields

POSTS = [
    "team=A&points=1&table=2&key=k-1",
    "team=B&points=5&key=",
    "team=A&bunco_player=17&key=k-2",
    "team=B&wipeout=1&key=k-3",
    "team=A&points=0",
    "team=C&points=1",  # no such team
    "points=1",  # no team
    "team=A&points=%C2%B2",  # "²"
    "team=A&points=" + "9" * 5000,  # a 5,000-digit number
    "team=A&points=-1",
    "team=A&bunco_player=%D9%A3",  # "٣"
    "team=A&points=1&key=" + "k" * 65,  # a key too long
]


@pytest.mark.parametrize("body", POSTS)
def test_it_cleans_and_refuses_as_the_form_does(body: str) -> None:
    data = QueryDict(body)
    form = TallyForm(data)
    assert cleaned_by_its_fields(TallyForm, data) == (form.cleaned_data if form.is_valid() else None)


def test_a_form_that_cleans_more_than_its_fields_is_not_read_this_way() -> None:
    class Checked(forms.Form):
        number = forms.IntegerField()

        def clean(self) -> dict[str, object]:
            return super().clean() or {}

    with pytest.raises(TypeError, match="make the form"):
        cleaned_by_its_fields(Checked, QueryDict("number=1"))
