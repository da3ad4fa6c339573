"""The soak's own verdicts (bench/soak_checks.py) catch what they are there to catch: a tap the
phone was told was saved but the database lacks, a tap counted twice, a refused tap recorded
anyway, a bell a phone never saw, an event a stream never carried, memory that keeps growing.

The soak itself (`make soak`) is not a test: it runs for minutes. These feed its checker made-up
records, each with one fault in it, and a clean one that must pass."""

from __future__ import annotations

from bench.soak import Dechunker, SseParser
from bench.soak_checks import (
    MIB,
    Bell,
    StreamTrace,
    TapOutcome,
    check_bells,
    check_events,
    check_memory,
    check_taps,
)


def acknowledged(key: str, copies: int = 1) -> TapOutcome:
    return TapOutcome(key=key, acknowledged=True, copies=copies)


def test_taps_acknowledged_and_recorded_once_pass() -> None:
    verdict = check_taps([acknowledged("a"), acknowledged("b", copies=2)], {"a": 1, "b": 1})

    assert verdict.ok
    assert (verdict.acknowledged, verdict.retried) == (2, 1)


def test_it_catches_an_acknowledged_tap_missing_from_the_database() -> None:
    verdict = check_taps([acknowledged("a"), acknowledged("b")], {"a": 1})

    assert not verdict.ok
    assert verdict.lost == ["b"]


def test_it_catches_a_retried_tap_counted_twice() -> None:
    verdict = check_taps([acknowledged("a", copies=2)], {"a": 2})

    assert not verdict.ok
    assert verdict.duplicated == ["a"]


def test_it_catches_a_refused_tap_that_was_recorded_all_the_same() -> None:
    verdict = check_taps([TapOutcome(key="a", refused=True, copies=1)], {"a": 1})

    assert verdict.refused_but_recorded == ["a"]


def test_a_tap_cut_off_before_its_answer_may_be_recorded_or_not() -> None:
    cut_off = TapOutcome(key="a", refused=True, unanswered=True, copies=2)

    assert check_taps([cut_off], {"a": 1}).ok
    assert check_taps([cut_off], {}).ok


def test_it_catches_a_row_whose_key_no_phone_sent() -> None:
    assert check_taps([acknowledged("a")], {"a": 1, "z": 1}).recorded_unsent == ["z"]


def trace(phone: str, since_id: int, bells: dict[int, tuple[float, float]], seen: list[int]) -> StreamTrace:
    result = StreamTrace(phone=phone, since_id=since_id, bells=bells)
    for event_id in seen:
        result.mark(event_id)
    return result


BELLS = [Bell(event_id=10, round=1, rung_at=100.0), Bell(event_id=20, round=2, rung_at=200.0)]


def test_bells_seen_live_and_by_replay_pass_with_their_latencies() -> None:
    live = trace("Ann", 5, {10: (100.25, 50.0), 20: (200.5, 50.0)}, [10, 20])
    reconnected = trace("Ben", 5, {10: (100.5, 50.0), 20: (230.0, 229.0)}, [10, 20])  # round 2's rang before it reconnected

    verdict = check_bells([live, reconnected], BELLS)

    assert verdict.ok
    assert (verdict.expected, verdict.live, verdict.replayed) == (4, 3, 1)
    assert sorted(verdict.latencies) == [0.25, 0.5, 0.5]


def test_it_catches_a_phone_that_missed_a_bell() -> None:
    verdict = check_bells([trace("Ann", 5, {10: (100.1, 50.0)}, [10])], BELLS)

    assert not verdict.ok
    assert verdict.missed == [("Ann", 2)]


def test_a_bell_rung_before_a_phone_first_connected_is_not_its_to_see() -> None:
    assert check_bells([trace("Late", 15, {20: (200.1, 150.0)}, [20])], BELLS).ok


def test_it_catches_an_event_a_stream_never_carried() -> None:
    clean = trace("Ann", 5, {}, [6, 7, 9])
    gap = trace("Ben", 5, {}, [6, 9])

    verdict = check_events([clean, gap], [4, 6, 7, 9])

    assert verdict.missed == {"Ben": 1}
    assert verdict.expected == 6


def test_memory_that_levels_off_after_warm_up_is_flat() -> None:
    samples = [100 * MIB, 150 * MIB, 180 * MIB, 181 * MIB, 182 * MIB, 181 * MIB, 183 * MIB, 182 * MIB, 182 * MIB]

    verdict = check_memory(samples)

    assert verdict.ok
    assert verdict.warm_up_kib < verdict.second_kib


def test_it_catches_memory_that_keeps_growing() -> None:
    samples = [400 * MIB + step * 8 * MIB for step in range(12)]  # 8 MiB a sample, on and on

    verdict = check_memory(samples)

    assert not verdict.ok
    assert verdict.growth_kib == 32 * MIB


def test_the_client_reads_a_chunked_event_stream_cut_at_any_byte() -> None:
    body = b"retry: 1000\n\nid: 7\ndata: <p>one</p>\n\nevent: changed\nid: 8\ndata: {\"what\": \"moved\"}\n\n"
    chunked = b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (body[:20], body[20:])) + b"0\r\n\r\n"
    dechunker, parser = Dechunker(), SseParser()

    frames = [frame for byte in range(len(chunked)) for frame in parser.feed(dechunker.feed(chunked[byte:byte + 1]))]

    assert [(frame.event, frame.id, frame.data) for frame in frames] == [
        (None, 7, "<p>one</p>"), ("changed", 8, '{"what": "moved"}')]
    assert dechunker.ended
