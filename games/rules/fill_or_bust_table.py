"""Fill or Bust at a game table: everything the table needs of the game beyond `TableGame`
(games.rules.table.GameRules), registered in games/rules/registry.py.

Options a Fill or Bust table stores: {"goal": G} (one of GOALS) or {"goal": None, "timed": True}
(a tournament group's game: no goal, the round's clock ends it through `time_up`), plus the
§1.5 options by their `fill_or_bust.Options` names (combo5, must_bust_penalty, vengeance,
show_down). Its templates are templates/games/table/fill_or_bust/.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from games.rules import dice, fill_or_bust, fill_or_bust_bots
from games.rules.table import (
    GameRules,
    IllegalMove,
    OptionField,
    Played,
    PostedFields,
    ReadNumber,
    SimulatedOption,
    TableGame,
    one_after_another,
    only_fields,
    posted,
    posted_dice,
)
from games.rules.words import Said, gettext_noop

SHORT_GOAL = 2000  # a quick game at the table: a few turns each
GOALS = (SHORT_GOAL, 5000, 10000)


def _game(game: TableGame) -> fill_or_bust.FillOrBustTable:
    assert isinstance(game, fill_or_bust.FillOrBustTable)
    return game


def options_of(options: Mapping[str, Any]) -> tuple[fill_or_bust.Options, int | None]:
    """The rules options and the point goal a table's stored options stand for."""
    goal = options.get("goal", 5000)
    if goal is None and options.get("timed"):
        goal = None  # a tournament group's game: it ends when the round's clock says so
    elif type(goal) is not int or goal not in GOALS:
        raise IllegalMove(Said(gettext_noop("The goal is one of %(goals)s, not %(goal)s."),
                               goals=", ".join(f"{g:,}" for g in GOALS), goal=repr(goal)))
    rules = {k: v for k, v in options.items() if k not in ("goal", "timed")}
    try:
        return fill_or_bust.Options(**rules), goal
    except TypeError as error:
        raise IllegalMove(Said(gettext_noop("Unknown Fill or Bust option: %(error)s."), error=str(error))) from None


def new(names: Sequence[str], options: Mapping[str, Any], rng: dice.Chance) -> TableGame:
    rules, goal = options_of(options)
    return fill_or_bust.FillOrBustTable.new(names, rng, options=rules, goal=goal)


def _new_steps(before: TableGame, after: TableGame) -> list[tuple[Any, ...]]:
    """The steps taken from `before` to `after` (none after an undo), without walking the game's
    whole history."""
    was, now = _game(before).state, _game(after).state
    if len(now.turns) == len(was.turns):
        return list(now.steps[len(was.steps) :])
    finished = now.turns[len(was.turns) :]
    steps = list(finished[0].steps[len(was.steps) :])
    for turn in finished[1:]:
        steps += turn.steps
    return steps + list(now.steps)


def chance(before: TableGame, after: TableGame) -> list[list[Any]]:
    return fill_or_bust.step_lists(step for step in _new_steps(before, after) if step[0] in ("card", "toss"))


def time_up(game: TableGame) -> TableGame:
    return fill_or_bust.FillOrBustTable(_game(game).state.time_up())


def scores(game: TableGame) -> list[int]:
    return list(_game(game).state.sheet)


def on_turn(game: TableGame, seat: int, options: Mapping[str, Any]) -> dict[str, Any]:
    """The keeps the seat on turn may set aside, with their points (the page never works a score
    out), and whether MUST BUST is the card."""
    state = _game(game).state
    return {"keeps": [{"dice": list(dice), "points": points} for dice, points in state.legal_keeps()],
            "must_bust": state.card is fill_or_bust.Card.MUST_BUST}


def bot_move(game: TableGame, seat: int, level: str, rng: random.Random) -> dict[str, Any]:
    return fill_or_bust_bots.choose_move(_game(game), seat, level, rng)


# --- A move in words ------------------------------------------------------------------------------


def _dice(dice: Sequence[int]) -> str:
    return " ".join(str(die) for die in dice)


def _card(name: str) -> str:
    return name.replace("_", " ")


def _turn_just_ended(view: Mapping[str, Any]) -> bool:
    """After a move, the turn it belonged to is over: the next turn has no step yet (or the game
    has ended). A move that keeps the turn going always leaves a step behind."""
    return view.get("turn") is None or not view.get("steps")


_OUTCOMES = {
    "bust": gettext_noop("%(text)s: BUST! The points of the turn are lost."),
    "no_dice": gettext_noop("%(text)s: NO DICE: the turn is over."),
    "must_bust": gettext_noop("%(text)s: bust under MUST BUST: the points are banked."),
    "reached_goal": gettext_noop("%(text)s: the goal is reached!"),
}


def _said_draw(name: str, chance: Sequence[Any], view: Mapping[str, Any], outcome: str | None) -> Said:
    cards = [_card(step[1]) for step in chance if step and step[0] == "card"]
    if outcome == "no_dice":
        return Said(gettext_noop("%(name)s turned over NO DICE: the turn is over."), name=name)
    text = (Said(gettext_noop("%(name)s turned over %(cards)s."), name=name, cards=", ".join(cards)) if cards
            else Said(gettext_noop("%(name)s turned over a card."), name=name))
    if view.get("phase") == "vengeance":
        return one_after_another(text, Said(gettext_noop("Play it against %(targets)s or decline it."),
                                            targets=", ".join(view.get("targets") or [])))
    if cards and cards[-1] == "VENGEANCE 2500" and view.get("phase") == "draw":
        return one_after_another(text, Said(gettext_noop(
            "The leader's own Vengeance is discarded: turn over another card.")))
    return text


def _said_toss(name: str, chance: Sequence[Any], view: Mapping[str, Any], outcome: str | None) -> Said:
    tossed = [step[1] for step in chance if step and step[0] == "toss"]
    text = (Said(gettext_noop("%(name)s tossed %(dice)s"), name=name, dice=_dice(tossed[-1])) if tossed
            else Said(gettext_noop("%(name)s tossed the dice"), name=name))
    if outcome in ("bust", "must_bust") or (outcome == "reached_goal" and not view.get("set_aside")):
        return Said(_OUTCOMES.get(outcome or "", _OUTCOMES["bust"]), text=text)
    return Said(gettext_noop("%(text)s."), text=text)


def _said_keep(name: str, move: Mapping[str, Any], view: Mapping[str, Any], outcome: str | None) -> Said:
    kept = _dice(move["move"].get("dice") or [])
    # After a keep, 1 to 5 dice set aside mean the turn goes on under the card; all six (the
    # Fill waits for the next decision) or none (tossing all six again, or the turn is over)
    # mean the keep filled.
    if len(view.get("set_aside") or []) not in (0, 6):
        return Said(gettext_noop("%(name)s set aside %(dice)s."), name=name, dice=kept)
    said = [Said(gettext_noop("FILL! %(name)s set aside %(dice)s: all six dice score."), name=name, dice=kept)]
    if view.get("card") == "VENGEANCE_2500":
        said.append(Said(gettext_noop("The VENGEANCE hits %(targets)s."), targets=", ".join(view.get("targets") or [])))
    if outcome == "reached_goal":
        said.append(Said(gettext_noop("The goal is reached!")))
    return one_after_another(*said)


_SAID_PLAINLY = {
    "play": gettext_noop("%(name)s plays the VENGEANCE against %(targets)s: fill it to hit them."),
    "decline": gettext_noop("%(name)s declines the Vengeance and turns over another card."),
    "end": gettext_noop("%(name)s ends the turn."),
    "continue": gettext_noop("%(name)s carries on: another card."),
    "undo": gettext_noop("%(name)s took back the last move."),
}


def said(move: Mapping[str, Any], view: Mapping[str, Any]) -> str:
    """One move of Fill or Bust in words, from the move as recorded (`Move.as_data`) and the
    public view after it. Only what everyone may see: the move is made, the view is public."""
    seats = view.get("seats") or []
    seat = move.get("seat", 0)
    name = seats[seat] if isinstance(seat, int) and 0 <= seat < len(seats) else Said(gettext_noop("Someone"))
    kind = move.get("move", {}).get("kind")
    chance = move.get("chance") or []
    last_turn = view.get("last_turn")
    outcome = last_turn["outcome"] if _turn_just_ended(view) and last_turn else None
    if kind == "draw":
        return _said_draw(name, chance, view, outcome)
    if kind == "toss":
        return _said_toss(name, chance, view, outcome)
    if kind == "keep":
        return _said_keep(name, move, view, outcome)
    if kind == "stop":
        gained = last_turn["scores"].get(name) if last_turn else None
        if gained is None:
            return Said(gettext_noop("%(name)s stops."), name=name)
        return Said(gettext_noop("%(name)s stops and banks: %(points)s points now."), name=name, points=gained)
    if kind == "time_up":
        return Said(gettext_noop("Time is up: the turn under way is played out."))
    return Said(_SAID_PLAINLY.get(str(kind), gettext_noop("%(name)s moved.")), name=name,
                targets=", ".join(view.get("targets") or []))


# --- The replay -----------------------------------------------------------------------------------


def start_roll_shown(start_roll: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The start roll with each die's pips to draw (the replay draws its dice as the phones do)."""
    if not start_roll:
        return None
    return {**start_roll, "rounds": [[{"name": name, "face": face, "pips": range(face)} for name, face in dice]
                                     for dice in start_roll["rounds"]]}


def shown(view: Mapping[str, Any]) -> Mapping[str, Any]:
    """The start roll's line in words to translate (a stream's view has come through JSON)."""
    start = view.get("start_roll")
    if not start:
        return view
    return {**view, "start_roll": {**start, "words": fill_or_bust.StartRoll.from_dict(start).words()}}


def replay_extras(dealt: TableGame, final: Mapping[str, Any]) -> dict[str, Any]:
    """Who started, as the deal rolled it: from the seed, so a table stored before the roll was
    recorded shows it too."""
    return {"start_roll": start_roll_shown(dealt.view(None).public.get("start_roll"))}


def read_move(fields: PostedFields, number: ReadNumber) -> dict[str, Any]:
    """A move's arguments as its page posts them: the dice set aside, one `dice` field a die (a
    keep always has its dice, none posted being none set aside)."""
    only_fields(fields, ("dice",))
    dice = posted_dice(fields, number, "dice", "Set aside at most 6 dice.")
    return {"dice": dice} if dice or posted(fields, "kind") == "keep" else {}


def summary(played: Played) -> dict[str, Any]:
    """What simulate_table prints of a finished game (docs/CONTRACT.md): each turn's steps as play_turn
    takes them (lists for tuples) with the scores after it, the final scores and the goal."""
    state = _game(played.final).state
    return {
        "turns": [{"player": turn.player, "steps": fill_or_bust.step_lists(turn.steps),
                   "scores": dict(turn.scores_after)} for turn in state.turns],
        "scores": dict(zip(played.final.seats, state.sheet, strict=True)),
        "goal": state.goal,
    }


OPTIONS = (
    OptionField("goal", gettext_noop("Play to"), "choice", default=SHORT_GOAL,
                choices=((SHORT_GOAL, Said(gettext_noop("%(points)s (a short game)"), points=SHORT_GOAL)),
                         *((goal, f"{goal:,}") for goal in GOALS if goal != SHORT_GOAL))),
    OptionField("combo5", gettext_noop("Combo 5: a 2+3 or 1+4 pair that fills scores 50"), "check", default=False),
    OptionField("must_bust_penalty", gettext_noop("MUST BUST penalty: a bust under MUST BUST takes its points off"),
                "check",
                default=False),
    OptionField("vengeance", gettext_noop("A Vengeance takes off"), "choice", default=fill_or_bust.VENGEANCE_PENALTY,
                choices=((fill_or_bust.VENGEANCE_PENALTY, Said(gettext_noop("%(points)s (the rules)"),
                                                               points=fill_or_bust.VENGEANCE_PENALTY)),
                         (fill_or_bust.TEAM_VENGEANCE_PENALTY, Said(gettext_noop("%(points)s (teams)"),
                                                                    points=fill_or_bust.TEAM_VENGEANCE_PENALTY)))),
    OptionField("show_down", gettext_noop("Show down: everyone gets a last turn after the goal"), "check",
                default=False),
)

RULES = GameRules(
    name=fill_or_bust.FillOrBustTable.game,
    label="Fill or Bust",
    min_seats=2,
    max_seats=8,
    new=new,
    load=fill_or_bust.FillOrBustTable.from_dict,
    chance=chance,
    scores=scores,
    said=said,
    bot_move=bot_move,
    time_up=time_up,
    on_turn=on_turn,
    options=OPTIONS,
    seats_note=gettext_noop("Two to eight players, in any order: the dice say who starts."),
    replay_extras=replay_extras,
    shown=shown,
    made_at_the_start=("start_roll",),
    read_move=read_move,
    simulated=(SimulatedOption("goal", 5000, "Fill or Bust's point goal"),),
    summary=summary,
    bot_hints=tuple(fill_or_bust_bots.LEVEL_HINTS.items()),
)
