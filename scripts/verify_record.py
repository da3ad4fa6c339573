#!/usr/bin/env python3
"""Check a finished Bunco Club game table on your own: python3 verify_record.py RECORD.json

RECORD.json is the file "Download this game's record" gives (or its http(s) address). This script
needs nothing but Python's standard library and none of the site's code: it is docs/FAIRNESS.md
(version 2) written out. It checks that the revealed seed is the one committed to before any phone
spoke, then re-derives every step's byte stream from the seed, the table's code and the phones'
contributions, and compares every die, every shuffle and every card drawn. It prints "Verified" and
exits 0, or names the first step that differs and exits 1.
"""

import hashlib
import hmac
import json
import sys
import urllib.request
from typing import Any

Record = dict[str, Any]

FILL_OR_BUST_DECK = (["BONUS 300"] * 12 + ["BONUS 400"] * 10 + ["BONUS 500"] * 8 + ["NO DICE"] * 8
                     + ["FILL 1000"] * 6 + ["MUST BUST"] * 4 + ["VENGEANCE 2500"] * 4 + ["DOUBLE TROUBLE"] * 2)


class Stream:
    """The bytes of one step: HMAC-SHA256(key=seed, "{code}/{step}/{contribution}/{i}") for i = 0, 1, ..."""

    def __init__(self, seed: str, code: str, step: int, contribution: str) -> None:
        self.key, self.prefix = seed.encode("ascii"), f"{code}/{step}/{contribution}/"
        self.block, self.bytes, self.at = 0, b"", 0

    def byte(self) -> int:
        if self.at == len(self.bytes):
            message = f"{self.prefix}{self.block}".encode("ascii")
            self.bytes, self.block, self.at = hmac.new(self.key, message, hashlib.sha256).digest(), self.block + 1, 0
        self.at += 1
        return self.bytes[self.at - 1]

    def die(self) -> int:
        b = self.byte()
        while b >= 252:
            b = self.byte()
        return b % 6 + 1

    def below(self, k: int) -> int:
        limit = 2**32 - 2**32 % k
        while True:
            u = int.from_bytes(bytes(self.byte() for _ in range(4)), "big")
            if u < limit:
                return u % k

    def shuffled(self, cards: list[str]) -> list[str]:
        items = list(cards)
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
        return items


class Differs(Exception):
    pass


def hex_text(value: Any, length: int) -> bool:
    return isinstance(value, str) and len(value) == length and all(c in "0123456789abcdef" for c in value)


def fields_problem(record: Record) -> str | None:
    """The rest of the record: the seed's form, each seat's part, step 0's input X0 (the seats' parts
    joined by commas: one altered where no die shows it, as in Kismet's deal, is still altered)."""
    seats = record.get("seats")
    if not hex_text(record.get("seed"), 64) or not isinstance(seats, list) or not record.get("code"):
        return "the seed, the seats or the code are missing or malformed"
    for n, seat in enumerate(seats):
        if seat.get("contribution") != "" and not hex_text(seat.get("contribution"), 32):
            return f"seat {n}'s contribution is not 32 lowercase hex characters, nor empty"
    for step in record.get("steps") or []:
        if step.get("number") == 0:
            if step.get("client") != step_input(record, step) or "seat" in step:
                return "step 0 differs: its client is not the seats' contributions in seat order, joined by commas"
        elif step.get("client") != "" and not hex_text(step.get("client"), 32):
            return f"step {step.get('number')} differs: its client is not 32 lowercase hex characters, nor empty"
        elif type(step.get("seat")) is not int or not 0 <= step["seat"] < len(seats):
            return f"step {step.get('number')} differs: its seat is not one of the table's"
    return None


def step_input(record: Record, step: Record) -> str:
    if step["number"] == 0:
        return ",".join(seat.get("contribution") or "" for seat in record["seats"])
    return step.get("client") or ""


def check_step(record: Record, step: Record, pile: list[str], discards: list[str]) -> None:
    """Re-derive one step's chance in order; `pile` is what the last shuffle made (drawn from the
    front), `discards` the Fill or Bust cards turned since, in that order."""
    stream = Stream(record["seed"], record["code"], step["number"], step_input(record, step))
    for n, item in enumerate(step.get("chance") or [], start=1):
        where = f"its chance item {n}"
        if "dice" in item:
            expected = [stream.die() for _ in item["dice"]]
            if expected != item["dice"]:
                raise Differs(f"{where}: the dice are {item['dice']}, the derivation gives {expected}")
        elif "shuffle" in item:
            before, after = item["shuffle"]["before"], item["shuffle"]["after"]
            if record["game"] == "fill_or_bust" and before not in (FILL_OR_BUST_DECK, discards):
                raise Differs(f"{where}: a shuffle that starts neither from the full deck in its order nor "
                              "from the discards in the order they were turned")
            if sorted(before) != sorted(after) or stream.shuffled(before) != after:
                raise Differs(f"{where}: the shuffle gives {after[:6]}..., the derivation gives "
                              f"{stream.shuffled(before)[:6]}...")
            pile[:], discards[:] = after, []
        elif "draw" in item:
            card = item["draw"]["card"]
            if not pile or pile[0] != card:
                raise Differs(f"{where}: drew {card!r} but the pile's front card is {pile[0] if pile else 'none'!r}")
            discards.append(pile.pop(0))
        else:
            raise Differs(f"{where}: an entry this check does not know: {item!r}")


def verify(record: Record) -> str | None:
    """None when every step agrees with the derivation, else what differs, in words."""
    if record.get("version") != 2:
        return f"this check reads version 2 records, not version {record.get('version')!r}"
    seed = record.get("seed") or ""
    if hashlib.sha256(seed.encode("ascii")).hexdigest() != record.get("commitment"):
        return "the seed is not the one committed to: its SHA-256 is not the commitment"
    pile: list[str] = []
    discards: list[str] = []
    last = -1
    for step in record["steps"]:
        if step["number"] != last + 1:
            return f"step {last + 1} is missing (the next one is numbered {step['number']})"
        last = step["number"]
        try:
            check_step(record, step, pile, discards)
        except Differs as differs:
            return f"step {step['number']} differs: {differs}"
    return fields_problem(record)


def load(source: str) -> Record:
    if source.startswith(("http://", "https://")):
        with urllib.request.urlopen(source, timeout=30) as answer:
            return dict(json.load(answer))
    with open(source, encoding="utf-8") as file:
        return dict(json.load(file))


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("Usage: python3 verify_record.py RECORD.json (a file or an http(s) address)")
        return 2
    record = load(argv[1])
    problem = verify(record)
    if problem:
        print(f"NOT verified: {problem}.")
        return 1
    dice = sum(len(item.get("dice", [])) for step in record["steps"] for item in step.get("chance") or [])
    print(f"Verified: {record['game']} at table {record['code']}, {len(record['steps'])} steps, {dice} dice, "
          "every one as the committed seed and the phones' contributions give it.")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
