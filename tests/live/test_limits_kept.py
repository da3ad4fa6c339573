"""Issue 42, S3: the rate limits' counts are kept where the site keeps its data. On the embedded
default they lived in the process's memory, so a restart forgot every wrong password and forged
link counted; now they are in the site's database (and in Redis when REDIS_URL is set, shared by
every process as before)."""

from __future__ import annotations

import datetime
import json
import threading

import pytest
from django.core.cache.backends.base import BaseCache
from django.db import connection

from live.limits import CountsInTheDatabase
from live.models import RateLimitCount
from tests.bunco_club.site_process import manage, run_python

# Each process knocks at the same frozen moment: django-ratelimit counts in fixed windows, and a
# restart that straddled a window's edge would start a new count whatever kept the old one.
KNOCK = """
import json, time_machine, datetime
from django.test import RequestFactory
from live.limits import address_and_username, too_many, used_up
with time_machine.travel(datetime.datetime(2031, 5, 16, 19, 0, tzinfo=datetime.UTC), tick=False):
    request = RequestFactory().post("/login/", {"username": "host"}, REMOTE_ADDR="203.0.113.9")
    before = used_up(request, "login", key=address_and_username)
    for _ in range(KNOCKS):
        too_many(request, "login", key=address_and_username)
    print(json.dumps({"locked_out_before": before, "locked_out_after": used_up(request, "login", key=address_and_username)}))
"""


def knock(tmp_path, knocks: int) -> dict[str, bool]:
    """A new process of the embedded default counts `knocks` wrong passwords for one address and
    username (3 an hour are allowed), then exits: what it saw before and after."""
    done = run_python(KNOCK.replace("KNOCKS", str(knocks)), tmp_path, RATE_LIMIT_LOGIN="3/h")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_wrong_passwords_counted_before_a_restart_still_count_after_it(tmp_path):
    migrated = manage(tmp_path, "migrate", "--noinput")
    assert migrated.returncode == 0, migrated.stderr

    first = knock(tmp_path, 2)  # two wrong passwords, then the site restarts
    second = knock(tmp_path, 1)  # one more after the restart: the third of three

    assert first == {"locked_out_before": False, "locked_out_after": False}
    assert second == {"locked_out_before": False, "locked_out_after": True}
    # With Redis configured, the counts stay in Redis, shared by every process.
    scaled = run_python("from django.conf import settings\n"
                        "print(settings.CACHES[settings.RATELIMIT_USE_CACHE]['BACKEND'])",
                        tmp_path, REDIS_URL="redis://127.0.0.1:6379/15")
    assert scaled.stdout.strip() == "django.core.cache.backends.redis.RedisCache", scaled.stderr


def counts_in_the_database() -> BaseCache:
    """The embedded default's cache of the counts, on the suite's database (with REDIS_URL set the
    site counts in Redis, but the database's counting is what these tests are about)."""
    return CountsInTheDatabase(RateLimitCount._meta.db_table, {})


@pytest.mark.django_db
def test_a_count_kept_in_the_database_keeps_its_end_as_it_grows(time_machine):
    """Django's database cache counts by writing the count again with the cache's default timeout
    (five minutes): an hour-long count of wrong passwords would have been forgotten five minutes
    after its last knock. Counting keeps the end the count was given, and the count ends then."""
    limits = counts_in_the_database()
    start = datetime.datetime(2031, 5, 16, 19, 0, tzinfo=datetime.UTC)
    time_machine.move_to(start, tick=False)
    assert limits.add("knocks", 1, 3600)

    time_machine.move_to(start + datetime.timedelta(minutes=10), tick=False)
    assert limits.incr("knocks") == 2
    time_machine.move_to(start + datetime.timedelta(minutes=59), tick=False)
    assert limits.get("knocks") == 2
    time_machine.move_to(start + datetime.timedelta(minutes=61), tick=False)
    assert limits.get("knocks") is None


@pytest.mark.django_db(transaction=True)
def test_knocks_at_once_are_each_counted():
    """Django's database cache counts by reading, then writing: four threads knocking 50 times
    each counted about 60 of the 200 on SQLite. Each count is read under its row's lock (on
    PostgreSQL too, when the suite runs on it)."""
    limits = counts_in_the_database()
    limits.add("knocks", 0, 3600)

    def knock_fifty_times() -> None:
        try:
            for _ in range(50):
                limits.incr("knocks")
        finally:
            connection.close()

    threads = [threading.Thread(target=knock_fifty_times) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert limits.get("knocks") == 200
