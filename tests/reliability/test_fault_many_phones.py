"""Issue 21, faults: 24 phones tapping at once on the embedded default (one uvicorn process, a
SQLite file in WAL mode). Six tables of four, every phone tapping as fast as it can with a key per
tap, a few taps sent again with their keys: every tap answered 2xx is in the database exactly once,
a retry is never counted twice, nothing is answered 5xx, and the server never says "database is
locked" (docs/DESIGN.md §5: IMMEDIATE transactions wait their turn behind the busy timeout).

Run on the suite's database: SQLite with `make test`; PostgreSQL with `make test-services`, where
the same counts hold (the lock message is SQLite's alone)."""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass, field

from games.night.models import Night, Tally
from live.models import Event
from tests.builders import NAMES
from tests.reliability.phones import Phone, claim_phones, new_key, start_night

PHONES = 24  # six tables of four
TAPS = 30  # each phone's new taps
RETRIES = 3  # each phone's taps sent again with their keys, as tally.js does after a lost answer
NAMES_24 = NAMES + [f"{name}2" for name in NAMES[: PHONES - len(NAMES)]]


@dataclass
class Taps:
    """What one phone sent and what it was told."""

    acknowledged: list[str] = field(default_factory=list)  # keys answered 2xx
    refused: list[tuple[str, int]] = field(default_factory=list)  # (key, status) answered 4xx
    server_errors: list[tuple[str, int]] = field(default_factory=list)
    retried: list[str] = field(default_factory=list)


def tap_as_fast_as_it_can(phone: Phone, start: threading.Barrier, taps: Taps) -> None:
    start.wait()
    for number in range(TAPS + RETRIES):
        if number < TAPS:
            key = new_key()
        else:  # the same key again: a retry of a tap whose answer the phone never saw
            # A head-table phone whose every tap came after its table's bell (a busy machine lets
            # its three partners reach 21 first) has none acknowledged: it retries a refused one.
            earlier = taps.acknowledged or [refused_key for refused_key, _ in taps.refused]
            key = earlier[(number - TAPS) % len(earlier)]
            taps.retried.append(key)
        status = phone.tap(key).status_code
        if status >= 500:
            taps.server_errors.append((key, status))
        elif status >= 400:
            taps.refused.append((key, status))
        elif key not in taps.acknowledged:
            taps.acknowledged.append(key)


def test_24_phones_tapping_at_once_each_tap_is_counted_once_and_nothing_is_locked(embedded_site):
    night = start_night(embedded_site.url, NAMES_24)
    assert night.start_round(1).status_code == 200
    phones = claim_phones(embedded_site.url, night)
    assert len(phones) == PHONES and sorted(Counter(phone.table for phone in phones).values()) == [4] * 6

    start = threading.Barrier(PHONES)
    sent = {phone.name: Taps() for phone in phones}
    threads = [threading.Thread(target=tap_as_fast_as_it_can, args=(phone, start, sent[phone.name]))
               for phone in phones]
    began = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    seconds = time.monotonic() - began
    assert not any(thread.is_alive() for thread in threads)

    acknowledged = [key for taps in sent.values() for key in taps.acknowledged]
    refused = [entry for taps in sent.values() for entry in taps.refused]
    server_errors = [entry for taps in sent.values() for entry in taps.server_errors]
    assert server_errors == []
    # Refused only at the head table, once its bell had rung (the head table stops at the bell).
    head = {phone.name for phone in phones if phone.table == 1}
    assert {name for name, taps in sent.items() if taps.refused} <= head
    assert {status for _, status in refused} <= {409}
    stored = Counter(str(key) for key in Tally.objects.filter(night__code=night.code).values_list("key", flat=True))
    assert set(stored) == set(acknowledged)  # every acknowledged tap is in; nothing else is
    assert max(stored.values()) == 1  # and once, retries included
    retried = [key for taps in sent.values() for key in taps.retried]
    assert len(retried) == PHONES * RETRIES
    assert set(retried) <= set(stored) | {key for key, _ in refused}  # a refused retry stays out
    # The head table's bell, rung by one of its four phones tapping at once: exactly once.
    assert Event.objects.filter(channel=Night.objects.get(code=night.code).channel, kind="bell").count() == 1
    log = embedded_site.log()
    assert "database is locked" not in log
    assert "Traceback" not in log
    print(f"\n{PHONES} phones: {PHONES * (TAPS + RETRIES)} requests in {seconds:.1f} s; "
          f"{len(acknowledged)} taps acknowledged, {len(stored)} stored, {len(refused)} refused after the bell, "
          f"{len(server_errors)} 5xx")
    for phone in phones:
        phone.close()
    night.host.close()
