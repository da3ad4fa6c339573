from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from django import forms
from django.utils.functional import Promise
from django.utils.translation import gettext

from live.http import ID_MAX, BadNumber, parse_int


class WholeNumberField(forms.Field):
    """A form's whole number, read by `parse_int` (ASCII digits, within `low`..`high`), where
    Django's IntegerField takes what int() takes ("٣", "1_000") and only optional bounds.
    `high` may be a function, read when the form is validated (a bound that follows a setting)."""

    widget = forms.NumberInput

    def __init__(self, *, low: int, high: int | Callable[[], int], what: str | Promise, **kwargs: Any) -> None:
        self.low, self._high, self.what = low, high, what
        super().__init__(**kwargs)

    @property
    def high(self) -> int:
        return self._high() if callable(self._high) else self._high

    def to_python(self, value: Any) -> int | None:
        if value in self.empty_values:
            return None
        try:
            return parse_int(value, low=self.low, high=self.high, what=self.what)
        except BadNumber as error:
            raise forms.ValidationError(str(error), code="invalid") from None

    def widget_attrs(self, widget: forms.Widget) -> dict[str, Any]:
        return {**super().widget_attrs(widget), "min": self.low, "step": 1}


class RecordChoiceField(forms.ModelChoiceField):
    """A choice among records, its id read as every number the site is sent is read (`parse_int`:
    ASCII digits): Django's ModelChoiceField reads it with int(), which takes "٣" or "３" for 3."""

    def to_python(self, value: Any) -> Any:
        if isinstance(value, str) and value not in self.empty_values:
            try:
                parse_int(value, low=1, high=ID_MAX, what=gettext("the choice"))
            except BadNumber:
                raise forms.ValidationError(self.error_messages["invalid_choice"], code="invalid_choice") from None
        return super().to_python(value)


class PingForm(forms.Form):
    name = forms.CharField(max_length=40, required=False, strip=True)

    def sender(self) -> str:
        """The name typed, or "" for none: each screen then says "Someone" in its own language
        (live.renderers.ping_from_message)."""
        return self.cleaned_data.get("name") or ""


def cleaned_by_its_fields(form_class: type[forms.Form], data: Mapping[str, Any]) -> dict[str, Any] | None:
    """What `form_class(data)` cleans, or None where the form would be invalid, read by the form's
    own fields without making the form: Django deep-copies a form's fields for each form it makes,
    a fifth of a tap's view (docs/PERFORMANCE.md, issue 34). For a form of plain fields only (no
    `clean_<field>`, no `clean()`, no files), which `_plain` checks once per form."""
    fields = _plain(form_class)
    cleaned = {}
    for name, field in fields.items():
        try:
            cleaned[name] = field.clean(field.widget.value_from_datadict(data, {}, name))
        except forms.ValidationError:
            return None
    return cleaned


@cache
def _plain(form_class: type[forms.Form]) -> dict[str, forms.Field]:
    custom = [name for name in form_class.base_fields if hasattr(form_class, f"clean_{name}")]
    if custom or form_class.clean is not forms.Form.clean:
        raise TypeError(f"{form_class.__name__} cleans more than its fields: make the form.")
    return dict(form_class.base_fields)
