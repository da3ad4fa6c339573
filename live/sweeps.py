"""A sweep the in-process clock runs less often than it ticks: the one throttle its tickers share.

The clock of the embedded default (bunco_club/site/clock.py) calls every ticker once a second; a
sweep that needs no such haste (the reminders, the purge of abandoned nights) runs at most once
per its interval in this process, the first tick after start-up included.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class AtMostOnceEvery:
    """`due()` is True on its first call, then once `seconds()` (read at each call, so a setting
    changed by a test counts) have passed since it was last True; False meanwhile. Thread-safe:
    two ticks at once never both run the sweep. `last` is when it last said True (time.monotonic)."""

    def __init__(self, seconds: Callable[[], float]) -> None:
        self.seconds = seconds
        self.last: float | None = None
        self._lock = threading.Lock()

    def due(self) -> bool:
        with self._lock:
            now = time.monotonic()
            if self.last is not None and now - self.last < self.seconds():
                return False
            self.last = now
            return True
