"""The embedded default's SQLite backend (bunco_club/site/sqlite/): the transactions of one process
take turns for the write lock in Python, not in SQLite's busy handler, which sleeps and tries again
(most of a hall's tap p99 on SQLite before issue 34)."""

from __future__ import annotations

import sys
import threading

import pytest
from django.db import connection, transaction

from bunco_club.site.sqlite import base
from live.models import Event
from tests.builders import is_sqlite

TURNS = base.__file__
pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.skipif(not is_sqlite(), reason="the embedded default's backend: PostgreSQL has row locks")]


def waiting_for_its_turn(thread: threading.Thread) -> bool:
    """Whether `thread` is waiting for its turn in the backend's start of a transaction."""
    frame = sys._current_frames().get(thread.ident or -1)
    while frame is not None:
        if frame.f_code.co_name == "_start_transaction_under_autocommit" and frame.f_code.co_filename == TURNS:
            return True
        frame = frame.f_back
    return False


def test_a_second_writer_waits_for_the_first_to_commit_without_seeing_the_database_locked() -> None:
    """The second thread's connection has no busy timeout at all: without the turns its BEGIN or its
    write would fail at once with "database is locked" while the first transaction is open."""
    first_writing, first_may_commit = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def first() -> None:
        try:
            with transaction.atomic():
                Event.objects.create(channel="turns", kind="first")
                first_writing.set()
                first_may_commit.wait(timeout=60)
        except BaseException as error:  # reported to the test
            errors.append(error)
        finally:
            connection.close()

    def second() -> None:
        try:
            first_writing.wait(timeout=60)
            with connection.cursor() as cursor:
                cursor.execute("PRAGMA busy_timeout = 0")
            with transaction.atomic():
                Event.objects.create(channel="turns", kind="second")
        except BaseException as error:  # reported to the test
            errors.append(error)
        finally:
            connection.close()

    writers = [threading.Thread(target=first), threading.Thread(target=second)]
    for writer in writers:
        writer.start()
    # The first commits once the second is waiting for its turn (or has failed, without the turns).
    while writers[1].is_alive() and not waiting_for_its_turn(writers[1]):
        first_may_commit.wait(timeout=0.01)
    first_may_commit.set()
    for writer in writers:
        writer.join(timeout=60)
    assert errors == []
    assert list(Event.objects.filter(channel="turns").order_by("id").values_list("kind", flat=True)) == ["first", "second"]
