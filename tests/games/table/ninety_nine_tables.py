"""What the Ninety-Nine or Bust table tests share: a table, its phones, and a seat's hand."""

from __future__ import annotations

from typing import Any

from games.table.models import Table
from tests.builders import make_table


def ninety_nine_table(players: int = 3, *, markers: int = 4, seed: int = 1, **fields: Any) -> Table:
    """An open Ninety-Nine or Bust table (started unless `started=False`), its seed from `seed`."""
    fields.setdefault("options", {"markers": markers})
    return make_table(players, game="ninety_nine", seed=seed, **fields)






def hand_of(table: Table, seat: int) -> list[Any]:
    """A seat's hand as the server holds it (the test's view of the secret)."""
    table.refresh_from_db()
    return list(table.state["state"]["hands"][seat])


def state_of(table: Table) -> dict[str, Any]:
    table.refresh_from_db()
    return dict(table.state["state"])


def a_card_past_99(table: Table, seat: int) -> Any:
    """A number card the seat holds that passes 99 at the count now, or None."""
    count = state_of(table)["count"]
    return next((c for c in hand_of(table, seat) if type(c) is int and count + c > 99), None)
