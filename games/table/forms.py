"""The game tables' forms: "Play a game" (the game, its options, the seats) and a move's fields.

Numbers a phone sends are read with `live.http.parse_int` (ASCII digits only, bounded before
int() runs): "²" or 5,000 digits are a 400 with a message, never a 500.
"""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.http import QueryDict
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop, ngettext

from games.rules.registry import GAMES, bot_levels, game_rules
from games.rules.table import MALFORMED, GameRules, MalformedMove, OptionField
from games.table import actions
from games.table.models import DEFAULT_PATIENCE, PATIENCE
from games.table.renderers import spoken
from live.http import BadNumber, parse_int
from live.text import well_formed_key

SEAT_ROWS = 8  # the most seats a game at a table takes
PERSON = "person"


def who_choices() -> list[tuple[str, str]]:
    """A person, or a bot at one of the levels, by the words people read (the form is every game's:
    each game's hints are beside the seats: `NewTableForm.bot_hints`)."""
    return [(PERSON, _("a person"))] + [(level.name, _("a bot (%(level)s)") % {"level": _(level.word)})
                                        for level in bot_levels("")]


def game_choices() -> list[tuple[str, str]]:
    """The games of the registry, read when a form is made (a game registered later is offered)."""
    return [(name, rules.label) for name, rules in GAMES.items()]


def option_field(option: OptionField) -> forms.Field:
    """The form field of one of a game's options ("seat_check" options get one per seat row,
    made in `NewTableForm.__init__`). Never required: the chosen game's fields are the only ones
    read, and an empty one takes the option's default."""
    if option.kind == "choice":
        return forms.TypedChoiceField(choices=[(value, spoken(words)) for value, words in option.choices], coerce=int,
                                      initial=option.default, required=False, empty_value=None,
                                      label=_(option.label), help_text=_(option.help) if option.help else "")
    return forms.BooleanField(required=False, label=_(option.label), help_text=_(option.help) if option.help else "")


class NewTableForm(forms.Form):
    """A game table: the game and its options (each game's `GameRules.options`, made into fields
    here), a name per seat and who plays it (a person's phone or a bot at a level)."""

    game = forms.ChoiceField(choices=game_choices)
    # Not required: a form posted without it (an older page) takes the default.
    patience = forms.TypedChoiceField(
        choices=PATIENCE, coerce=int, initial=DEFAULT_PATIENCE, required=False, empty_value=None,
        label=gettext_lazy("A phone that goes quiet keeps its seat for"),
        help_text=gettext_lazy("After that a bot plays the seat until the phone is back, which takes it back with "
                               "one tap."))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["game"].initial = next(iter(GAMES))
        for rules in GAMES.values():
            for option in rules.options:
                if option.kind != "seat_check":
                    self.fields[option.name] = option_field(option)
        for row in range(SEAT_ROWS):
            self.fields[f"name_{row}"] = forms.CharField(
                required=False, max_length=actions.MAX_NAME, label=_("Seat %(number)s") % {"number": row + 1})
            self.fields[f"who_{row}"] = forms.ChoiceField(
                choices=who_choices(), initial=PERSON, required=False,
                label=_("Who plays seat %(number)s") % {"number": row + 1})
            for rules in GAMES.values():
                for option in rules.options:
                    if option.kind == "seat_check":
                        self.fields[f"{option.name}_{row}"] = forms.BooleanField(
                            required=False, label=_("Seat %(number)s %(option)s") % {
                                "number": row + 1, "option": _(option.help or option.label)})

    @staticmethod
    def initial_seats(names: list[str]) -> dict[str, str]:
        """The seats a new table's form starts with: `names` (a party's RSVPs) as far as the seats
        go, else two empty ones."""
        names = names[:SEAT_ROWS] or ["", ""]
        return {f"name_{row}": name for row, name in enumerate(names)}

    def games(self) -> list[tuple[GameRules, list[forms.BoundField]]]:
        """Each game and the bound fields of its options (a per-seat option's are in `seat_rows`),
        for its template folder's `_options.html`."""
        return [(rules, [self[option.name] for option in rules.options if option.kind != "seat_check"])
                for rules in GAMES.values()]

    def bot_hints(self) -> list[tuple[str, str]]:
        """How each game's bots play at each level, one line a game: (game, "Bots: easy …; steady …")."""
        hints = []
        for name in GAMES:
            levels = [spoken(level.label) for level in bot_levels(name) if level.hint]
            if levels:
                hints.append((name, _("Bots: %(levels)s.") % {"levels": "; ".join(levels)}))
        return hints

    def seat_rows(self) -> list[tuple[forms.BoundField, forms.BoundField, list[tuple[str, OptionField, forms.BoundField]]]]:
        """Each seat's name, who plays it, and each game's per-seat boxes (Kismet: whether its
        player rolls real dice), as (game, option, field)."""
        return [(self[f"name_{row}"], self[f"who_{row}"],
                 [(rules.name, option, self[f"{option.name}_{row}"]) for rules in GAMES.values()
                  for option in rules.options if option.kind == "seat_check"])
                for row in range(SEAT_ROWS)]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        rules = game_rules(data.get("game") or next(iter(GAMES)))
        per_seat = [option for option in rules.options if option.kind == "seat_check"]
        names: list[str] = []
        bots: list[str] = []
        ticked: dict[str, list[int]] = {option.name: [] for option in per_seat}
        for row in range(SEAT_ROWS):
            name = " ".join(str(data.get(f"name_{row}") or "").split())
            if name:
                names.append(name)
                who = data.get(f"who_{row}") or PERSON
                bots.append("" if who == PERSON else who)
                for option in per_seat:  # a bot's seat is the server's: never ticked
                    if data.get(f"{option.name}_{row}") and who == PERSON:
                        ticked[option.name].append(len(names) - 1)
        if len(names) < rules.min_seats:
            raise forms.ValidationError(ngettext("Name at least %(count)s seat.", "Name at least %(count)s seats.",
                                                 rules.min_seats) % {"count": rules.min_seats})
        data["names"], data["bots"] = names, bots
        if data.get("patience") is None:
            data["patience"] = DEFAULT_PATIENCE
        data.update(ticked)
        return data

    def options(self) -> dict[str, Any]:
        """The chosen game's options as the table stores them."""
        return game_rules(self.cleaned_data["game"]).stored_options(self.cleaned_data)


KIND = re.compile(r"[a-z_]{1,20}")
# The fields a move's post carries for the table, never handed to the game: read here and by the
# view (`kind` is read here and handed to the game with the move's arguments).
TABLE_FIELDS = ("key", "seat", "client", "csrfmiddlewaretoken")


BadInput = actions.BadMove  # live's: a move's fields that are not a move at all (malformed), 400


def read_move(post: QueryDict, rules: GameRules) -> tuple[dict[str, Any], str | None, int | None]:
    """The move a phone posted (`kind` and the arguments its game reads from the other fields:
    the game's `GameRules.read_move`), its idempotency `key` and the `seat` its page plays (None
    when it names none). BadInput for anything else; the engine says whether the move is legal."""
    kind = post.get("kind", "")
    if not KIND.fullmatch(kind):
        raise BadInput(MALFORMED)
    fields = {name: values for name, values in post.lists() if name not in TABLE_FIELDS}
    try:
        move: dict[str, Any] = {"kind": kind, **rules.read_move(fields, parse_int)}
    except (MalformedMove, BadNumber) as error:
        raise BadInput(error.args[0]) from None
    key = post.get("key") or None
    if key is not None and not well_formed_key(key):
        raise BadInput(_("The move's key is malformed: reload the page and move again."))
    raw_seat = post.get("seat", "")
    try:
        seat = parse_int(raw_seat, low=0, high=SEAT_ROWS - 1, what=gettext_noop("your seat")) if raw_seat else None
    except BadNumber as error:
        raise BadInput(str(error)) from None
    return move, key, seat
