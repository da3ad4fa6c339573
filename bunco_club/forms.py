"""The club's forms: plain-language labels, clear messages; the actions do the saving."""

from __future__ import annotations

import datetime
import re
import zoneinfo
from dataclasses import asdict
from decimal import Decimal
from typing import Any

from django import forms
from django.conf import settings
from django.utils import timezone, translation
from django.utils.dateformat import format as date_format
from django.utils.formats import number_format
from django.utils.text import capfirst
from django.utils.translation import gettext, gettext_noop, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from bunco_club.models import (
    CLUB_NAME_MAX,
    CUTOFF_HOURS_MAX,
    DISH_NAME_MAX,
    DISH_WANTED_MAX,
    EMAIL_MAX,
    NAME_MAX,
    NOTES_MAX,
    PHONE_MAX,
    PLACE_MAX,
    Club,
    DishSignup,
    Member,
    Party,
    Season,
)
from bunco_club.rotation import ORDINALS, WEEKDAYS
from games.rules import bunco, prizes
from live.forms import RecordChoiceField, WholeNumberField

DATE_HELP = _("One date a line, written like 2027-01-15.")
BUY_IN_FORMAT = _("The buy-in is an amount in dollars written with the digits 0 to 9, like 5 or 5.50.")
TIME_FORMAT = _("Write the time like 19:00.")


class HouseRulesForm(forms.Form):
    """The house rules of a Bunco night, for a club's nights (ClubForm) and for tonight's
    (games.night.forms.NewNightForm): the fields, labelled by the engines, their one mapping to
    bunco.Rules and prizes.PrizeRules, and the one check of the buy-in both forms take (the
    buy-in field itself is each form's, whose labels differ)."""

    baby_bunco_ends_turn = forms.BooleanField(required=False, label=bunco.RULE_LABELS["baby_bunco_ends_turn"])
    wipeout = forms.BooleanField(required=False, label=bunco.RULE_LABELS["wipeout"])
    head_losers_to_last_table = forms.BooleanField(required=False, label=bunco.RULE_LABELS["head_losers_to_last_table"])
    # The choices and labels are the engine's; the pot is cut in whole dollars unless the host asks
    # for the official cents (prizes.CLUB_PRIZE_RULES).
    tie_break = forms.ChoiceField(choices=bunco.TIE_BREAKS, required=False, initial=bunco.OFFICIAL.tie_break,
                                  widget=forms.RadioSelect, label=_("Ties at a table"))
    one_prize_each = forms.BooleanField(required=False, label=prizes.PRIZE_RULE_LABELS["one_prize_each"])
    split_ties = forms.BooleanField(required=False, label=prizes.PRIZE_RULE_LABELS["split_ties"])
    prize_amounts = forms.ChoiceField(choices=prizes.PRIZE_AMOUNTS, initial=prizes.CLUB_PRIZE_RULES.amounts,
                                      required=False, widget=forms.RadioSelect, label=_("Prize amounts"))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The house rules' labels and choices are the engines' sentences (marked there, untranslated:
        # games/rules/words.py), said here in the reader's language.
        for name in HouseRulesForm.base_fields:
            field = self.fields[name]
            field.label = gettext(str(field.label))
            if isinstance(field, forms.ChoiceField):
                choices: list[tuple[Any, Any]] = list(field.choices)  # type: ignore[arg-type]
                field.choices = [(value, gettext(str(label))) for value, label in choices]

    def clean_buy_in(self) -> Decimal:
        # Django's DecimalField reads what Decimal() reads: "٣", "1_000", "1e2". Only ASCII digits here.
        raw = str(self.data.get("buy_in", "")).strip()
        if not re.fullmatch(r"[0-9]{1,4}(\.[0-9]{0,2})?", raw, flags=re.ASCII):
            raise forms.ValidationError(BUY_IN_FORMAT, code="invalid")
        buy_in: Decimal = self.cleaned_data["buy_in"]
        return buy_in

    def rules(self) -> bunco.Rules:
        return bunco.Rules.from_fields(self.cleaned_data)

    def prize_rules(self) -> prizes.PrizeRules:
        amounts = prizes.PrizeAmounts(self.cleaned_data["prize_amounts"] or prizes.CLUB_PRIZE_RULES.amounts)
        return amounts.rules(one_prize_each=self.cleaned_data["one_prize_each"],
                             split_ties=self.cleaned_data["split_ties"])

    @staticmethod
    def initial_for_rules(rules: dict[str, object], prize_rules: dict[str, object]) -> dict[str, object]:
        """The form's starting values for house rules given as the keyword arguments of bunco.Rules
        and prizes.PrizeRules (a club's, `Club.night_rules()` and `Club.prize_rules()`): the
        inverse of `rules()` and `prize_rules()`."""
        scheme = prizes.PrizeRules(**prize_rules)  # type: ignore[arg-type]
        return {**asdict(bunco.Rules(**rules)),  # type: ignore[arg-type]
                "one_prize_each": scheme.one_prize_each, "split_ties": scheme.split_ties,
                "prize_amounts": scheme.amounts.value}


class ClubForm(HouseRulesForm):
    """A club's name, usual place and time, buy-in, reminders and the house rules of its nights."""

    # Its own fields first, then the house rules (HouseRulesForm's), as the page has always shown them.
    field_order = ("name", "place", "usual_time", "buy_in", "time_zone", "rsvp_nudge_days", "attending_by_default",
                   "answer_cutoff_hours", "language")

    name = forms.CharField(max_length=CLUB_NAME_MAX, label=_("Club name"))
    place = forms.CharField(max_length=PLACE_MAX, required=False, label=_("Usual place"),
                            help_text=_("Where you usually play; each party can change it."))
    usual_time = forms.TimeField(initial=datetime.time(19, 0), label=_("Usual start time"),
                                 widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
                                 error_messages={"invalid": TIME_FORMAT})
    buy_in = forms.DecimalField(min_value=Decimal("0"), max_value=Decimal("1000"), decimal_places=2,
                                initial=Decimal("5.00"), label=_("Buy-in per player ($)"),
                                error_messages={"invalid": BUY_IN_FORMAT})
    time_zone = forms.ChoiceField(
        label=_("Time zone"), initial="UTC", required=False, choices=lambda: [(zone, zone.replace("_", " ")) for zone in time_zones()],
        help_text=_("Party times are entered and shown in it, and calendars carry it."),
        widget=forms.Select(attrs={"data-browser-zone": ""}),
        error_messages={"invalid_choice": _("Pick the club's time zone from the list, like America/Chicago.")})
    rsvp_nudge_days = WholeNumberField(low=0, high=30, what=gettext_noop("the days before a party"), initial=3,
                                       label=_("Remind members who haven't answered this many days before"))
    attending_by_default = forms.BooleanField(
        required=False, label=_("Members are coming unless they say no"),
        help_text=_("Every regular counts as coming to each party unless they say no before the cutoff; the "
                    "reminder then goes before the cutoff."))
    answer_cutoff_hours = WholeNumberField(low=0, high=CUTOFF_HOURS_MAX, what=gettext_noop("the hours before a party"),
                                           initial=48, required=False,
                                           label=_("Answers are due this many hours before a party"),
                                           help_text=_("A no after it is a late cancellation, which only the hosts "
                                                       "see."))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["tie_break"].required = True  # a club states how its ties are broken (a night may not)
        if self.is_bound or "time_zone" in self.initial:  # the browser's zone is for a new club only
            self.fields["time_zone"].widget.attrs["data-zone-chosen"] = ""

    def club_fields(self) -> dict[str, Any]:
        data = dict(self.cleaned_data)
        data["buy_in_cents"] = int(data.pop("buy_in") * 100)
        data["prize_amounts"] = data.get("prize_amounts") or prizes.CLUB_PRIZE_RULES.amounts.value
        if not data.get("time_zone"):
            data.pop("time_zone", None)  # not sent: the club keeps its zone (UTC for a new one)
        if data.get("answer_cutoff_hours") is None:
            data.pop("answer_cutoff_hours", None)  # not sent: the club keeps its cutoff (48 hours for a new one)
        self._clean_language_field(data)
        return data

    @classmethod
    def initial_for(cls, club: Club) -> dict[str, Any]:
        initial: dict[str, Any] = {name: getattr(club, name) for name in cls.base_fields if hasattr(club, name)}
        initial["buy_in"] = Decimal(club.buy_in_cents) / 100
        return initial

    # The club's language (Club.language): its members' until they choose, its club-wide pages'. Not
    # sent (an older form): the club keeps its own. A new club starts in its host's.
    language = forms.ChoiceField(
        choices=settings.LANGUAGES, required=False, initial=lambda: _reading_language(),
        label=translation.gettext_lazy("Club language"),
        help_text=translation.gettext_lazy("For the members' mails, pages and calendars until each chooses their own."))

    def _clean_language_field(self, data: dict[str, Any]) -> None:
        if not data.get("language"):
            data.pop("language", None)


def _reading_language() -> str:
    """The language the page is read in (one the site speaks), for a new club's."""
    language = translation.get_language() or settings.LANGUAGE_CODE
    return language if language in dict(settings.LANGUAGES) else settings.LANGUAGE_CODE


def time_zones() -> list[str]:
    """The IANA zones this machine knows (tzdata), sorted; "Etc/…" and the old aliases left out."""
    zones = {zone for zone in zoneinfo.available_timezones() if "/" in zone and not zone.startswith(("Etc/", "SystemV/"))}
    return sorted(zones | {"UTC"})


class CohostForm(forms.Form):
    username = forms.CharField(max_length=150, label=_("Their username on this site"))


class MemberForm(forms.Form):
    name = forms.CharField(max_length=NAME_MAX, label=_("Name"))
    email = forms.EmailField(max_length=EMAIL_MAX, required=False, label=_("Email"),
                             help_text=_("For invitations and reminders."),
                             error_messages={"invalid": _("That email address doesn't look right.")})
    phone = forms.CharField(max_length=PHONE_MAX, required=False, label=_("Phone"))


class NewMemberForm(MemberForm):
    alternate = forms.BooleanField(required=False, label=_("On the sub list (an alternate)"))


class PairForm(forms.Form):
    partner = RecordChoiceField(queryset=Member.objects.none(), label=_("Hosts together with"),
                                     error_messages={"invalid_choice": _("Pick a regular of the club.")})

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
            raise forms.ValidationError(_("Line %(number)s, “%(line)s”, is not a date: write it like 2027-01-15.")
                                        % {"number": number, "line": line[:20]}, code="invalid") from None
    return days


class BlackoutsForm(forms.Form):
    """Dates away, ticked among the club's parties still to come (a date away that is no party's
    date, or is past, is kept as it is: see `kept`)."""

    dates = forms.TypedMultipleChoiceField(
        widget=forms.CheckboxSelectMultiple, required=False, coerce=datetime.date.fromisoformat,
        label=_("Dates this member can't host"),
        error_messages={"invalid_choice": _("Tick dates of the club's parties still to come.")})

    def __init__(self, *args: Any, member: Member, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        days = [party.day for party in member.club.parties.upcoming().filter(cancelled_at__isnull=True)
                .select_related("club")]
        self.days = sorted(set(days))
        field = self.fields["dates"]
        assert isinstance(field, forms.TypedMultipleChoiceField)
        field.choices = [(day.isoformat(), date_format(day, "D j M Y")) for day in self.days]
        away = set(member.blackouts.values_list("date", flat=True))
        self.kept = sorted(away - set(self.days))  # not offered here: kept as they are
        if not self.is_bound:
            self.initial["dates"] = [day.isoformat() for day in self.days if day in away]

    def chosen(self) -> list[datetime.date]:
        """The member's dates away once saved: the ticked ones and the ones not offered."""
        return [*self.kept, *self.cleaned_data["dates"]]


class SeasonByRuleForm(forms.Form):
    name = forms.CharField(max_length=NAME_MAX, label=_("Season name"),
                           initial=lambda: str(timezone.localdate().year + 1))
    first_month = forms.DateField(label=_("Starting in the month of"), widget=forms.DateInput(attrs={"type": "date"}),
                                  error_messages={"invalid": _("Write a date like 2027-01-01.")})
    months = WholeNumberField(low=1, high=24, what=gettext_noop("the number of months"), initial=12,
                              label=_("For how many months"))
    # The rule's words are the pure rotation's (marked there), said in the reader's language.
    nth = forms.TypedChoiceField(choices=lambda: [(key, capfirst(gettext(value))) for key, value in ORDINALS.items()],
                                 coerce=int, initial=3, label=_("Which one"))
    weekday = forms.TypedChoiceField(choices=lambda: [(number, capfirst(gettext(day))) for number, day in enumerate(WEEKDAYS)],
                                     coerce=int, initial=4, label=_("Weekday"))
    time = forms.TimeField(label=_("At"), widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
                           error_messages={"invalid": TIME_FORMAT})


class SeasonByHandForm(forms.Form):
    name = forms.CharField(max_length=NAME_MAX, label=_("Season name"))
    dates = forms.CharField(widget=forms.Textarea(attrs={"rows": 8}), help_text=DATE_HELP, label=_("The dates"))
    time = forms.TimeField(label=_("At"), widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
                           error_messages={"invalid": TIME_FORMAT})

    def clean_dates(self) -> list[datetime.date]:
        days = _dates(self.cleaned_data["dates"])
        if not days:
            raise forms.ValidationError(_("Write at least one date."), code="required")
        return days


class PartyForm(forms.Form):
    date = forms.DateField(widget=forms.DateInput(attrs={"type": "date"}), label=_("Date"),
                           error_messages={"invalid": _("Write a date like 2027-01-15.")})
    time = forms.TimeField(widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M"), label=_("Time"),
                           error_messages={"invalid": TIME_FORMAT})
    location = forms.CharField(max_length=PLACE_MAX, required=False, label=_("Address"))
    notes = forms.CharField(max_length=NOTES_MAX, widget=forms.Textarea(attrs={"rows": 3}), required=False,
                            label=_("Notes"))  # its help text says the cap in the reader's figures (__init__)
    host = RecordChoiceField(queryset=Member.objects.none(), required=False, empty_label=_("No host yet"),
                             label=pgettext_lazy("club", "Host"),
                             error_messages={"invalid_choice": _("Pick a member of the club.")})
    cohost = RecordChoiceField(queryset=Member.objects.none(), required=False, empty_label=_("Nobody"),
                               label=_("Co-host"), error_messages={"invalid_choice": _("Pick a member of the club.")})

    season = RecordChoiceField(queryset=Season.objects.none(), required=False, empty_label=_("No season"),
                               label=_("Season"),
                               error_messages={"invalid_choice": _("Pick one of the club's seasons.")})

    def __init__(self, *args: Any, club: Club, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.club = club
        for name in ("host", "cohost"):
            field = self.fields[name]
            assert isinstance(field, forms.ModelChoiceField)
            field.queryset = club.members.filter(is_active=True)
        season = self.fields["season"]
        assert isinstance(season, forms.ModelChoiceField)
        season.queryset = club.seasons.all()
        self.fields["time"].help_text = gettext("%(zone)s time.") % {"zone": club.zone.key.replace("_", " ")}
        self.fields["notes"].help_text = gettext("Members see them on the party's page and in their calendars "
                                                 "(%(most)s characters at most).") % {"most": number_format(NOTES_MAX, force_grouping=True)}

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("cohost") and not data.get("host"):
            self.add_error("cohost", gettext("Pick the host before a co-host."))
        elif data.get("cohost") and data.get("cohost") == data.get("host"):
            self.add_error("cohost", gettext("The host and co-host must be two different people."))
        return data

    def starts_at(self) -> datetime.datetime:
        """The date and time as the club's clocks read them."""
        return self.club.at(self.cleaned_data["date"], self.cleaned_data["time"])

    @staticmethod
    def initial_for(party: Party) -> dict[str, Any]:
        local = party.local_start
        return {"date": local.date(), "time": local.time(), "location": party.location, "notes": party.notes,
                "host": party.host_id, "cohost": party.cohost_id, "season": party.season_id}


class NewPartyForm(PartyForm):
    """A date added by hand: the same fields as editing one (its host and season included)."""


class SwapForm(forms.Form):
    give = RecordChoiceField(queryset=Party.objects.none(), label=_("Your date"),
                             error_messages={"invalid_choice": _("Pick one of the dates you host.")})
    take = RecordChoiceField(queryset=Party.objects.none(), label=_("The date you'd like instead"),
                             error_messages={"invalid_choice": _("Pick a date another member hosts.")})

    def __init__(self, *args: Any, member: Member, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        upcoming = (Party.objects.upcoming().filter(club_id=member.club_id, cancelled_at__isnull=True)
                    .select_related("club", "host", "cohost"))
        give, take = self.fields["give"], self.fields["take"]
        assert isinstance(give, forms.ModelChoiceField) and isinstance(take, forms.ModelChoiceField)
        give.queryset = upcoming.hosted_by(member)
        take.queryset = upcoming.filter(host__isnull=False).exclude(host=member).exclude(cohost=member)
        give.label_from_instance = take.label_from_instance = _party_label  # type: ignore[method-assign,assignment]


def _party_label(party: Party) -> str:
    return f"{date_format(party.local_start, 'D d M Y')} ({party.hosts_label()})"


# --- Dishes (issue 45) ------------------------------------------------------------------------------


class DishSlotForm(forms.Form):
    """A dish the host asks for, and how many of it."""

    name = forms.CharField(max_length=DISH_NAME_MAX, label=_("Dish"),
                           widget=forms.TextInput(attrs={"placeholder": _("Dessert")}))
    wanted = WholeNumberField(low=1, high=DISH_WANTED_MAX, what=gettext_noop("how many"), initial=1,
                              label=_("How many"))


class DishWantedForm(forms.Form):
    wanted = WholeNumberField(low=1, high=DISH_WANTED_MAX, what=gettext_noop("how many"), label=_("How many"))


class DishMemberForm(forms.Form):
    """A member of the party's club: whom the host suggests a dish to, or whom a member gives theirs."""

    member = RecordChoiceField(queryset=Member.objects.none(), label=_("Member"),
                               error_messages={"invalid_choice": _("Pick a member of the club.")})

    def __init__(self, *args: Any, club: Club, exclude: Member | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["member"]
        assert isinstance(field, forms.ModelChoiceField)
        members = club.members.filter(is_active=True)
        field.queryset = members.exclude(pk=exclude.pk) if exclude is not None else members


class DishTradeForm(forms.Form):
    """Another member's dish at the same party, to trade for one's own."""

    take = RecordChoiceField(queryset=DishSignup.objects.none(), label=_("Their dish"),
                             error_messages={"invalid_choice": _("Pick another member's dish at this party.")})

    def __init__(self, *args: Any, signup: DishSignup, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["take"]
        assert isinstance(field, forms.ModelChoiceField)
        field.queryset = (DishSignup.objects.filter(slot__party_id=signup.slot.party_id)
                          .exclude(member_id=signup.member_id).exclude(slot_id=signup.slot_id)
                          .select_related("slot", "member"))
        field.label_from_instance = _dish_label  # type: ignore[method-assign,assignment]


def _dish_label(signup: DishSignup) -> str:
    return f"{signup.slot.name} ({signup.member.name})"
