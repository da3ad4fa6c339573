"""Issue 33, faults: in the scaled layout (`make run-scaled`: nginx, gunicorn, two uvicorn, a Celery
worker and beat, on PostgreSQL and Redis), each process is killed once (SIGKILL) in the middle of a
night, with phones tapping and their streams open. scripts/run_scaled.py starts each one again and
says so in its log; the taps keep counting (each acknowledged tap in the database once, no 500), and
a phone whose stream died with its process reconnects with Last-Event-ID and is replayed what it
missed.

Runs in `make test-services` (PostgreSQL, Redis, nginx), on the suite's own databases."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.conf import settings

from games.night.models import Tally
from scripts.run_scaled import free_ports, started_pids
from tests.builders import NAMES
from tests.conftest import ROOT, database_env, is_sqlite, services_enabled
from tests.reliability.conftest import missed_ids, received_all
from tests.reliability.phones import (
    Stream,
    TappingPhone,
    claim_phones,
    replayed_after,
    start_night,
    stop_tapping,
    tally_totals,
    wait_for,
)

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not services_enabled() or is_sqlite(),
                       reason="the scaled layout: run with DATABASE_URL and REDIS_URL set (make test-services)"),
]

TAPS_AFTER_EACH_RESTART = 20
TAP_PAUSE_SECONDS = 0.25


class ScaledLayout:
    """scripts/run_scaled.py as `make run-scaled` runs it, its log in a file."""

    def __init__(self, folder: Path) -> None:
        self.port = free_ports(4)  # nginx, gunicorn, two uvicorn
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = folder / "scaled.log"
        env = {**os.environ, **database_env(), "REDIS_URL": settings.REDIS_URL, "SECRET_KEY": settings.SECRET_KEY,
               "EVENTS_HEARTBEAT_SECONDS": "2", "EVENTS_STREAM_MAX_SECONDS": "300", "PHONE_POLL_SECONDS": "3600"}
        env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        self.process = subprocess.Popen(
            [sys.executable, "scripts/run_scaled.py", "--port", str(self.port), "--skip-migrate",
             "--workdir", str(folder / "layout")],
            cwd=ROOT, env=env, stdout=self.log_path.open("wb"), stderr=subprocess.STDOUT, start_new_session=True)
        wait_for("the scaled layout to be up", lambda: "Scaled layout up" in self.log(), timeout=600)

    def log(self) -> str:
        assert self.process.poll() is None, self.log_path.read_text(errors="replace")[-3000:]
        return self.log_path.read_text(errors="replace")

    def pids(self) -> dict[str, int]:
        """Each process the log tells of, in the order they started, and its latest pid."""
        return started_pids(self.log())

    def pid(self, name: str) -> int:
        return self.pids()[name]

    def restarted(self, name: str, killed: int) -> Callable[[], bool]:
        """Whether the log tells of a start of `name` after the one with pid `killed`."""
        return lambda: self.pid(name) != killed

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)  # it stops its children, each by its own handle
            self.process.wait(timeout=60)


@pytest.fixture
def scaled_layout(transactional_db: None, tmp_path: Path) -> Iterator[ScaledLayout]:
    layout = ScaledLayout(tmp_path)
    yield layout
    layout.stop()


def test_each_process_of_the_scaled_layout_killed_once_comes_back_and_the_night_goes_on(scaled_layout):
    layout = scaled_layout
    first_pids = layout.pids()
    children = list(first_pids)
    assert len(children) == 6 and {"celery worker", "celery beat"} <= set(children)
    night = start_night(layout.url, NAMES[:12])
    assert night.start_round(1).status_code == 200
    phones = claim_phones(layout.url, night)
    listeners = [phone for phone in phones if phone.table == 1][:2]  # the head table's: no taps of theirs
    streams = {phone.player_id: Stream(layout.url, phone) for phone in listeners}
    wait_for("the listeners' snapshots", lambda: all(stream.ids for stream in streams.values()))
    # No bell: the round goes on. Each phone taps about 4 times a second: the eight, a hall's pace.
    tapping = [TappingPhone(phone, pause=TAP_PAUSE_SECONDS) for phone in phones if phone.table != 1]
    for each in tapping:
        each.start()
    acknowledged = lambda: sum(len(each.acknowledged()) for each in tapping)  # noqa: E731
    replayed = 0
    try:
        for name in children:
            killed = layout.pid(name)
            os.kill(killed, signal.SIGKILL)
            wait_for(f"{name} to be started again", layout.restarted(name, killed))
            # A phone whose stream ended with its process opens it again from the last event it had,
            # as its page does within seconds, and is replayed what it missed meanwhile (at once: the
            # eight phones tap 32 times a second, and what a phone missed for longer than the replay
            # holds, REPLAY_LIMIT, comes as a snapshot instead, as it should).
            for phone in listeners:
                stream = streams[phone.player_id]
                if stream.ended.is_set():
                    last_seen = stream.last_event_id
                    assert last_seen is not None
                    owed = set(missed_ids(phone, last_seen))  # so far: the taps go on meanwhile
                    streams[phone.player_id] = replayed_after(layout.url, phone, last_seen, owed,
                                                              f"the replay after {name} came back")
                    replayed += 1
            wanted = acknowledged() + TAPS_AFTER_EACH_RESTART
            wait_for(f"{TAPS_AFTER_EACH_RESTART} taps after {name} came back", lambda: acknowledged() >= wanted)  # noqa: B023
    finally:
        stop_tapping(tapping)

    log = tally_totals(tapping)
    stored = Counter(str(key) for key in Tally.objects.filter(night__code=night.code).values_list("key", flat=True))
    assert set(stored) == set(log.acknowledged) and set(stored.values()) == {1}  # each acknowledged tap once
    assert not log.refused and 500 not in log.statuses, log.statuses
    said = layout.log()
    for name in children:
        assert f"{name} (pid {first_pids[name]}) exited with signal SIGKILL" in said
    assert "Internal Server Error" not in said  # Django logs each 500 so
    assert replayed >= len(listeners)  # each listener's stream ended at least once (nginx's death ends all)
    for phone in listeners:  # and each has every event of its channels
        stream = streams[phone.player_id]
        wait_for("the stream's every event", lambda: received_all(stream, phone, stream.ids[0]))  # noqa: B023
        stream.close()
    print(f"\n{len(children)} processes each killed and started again; {len(stored)} taps, each stored once; "
          f"{replayed} streams opened again and replayed; "
          f"answers {dict(log.statuses)}, {log.no_answer} tries without an answer")
    for phone in phones:
        phone.close()
    night.host.close()
