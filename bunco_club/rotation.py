"""The hosting rotation of a club's season (docs/CONTRACT.md "bunco_club/rotation.py").

Pure and deterministic, standard library only: the same members, dates, blackouts and past counts
always give the same plan, so a host who regenerates a season sees the same rota again.

Fairness, as the contract states it: at every date the host is a member who is available that
date and who has hosted least so far among the available members, counting earlier seasons
(`hosted_before`) and this plan's earlier dates. Among members tied on that count, the plan picks:

1. the one with the fewest available dates left in the season (this one included): a member who
   is away most of the year hosts on one of the few dates they can, which leaves the others' dates
   free for those who are around;
2. then roster order (the order of `members`).

A co-host pair is one name here: the club's actions pass a pair as a single "member" and give the
date to both.

`suggest_dishes` is the same kind of fair rotation for a party's food (issue 45): who brings the
dishes still missing.
"""

from __future__ import annotations

import datetime
from collections.abc import Collection, Mapping, Sequence

from games.rules.words import Said, gettext_noop


class RotationError(ValueError):
    """Input a rotation cannot be planned from; the message says why, for people."""


def plan_rotation(
    members: Sequence[str],
    dates: Sequence[datetime.date],
    *,
    blackouts: Mapping[str, Collection[datetime.date]] | None = None,
    hosted_before: Mapping[str, int] | None = None,
) -> list[str | None]:
    """The host of each date, in the order of `dates` (None where every member is blacked out)."""
    roster = _checked_members(members)
    season = _checked_dates(dates)
    away: dict[str, frozenset[datetime.date]] = {
        name: frozenset(blackouts.get(name, ()) if blackouts else ()) for name in roster
    }
    hostings: dict[str, int] = {name: (hosted_before.get(name, 0) if hosted_before else 0) for name in roster}
    for name, count in hostings.items():
        if isinstance(count, bool) or not isinstance(count, int):
            raise RotationError(Said(gettext_noop("The number of times %(name)s hosted before must be a whole number, "
                                                  "not %(count)s."), name=name, count=repr(count)))
    # Available dates left for each member, this date included: decremented as the plan moves on.
    left: dict[str, int] = {name: sum(1 for day in season if day not in away[name]) for name in roster}
    order = {name: index for index, name in enumerate(roster)}

    plan: list[str | None] = []
    for day in season:
        available = [name for name in roster if day not in away[name]]
        if not available:
            plan.append(None)
            continue
        host = min(available, key=lambda name: (hostings[name], left[name], order[name]))
        plan.append(host)
        hostings[host] += 1
        for name in available:
            left[name] -= 1
    return plan


def suggest_dishes(
    places: Sequence[str],
    members: Sequence[str],
    *,
    turns: Mapping[str, int] | None = None,
    not_coming: Collection[str] = (),
    busy: Collection[str] = (),
) -> list[str | None]:
    """Who is asked to bring each dish still missing: `places` is one entry per dish wanted and not
    yet signed up for (a slot wanting two desserts is there twice), in the party's order; the
    answer is a member's name for each, in the same order, or None when nobody is left to ask.

    Fairness (BenchApp's rotation of a duty): at every place the member asked has brought the
    fewest dishes before (`turns`: past dishes brought) among those who can be asked; ties go in roster order (the order of `members`). Nobody who is
    not coming (`not_coming`) or brings something already (`busy`) is asked, and nobody is asked
    for two dishes. Pure and deterministic. `members` must hold unique names (RotationError)."""
    roster = _checked_members(members) if members else []
    counts: dict[str, int] = {name: (turns.get(name, 0) if turns else 0) for name in roster}
    for name, count in counts.items():
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise RotationError(Said(gettext_noop("The number of dishes %(name)s brought before must be a whole "
                                                  "number, not %(count)s."), name=name, count=repr(count)))
    skipped = set(not_coming) | set(busy)
    order = {name: index for index, name in enumerate(roster)}
    free = [name for name in roster if name not in skipped]
    plan: list[str | None] = []
    for _place in places:
        if not free:
            plan.append(None)
            continue
        chosen = min(free, key=lambda name: (counts[name], order[name]))
        plan.append(chosen)
        free.remove(chosen)
    return plan


# English, marked for the catalog: the forms offer them translated (bunco_club/forms.py).
WEEKDAYS = (gettext_noop("Monday"), gettext_noop("Tuesday"), gettext_noop("Wednesday"), gettext_noop("Thursday"),
            gettext_noop("Friday"), gettext_noop("Saturday"), gettext_noop("Sunday"))
ORDINALS = {1: gettext_noop("first"), 2: gettext_noop("second"), 3: gettext_noop("third"), 4: gettext_noop("fourth"),
            -1: gettext_noop("last")}


def monthly_dates(first_month: datetime.date, months: int, *, nth: int, weekday: int) -> list[datetime.date]:
    """The `nth` `weekday` (0 = Monday) of `months` months from `first_month`'s month on: "the third
    Friday of every month" is nth=3, weekday=4; nth=-1 is the last one of the month."""
    if nth not in ORDINALS:
        raise RotationError(Said(gettext_noop("Pick the first, second, third, fourth or last weekday of the month.")))
    if not 0 <= weekday <= 6:
        raise RotationError(Said(gettext_noop("The weekday is 0 (Monday) to 6 (Sunday).")))
    if not 1 <= months <= 120:
        raise RotationError(Said(gettext_noop("A season has 1 to 120 months.")))
    days: list[datetime.date] = []
    year, month = first_month.year, first_month.month
    for _ in range(months):
        if nth > 0:
            first = datetime.date(year, month, 1)
            day = first + datetime.timedelta(days=(weekday - first.weekday()) % 7 + 7 * (nth - 1))
        else:
            following = datetime.date(year + month // 12, month % 12 + 1, 1)
            last = following - datetime.timedelta(days=1)
            day = last - datetime.timedelta(days=(last.weekday() - weekday) % 7)
        days.append(day)
        year, month = year + month // 12, month % 12 + 1
    return days


def describe_rule(nth: int, weekday: int) -> str:
    return f"the {ORDINALS[nth]} {WEEKDAYS[weekday]} of every month"


def _checked_members(members: Sequence[str]) -> list[str]:
    if isinstance(members, (str, bytes)):
        raise RotationError(Said(gettext_noop("Members must be a list of names, not a single string.")))
    roster = list(members)
    if not roster:
        raise RotationError(Said(gettext_noop("A rotation needs at least one member to host.")))
    seen: set[str] = set()
    duplicates: list[str] = []
    for name in roster:
        if name in seen and name not in duplicates:
            duplicates.append(name)
        seen.add(name)
    if duplicates:
        listed = ", ".join(repr(name) for name in duplicates)
        raise RotationError(Said(gettext_noop("Each member must have a different name; these appear more than once: "
                                              "%(names)s."), names=listed))
    return roster


def _checked_dates(dates: Sequence[datetime.date]) -> list[datetime.date]:
    season = list(dates)
    for index, day in enumerate(season):
        if not isinstance(day, datetime.date):
            raise RotationError(Said(gettext_noop("Date %(number)s is not a date: %(value)s."), number=index + 1,
                                     value=repr(day)))
        if index and not _after(day, season[index - 1]):
            raise RotationError(Said(
                gettext_noop("Dates must be in order with none repeated: %(day)s (date %(number)s) does not come "
                             "after %(earlier)s."),
                day=day.isoformat(), number=index + 1, earlier=season[index - 1].isoformat()))
    return season


def _after(later: datetime.date, earlier: datetime.date) -> bool:
    # datetime is a date too; comparing a datetime with a plain date raises TypeError, so compare
    # such a mixed pair by calendar day.
    if isinstance(later, datetime.datetime) != isinstance(earlier, datetime.datetime):
        return _day(later) > _day(earlier)
    return later > earlier


def _day(value: datetime.date) -> datetime.date:
    return value.date() if isinstance(value, datetime.datetime) else value
