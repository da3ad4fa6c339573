"""Closing and deciding a tournament's rounds: what the clock (tournaments.tasks, the in-process
clock, a simulation) and the actions (a turn that makes its group final, the director's "End round
now" and `decide_tie`) both call (docs/DESIGN.md §2, §5).

`close_round_if_due` is the one idempotent function every trigger calls: it makes final every
group whose time and grace period are over and decides every round whose groups are all final
(brackets.cut / brackets.double_elimination); players tied at the line play off or wait for the
director; at two players the face-off; then a champion and everyone's final place.

This module sits one floor below tournaments.actions: the actions import it and the tasks (to
enqueue the round's close on commit), the tasks import only it, and it imports neither.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from games.table import actions as table_actions
from live.log import log_event
from tournaments import brackets, digital
from tournaments.models import Entrant, Group, GroupSeat, ResultEntry, Tournament, TournamentRound

# --- Making a group final ----------------------------------------------------------------------


def make_final(group: Group, now: datetime) -> bool:
    """The group's scores are final: once, whoever gets here first (a conditional update)."""
    made = Group.objects.filter(pk=group.pk, status=Group.Status.PLAYING).update(status=Group.Status.FINAL)
    if not made:
        return False
    group.status = Group.Status.FINAL
    log_event(group.round.tournament.channel, "tournament_state",
              {"what": "group_final", "round": group.round.number, "groups": [group.number]})
    if not _report([group], now):
        count_result(group, now)
    return True


# --- A group's result: reported, then confirmed (issue 46) -------------------------------------


def _report(groups: list[Group], now: datetime) -> list[Group]:
    """The result of groups just made final: those that need a confirmation (Group.needs_confirmation)
    are "reported", their scores as they stand logged (one event for them all); the others are
    confirmed at once. Returns those reported, which count only once confirmed."""
    waiting = [group for group in groups if group.needs_confirmation()]
    counted = [group.pk for group in groups if group not in waiting]
    if counted:
        Group.objects.filter(pk__in=counted).update(result=Group.Result.CONFIRMED)
    for group in groups:
        group.result = Group.Result.REPORTED if group in waiting else Group.Result.CONFIRMED
    if not waiting:
        return []
    Group.objects.filter(pk__in=[group.pk for group in waiting]).update(result=Group.Result.REPORTED)
    round_ = waiting[0].round
    sheets = round_.sheets()
    ResultEntry.objects.bulk_create([
        ResultEntry(tournament_id=round_.tournament_id, group=group, kind=ResultEntry.Kind.REPORTED,
                    scores={name: score for _, name, score in sheets.get(group.pk, [])}, created_at=now)
        for group in waiting
    ])
    log_event(round_.tournament.channel, "tournament_state",
              {"what": "result_reported", "round": round_.number, "groups": sorted(group.number for group in waiting)})
    return waiting


def count_result(group: Group, now: datetime) -> None:
    """A group's result counts (confirmed, or needing no confirmation): a play-off resolves the tie
    it was played for; a round is decided once every table's result counts."""
    if group.play_off:
        _play_off_final(group.round_id, group, now)
    else:
        _decide_round_if_final(group.round_id, now)


# --- The clock ------------------------------------------------------------------------------------


def close_round_if_due(now: datetime | None = None, *, tournament: Tournament | None = None) -> int:
    """Make final every group whose time and grace period are over, and decide every round whose
    groups are all final. The one function every trigger calls (the in-process clock, Celery's
    ETA task and beat's sweep): idempotent, duplicates harmless. Returns how many groups it closed.

    The real clock (no `tournament`) leaves simulated tournaments alone: their times are a clock
    of their own, long past, and a simulation running beside the site closes its rounds itself
    (`tournament=` its own, at its simulated `now`), never a real tournament's.
    """
    now = now or timezone.now()
    due: dict[int, list[int]] = {}
    moved: list[int] = []
    at_buzzer: set[int] = set()
    for group_id, round_id, final_at, ends_at, paused_at, table_id, read, made in (
        Group.objects.for_the_clock(now, tournament).values_list(
            "pk", "round_id", "final_at", "ends_at", "round__paused_at", "table_id", "table_moves_read",
            "table__moves_made")
    ):
        running = paused_at is None
        if table_id is not None and (made > read or (running and ends_at is not None and ends_at <= now)):
            moved.append(group_id)
            if running and ends_at is not None and ends_at <= now:
                at_buzzer.add(group_id)
        if running and final_at is not None and final_at <= now:
            due.setdefault(round_id, []).append(group_id)
    closed = _play_out_tables(now, moved, at_buzzer)
    for round_id, group_ids in due.items():
        with transaction.atomic():
            closed += _make_final_together(round_id, group_ids, now)
    # A round whose groups were all made final but that was not decided (a crash in between).
    # (A round waiting for a table's confirmation is not stuck: the confirmation decides it.)
    stuck = TournamentRound.objects.filter(status=TournamentRound.Status.PLAYING).exclude(
        groups__status=Group.Status.PLAYING).exclude(groups__result=Group.Result.REPORTED).exclude(
        groups__result=Group.Result.DISPUTED)
    stuck = stuck.filter(tournament=tournament) if tournament is not None else stuck.filter(
        tournament__simulated=False)
    for round_id in list(stuck.values_list("pk", flat=True)):
        with transaction.atomic():
            _decide_round_if_final(round_id, now)
    return closed


def _play_out_tables(now: datetime, groups: list[int], at_buzzer: set[int]) -> int:
    """Groups on phones (tournaments.digital): read each table of `groups` into its group's Turns;
    for those `at_buzzer` (time is up) sound the buzzer at the table first (no new turn starts, the
    turn under way plays out), and make the group final once its game is over. How many groups it
    made final."""
    closed = 0
    for group_id in sorted(groups):
        with transaction.atomic():
            group = Group.objects.select_for_update().select_related("round__tournament").get(pk=group_id)
            if group.status != Group.Status.PLAYING:
                continue
            if group_id in at_buzzer:
                digital.sound_buzzer(group)
            digital.record_table_turns(group, now)
            if group_id in at_buzzer and digital.game_over(group):
                closed += make_final(group, now)
    return closed


def close_group_if_over(group: Group, now: datetime) -> bool:
    """A group on phones whose game is over is final (the actions call this after a move)."""
    if group.status == Group.Status.PLAYING and digital.game_over(group):
        return make_final(group, now)
    return False


def _make_final_together(round_id: int, group_ids: list[int], now: datetime) -> int:
    """The clock makes a round's due tables final at once: one statement and one event for them
    all, then the round is decided. The groups are locked before the round, in id order, as
    `record_turn` locks its group before the round: neither waits for the other in a circle."""
    locked = list(Group.objects.select_for_update().filter(pk__in=group_ids, status=Group.Status.PLAYING)
                  .order_by("pk").values_list("pk", "number"))
    if not locked:
        return 0
    for group in Group.objects.filter(pk__in=[pk for pk, _ in locked], table__isnull=False).select_related(
            "round__tournament"):
        digital.record_table_turns(group, now)  # a game's last turns count, whatever triggered the read
        if group.table is not None:
            table_actions.end_table(table=group.table)  # a turn never finished: the table stops too
    Group.objects.filter(pk__in=[pk for pk, _ in locked]).update(status=Group.Status.FINAL)
    round_ = TournamentRound.objects.select_related("tournament").get(pk=round_id)
    log_event(round_.tournament.channel, "tournament_state",
              {"what": "group_final", "round": round_.number, "groups": sorted(number for _, number in locked)})
    closing = list(Group.objects.filter(pk__in=[pk for pk, _ in locked]))
    for group in closing:
        group.round = round_
    _report(closing, now)
    _decide_round_if_final(round_id, now)
    return len(locked)


# --- Deciding a round -----------------------------------------------------------------------------


def _strikes_before(round_: TournamentRound) -> dict[str, int]:
    """Strikes carried into this round: those the last decided round left."""
    previous = (TournamentRound.objects.filter(tournament_id=round_.tournament_id, number__lt=round_.number,
                                               status=TournamentRound.Status.DECIDED)
                .order_by("-number").first())
    if previous is None:
        return {}
    return {name: count for name, count in previous.outcome.get("strikes", {}).items() if count < brackets.MAX_STRIKES}


def _decide_round_if_final(round_id: int, now: datetime) -> None:
    round_ = TournamentRound.objects.select_for_update().select_related("tournament").get(pk=round_id)
    if round_.status != TournamentRound.Status.PLAYING:
        return
    if round_.groups.filter(play_off=0).exclude(result=Group.Result.CONFIRMED).exists():
        return  # a table still plays, or its result waits for a confirmation: the bracket waits
    scores = round_.table_scores()
    # Ranked across groups: names in score order, ties kept in table order (brackets.rank).
    round_.scores = scores
    tournament = round_.tournament
    if round_.is_practice:  # counts for nothing: no cut, no strikes, nothing carried
        round_.outcome = {"practice": True}
        round_.status = TournamentRound.Status.DECIDED
        round_.decided_at = now
        round_.save(update_fields=["scores", "outcome", "status", "decided_at"])
        log_event(tournament.channel, "tournament_state", {"what": "round_decided", "round": round_.number})
        return
    if round_.is_face_off:
        winner = brackets.face_off_winner(scores)
        outcome: dict[str, Any] = {"tied": [] if winner else list(scores), "winner": winner}
    elif tournament.format == Tournament.Format.SINGLE:
        advance = brackets.advance_count(len(scores))
        cut = brackets.cut(scores, advance)
        outcome = {"advancing": cut.advancing, "eliminated": cut.eliminated, "tied": cut.tied, "advance": advance}
    else:
        before = _strikes_before(round_)
        struck = brackets.double_elimination(scores, before)
        outcome = {"strikes": struck.strikes, "eliminated": struck.eliminated, "tied": struck.tied,
                   "strikes_before": {name: before.get(name, 0) for name in scores}}
    round_.outcome = outcome
    round_.save(update_fields=["scores", "outcome"])
    _settle(round_, now)


def _settle(round_: TournamentRound, now: datetime) -> None:
    """Apply the round's outcome, or open a play-off (or wait for the director) while tied."""
    tournament = round_.tournament
    if round_.outcome.get("tied"):
        round_.status = TournamentRound.Status.PLAY_OFF
        round_.save(update_fields=["status", "outcome", "scores"])
        if tournament.ties == Tournament.Ties.PLAY_OFF:
            _open_play_off(round_)
        log_event(tournament.channel, "tournament_state", {"what": "tied", "round": round_.number})
        return
    round_.status = TournamentRound.Status.DECIDED
    round_.decided_at = now
    round_.save(update_fields=["status", "decided_at", "outcome", "scores"])
    entrants = {entrant.name: entrant for entrant in tournament.players_in()}
    if round_.is_face_off:
        winner = entrants[round_.outcome["winner"]]
        loser = next(entrant for name, entrant in entrants.items() if name != winner.name)
        finish(tournament, winner, loser, now, round_)
        return
    out = [entrants[name].pk for name in round_.outcome["eliminated"]]
    Entrant.objects.filter(pk__in=out).update(status=Entrant.Status.ELIMINATED, out_in_round=round_.number)
    log_event(tournament.channel, "tournament_state", {"what": "round_decided", "round": round_.number})


def _open_play_off(round_: TournamentRound) -> Group:
    """A play-off group of the players tied at the line: one turn each, untimed."""
    tied = round_.tied()
    cycle = round_.groups.filter(play_off__gt=0).count() + 1
    number = (round_.groups.order_by("-number").values_list("number", flat=True).first() or 0) + 1
    group = Group.objects.create(round=round_, number=number, play_off=cycle)
    by_name = {entrant.name: entrant for entrant in round_.tournament.players_in().filter(name__in=tied)}
    GroupSeat.objects.bulk_create(
        [GroupSeat(group=group, entrant=by_name[name], position=position) for position, name in enumerate(tied)]
    )
    return group


def resolve(round_: TournamentRound, playoff: dict[str, int], now: datetime) -> None:
    """Apply play-off scores (or the director's order, `actions.decide_tie`) among the tied players
    (brackets). ValueError (from brackets) for scores that do not fit the tie: the actions that
    call this turn it into their BadEntry."""
    outcome = dict(round_.outcome)
    if round_.is_face_off:
        winner = brackets.face_off_winner(playoff)
        outcome.update(tied=[] if winner else list(playoff), winner=winner)
    elif round_.tournament.format == Tournament.Format.SINGLE:
        cut = brackets.resolve_cut(
            brackets.Cut(outcome["advancing"], outcome["eliminated"], outcome["tied"]), playoff, outcome["advance"])
        outcome.update(advancing=cut.advancing, eliminated=cut.eliminated, tied=cut.tied)
    else:
        struck = brackets.resolve_strikes(
            brackets.Strikes(outcome["strikes"], outcome["eliminated"], outcome["tied"]), playoff,
            outcome["strikes_before"])
        outcome.update(strikes=struck.strikes, eliminated=struck.eliminated, tied=struck.tied)
    outcome.setdefault("play_offs", []).append(playoff)
    round_.outcome = outcome
    round_.status = TournamentRound.Status.PLAYING  # _settle decides it, or opens the next play-off
    _settle(round_, now)


def _play_off_final(round_id: int, group: Group, now: datetime) -> None:
    round_ = TournamentRound.objects.select_for_update().select_related("tournament").get(pk=round_id)
    if round_.status != TournamentRound.Status.PLAY_OFF:
        return
    if round_.groups.filter(play_off__gt=group.play_off).exists():
        return  # an earlier play-off confirmed late: the tie it was for was settled without it
    group.round = round_
    resolve(round_, group.scores(), now)


def finish(tournament: Tournament, winner: Entrant, loser: Entrant | None, now: datetime,
            face_off: TournamentRound | None = None) -> None:
    """A champion, and a final place for everyone who played: the face-off's loser second, then
    by the round each was eliminated in (later is better) and their rank in it; players tied
    when eliminated share a place (brackets.final_places)."""
    tiers = [[winner.name]] + ([[loser.name]] if loser else [])
    placed = {name for tier in tiers for name in tier}
    for decided in tournament.rounds.filter(kind=TournamentRound.Kind.ROUND).order_by("-number"):
        out = [name for name in decided.outcome.get("eliminated", []) if name not in placed]
        placed.update(out)
        # Tied when eliminated: the same score in the round and in each of its play-offs.
        play_offs = decided.outcome.get("play_offs", [])
        keys = {name: [decided.scores.get(name), *(play_off.get(name) for play_off in play_offs)] for name in out}
        tiers.extend(brackets.tied_tiers(out, keys))
    by_name = {entrant.name: entrant.pk for entrant in tournament.entrants.all()}
    sharing: dict[int, list[int]] = {}
    for name, place in brackets.final_places(tiers).items():
        sharing.setdefault(place, []).append(by_name[name])
    for place, entrant_ids in sharing.items():
        Entrant.objects.filter(pk__in=entrant_ids).update(final_place=place)
    if loser is not None:
        Entrant.objects.filter(pk=loser.pk).update(status=Entrant.Status.ELIMINATED,
                                                   out_in_round=face_off.number if face_off else None)
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.FINISHED, finished_at=now)
    tournament.status = Tournament.Status.FINISHED
    log_event(tournament.channel, "tournament_state", {"what": "finished", "champion": winner.name})
