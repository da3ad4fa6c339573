"""How a game table's events reach its pages: named events carrying the event's data as JSON.

A table's page draws the dice, the scores and whose turn it is from the view the event carries
(public on the table's channel, a seat's own on its channel), so each event is rendered once per
process whatever the number of phones. No queries (live.rendering).

A move's frame also carries `said`: the move in words ("Bea tossed 2 3 4 4 6: BUST!"), written
here once from the move and the public view after it, so the phones, the screen and the replay say
the same thing (`said_of`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from games.rules import ninety_nine
from games.table import kismet as kismet_table
from live.broadcasters import Message
from live.rendering import Frame, renders


def _dice(dice: Sequence[int]) -> str:
    return " ".join(str(die) for die in dice)


def _card(name: str) -> str:
    return name.replace("_", " ")


def _turn_just_ended(view: Mapping[str, Any]) -> bool:
    """After a move, the turn it belonged to is over: the next turn has no step yet (or the game
    has ended). A move that keeps the turn going always leaves a step behind."""
    return view.get("turn") is None or not view.get("steps")


_OUTCOMES = {
    "bust": "BUST! The points of the turn are lost.",
    "no_dice": "NO DICE: the turn is over.",
    "must_bust": "bust under MUST BUST: the points are banked.",
    "reached_goal": "the goal is reached!",
}


STOPPED = "Time and the grace period are over: the turn under way was stopped and counts nothing."


def said_of(move: Mapping[str, Any], view: Mapping[str, Any], *, stopped: bool = False) -> str:
    """One move of Fill or Bust in words, from the move as recorded (`Move.as_data`) and the
    public view after it. Only what everyone may see: the move is made, the view is public.
    `stopped`: the table was stopped after it (actions.end_table: a tournament's grace period ran
    out with a turn under way), which is what the page then says."""
    if stopped:
        return STOPPED
    if view.get("game") == "ninety_nine":
        return ninety_nine.said(move, view)
    if view.get("game") == "kismet":
        return kismet_table.said_of(move, view)
    seats = view.get("seats") or []
    seat = move.get("seat", 0)
    name = seats[seat] if isinstance(seat, int) and 0 <= seat < len(seats) else "Someone"
    kind = move.get("move", {}).get("kind")
    chance = move.get("chance") or []
    ended = _turn_just_ended(view)
    last_turn = view.get("last_turn")
    outcome = last_turn["outcome"] if ended and last_turn else None
    if kind == "draw":
        cards = [_card(step[1]) for step in chance if step and step[0] == "card"]
        text = f"{name} turned over {', '.join(cards) or 'a card'}."
        if outcome == "no_dice":
            return f"{name} turned over NO DICE: the turn is over."
        if view.get("phase") == "vengeance":
            text += f" Play it against {', '.join(view.get('targets') or [])} or decline it."
        elif cards and cards[-1] == "VENGEANCE 2500" and view.get("phase") == "draw":
            text += " The leader's own Vengeance is discarded: turn over another card."
        return text
    if kind == "toss":
        tossed = [step[1] for step in chance if step and step[0] == "toss"]
        text = f"{name} tossed {_dice(tossed[-1]) if tossed else 'the dice'}"
        if outcome in ("bust", "must_bust") or (outcome == "reached_goal" and not view.get("set_aside")):
            return f"{text}: {_OUTCOMES.get(outcome or '', 'BUST!')}"
        return text + "."
    if kind == "keep":
        kept = _dice(move["move"].get("dice") or [])
        # After a keep, 1 to 5 dice set aside mean the turn goes on under the card; all six (the
        # Fill waits for the next decision) or none (tossing all six again, or the turn is over)
        # mean the keep filled.
        if len(view.get("set_aside") or []) in (0, 6):
            text = f"FILL! {name} set aside {kept}: all six dice score."
            if view.get("card") == "VENGEANCE_2500":
                text += f" The VENGEANCE hits {', '.join(view.get('targets') or [])}."
            if outcome == "reached_goal":
                text += " The goal is reached!"
            return text
        return f"{name} set aside {kept}."
    if kind == "play":
        return f"{name} plays the VENGEANCE against {', '.join(view.get('targets') or [])}: fill it to hit them."
    if kind == "decline":
        return f"{name} declines the Vengeance and turns over another card."
    if kind == "stop":
        gained = last_turn["scores"].get(name) if last_turn else None
        return f"{name} stops and banks: {gained:,} points now." if gained is not None else f"{name} stops."
    if kind == "end":
        return f"{name} ends the turn."
    if kind == "continue":
        return f"{name} carries on: another card."
    if kind == "undo":
        return f"{name} took back the last move."
    if kind == "time_up":
        return "Time is up: the turn under way is played out."
    return f"{name} moved."


@renders("table", "moved")
def render_moved(message: Message) -> list[Frame]:
    """A move, the public view after it, and the move in words."""
    data = message["data"]
    return [("moved", json.dumps({"id": message["id"], **data, "said": said_of(data["move"], data["view"])}))]


@renders("table", "hand")
def render_hand(message: Message) -> list[Frame]:
    """A seat's private view (its hand), on that seat's own channel only."""
    return [("hand", json.dumps(message["data"]))]


@renders("table", "table_state")
def render_table_state(message: Message) -> list[Frame]:
    """Seats taken or handed to bots, the start, the end (with the revealed seed)."""
    return [("table_state", json.dumps(message["data"]))]
