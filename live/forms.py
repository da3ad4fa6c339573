from __future__ import annotations

from django import forms


class PingForm(forms.Form):
    name = forms.CharField(max_length=40, required=False, strip=True)

    def sender(self) -> str:
        return self.cleaned_data.get("name") or "Someone"
