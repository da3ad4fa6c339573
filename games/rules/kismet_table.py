"""Kismet at a game table: everything the table needs of the game beyond `TableGame`
(games.rules.table.GameRules, registered in games/rules/registry.py): the move in words for the
log, what the seat on turn gets besides its view, the printable sheets of the replay. Its
templates are templates/games/table/kismet/.

Options a Kismet table stores: {"real_seats": [seat numbers whose players roll real dice and type
them in], "no_straight": bool (the printed variant: a second Kismet may not go in Straight),
"hint": bool (the seat on turn is shown the box the bots' estimate rates best)}.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from games.rules import dice, kismet, kismet_bots
from games.rules.table import (
    GameRules,
    IllegalMove,
    OptionField,
    Played,
    PostedFields,
    ReadNumber,
    TableGame,
    dice_tossed,
    names_and,
    one_after_another,
    only_fields,
    posted_box,
    posted_dice,
)
from games.rules.words import Said, gettext_noop

OPTION_KEYS = ("real_seats", "no_straight", "hint")


def new(names: Sequence[str], options: Mapping[str, Any], rng: dice.Chance) -> TableGame:
    unknown = set(options) - set(OPTION_KEYS)
    if unknown:
        raise IllegalMove(Said(gettext_noop("Unknown Kismet option: %(options)s."), options=", ".join(sorted(unknown))))
    real = options.get("real_seats") or []
    if not isinstance(real, list) or any(type(seat) is not int for seat in real):
        raise IllegalMove(Said(gettext_noop("The seats rolling real dice are seat numbers, not %(real)s."), real=repr(real)))
    return kismet.KismetTable.new(names, real_seats=real, no_straight=bool(options.get("no_straight")))


def load(data: Mapping[str, Any]) -> TableGame:
    return kismet.KismetTable.from_dict(data)


def chance(before: TableGame, after: TableGame) -> list[list[Any]]:
    """The dice the server rolled in a move: ["roll", [five dice]] after a roll of a seat with server
    dice. Real dice typed in are part of the move, not chance."""
    assert isinstance(before, kismet.KismetTable) and isinstance(after, kismet.KismetTable)
    seat = before.state.current
    was, now = before.state.turn, after.state.turn
    if seat is None or before.typed(seat) or now is None or after.state.current != seat:
        return []
    if was is None or now.rolls > was.rolls:
        return [["roll", list(now.dice)]]
    return []


def scores(game: TableGame) -> list[int]:
    assert isinstance(game, kismet.KismetTable)
    return [sheet.total for sheet in game.state.sheets]


def label(box: str) -> str:
    return kismet.BOX_LABELS.get(box, box)


def _box(box: str) -> Said:
    """A box's name, translated where it is read."""
    return Said(label(box))


def _said_score(name: str, made: Mapping[str, Any], view: Mapping[str, Any]) -> Said:
    last = view.get("last") or {}
    said = [Said(gettext_noop("%(name)s scored %(points)s in %(box)s."), name=name, points=last.get("points", 0),
                 box=_box(str(made.get("box"))))]
    if last.get("second_kismet"):
        zeroed = [Said(gettext_noop("%(name)s (%(box)s)"), name=player, box=_box(box))
                  for player, box in last.get("zeroed") or []]
        said = [Said(gettext_noop("SECOND KISMET!")), *said, Said(gettext_noop(
            "Every other sheet gets a 0 in its top-most open box and loses its turn: %(zeroed)s."),
            zeroed=_listed(zeroed)),
            Said(gettext_noop("%(name)s plays again."), name=name)]
    if view.get("turn") is None:
        winners = view.get("winners") or []
        said.append(Said(gettext_noop("The game is over: %(names)s win.") if len(winners) > 1
                         else gettext_noop("The game is over: %(names)s wins."), names=names_and(winners)))
    return one_after_another(*said)


def _listed(items: Sequence[Said]) -> Said:
    """Items one after another with commas; "nobody had a box open" for none."""
    if not items:
        return Said(gettext_noop("nobody had a box open"))
    return Said(", ".join(f"%(i{number})s" for number in range(len(items))),
                **{f"i{number}": item for number, item in enumerate(items)})


def said_of(move: Mapping[str, Any], view: Mapping[str, Any]) -> str:
    """One move of Kismet in words, from the move as recorded and the public view after it."""
    seats = view.get("seats") or []
    seat = move.get("seat", 0)
    name = seats[seat] if isinstance(seat, int) and 0 <= seat < len(seats) else Said(gettext_noop("Someone"))
    made = move.get("move", {})
    kind = made.get("kind")
    if kind == "roll":
        dice = " ".join(map(str, view.get("dice") or []))
        kept = made.get("keep")
        if kept:
            return Said(gettext_noop("%(name)s rolled %(dice)s, holding %(held)s (roll %(roll)s of 3)."),
                        name=name, dice=dice, held=" ".join(map(str, kept)), roll=view.get("rolls"))
        return Said(gettext_noop("%(name)s rolled %(dice)s (roll %(roll)s of 3)."), name=name, dice=dice,
                    roll=view.get("rolls"))
    if kind == "enter":
        return Said(gettext_noop("%(name)s typed in real dice: %(dice)s."), name=name,
                    dice=" ".join(map(str, made.get("dice") or [])))
    if kind == "score":
        return _said_score(name, made, view)
    if kind == "undo":
        return Said(gettext_noop("%(name)s took back the last move."), name=name)
    return Said(gettext_noop("%(name)s moved."), name=name)


def shown(view: Mapping[str, Any]) -> Mapping[str, Any]:
    """The boxes' names to translate."""
    if "labels" not in view:
        return view
    return {**view, "labels": {box: _box(box) for box in view["labels"]}}


def on_turn_extras(game: TableGame, seat: int, options: Mapping[str, Any]) -> dict[str, Any]:
    """What the seat on turn gets besides its legal moves: the hint, when the table shows one."""
    assert isinstance(game, kismet.KismetTable)
    extras: dict[str, Any] = {"typed": game.typed(seat)}
    if options.get("hint") and game.state.turn is not None:
        extras["hint"] = kismet_bots.best_box(game)
    return extras


def legal_moves_shown(game: TableGame, seat: int) -> list[dict[str, Any]]:
    """The legal moves a phone is sent: one "enter" for the 252 ways of typing in five dice, one
    "roll" for every way of holding dice (the page sends the dice tapped), then each box."""
    moves = game.legal_moves(seat)
    kinds = {move["kind"] for move in moves}
    return ([{"kind": kind} for kind in ("roll", "enter") if kind in kinds]
            + [move for move in moves if move["kind"] == "score"])


def read_move(fields: PostedFields, number: ReadNumber) -> dict[str, Any]:
    """A move's arguments as its page posts them: the five faces typed in (`dice`, one field a die),
    the box to fill (`box`) and the dice held for a reroll (`keep`, one field a die)."""
    only_fields(fields, ("dice", "box", "keep"))
    move: dict[str, Any] = {}
    dice = posted_dice(fields, number, "dice", "Set aside at most 6 dice.")
    if dice:
        move["dice"] = dice
    box = posted_box(fields)
    if box is not None:
        move["box"] = box
    keep = posted_dice(fields, number, "keep", "Hold at most 6 dice.")
    if keep:
        move["keep"] = keep
    return move


def summary(played: Played) -> dict[str, Any]:
    """A finished game as docs/CONTRACT.md's simulate_table prints it, from each move and the game after
    it: "turns" (who, the five dice after each roll, the box, its score, whether it was a second
    Kismet and, for one, the zeroes it forced as "penalties") and the final "sheets"."""
    turns: list[dict[str, Any]] = []
    rolls: list[list[int]] = []
    game: TableGame | None = None
    for move, game in played.steps:
        assert isinstance(game, kismet.KismetTable)
        kind = move.get("kind")
        if kind in ("roll", "enter") and game.state.turn is not None:
            rolls = rolls[:-1] if kind == "enter" and rolls and game.state.turn.rolls == 1 else rolls
            rolls.append(list(game.state.turn.dice))
        elif kind == "score" and game.state.last is not None:
            last = game.state.last
            turn: dict[str, Any] = {"player": last.player, "rolls": rolls, "box": last.box,
                                    "score": last.points, "second_kismet": last.second_kismet}
            if last.second_kismet:
                turn["penalties"] = [{"player": player, "box": box} for player, box in last.zeroed]
            turns.append(turn)
            rolls = []
    assert isinstance(game, kismet.KismetTable)
    sheets = {name: {"boxes": sheet.as_dict(), "bonus": sheet.bonus, "total": sheet.total}
              for name, sheet in zip(game.state.players, game.state.sheets, strict=True)}
    return {"turns": turns, "sheets": sheets}


def sheet_rows(view: Mapping[str, Any]) -> list[tuple[str, list[Any], bool]]:
    """The printable sheet of the public view: (label, a value per seat, whether it is a total),
    the 15 boxes with the Basic total, the bonus, the Kismet section and the total."""
    sheets = view["sheets"]
    rows: list[tuple[str, list[Any], bool]] = []
    for box in kismet.BOXES:
        rows.append((label(box), ["" if s["boxes"][box] is None else s["boxes"][box] for s in sheets], False))
        if box == kismet.BASIC_BOXES[-1]:
            rows.append((gettext_noop("Basic total"), [s["basic"] for s in sheets], True))
            rows.append((gettext_noop("Bonus"), [s["bonus"] for s in sheets], True))
    rows.append((gettext_noop("Kismet section"), [s["kismet_section"] for s in sheets], True))
    rows.append((gettext_noop("Total"), [s["total"] for s in sheets], True))
    return rows


def on_turn(game: TableGame, seat: int, options: Mapping[str, Any]) -> dict[str, Any]:
    """The moves the phone on turn is shown (`legal_moves_shown`), whether it types in real dice,
    and the hint when the table shows one."""
    return {"legal_moves": legal_moves_shown(game, seat), **on_turn_extras(game, seat, options)}


def bot_move(game: TableGame, seat: int, level: str, rng: random.Random) -> dict[str, Any]:
    assert isinstance(game, kismet.KismetTable)
    return kismet_bots.choose_move(game, seat, level, rng)


def dice_shown(move: Mapping[str, Any]) -> list[int] | None:
    """The dice of a step of the replay: the server's roll, or the real dice typed in."""
    if move["move"].get("kind") == "enter":
        return list(move["move"]["dice"])
    return dice_tossed(move)


def replay_extras(dealt: TableGame, final: Mapping[str, Any]) -> dict[str, Any]:
    """The finished sheets side by side, to print."""
    return {"kismet_rows": sheet_rows(final)}


RULES = GameRules(
    name=kismet.KismetTable.game,
    label="Kismet",
    min_seats=1,
    max_seats=8,
    new=new,
    load=load,
    chance=chance,
    scores=scores,
    said=said_of,
    shown=shown,
    bot_move=bot_move,
    fairness=(gettext_noop("Fair dice"), gettext_noop("every roll of the table's dice")),
    on_turn=on_turn,
    options=(
        OptionField("real", gettext_noop("real dice"), "seat_check", default=[], key="real_seats",
                    help=gettext_noop("rolls real dice and types them in")),
        OptionField("no_straight", gettext_noop("Printed variant: a second Kismet may not go in Straight"), "check",
                    default=False),
        OptionField("hint", gettext_noop("Show the player on turn the box the bots' estimate rates best"), "check",
                    default=False),
    ),
    seats_note=gettext_noop("One to eight players (solo practice too). Each seat rolls the table's fair dice, "
                            'unless its "real dice" box is ticked: then that player rolls real dice and taps in '
                            "the five faces after the last roll."),
    replay_extras=replay_extras,
    dice_shown=dice_shown,
    read_move=read_move,
    summary=summary,
    bot_hints=tuple(kismet_bots.LEVEL_HINTS.items()),
)
