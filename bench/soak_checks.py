"""The soak's verdicts (bench/soak.py), apart from the load that produces their data, so that a
test can hand them a lost tap, a tap counted twice or a missed bell and see them caught
(tests/test_soak_checks.py).

Pure Python: no Django, no sockets. The soak gathers what the phones saw and what the database
holds, and these functions say what was lost, counted twice, missed, or grew.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

MIB = 1024


@dataclass
class TapOutcome:
    """What the phones were told about one tap (one key), over all its copies (retries)."""

    key: str
    acknowledged: bool = False  # some copy was answered 2xx: the phone showed "✓ saved"
    refused: bool = False  # some copy was answered 4xx (the round had moved on, a step was over)
    unanswered: bool = False  # some copy was cut off before its answer (the phone gave up on it)
    copies: int = 0


@dataclass
class TapVerdict:
    acknowledged: int
    lost: list[str]  # acknowledged, but no row has the key
    duplicated: list[str]  # more than one row has the key
    refused_but_recorded: list[str]  # every copy answered 4xx and none cut off, yet a row has it
    recorded_unsent: list[str]  # a phone's tally row with a key no phone sent
    retried: int  # acknowledged keys sent more than once

    @property
    def ok(self) -> bool:
        return not (self.lost or self.duplicated or self.refused_but_recorded or self.recorded_unsent)


def check_taps(outcomes: Iterable[TapOutcome], rows_by_key: Mapping[str, int]) -> TapVerdict:
    """Every acknowledged tap is in the database exactly once; a refused one is not in it.

    `rows_by_key` counts the night's tally rows per key. A key whose only copies were refused is
    not expected in the database; one that was cut off before its answer may or may not be there
    (the phone said "not saved": the player taps again), so it is neither lost nor an intruder.
    """
    sent: dict[str, TapOutcome] = {}
    for outcome in outcomes:
        sent[outcome.key] = outcome
    lost, duplicated, refused_but_recorded = [], [], []
    acknowledged = retried = 0
    for key, outcome in sent.items():
        rows = rows_by_key.get(key, 0)
        if rows > 1:
            duplicated.append(key)
        if outcome.acknowledged:
            acknowledged += 1
            retried += outcome.copies > 1
            if rows == 0:
                lost.append(key)
        elif outcome.refused and not outcome.unanswered and rows:
            refused_but_recorded.append(key)
    recorded_unsent = [key for key in rows_by_key if key not in sent]
    return TapVerdict(acknowledged=acknowledged, lost=sorted(lost), duplicated=sorted(duplicated),
                      refused_but_recorded=sorted(refused_but_recorded), recorded_unsent=sorted(recorded_unsent),
                      retried=retried)


@dataclass(frozen=True)
class Bell:
    """A bell as the log holds it: its event's id, its round, when it rang (epoch seconds)."""

    event_id: int
    round: int
    rung_at: float


@dataclass
class StreamTrace:
    """What one phone's stream showed, over all its connections."""

    phone: str
    since_id: int  # the id of its first snapshot: the events after it are the phone's to see
    # bell event id -> (when it arrived, when the connection that carried it was opened): a bell
    # rung before its connection opened came in the replay of a reconnect (Last-Event-ID).
    bells: dict[int, tuple[float, float]] = field(default_factory=dict)
    seen: bytearray = field(default_factory=bytearray)  # seen[event id] == 1 for every event it got

    def saw(self, event_id: int) -> bool:
        return event_id < len(self.seen) and self.seen[event_id] == 1

    def mark(self, event_id: int) -> None:
        if event_id >= len(self.seen):
            self.seen.extend(bytes(max(event_id + 1 - len(self.seen), 4096)))
        self.seen[event_id] = 1


@dataclass
class BellVerdict:
    expected: int  # (phone, bell) pairs: every bell rung after the phone's first snapshot
    live: int  # arrived on an open stream as it rang
    replayed: int  # arrived in the replay of a reconnect (Last-Event-ID)
    missed: list[tuple[str, int]]  # (phone, round)
    latencies: list[float]  # seconds from the ring to each live arrival

    @property
    def ok(self) -> bool:
        return not self.missed


def check_bells(traces: Sequence[StreamTrace], bells: Sequence[Bell]) -> BellVerdict:
    """Every phone saw every bell rung after it first connected, live or in a reconnect's replay."""
    expected = live = replayed = 0
    missed: list[tuple[str, int]] = []
    latencies: list[float] = []
    for trace in traces:
        for bell in bells:
            if bell.event_id <= trace.since_id:
                continue
            expected += 1
            seen = trace.bells.get(bell.event_id)
            if seen is None:
                missed.append((trace.phone, bell.round))
                continue
            arrived, connected_at = seen
            if bell.rung_at >= connected_at:
                live += 1
                latencies.append(arrived - bell.rung_at)
            else:
                replayed += 1
    return BellVerdict(expected=expected, live=live, replayed=replayed, missed=missed, latencies=latencies)


@dataclass
class EventVerdict:
    expected: int
    missed: dict[str, int]  # phone -> how many of the night's events its stream never carried

    @property
    def ok(self) -> bool:
        return not self.missed


def check_events(traces: Sequence[StreamTrace], event_ids: Sequence[int]) -> EventVerdict:
    """Every event of the night logged after a phone's first snapshot reached that phone."""
    expected = 0
    missed: dict[str, int] = {}
    for trace in traces:
        for event_id in event_ids:
            if event_id <= trace.since_id:
                continue
            expected += 1
            if not trace.saw(event_id):
                missed[trace.phone] = missed.get(trace.phone, 0) + 1
    return EventVerdict(expected=expected, missed=missed)


@dataclass
class MemoryVerdict:
    """The server's resident memory in thirds of the run: the first is the warm-up."""

    warm_up_kib: float  # mean of the first third
    second_kib: float  # mean of the second third
    last_kib: float  # mean of the last third
    peak_kib: int
    allowed_kib: float  # how far the last third's mean may stand above the second's

    @property
    def growth_kib(self) -> float:
        return self.last_kib - self.second_kib

    @property
    def ok(self) -> bool:
        return self.growth_kib <= self.allowed_kib


# Flat: the last third's mean at most 5 % or 16 MiB (the larger) above the second third's. The
# first third is warm-up (caches, the pools of threads and connections, every stream's buffers
# reaching their size). A leak of a kilobyte a tap (35 taps a second) grows 7 MiB a minute: over a
# ten-minute soak's thirds that is over 20 MiB, caught; the allowance itself is what the C library's
# arenas and Python's free lists move by on their own (a few MiB a process, several processes).
FLAT_FRACTION = 0.05
FLAT_KIB = 16 * MIB


def check_memory(samples: Sequence[int]) -> MemoryVerdict:
    """`samples`: the server's RSS in KiB, taken at even intervals over the run (at least 3)."""
    if len(samples) < 3:
        raise ValueError("Too few memory samples to split the run in thirds.")
    third = len(samples) // 3
    first, second, last = samples[:third], samples[third:2 * third], samples[2 * third:]
    second_mean = statistics.fmean(second)
    return MemoryVerdict(
        warm_up_kib=statistics.fmean(first), second_kib=second_mean, last_kib=statistics.fmean(last),
        peak_kib=max(samples), allowed_kib=max(FLAT_FRACTION * second_mean, FLAT_KIB),
    )
