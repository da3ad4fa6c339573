"""The club's forms: plain-language labels, clear messages; the actions do the saving."""

from __future__ import annotations

import datetime
import re
from decimal import Decimal
from typing import Any

from django import forms
from django.utils import timezone

from bunco_club.models import Club, Member, Party, PrizeAmounts, Season, TieBreak
from bunco_club.rotation import ORDINALS, WEEKDAYS
from live.forms import WholeNumberField

DATE_HELP = "One date a line, written like 2027-01-15."
BUY_IN_FORMAT = "The buy-in is an amount in dollars written with the digits 0 to 9, like 5 or 5.50."


class ClubForm(forms.Form):
    """A club's name, usual place and time, buy-in, reminders and the house rules of its nights."""

    name = forms.CharField(max_length=80, label="Club name")
    place = forms.CharField(max_length=200, required=False, label="Usual place",
                            help_text="Where you usually play; each party can change it.")
    usual_time = forms.TimeField(initial=datetime.time(19, 0), label="Usual start time",
                                 widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
                                 error_messages={"invalid": "Write the time like 19:00."})
    buy_in = forms.DecimalField(min_value=Decimal("0"), max_value=Decimal("1000"), decimal_places=2,
                                initial=Decimal("5.00"), label="Buy-in per player ($)",
                                error_messages={"invalid": BUY_IN_FORMAT})
    rsvp_nudge_days = WholeNumberField(low=0, high=30, what="the days before a party", initial=3,
                                       label="Remind members who haven't answered this many days before")
    baby_bunco_ends_turn = forms.BooleanField(required=False, label="A baby bunco (three of a kind, +5) ends the turn")
    wipeout = forms.BooleanField(required=False, label="Three 1s (when 1s are not up) wipe out the team's points")
    head_losers_to_last_table = forms.BooleanField(required=False, label="Head-table losers go to the last table")
    tie_break = forms.ChoiceField(choices=TieBreak.choices, initial=TieBreak.ROLL_OFF, widget=forms.RadioSelect,
                                  label="Ties at a table")
    one_prize_each = forms.BooleanField(required=False, label="One prize per player")
    split_ties = forms.BooleanField(required=False, label="Tied players share a prize instead of rolling off")
    prize_amounts = forms.ChoiceField(choices=PrizeAmounts.choices, initial=PrizeAmounts.DOLLARS_TO_DRAW,
                                      required=False, widget=forms.RadioSelect, label="Prize amounts")

    def clean_buy_in(self) -> Decimal:
        raw = str(self.data.get("buy_in", "")).strip()
        if not re.fullmatch(r"[0-9]{1,4}(\.[0-9]{0,2})?", raw, flags=re.ASCII):
            raise forms.ValidationError(BUY_IN_FORMAT, code="invalid")
        buy_in: Decimal = self.cleaned_data["buy_in"]
        return buy_in

    def club_fields(self) -> dict[str, Any]:
        data = dict(self.cleaned_data)
        data["buy_in_cents"] = int(data.pop("buy_in") * 100)
        data["prize_amounts"] = data.get("prize_amounts") or PrizeAmounts.DOLLARS_TO_DRAW
        return data

    @classmethod
    def initial_for(cls, club: Club) -> dict[str, Any]:
        initial: dict[str, Any] = {name: getattr(club, name) for name in cls.base_fields if hasattr(club, name)}
        initial["buy_in"] = Decimal(club.buy_in_cents) / 100
        return initial


class CohostForm(forms.Form):
    username = forms.CharField(max_length=150, label="Their username on this site")


class MemberForm(forms.Form):
    name = forms.CharField(max_length=60)
    email = forms.EmailField(required=False, help_text="For invitations and reminders.",
                             error_messages={"invalid": "That email address doesn't look right."})
    phone = forms.CharField(max_length=30, required=False)


class NewMemberForm(MemberForm):
    alternate = forms.BooleanField(required=False, label="On the sub list (an alternate)")


class PairForm(forms.Form):
    partner = forms.ModelChoiceField(queryset=Member.objects.none(), label="Hosts together with",
                                     error_messages={"invalid_choice": "Pick a regular of the club."})

    def __init__(self, *args: Any, member: Member, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["partner"]
        assert isinstance(field, forms.ModelChoiceField)
        field.queryset = member.club.members.regulars().exclude(pk=member.pk)


def _dates(text: str) -> list[datetime.date]:
    days = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line:
            continue
        try:
            days.append(datetime.date.fromisoformat(line))
        except ValueError:
            raise forms.ValidationError(f"Line {number}, “{line[:20]}”, is not a date: write it like 2027-01-15.",
                                        code="invalid") from None
    return days


class BlackoutsForm(forms.Form):
    dates = forms.CharField(widget=forms.Textarea(attrs={"rows": 6}), required=False, help_text=DATE_HELP,
                            label="Dates this member can't host")

    def clean_dates(self) -> list[datetime.date]:
        return _dates(self.cleaned_data["dates"])


class SeasonByRuleForm(forms.Form):
    name = forms.CharField(max_length=60, label="Season name", initial=lambda: str(timezone.localdate().year + 1))
    first_month = forms.DateField(label="Starting in the month of", widget=forms.DateInput(attrs={"type": "date"}),
                                  error_messages={"invalid": "Write a date like 2027-01-01."})
    months = WholeNumberField(low=1, high=24, what="the number of months", initial=12, label="For how many months")
    nth = forms.TypedChoiceField(choices=[(key, value.capitalize()) for key, value in ORDINALS.items()], coerce=int,
                                 initial=3, label="Which one")
    weekday = forms.TypedChoiceField(choices=list(enumerate(WEEKDAYS)), coerce=int, initial=4, label="Weekday")
    time = forms.TimeField(label="At", widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
                           error_messages={"invalid": "Write the time like 19:00."})


class SeasonByHandForm(forms.Form):
    name = forms.CharField(max_length=60, label="Season name")
    dates = forms.CharField(widget=forms.Textarea(attrs={"rows": 8}), help_text=DATE_HELP, label="The dates")
    time = forms.TimeField(label="At", widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
                           error_messages={"invalid": "Write the time like 19:00."})

    def clean_dates(self) -> list[datetime.date]:
        days = _dates(self.cleaned_data["dates"])
        if not days:
            raise forms.ValidationError("Write at least one date.", code="required")
        return days


class PartyForm(forms.Form):
    date = forms.DateField(widget=forms.DateInput(attrs={"type": "date"}),
                           error_messages={"invalid": "Write a date like 2027-01-15."})
    time = forms.TimeField(widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
                           error_messages={"invalid": "Write the time like 19:00."})
    location = forms.CharField(max_length=200, required=False, label="Address")
    notes = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False)
    host = forms.ModelChoiceField(queryset=Member.objects.none(), required=False, empty_label="No host yet",
                                  error_messages={"invalid_choice": "Pick a member of the club."})
    cohost = forms.ModelChoiceField(queryset=Member.objects.none(), required=False, empty_label="Nobody",
                                    label="Co-host", error_messages={"invalid_choice": "Pick a member of the club."})

    def __init__(self, *args: Any, club: Club, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in ("host", "cohost"):
            field = self.fields[name]
            assert isinstance(field, forms.ModelChoiceField)
            field.queryset = club.members.filter(is_active=True)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("cohost") and not data.get("host"):
            self.add_error("cohost", "Pick the host before a co-host.")
        elif data.get("cohost") and data.get("cohost") == data.get("host"):
            self.add_error("cohost", "The host and co-host must be two different people.")
        return data

    def starts_at(self) -> datetime.datetime:
        return timezone.make_aware(datetime.datetime.combine(self.cleaned_data["date"], self.cleaned_data["time"]))

    @staticmethod
    def initial_for(party: Party) -> dict[str, Any]:
        local = timezone.localtime(party.starts_at)
        return {"date": local.date(), "time": local.time(), "location": party.location, "notes": party.notes,
                "host": party.host_id, "cohost": party.cohost_id}


class NewPartyForm(PartyForm):
    season = forms.ModelChoiceField(queryset=Season.objects.none(), required=False, empty_label="No season",
                                    error_messages={"invalid_choice": "Pick one of the club's seasons."})

    def __init__(self, *args: Any, club: Club, **kwargs: Any) -> None:
        super().__init__(*args, club=club, **kwargs)
        field = self.fields["season"]
        assert isinstance(field, forms.ModelChoiceField)
        field.queryset = club.seasons.all()
        self.fields.pop("host")
        self.fields.pop("cohost")

    def clean(self) -> dict[str, Any]:
        return forms.Form.clean(self) or {}


class SwapForm(forms.Form):
    give = forms.ModelChoiceField(queryset=Party.objects.none(), label="Your date",
                                  error_messages={"invalid_choice": "Pick one of the dates you host."})
    take = forms.ModelChoiceField(queryset=Party.objects.none(), label="The date you'd like instead",
                                  error_messages={"invalid_choice": "Pick a date another member hosts."})

    def __init__(self, *args: Any, member: Member, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        upcoming = Party.objects.upcoming().filter(club_id=member.club_id).select_related("host", "cohost")
        give, take = self.fields["give"], self.fields["take"]
        assert isinstance(give, forms.ModelChoiceField) and isinstance(take, forms.ModelChoiceField)
        give.queryset = upcoming.hosted_by(member)
        take.queryset = upcoming.filter(host__isnull=False).exclude(host=member).exclude(cohost=member)
        give.label_from_instance = take.label_from_instance = _party_label  # type: ignore[method-assign,assignment]


def _party_label(party: Party) -> str:
    return f"{timezone.localtime(party.starts_at):%a %d %b %Y} ({party.hosts_label()})"
