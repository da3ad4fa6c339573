from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import cast

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from bunco_club.forms import HouseRulesForm
from games.night.actions import MAX_CORRECTION, BadTally, clean_names
from games.night.models import TITLE_MAX, max_tables, night_size_refusal
from games.rules import bunco
from live.forms import WholeNumberField
from live.http import ID_MAX


class NewNightForm(HouseRulesForm):
    """"How many players?" — their names, one a line, and the buy-in; the house rules, their
    mapping to the engines and the buy-in's check are HouseRulesForm's, as a club's form has them."""

    # Its own fields first, then the house rules (HouseRulesForm's), as the page has always shown them.
    field_order = ("names", "buy_in", "title")

    names = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 12, "autocomplete": "off", "spellcheck": "false"}),
        help_text=gettext_lazy("One name a line. Ghosts fill the empty seats."),
    )
    buy_in = forms.DecimalField(min_value=Decimal("0"), max_value=Decimal("1000"), decimal_places=2,
                                initial=Decimal("5.00"), label=gettext_lazy("Buy-in ($)"))
    title = forms.CharField(max_length=TITLE_MAX, required=False, initial=gettext_lazy("Bunco night"))

    def clean_names(self) -> str:
        names: str = self.cleaned_data["names"]
        refusal = names_refusal(names_in(names))
        if refusal is not None:
            raise forms.ValidationError(refusal, code="names")
        return names

    def name_list(self) -> list[str]:
        return names_in(self.cleaned_data["names"])

    def buy_in_cents(self) -> int:
        return int(self.cleaned_data["buy_in"] * 100)


def names_in(text: str) -> list[str]:
    """The names typed one a line (blank lines skipped)."""
    return [line for line in text.splitlines() if line.strip()]


def names_refusal(names: Sequence[str]) -> str | None:
    """Why tonight cannot start with these names (one a line, as typed); None if it can. The one
    check the form's validation and its live hint share, made of the start action's own rules:
    `actions.clean_names` (a name twice, a name too long), `night_size_refusal` (this site's
    limit) and the engine's `night_shape` (fewer than 3 players)."""
    try:
        players = clean_names(names)
    except BadTally as error:
        return error.message
    too_many = night_size_refusal(len(players))
    if too_many is not None:
        return too_many
    try:
        bunco.night_shape(len(players))
    except bunco.BuncoError as error:
        return BadTally(error.args[0]).message  # the rule's sentence, in the reader's language
    return None


@dataclass(frozen=True)
class Shape:
    """The live hint under the names: what the list means tonight, or why it cannot start."""

    text: str
    problem: bool = False

    def __str__(self) -> str:
        return self.text


def shape_of(names: Sequence[str]) -> Shape:
    """What a list of names means tonight, in words ("13 players · 4 tables · 3 ghost seats"), or
    the reason the form would refuse it (`names_refusal`), flagged as a problem."""
    if not names:
        return Shape(_("Add the players' names."))
    refusal = names_refusal(names)
    if refusal is not None:
        return Shape(refusal, problem=True)
    count = len(clean_names(names))
    tables, ghosts = bunco.night_shape(count)
    players_text = ngettext("%(count)s player", "%(count)s players", count) % {"count": count}
    tables_text = ngettext("%(count)s table", "%(count)s tables", tables) % {"count": tables}
    ghost_text = (ngettext("%(count)s ghost seat", "%(count)s ghost seats", ghosts) % {"count": ghosts}
                  if ghosts else _("no ghosts"))
    return Shape(f"{players_text} · {tables_text} · {ghost_text}")


class TallyForm(forms.Form):
    team = forms.ChoiceField(choices=[("A", "A"), ("B", "B")])
    # Bounds only: which buttons there are is the action's rule (and its message).
    points = WholeNumberField(low=0, high=MAX_CORRECTION, what=cast(str, gettext_lazy("the points")), required=False)
    bunco_player = WholeNumberField(low=1, high=ID_MAX, what=cast(str, gettext_lazy("who rolled the Bunco")), required=False)
    key = forms.CharField(max_length=64, required=False)
    # The "Wipeout (three 1s)" button (house rule): the team's points for the round are cleared.
    wipeout = forms.BooleanField(required=False)


class UndoForm(forms.Form):
    # The same key again is the same undo (a retry after a lost answer).
    key = forms.CharField(max_length=64, required=False)


class CorrectionForm(forms.Form):
    table = WholeNumberField(low=1, high=max_tables, what=cast(str, gettext_lazy("the table number")))
    team = forms.ChoiceField(choices=[("A", "A"), ("B", "B")])
    points = WholeNumberField(low=-MAX_CORRECTION, high=MAX_CORRECTION, what=cast(str, gettext_lazy("the points")))
    round = WholeNumberField(low=1, high=bunco.ROUNDS, what=cast(str, gettext_lazy("the round")), required=False)
    key = forms.CharField(max_length=64, required=False,
                          error_messages={"max_length": gettext_lazy("The correction's key is malformed.")})
