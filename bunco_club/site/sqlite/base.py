"""Django's SQLite backend, with the transactions of one process queued for the write lock.

SQLite lets one writer in at a time. Every transaction here is IMMEDIATE (settings.py), so it
takes the write lock at its BEGIN; a thread that finds the lock taken is left to SQLite's busy
handler, which sleeps and tries again (1, 2, 5, 10 ... up to 100 ms at a time). Under a hall's
taps, 32 phones' requests at once in one uvicorn process, most of a tap's p99 was that sleeping:
a tap that lost a few tries slept hundreds of milliseconds while the lock stood free, some for
seconds (docs/PERFORMANCE.md, issue 34).

So a transaction of this process first takes its turn on a lock in Python, shared by the
process's threads, then BEGINs: the next writer starts the moment the last one commits, and
SQLite's busy handler is left for what it is for, another process (a management command, a
Celery worker on SQLite) and the brief autocommit writes outside a transaction. A turn not given
within the busy timeout goes on to BEGIN anyway, so nothing waits longer than it did before.
"""

from __future__ import annotations

import threading
from typing import Any

from django.db.backends.sqlite3 import base

_turns: dict[str, threading.Lock] = {}
_turns_made = threading.Lock()


def _writers_turn(database: str) -> threading.Lock:
    """The one lock this process's transactions on `database` (its file) queue on."""
    with _turns_made:
        return _turns.setdefault(database, threading.Lock())


class DatabaseWrapper(base.DatabaseWrapper):
    _turn_held: threading.Lock | None = None  # the writers' lock this connection's transaction holds

    def _start_transaction_under_autocommit(self) -> None:
        turn = _writers_turn(str(self.settings_dict["NAME"]))
        if turn.acquire(timeout=self._busy_timeout_seconds()):
            self._turn_held = turn
        try:
            super()._start_transaction_under_autocommit()  # type: ignore[misc]  # private in the stubs
        except BaseException:
            self._give_up_turn()
            raise

    def _commit(self) -> None:
        try:
            super()._commit()  # type: ignore[misc]  # private in the stubs
        finally:
            self._give_up_turn()

    def _rollback(self) -> None:
        try:
            super()._rollback()  # type: ignore[misc]  # private in the stubs
        finally:
            self._give_up_turn()

    def _close(self) -> None:
        # A connection closed inside a transaction: SQLite rolls the transaction back.
        try:
            super()._close()  # type: ignore[misc]  # private in the stubs
        finally:
            self._give_up_turn()

    def _give_up_turn(self) -> None:
        turn, self._turn_held = self._turn_held, None
        if turn is not None:
            turn.release()

    def _busy_timeout_seconds(self) -> float:
        options: dict[str, Any] = self.settings_dict.get("OPTIONS", {})
        return float(options.get("timeout", 5))
