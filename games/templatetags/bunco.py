from django import template

register = template.Library()

PRIZE_NAMES = {
    "most_buncos": "Most Buncos",
    "most_wins": "Most Wins",
    "traveling": "Traveling prize",
    "fifty_fifty": "50/50",
    "most_losses": "Most Losses",
    "draw": "“At Least I’m Taking Something Home”",
}


@register.filter
def dollars(cents: int) -> str:
    """500 → "$5.00"."""
    return f"${cents // 100:,}.{cents % 100:02d}"


@register.filter
def prize_name(prize: str) -> str:
    return PRIZE_NAMES.get(prize, prize)
