"""The nights of a club, tap by tap, in the club's export (issue 48; docs/CLUB_EXPORT.md): the
night's lists registered with the club's export (`bunco_club.export.register`), which reads and
writes them as it does its own. GamesConfig.ready imports this module.

A night's secrets stay behind: its code, its host's key and its screen's token, a seat's phone and
a tap's key (a phone's retry) are this installation's; an imported night gets new ones."""

from __future__ import annotations

from bunco_club.export import Section, register
from games.night.models import Night, Player, PrizeAward, Round, Seat, TableRound, Tally
from games.rules import bunco, prizes

SINCE = 2  # the version of the file the nights came in with


def house_rules_refusal(night: Night) -> str | None:
    """Why a night's house rules from a file are not ones a night plays by; None when they are:
    each a field of the engine's rules, of the official rule's type, and a value the engine takes."""
    for given, official in ((night.rules, bunco.OFFICIAL), (night.prize_rules, prizes.OFFICIAL_PRIZE_RULES)):
        wrong = [name for name, value in given.items()
                 if not hasattr(official, name) or type(value) is not type(getattr(official, name))]
        if wrong:
            return f"its house rules {', '.join(sorted(wrong))} are not the rules' own."
    try:
        night.bunco_rules(), night.prize_house_rules()
    except ValueError as error:  # prizes.PrizeError is one
        return f"its house rules are not right ({error})"
    return None


register("nights", Section(
    Night, ("title", "buy_in_cents", "rules", "prize_rules", "status", "current_round", "created_at", "finished_at"),
    {"party": "parties"}, lambda club: Night.objects.filter(club=club).order_by("pk"), of_club=True,
    refusal=house_rules_refusal, since=SINCE))
register("players", Section(
    Player, ("name", "is_ghost"), {"night": "nights", "member": "members"},
    lambda club: Player.objects.filter(night__club=club).order_by("pk"), since=SINCE))
register("rounds", Section(
    Round, ("number", "status", "started_at", "bell_rung_at", "closed_at"), {"night": "nights"},
    lambda club: Round.objects.filter(night__club=club).order_by("pk"), since=SINCE))
register("table_rounds", Section(
    TableRound, ("number", "status", "roll_off", "winner"), {"round": "rounds"},
    lambda club: TableRound.objects.filter(round__night__club=club).order_by("pk"), since=SINCE))
register("seats", Section(
    Seat, ("position", "team"), {"table_round": "table_rounds", "round": "rounds", "player": "players"},
    lambda club: Seat.objects.filter(round__night__club=club).order_by("pk"),
    agree=(("table_round.round", "round"), ("player.night", "round.night")), since=SINCE))
register("tallies", Section(
    Tally, ("kind", "team", "points", "buncos", "roll_off", "by_host", "created_at"),
    {"night": "nights", "table_round": "table_rounds", "bunco_player": "players", "entered_by": "players"},
    lambda club: Tally.objects.filter(night__club=club).order_by("pk"), later={"undoes": "tallies"},
    agree=(("table_round.round.night", "night"), ("bunco_player.night", "night"), ("entered_by.night", "night"),
           ("undoes.table_round", "table_round")), since=SINCE))
register("prize_awards", Section(
    PrizeAward, ("prize", "amount_cents", "roll_off", "order"), {"night": "nights", "player": "players"},
    lambda club: PrizeAward.objects.filter(night__club=club).order_by("pk"), agree=(("player.night", "night"),),
    since=SINCE))
