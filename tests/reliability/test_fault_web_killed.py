"""Issue 21, faults: the web process killed (SIGKILL) in the middle of a round and started again.

Eight phones tap as fast as they can at tables 2 and 3 (no bell rings there), each tap with its
key; the uvicorn process serving them is killed with no warning, then started again on the same
port. Every tap a phone was answered 2xx for is in the database, read while the server is still
dead; each tap that got no answer is sent again with its key after the restart (as tally.js does)
and counted once, whether or not its first copy had been saved; no answer is a 5xx; the phones'
sessions survive the restart.

Run on the suite's database: the embedded default's SQLite file (WAL) with `make test`, PostgreSQL
with `make test-services`."""

from __future__ import annotations

import time
from collections import Counter

from games.night.models import Tally
from tests.builders import NAMES
from tests.reliability.phones import (
    TappingPhone,
    claim_phones,
    start_night,
    stop_tapping,
    tally_totals,
    wait_for,
)

BEFORE_KILL = 60  # taps acknowledged before the kill
AFTER_RESTART = 40  # and after the restart


def stored_keys(code: str) -> Counter[str]:
    return Counter(str(key) for key in Tally.objects.filter(night__code=code).values_list("key", flat=True))


def test_a_killed_web_process_loses_no_acknowledged_tap_and_retried_taps_count_once(embedded_site):
    night = start_night(embedded_site.url, NAMES[:12])
    assert night.start_round(1).status_code == 200
    phones = [TappingPhone(phone) for phone in claim_phones(embedded_site.url, night) if phone.table != 1]
    assert len(phones) == 8
    for tapping in phones:
        tapping.start()
    try:
        acknowledged = lambda: sum(len(tapping.acknowledged()) for tapping in phones)  # noqa: E731
        wait_for(f"{BEFORE_KILL} taps acknowledged", lambda: acknowledged() >= BEFORE_KILL)

        embedded_site.stop(kill=True)  # SIGKILL, mid-tap
        killed_at = time.monotonic()
        # What the phones were told before the kill (nothing more can come: the process is gone).
        told_before = {key for tapping in phones for key in tapping.acknowledged()}
        saved_while_dead = stored_keys(night.code)
        assert told_before <= set(saved_while_dead)  # every acknowledged tap survived the kill
        # Every phone finds the server gone before it comes back.
        wait_for("every phone to have lost its server", lambda: all(t.log.last_failure > killed_at for t in phones))

        embedded_site.restart()  # same command, same port, same database
        restarted_at = time.monotonic()
        wait_for(f"{AFTER_RESTART} taps acknowledged after the restart",
                 lambda: acknowledged() >= len(told_before) + AFTER_RESTART + len(phones))
    finally:
        stop_tapping(phones)
    assert not any(tapping.is_alive() for tapping in phones)

    log = tally_totals(phones)
    stored = stored_keys(night.code)
    assert set(stored) == set(log.acknowledged)  # in the end every tap was answered, and is in
    assert max(stored.values()) == 1  # once
    assert log.refused == {}
    assert not [status for status in log.statuses if status >= 500]
    in_flight = log.unanswered  # sent when the process died (or while it was down), then retried
    assert in_flight and in_flight <= set(stored)
    first_after = min(when for when in log.acknowledged.values() if when > restarted_at)
    server_log = embedded_site.log()
    assert "Traceback" not in server_log
    print(f"\nkilled after {len(told_before)} acknowledged taps: all {len(told_before)} in the database; "
          f"{len(in_flight)} taps without an answer retried with their keys "
          f"({len(in_flight & set(saved_while_dead))} had been saved before the kill), each counted once; "
          f"{len(stored)} taps stored for {len(log.acknowledged)} acknowledged; {log.no_answer} tries without an answer; "
          f"server down {restarted_at - killed_at:.1f} s (kill to up again); "
          f"first tap answered {first_after - restarted_at:.2f} s after the restarted server was up")
    for tapping in phones:
        tapping.phone.close()
    night.host.close()
