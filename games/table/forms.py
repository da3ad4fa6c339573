"""The game tables' forms: "Play a game" (the game, its options, the seats) and a move's fields.

Numbers a phone sends are read with `live.http.parse_int` (ASCII digits only, bounded before
int() runs): "²" or 5,000 digits are a 400 with a message, never a 500.
"""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.http import QueryDict

from games.rules.ninety_nine import SPECIAL_CARDS, STARTING_MARKERS
from games.table import actions, bots
from games.table.engines import ENGINES, FILL_OR_BUST_GOALS, NINETY_NINE_MARKERS, SHORT_GOAL, engine
from live.http import BadNumber, parse_int
from live.text import well_formed_key

SEAT_ROWS = 8  # the most seats a game at a table takes (Fill or Bust: 2 to 8)
PERSON = "person"

GOALS = [(SHORT_GOAL, f"{SHORT_GOAL:,} (a short game)")] + [
    (goal, f"{goal:,}") for goal in FILL_OR_BUST_GOALS if goal != SHORT_GOAL
]


def who_choices() -> list[tuple[str, str]]:
    return [(PERSON, "a person")] + [(level, f"a bot ({level})") for level in bots.LEVELS]


class NewTableForm(forms.Form):
    """A game table: the game, its goal and the options of RULES.md §1.5, a name per seat and who
    plays it (a person's phone or a bot at a level)."""

    game = forms.ChoiceField(choices=[(name, rules.label) for name, rules in ENGINES.items()], initial="fill_or_bust")
    markers = forms.TypedChoiceField(  # Ninety-Nine or Bust (RULES.md §2)
        choices=[(n, str(n)) for n in NINETY_NINE_MARKERS], coerce=int, initial=STARTING_MARKERS,
        required=False, empty_value=None, label="Markers each (Ninety-Nine or Bust)")
    goal = forms.TypedChoiceField(choices=GOALS, coerce=int, initial=SHORT_GOAL)
    combo5 = forms.BooleanField(required=False, label="Combo 5: a 2+3 or 1+4 pair that fills scores 50")
    must_bust_penalty = forms.BooleanField(
        required=False, label="MUST BUST penalty: a bust under MUST BUST takes its points off")
    vengeance = forms.TypedChoiceField(
        choices=[(2500, "2,500 (the rules)"), (5000, "5,000 (teams)")], coerce=int, initial=2500,
        label="A Vengeance takes off")
    show_down = forms.BooleanField(required=False, label="Show down: everyone gets a last turn after the goal")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for row in range(SEAT_ROWS):
            self.fields[f"name_{row}"] = forms.CharField(
                required=False, max_length=actions.MAX_NAME, label=f"Seat {row + 1}")
            self.fields[f"who_{row}"] = forms.ChoiceField(
                choices=who_choices(), initial=PERSON, required=False, label=f"Who plays seat {row + 1}")
            self.fields[f"real_{row}"] = forms.BooleanField(
                required=False, label=f"Seat {row + 1} rolls real dice and types them in")

    # Kismet (RULES.md §3): who rolls real dice, the printed second-Kismet variant, the hint.
    no_straight = forms.BooleanField(
        required=False, label="Printed variant: a second Kismet may not go in Straight")
    hint = forms.BooleanField(required=False, label="Show the player on turn the box the bots' estimate rates best")

    @staticmethod
    def initial_seats(names: list[str]) -> dict[str, str]:
        """The seats a new table's form starts with: `names` (a party's RSVPs) as far as the seats
        go, else two empty ones."""
        names = names[:SEAT_ROWS] or ["", ""]
        return {f"name_{row}": name for row, name in enumerate(names)}

    def seat_rows(self) -> list[tuple[forms.BoundField, forms.BoundField, forms.BoundField]]:
        """Each seat's name, who plays it, and (Kismet) whether its player rolls real dice."""
        return [(self[f"name_{row}"], self[f"who_{row}"], self[f"real_{row}"]) for row in range(SEAT_ROWS)]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        names, bots, real = [], [], []
        for row in range(SEAT_ROWS):
            name = " ".join(str(data.get(f"name_{row}") or "").split())
            if name:
                names.append(name)
                who = data.get(f"who_{row}") or PERSON
                bots.append("" if who == PERSON else who)
                if data.get(f"real_{row}") and who == PERSON:  # a bot's seat always has the server's dice
                    real.append(len(names) - 1)
        rules = engine(data.get("game") or "fill_or_bust")
        if len(names) < rules.min_seats:
            raise forms.ValidationError(f"Name at least {rules.min_seats} seats.")
        data["names"], data["bots"], data["real_seats"] = names, bots, real
        return data

    def options(self) -> dict[str, Any]:
        data = self.cleaned_data
        if data["game"] == "ninety_nine":
            return {"markers": data["markers"] or STARTING_MARKERS}
        if data["game"] == "kismet":
            return {"real_seats": data["real_seats"], "no_straight": data["no_straight"], "hint": data["hint"]}
        return {"goal": data["goal"], "combo5": data["combo5"], "must_bust_penalty": data["must_bust_penalty"],
                "vengeance": data["vengeance"], "show_down": data["show_down"]}


KIND = re.compile(r"[a-z_]{1,20}")
BOX = re.compile(r"[a-z_]{1,30}")
MOST_DICE = 6


class BadInput(actions.BadMove):
    """A move's fields that are not a move at all (malformed): 400, nothing changed."""


def read_move(post: QueryDict) -> tuple[dict[str, Any], str | None, int | None]:
    """The move a phone posted (`kind`, `dice` for a keep, one field per die, `card` for a card
    played), its idempotency
    `key` and the `seat` its page plays (None when it names none). BadInput for anything else."""
    kind = post.get("kind", "")
    if not KIND.fullmatch(kind):
        raise BadInput("That move was malformed: tap one of the buttons.")
    move: dict[str, Any] = {"kind": kind}
    raw_dice = post.getlist("dice")
    if len(raw_dice) > MOST_DICE:
        raise BadInput(f"Set aside at most {MOST_DICE} dice.")
    if raw_dice or kind == "keep":
        try:
            move["dice"] = [parse_int(die, low=1, high=6, what="a die") for die in raw_dice]
        except BadNumber as error:
            raise BadInput(str(error)) from None
    raw_card = post.get("card")
    if raw_card is not None:  # Ninety-Nine or Bust: 1..10, or a special card's name ("99" is one)
        if raw_card in SPECIAL_CARDS:
            move["card"] = raw_card
        else:
            try:
                move["card"] = parse_int(raw_card, low=1, high=10, what="a card")
            except BadNumber as error:
                raise BadInput(str(error)) from None
    box = post.get("box", "")
    if box:  # Kismet: the box to fill
        if not BOX.fullmatch(box):
            raise BadInput("That box was malformed: tap one of the boxes.")
        move["box"] = box
    raw_keep = post.getlist("keep")
    if raw_keep:  # Kismet: the dice held for a reroll
        if len(raw_keep) > MOST_DICE:
            raise BadInput(f"Hold at most {MOST_DICE} dice.")
        try:
            move["keep"] = [parse_int(die, low=1, high=6, what="a die") for die in raw_keep]
        except BadNumber as error:
            raise BadInput(str(error)) from None
    key = post.get("key") or None
    if key is not None and not well_formed_key(key):
        raise BadInput("The move's key is malformed: reload the page and move again.")
    raw_seat = post.get("seat", "")
    try:
        seat = parse_int(raw_seat, low=0, high=SEAT_ROWS - 1, what="your seat") if raw_seat else None
    except BadNumber as error:
        raise BadInput(str(error)) from None
    return move, key, seat
