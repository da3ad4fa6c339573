"""The proof that a tap's one statement read all that was committed before its lock (games/night/
taps.py `snapshot_still_current`): PostgreSQL's snapshots as text, "xmin:xmax:xip,...", compared."""

from __future__ import annotations

from games.night.taps import snapshot_still_current


def test_nothing_ended_between_the_two_snapshots_so_the_first_saw_it_all():
    # 105 was running and still is; 110 (ours) and 111 began after the statement's snapshot and run.
    assert snapshot_still_current("100:110:105", "100:112:105,111", ours=110)
    assert snapshot_still_current("100:100:", "100:101:", ours=100)  # ours alone began meanwhile


def test_a_transaction_that_ended_in_between_makes_the_read_unproven():
    # 105 was running at the statement's start and ended before the later snapshot: the lock's last
    # holder, perhaps, whose tally the statement did not see.
    assert not snapshot_still_current("100:110:105", "106:112:111", ours=110)
    # 111 began after the statement's snapshot and ended before the later one.
    assert not snapshot_still_current("100:110:105", "100:112:105", ours=110)
