"""What the tournament's pages show, read afresh for each answer: a round's groups and
their clocks, the bracket, a group's page, the director's dashboard, a result in words."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from games.table.renderers import STOPPED
from tournaments import actions, brackets, digital
from tournaments.forms import CheckInWindowForm
from tournaments.models import ENTRANT_NAME_MAX, Entrant, Group, Tournament, TournamentRound


def clock_text(seconds: int) -> str:
    """What a countdown shows before its script runs: "19:59", "0:07"."""
    return f"{seconds // 60}:{seconds % 60:02d}"


def groups_context(round_: TournamentRound, now: datetime) -> list[dict[str, Any]]:
    """Every group of a round with its players and their scores (replayed from the turns, for the
    whole round at once: a 1,000-player round is a handful of queries)."""
    sheets = round_.sheets()
    rows = []
    for group in round_.groups.select_related("table").order_by("number"):
        group.round = round_
        sheet = sheets.get(group.pk, [])
        if group.status == Group.Status.FINAL:
            sheet = sorted(sheet, key=lambda seat: -seat[2])
        players = [{"entrant": {"pk": pk, "name": name}, "score": score} for pk, name, score in sheet]
        rows.append({"group": group, "players": players, "clock": clock_text(group.seconds_left(now)),
                     "can_extend": group.extend_refusal(now) is None,
                     "table_url": digital.table_path(group.table) if group.table is not None else "",
                     "watch": _watch_context(group, now) if group.status == Group.Status.PLAYING else None})
    return rows


def waited_text(seconds: int) -> str:
    """How long a table has waited, for the director: "40 s", "3 min", "1 h 5 min"."""
    if seconds < 60:
        return f"{seconds} s"
    minutes = seconds // 60
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"


def _watch_context(group: Group, now: datetime) -> dict[str, Any] | None:
    """A group on phones as the director watches it (tournaments.digital.watch): whose move its
    table waits on and for how long, and the seats nobody holds."""
    watch = digital.watch(group)
    if watch is None:
        return None
    waited = max(0, int((now - watch.since).total_seconds())) if watch.since else None
    return {"waiting_on": watch.waiting_on, "waited": waited_text(waited) if waited is not None else "",
            "unheld": watch.unheld, "held": len(watch.seats) - len(watch.unheld), "seats": len(watch.seats)}


def bracket_context(tournament: Tournament, now: datetime) -> dict[str, Any]:
    rounds = list(tournament.rounds.order_by("-number"))
    current = rounds[0] if rounds else None
    shared = shared_places(tournament) if tournament.status == Tournament.Status.FINISHED else set()
    return {
        "tournament": tournament,
        "now": now,
        "current": current,
        "rounds": [{"round": r, "groups": groups_context(r, now) if r == current else None} for r in rounds],
        "players_in": list(tournament.players_in()),
        "champion": tournament.champion(),
        "current_clock": clock_text(max(0, int((current.ends_at - now).total_seconds()))) if current else "",
        # The list numbers each place itself: a shared one only adds "tied" (not "Cy (18th (tied))").
        "places": [{"name": entrant.name, "place": entrant.final_place, "tied": entrant.final_place in shared}
                   for entrant in tournament.entrants.filter(final_place__isnull=False).order_by("final_place", "name")],
    }


def what_next(group: Group) -> str:
    """What a group's phone says once its scores are final: what happens now in its round."""
    round_, tournament = group.round, group.round.tournament
    if tournament.status == Tournament.Status.FINISHED:
        champion = tournament.champion()
        if champion is None:
            return _("The tournament is over.")
        return _("The tournament is over: %(name)s is the champion.") % {"name": champion.name}
    if round_.status == TournamentRound.Status.PLAYING:
        return (_("The other tables are still playing: %(round)s's results follow when every table's time is up.")
                % {"round": round_})
    if round_.status == TournamentRound.Status.PLAY_OFF:
        tied = ", ".join(round_.tied())
        if tournament.ties == Tournament.Ties.PLAY_OFF:
            return _("Players tied at the line play off, one turn each: %(names)s.") % {"names": tied}
        return _("The director decides between the players tied at the line: %(names)s.") % {"names": tied}
    return _("%(round)s is decided: the next round starts when the director starts it.") % {"round": round_}


def ordinal(place: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 21st."""
    ending = 0 if 10 <= place % 100 <= 20 else place % 10
    if ending == 1:
        return pgettext("ordinal 1", "%(place)sst") % {"place": place}
    if ending == 2:
        return pgettext("ordinal 2", "%(place)snd") % {"place": place}
    if ending == 3:
        return pgettext("ordinal 3", "%(place)srd") % {"place": place}
    return pgettext("ordinal", "%(place)sth") % {"place": place}


def shared_places(tournament: Tournament) -> set[int]:
    """The final places two or more players share (tied when eliminated)."""
    places = [place for place in tournament.entrants.values_list("final_place", flat=True) if place is not None]
    return {place for place in places if places.count(place) > 1}


def place_text(place: int | None, shared: set[int]) -> str:
    """A final place in words: "8th", or "8th (tied)" when others share it."""
    if place is None:
        return ""
    return _("%(place)s (tied)") % {"place": ordinal(place)} if place in shared else ordinal(place)


def result_of(round_: TournamentRound, name: str) -> str:
    """What a round did to a player, in words for the CSV and the printout."""
    outcome = round_.outcome
    if round_.is_practice:
        return _("practice (counts for nothing)")
    if round_.is_face_off and outcome.get("winner"):
        return _("champion") if outcome["winner"] == name else _("runner-up")
    if name in outcome.get("tied", []):
        return _("tied at the line")
    if name in outcome.get("eliminated", []):
        return _("eliminated")
    if name in outcome.get("advancing", []):
        return _("through")
    strikes = outcome.get("strikes", {}).get(name)
    if strikes is not None:
        return ngettext("%(count)s strike", "%(count)s strikes", strikes) % {"count": strikes}
    return ""


def point_limits(tournament: Tournament) -> dict[str, int]:
    """What a points input takes, from the limits the forms and actions check (actions.MAX_POINTS,
    actions.POINT_STEP): a turn's points go below 0 only where the tournament plays a Must Bust
    penalty; a correction may take points off."""
    return {
        "turn_min": -actions.MAX_POINTS if tournament.must_bust_penalty else 0,
        "min": -actions.MAX_POINTS, "max": actions.MAX_POINTS, "step": actions.POINT_STEP,
    }


def result_context(group: Group, phone: str) -> dict[str, Any]:
    """Where a final group's result stands, for its phones (issue 46): whether this phone may
    confirm or dispute it (a player's own phone, not the one that entered the turns), and as whom."""
    if not group.result_waits:
        return {"result_waits": False}
    reported_here = bool(phone) and phone in group.reporting_phones()
    players = group.players()
    # The player this phone answers for (its check-in, an earlier answer): one of this table's, or
    # another table's (then it answers for nobody here).
    holder = group.round.tournament.entrants.filter(phone=phone).first() if phone else None
    if holder is None:
        answer_as = [player for player in players if not player.phone]
    else:
        answer_as = [player for player in players if player.pk == holder.pk]
    return {
        "result_waits": True,
        "can_answer": group.confirm_refusal() is None and not reported_here,
        "reported_here": reported_here,
        "answer_as": answer_as,
    }


def group_context(group: Group, now: datetime | None = None, *, phone: str = "") -> dict[str, Any]:
    """A group's page (`phone`: the token of the phone asking, games.phones). Its forms carry no
    key: the page's script gives each new entry a fresh one (static/js/tournament.js), kept for a
    resend of the same entry whose answer was lost."""
    now = now or timezone.now()
    tournament = group.round.tournament
    players = group.players()
    scores = group.scores(players)
    refusal_now = group.turn_refusal(now)
    overtime = group.ends_at is not None and now >= group.ends_at and refusal_now is None
    decided = group.round.status == TournamentRound.Status.DECIDED and not group.play_off
    final = group.status == Group.Status.FINAL
    return {
        "tournament": tournament, "round": group.round, "group": group, "now": now,
        "players": [{"entrant": p, "score": scores[p.name], "result": result_of(group.round, p.name) if decided else ""}
                    for p in players],
        "next_player": group.next_player(players),
        "can_enter": refusal_now is None, "overtime": overtime,
        # A table stopped at the end of the grace period: say what happened to the turn under way.
        "closed_why": _(STOPPED) if final and not group.round.ended_now and digital.was_stopped(group) else refusal_now,
        "what_next": what_next(group) if final else "",
        "clock": clock_text(group.seconds_left(now)),
        "last_entry": group.live_turns().select_related("entrant").order_by("-id").first(),
        "moved_on": tournament.rounds.filter(number__gt=group.round.number).exists(),
        "paused": group.round.is_paused,
        # The director's "End round now" made this group final: the page's script says so (not "Time is up").
        "ended_now": final and group.round.ended_now and not group.play_off,
        "points": point_limits(tournament),
        **result_context(group, phone),
    }


def dashboard_context(request: HttpRequest, tournament: Tournament) -> dict[str, Any]:
    now = timezone.now()
    context = bracket_context(tournament, now)
    entrants = list(tournament.entrants.all())
    current: TournamentRound | None = context["current"]
    n_in = len(context["players_in"]) if tournament.status == Tournament.Status.PLAYING else sum(
        1 for e in entrants if e.checked_in)
    next_sizes: list[int] = []
    if n_in > 2 and (current is None or current.status == TournamentRound.Status.DECIDED):
        next_sizes = brackets.group_sizes(n_in)
    tied = []
    if current is not None and current.status == TournamentRound.Status.PLAY_OFF:
        by_name = {e.name: e for e in entrants}
        tied = [by_name[name] for name in current.tied()]
    roster = []
    if tournament.club is not None and tournament.registration_refusal() is None:
        registered = {e.member_id for e in entrants if e.member_id}
        roster = [m for m in tournament.club.members.filter(is_active=True).order_by("name") if m.pk not in registered]
    context.update({
        "roster": roster,
        "entrants": entrants, "checked_in": sum(1 for e in entrants if e.checked_in), "next_players": n_in,
        "next_sizes": next_sizes, "tied": tied,
        "screen_url": request.build_absolute_uri(reverse("tournaments:screen",
                                                         args=[tournament.code, tournament.screen_token])),
        "can_start": tournament.start_refusal() is None,
        "can_practice": tournament.practice_refusal() is None,
        "registration_open": tournament.registration_refusal() is None,
        "can_delete": tournament.deletion_refusal() is None,
        "name_max": ENTRANT_NAME_MAX,
        "clock_open": current is not None and current.clock_refusal() is None,
        # The start forms' "Played on phones" box: ticked as the last round was played.
        "on_phones": current is not None and current.on_phones,
        "paused": current is not None and current.is_paused,
        "seating": current is not None and current.seating and current.clock_refusal() is None,
        "bots_take_unheld": current is not None and current.bots_take_unheld,
        # Check-in on phones (issue 46): the window, who has not come, the form's values.
        "check_in_refusal": tournament.check_in_refusal(now),
        "no_shows": [e for e in entrants if e.status == Entrant.Status.REGISTERED and not e.checked_in],
        "window_form": CheckInWindowForm(initial={
            "starts_at": timezone.localtime(tournament.starts_at).strftime("%Y-%m-%dT%H:%M")
            if tournament.starts_at else "", "minutes": tournament.check_in_minutes}),
        # Results reported or disputed, which the bracket waits for (issue 46).
        "waiting_results": list(current.groups.filter(result__in=[Group.Result.REPORTED, Group.Result.DISPUTED])
                                .order_by("number")) if current is not None else [],
    })
    if context["seating"]:
        watched = [row["watch"] for item in context["rounds"] if item["groups"] for row in item["groups"] if row["watch"]]
        context["seats_held"] = sum(watch["held"] for watch in watched)
        context["seats_total"] = sum(watch["seats"] for watch in watched)
    return context


def desk_context(tournament: Tournament, now: datetime) -> dict[str, Any]:
    """The director's desk (issue 46): every group of the round under way, as the director
    watches it: its players (checked in or not), its turns, whose turn, how long since it last
    reported (its game table's last move, for a table on phones) and its clock; a table quiet for
    the tournament's `alert_minutes` is flagged (and the page rings, static/js/chime.js, once per
    silence); results waiting for a confirmation."""
    current = tournament.current_round()
    rows: list[dict[str, Any]] = []
    alert = tournament.alert_minutes * 60
    if current is not None:
        current.tournament = tournament
        sheets = current.sheets()
        for group in current.groups.select_related("table").order_by("number"):
            group.round = current
            players = group.players()
            watch = _watch_context(group, now) if group.status == Group.Status.PLAYING else None
            watched = digital.watch(group) if group.status == Group.Status.PLAYING else None
            since = watched.since if watched is not None else None
            last = since or group.last_report_at()
            quiet = group.quiet_for(now, last)
            scores = {name: score for _, name, score in sheets.get(group.pk, [])}
            rows.append({
                "group": group, "clock": clock_text(group.seconds_left(now)),
                "players": [{"entrant": player, "score": scores.get(player.name, 0)} for player in players],
                "turns": group.live_turns().filter(kind="turn").count(),
                "next_player": group.next_player(players) if group.status == Group.Status.PLAYING and not group.on_phones
                else None,
                "watch": watch,
                "quiet": waited_text(quiet) if quiet is not None else "",
                "quiet_seconds": quiet,
                "flagged": quiet is not None and quiet >= alert,
                # One ring per silence: the key changes when the group reports again.
                "ring_key": f"quiet-{group.pk}-{int(last.timestamp())}",
            })
    # The moment the next table's silence reaches the minutes: the page asks for the board again
    # then (static/js/tournament.js), so its flag and ring come at once, not at the next poll.
    waits = [row["quiet_seconds"] for row in rows if row["quiet_seconds"] is not None and not row["flagged"]]
    return {
        "tournament": tournament, "current": current, "now": now, "rows": rows,
        "flag_at": now + timedelta(seconds=alert - max(waits)) if waits else None,
        "flagged": sum(1 for row in rows if row["flagged"]),
        "waiting_results": [row["group"] for row in rows if row["group"].result_waits],
        "alert_minutes": tournament.alert_minutes,
    }
