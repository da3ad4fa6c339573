"""The end of the night (early, by the host), the prizes, and the housekeeping of old nights."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from bunco_club import actions as club_actions
from bunco_club import money
from bunco_club.models import Party
from games.night.actions.refusals import StepAlreadyEnded
from games.night.models import (
    Night,
    Player,
    PrizeAward,
)
from games.rules import prizes
from live.log import log_event
from live.models import Event
from live.refusals import NotNow


@transaction.atomic
def end_night(night: Night, *, round_number: int | None = None) -> Night:
    """The host ends the night early (the sitter is waiting): the rounds played so far count.

    Only between rounds: a round under way is finished first, so no table loses its result.
    `round_number` is the seated round the host saw when ending: a second tap finds the night
    over and changes nothing (StepAlreadyEnded); a page from before a round that has been played
    since is refused (NotNow), so the host sees that round's result before ending.
    """
    night = Night.objects.select_for_update().get(pk=night.pk)
    if round_number is not None and night.status == Night.Status.FINISHED:
        raise StepAlreadyEnded(_("The night is already over."))
    if round_number is not None and round_number != night.current_round:
        raise NotNow(_("Round %(number)s has been played since this page was shown: look at its results, then "
                       "end the night.") % {"number": night.current_round - 1})
    current = night.round_obj()
    refusal = night.end_refusal(current)
    if refusal is not None:
        raise NotNow(refusal)
    current.delete()  # seated, never started: nothing recorded is lost
    night.current_round = current.number - 1
    night.save(update_fields=["current_round"])
    finish_night(night)
    log_event(night.channel, "state", {"round": night.current_round, "what": "night_over"})
    return night


def finish_night(night: Night) -> None:
    """The night is over: its last round closed (`rounds.seat_next_round`) or the host ended it
    early (`end_night`), the one place either ends it. A party's night tells its club at once,
    through the club's own action, so the party is played on every page from now on (issue 42,
    C1), not only once its sheets come in with the prizes."""
    ended_at = timezone.now()
    Night.objects.filter(pk=night.pk).update(status=Night.Status.FINISHED, finished_at=ended_at)
    night.status, night.finished_at = Night.Status.FINISHED, ended_at
    if night.party_id is not None:
        party = Party.objects.get(pk=night.party_id)
        club_actions.record_night_played(party, ended_at=ended_at)



@transaction.atomic
def award_prizes(night: Night, rng: random.Random | None = None) -> list[PrizeAward]:
    """Hand out the pot (docs/RULES.md §4.7), once; ties are rolled off and the dice kept to show."""
    night = Night.objects.select_for_update().get(pk=night.pk)
    if night.status != Night.Status.FINISHED:
        raise NotNow(_("Prizes come at the end of the night."))
    existing = list(night.awards.select_related("player"))
    if existing:
        return existing
    players = {player.name: player for player in night.players.real().with_figures()}
    sheets = [
        prizes.Sheet(name=player.name, wins=player.wins, losses=player.losses, buncos=player.bunco_count)
        for player in players.values()
    ]
    traveler = night.traveler()
    allocation = prizes.allocate_detailed(
        sheets, pot=night.pot_cents(), traveler=traveler.name if traveler else None,
        rng=rng or night.prize_rng(), rules=night.prize_house_rules(),
    )
    awards = PrizeAward.objects.bulk_create(
        [
            PrizeAward(
                night=night,
                prize=award.prize,
                player=players[award.name],
                amount_cents=award.amount,
                roll_off=[list(map(list, throws)) for throws in allocation.roll_offs.get(award.prize, ())],
                order=order,
            )
            for order, award in enumerate(allocation.awards)
        ]
    )
    log_event(night.channel, "state", {"round": night.current_round, "what": "prizes"})
    if night.party is not None:
        _report_to_the_club(night.party, players.values(), awards)
    return awards


def _report_to_the_club(party: Party, players: Iterable[Player], awards: Sequence[PrizeAward]) -> None:
    """A party's night tells its club how everyone did (the club keeps its own records, from which
    its season standings are derived) and what its prizes paid (the club's ledger): plain figures,
    through the club's own actions. Worked out again (a re-opened round), the club's records for
    the party are replaced, and its payouts reversed and written anew."""
    won: dict[int, list[PrizeAward]] = {}
    for award in awards:
        won.setdefault(award.player_id, []).append(award)
    sheets = [
        club_actions.NightSheet(
            name=player.name, wins=player.wins, losses=player.losses, buncos=player.bunco_count,
            prize_cents=sum(award.amount_cents for award in won.get(player.pk, [])),
            prizes=tuple(prizes.PRIZE_TITLES[award.prize] for award in won.get(player.pk, [])),
            member_id=player.member_id,
        )
        for player in players
    ]
    club_actions.record_night_results(party, sheets)
    club_actions.record_night_payouts(party, payouts(awards))


def payouts(awards: Sequence[PrizeAward]) -> list[club_actions.Payout]:
    """The prizes as the club's ledger takes them: who, which prize, how much, and how a tie for
    it was settled (shared when the prize has several winners, rolled off when dice decided it,
    drawn for the draw)."""
    winners = Counter(award.prize for award in awards)
    return [
        club_actions.Payout(name=award.player.name, prize=award.prize, amount_cents=award.amount_cents,
                            member_id=award.player.member_id, tie_rule=_tie_rule(award, winners[award.prize]))
        for award in awards
    ]


def _tie_rule(award: PrizeAward, winners: int) -> str:
    if award.prize == "draw":
        return money.TIE_DRAWN
    if winners > 1:
        return money.TIE_SPLIT
    return money.TIE_ROLL_OFF if award.roll_off else money.TIE_NONE


def purge_abandoned_nights(now: datetime) -> int:
    """Delete the "just play tonight" nights nobody came back to, with every row of theirs; the
    number deleted.

    Abandoned: no club (nor party), no host account, started before the retention period
    (settings.NIGHT_RETENTION_DAYS) and nothing logged on any of its channels since: every change
    to a night logs an event, so the newest event is when it was last touched. Its players, rounds,
    tables, seats, tallies and prizes go with it (cascade) and its events too. A club's night and
    a night with a host account are kept. Idempotent: the in-process clock, Celery beat and
    `manage.py purge_nights` may all run it; each night is deleted in its own transaction, after
    a last look that nothing touched it meanwhile.
    """
    cutoff = now - timedelta(days=settings.NIGHT_RETENTION_DAYS)
    abandoned = Night.objects.filter(
        club__isnull=True, party__isnull=True, host_user__isnull=True, created_at__lt=cutoff
    )
    purged = 0
    for night_id in list(abandoned.values_list("pk", flat=True)):
        with transaction.atomic():
            night = abandoned.select_for_update().filter(pk=night_id).first()
            if night is None:
                continue  # gone already, or claimed by a host since
            events = Event.objects.filter(Q(channel=night.channel) | Q(channel__startswith=f"{night.channel}:"))
            if events.filter(created_at__gte=cutoff).exists():
                continue  # touched within the retention period
            events.delete()
            night.delete()
            purged += 1
    return purged
