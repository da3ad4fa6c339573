from __future__ import annotations

from decimal import Decimal

from django import forms

from games.rules import bunco

TIE_BREAKS: list[tuple[bunco.TieBreak, str]] = [
    ("roll_off", "Ties: roll off a full turn each"),
    ("sudden_death", "Ties: sudden death (the first team to score wins)"),
]


class NewNightForm(forms.Form):
    """"How many players?" — their names, one a line, and the buy-in."""

    names = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 12, "autocomplete": "off", "spellcheck": "false"}),
        help_text="One name a line. Ghosts fill the empty seats.",
    )
    buy_in = forms.DecimalField(min_value=Decimal("0"), max_value=Decimal("1000"), decimal_places=2,
                                initial=Decimal("5.00"), label="Buy-in ($)")
    title = forms.CharField(max_length=80, required=False, initial="Bunco night")
    baby_bunco_ends_turn = forms.BooleanField(required=False, label="Baby bunco (+5) ends the turn")
    wipeout = forms.BooleanField(required=False, label="Three 1s wipe out the team's points")
    head_losers_to_last_table = forms.BooleanField(required=False, label="Head-table losers go to the last table")
    tie_break = forms.ChoiceField(
        choices=TIE_BREAKS, required=False, initial="roll_off", widget=forms.RadioSelect, label="Ties at a table"
    )
    one_prize_each = forms.BooleanField(required=False, label="One prize per player")
    split_ties = forms.BooleanField(required=False, label="Split tied prizes instead of rolling off")

    def name_list(self) -> list[str]:
        return names_in(self.cleaned_data["names"])

    def buy_in_cents(self) -> int:
        return int(self.cleaned_data["buy_in"] * 100)

    def rules(self) -> bunco.Rules:
        return bunco.Rules(
            baby_bunco_ends_turn=self.cleaned_data["baby_bunco_ends_turn"],
            wipeout=self.cleaned_data["wipeout"],
            head_losers_to_last_table=self.cleaned_data["head_losers_to_last_table"],
            tie_break=self.cleaned_data["tie_break"] or "roll_off",
        )


def names_in(text: str) -> list[str]:
    """The names typed one a line (blank lines skipped)."""
    return [line for line in text.splitlines() if line.strip()]


def shape_of(count: int) -> str:
    """What a number of players means tonight, in words ("3 tables · 1 ghost seat")."""
    if count == 0:
        return "Add the players' names."
    try:
        tables, ghosts = bunco.night_shape(count)
    except bunco.BuncoError as error:
        return str(error)
    table_text = f"{tables} table{'s' if tables != 1 else ''}"
    ghost_text = f"{ghosts} ghost seat{'s' if ghosts != 1 else ''}" if ghosts else "no ghosts"
    return f"{count} players · {table_text} · {ghost_text}"


class TallyForm(forms.Form):
    team = forms.ChoiceField(choices=[("A", "A"), ("B", "B")])
    points = forms.IntegerField(required=False)
    bunco_player = forms.IntegerField(required=False)
    key = forms.CharField(max_length=64, required=False)
    # The "Wipeout (three 1s)" button (house rule): the team's points for the round are cleared.
    wipeout = forms.BooleanField(required=False)


class UndoForm(forms.Form):
    # The same key again is the same undo (a retry after a lost answer).
    key = forms.CharField(max_length=64, required=False)


class CorrectionForm(forms.Form):
    table = forms.IntegerField(min_value=1)
    team = forms.ChoiceField(choices=[("A", "A"), ("B", "B")])
    points = forms.IntegerField(min_value=-99, max_value=99)
    round = forms.IntegerField(min_value=1, max_value=24, required=False)
