from django import template
from django.utils.translation import gettext

from games.rules import bunco, prizes

register = template.Library()


@register.filter
def dollars(cents: int) -> str:
    """500 → "$5.00"."""
    return f"${cents // 100:,}.{cents % 100:02d}"


@register.filter
def prize_name(prize: str) -> str:
    """A prize's title in the reader's language (the rules mark the titles, games/rules/words.py)."""
    title = prizes.PRIZE_TITLES.get(prize)
    return gettext(title) if title else prize


# The shape of a night, from the engine's constants: templates never write "24" themselves.
NIGHT_NUMBERS: dict[str, object] = {
    "rounds": bunco.ROUNDS,
    "rounds_per_set": bunco.ROUNDS_PER_SET,
    "sets": bunco.SETS,
    "break_after_round": bunco.BREAK_AFTER_ROUND,
    "break_after_set": bunco.BREAK_AFTER_ROUND // bunco.ROUNDS_PER_SET,
    "bell_points": bunco.BELL_POINTS,
    "bunco_points": bunco.BUNCO_POINTS,  # what a Bunco scores, said by the phone's tap (tally.js)
    # "1 & 3": the seats of each team as people count them (from 1)
    "team_seats": {
        team: " & ".join(str(seat + 1) for seat in range(bunco.SEATS) if bunco.team_of_seat(seat) == team)
        for team in bunco.TEAMS
    },
}


@register.simple_tag
def bunco_numbers() -> dict[str, object]:
    """`{% bunco_numbers as numbers %}`, then `{{ numbers.rounds }}`, `{{ numbers.rounds_per_set }}`,
    `{{ numbers.break_after_set }}`, `{{ numbers.bell_points }}`…"""
    return NIGHT_NUMBERS
