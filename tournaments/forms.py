"""The director's and the group phone's forms. Numbers go through live.forms.WholeNumberField
(live.http.parse_int); which values are allowed is the actions' rule and message."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from bunco_club.models import Club
from games.rules import fill_or_bust
from live.forms import RecordChoiceField, WholeNumberField
from live.http import ID_MAX
from tournaments import brackets
from tournaments.actions import (
    ALERT_MINUTES,
    CHECK_IN_MINUTES,
    MAX_EXTENSION_MINUTES,
    MAX_POINTS,
    PRACTICE_MINUTES,
)
from tournaments.models import NAME_MAX, Tournament


class NewTournamentForm(forms.Form):
    name = forms.CharField(max_length=NAME_MAX, label=_("Name"))
    date = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}), label=_("Date"))
    format = forms.ChoiceField(choices=Tournament.Format.choices, initial=Tournament.Format.SINGLE,
                               widget=forms.RadioSelect, label=_("Format"))
    round_minutes = WholeNumberField(low=brackets.ROUND_MINUTES.start, high=brackets.ROUND_MINUTES.stop - 1,
                                     what=_("the round length"), initial=20, label=_("Round length (minutes)"))
    per_player_minutes = WholeNumberField(
        low=brackets.PER_PLAYER_MINUTES.start, high=brackets.PER_PLAYER_MINUTES.stop - 1, what=_("the minutes per player"),
        required=False, label=_("Or, when group sizes differ, minutes per player (5-10)"))
    practice_minutes = WholeNumberField(
        low=PRACTICE_MINUTES.start, high=PRACTICE_MINUTES.stop - 1, what=_("the practice round's length"), required=False,
        label=_("Practice round before round 1 (2-10 minutes; empty for none). It counts for nothing."))
    face_off_minutes = WholeNumberField(low=1, high=60, what=_("the face-off length"), initial=15,
                                        label=_("Face-off (minutes)"))
    grace_seconds = WholeNumberField(low=0, high=900, what=_("the grace period"), initial=120,
                                     label=_("Grace period for the turn under way (seconds)"))
    ties = forms.ChoiceField(choices=Tournament.Ties.choices, initial=Tournament.Ties.PLAY_OFF,
                             widget=forms.RadioSelect, label=_("Ties at the cut line"))
    grouping = forms.ChoiceField(choices=Tournament.Grouping.choices, initial=Tournament.Grouping.RANDOM,
                                 widget=forms.RadioSelect, label=_("Groups"))
    point_goal = WholeNumberField(low=1000, high=100000, what=_("the point goal"), initial=10000,
                                  label=_("Point goal shown on the group sheets"))
    vengeance_penalty = WholeNumberField(low=0, high=10000, what=_("the Vengeance penalty"),
                                         initial=fill_or_bust.VENGEANCE_PENALTY, label=_("Vengeance penalty"))
    must_bust_penalty = forms.BooleanField(required=False, label=_("Must Bust penalty (docs/RULES.md §1.5)"))
    confirm_results = forms.BooleanField(
        required=False, initial=True,
        label=_("A table's result counts once another player of the table confirms it on their own phone "
                "(or the director does)"))
    club = RecordChoiceField(queryset=Club.objects.none(), required=False, empty_label=_("- Select an option -"),
                                  label=_("Register players from a club you host (optional)"))

    def __init__(self, *args: Any, user: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if user is not None and user.is_authenticated:
            self.fields["club"].queryset = Club.objects.filter(hosts=user)  # type: ignore[attr-defined]


class RegisterForm(forms.Form):
    name = forms.CharField(max_length=200, required=False, strip=False)  # the action says what a name needs
    seed_rank = WholeNumberField(low=1, high=100000, what=_("the seed"), required=False)
    checked_in = forms.BooleanField(required=False)


class TurnForm(forms.Form):
    entrant = WholeNumberField(low=1, high=ID_MAX, what=_("the player"))
    points = WholeNumberField(low=-MAX_POINTS, high=MAX_POINTS, what=_("the points banked"), required=False)
    bust = forms.BooleanField(required=False)  # the Bust button: 0 points, whatever was typed
    vengeance = forms.BooleanField(required=False)
    key = forms.CharField(max_length=64, required=False)

    def banked(self) -> int | None:
        """The points to enter: 0 for a bust, the typed points otherwise (None: nothing typed)."""
        if self.cleaned_data["bust"]:
            return 0
        points: int | None = self.cleaned_data["points"]
        return points


class ResultForm(forms.Form):
    """A player's phone answering for its group's result: who answers, and the request's key."""

    entrant = WholeNumberField(low=1, high=ID_MAX, what=_("the player"))
    key = forms.CharField(max_length=64, required=False)


class CheckInForm(forms.Form):
    """A player's phone checking in: the name chosen, and the request's key."""

    entrant = WholeNumberField(low=1, high=ID_MAX, what=_("the player"))
    key = forms.CharField(max_length=64, required=False)


class CheckInWindowForm(forms.Form):
    """When round 1 starts (empty: no check-in on phones) and how long before it check-in opens."""

    starts_at = forms.DateTimeField(required=False, widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
                                    label=_("Round 1 starts at"))
    minutes = WholeNumberField(low=CHECK_IN_MINUTES.start, high=CHECK_IN_MINUTES.stop - 1,
                               what=_("the minutes before the start"), label=_("Check-in opens (minutes before)"))


class AlertForm(forms.Form):
    """The desk's minutes without a report that flag a table."""

    minutes = WholeNumberField(low=ALERT_MINUTES.start, high=ALERT_MINUTES.stop - 1, what=_("the minutes"),
                               label=_("Flag a table after (minutes without a report)"))


class KeyForm(forms.Form):
    key = forms.CharField(max_length=64, required=False)


class RoundForm(forms.Form):
    """A clock button (pause, resume, end now): the round it was shown for."""

    round = WholeNumberField(low=0, high=10000, what=_("the round"))


class StartForm(forms.Form):
    """Starting a round: played on phones (every group at a game table) or typed in."""

    on_phones = forms.BooleanField(required=False)
    # On phones: bots take the seats nobody holds when the director starts the clock.
    bots_take_unheld = forms.BooleanField(required=False)


class SeatForm(forms.Form):
    """A seat of a group's game table (the director hands it to a bot)."""

    seat = WholeNumberField(low=0, high=100, what=_("the seat"))


class ExtendForm(forms.Form):
    minutes = WholeNumberField(low=1, high=MAX_EXTENSION_MINUTES, what=_("the extra minutes"))


class CorrectionForm(forms.Form):
    entrant = WholeNumberField(low=1, high=ID_MAX, what=_("the player"))
    points = WholeNumberField(low=-MAX_POINTS, high=MAX_POINTS, what=_("the points"))
    key = forms.CharField(max_length=64, required=False)
