"""The Celery app. Plain jobs run eagerly in the embedded default (CELERY_TASK_ALWAYS_EAGER).

Scaled, its broker is Redis, which may go away (restarted, the hall's router rebooted) while the
worker and beat run or start. Two things here keep them working through that (issue 42,
tests/reliability/test_fault_broker_outage.py), besides the retry settings in settings.py:

- `BrokerConnection`, the connection Celery makes for the worker, beat and every sender. When the
  worker loses its broker it closes the lost connection twice: `collect()`, which lets go of the
  transport, then `close()`. kombu closes a connection's channels one after the other and gives
  up at the first whose close fails, as closes do with the broker gone (the BRPOP in flight that
  the default channel reads first, the fanout queue that gossip's channel or the remote
  control's deletes); the default channel, which holds the tasks the worker had received, could
  so stay open past `collect()`, and `close()` closed it again with its transport gone: putting
  those tasks back needed a Redis client made from the transport's client, None by then, and the
  worker died of `AttributeError("'NoneType' object has no attribute 'hostname'")` (kombu #582's
  trace), which is no connection error that Celery retries. This connection finishes closing its
  default channel before it lets go of the transport, and forgets it with the transport. It also
  tries a missing broker again every 2 s at most (kombu's pause grows by 2 s up to 30 s),
  so that the worker and beat are back within seconds of Redis, not up to half a minute later.

- `Consumer`, the worker's consumer without gossip, mingle and heartbeat (what `--without-gossip
  --without-mingle --without-heartbeat` leave out), however the worker is started: they serve
  several workers watching one another (elections, a shared clock, revoked ids swapped at start;
  one worker runs here), gossip's channel is one more whose close fails with the broker gone, and
  mingle waited a second for neighbours at every start and reconnection before the worker took a
  task. Leaving them out did not stop the crash (the remote control's channel fails as gossip's
  does); the connection's fix did, with them on too.
"""

import os
from collections.abc import Callable
from typing import Any

from celery import Celery, signals
from celery.app.amqp import AMQP
from celery.worker.consumer import Consumer as CeleryConsumer
from kombu import Connection

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bunco_club.site.settings")

# The pause between two tries to reach a missing broker (seconds): 1, then 2 every time.
RETRY_FIRST_SECONDS = 1
RETRY_STEP_SECONDS = 1
RETRY_MAX_SECONDS = 2


class BrokerConnection(Connection):
    """kombu's connection that survives being closed again after its broker went away, and that
    tries a missing broker again every 2 s at most (module docstring)."""

    # kombu's own, which its type stubs leave out.
    _default_channel: Any
    _transport: Any

    def _do_close_transport(self) -> None:
        channel, self._default_channel = self._default_channel, None
        try:
            if channel is not None and self._transport is not None and not getattr(channel, "closed", True):
                # An earlier close stopped part-way (the broker gone): finished while the transport
                # can still make the Redis client it needs; a failure to reach the broker is ignored.
                self.maybe_close_channel(channel)
        finally:
            # The channel went with the transport: this connection never closes it again.
            super()._do_close_transport()

    def ensure_connection(
        self, errback: Callable[[Exception, float], None] | None = None, max_retries: int | None = None,
        interval_start: int = RETRY_FIRST_SECONDS, interval_step: int = RETRY_STEP_SECONDS,
        interval_max: int = RETRY_MAX_SECONDS, callback: Callable[[], None] | None = None,
        reraise_as_library_errors: bool = True, timeout: int | None = None,
    ) -> "BrokerConnection":
        return super().ensure_connection(
            errback, max_retries,  # type: ignore[arg-type]  # None: for ever (the stubs know only a number)
            interval_start, interval_step, interval_max, callback, reraise_as_library_errors, timeout)


class BrokerAMQP(AMQP):
    Connection = BrokerConnection


class Consumer(CeleryConsumer):
    """The worker's consumer without gossip, mingle and heartbeat (module docstring); the setting
    CELERY_WORKER_CONSUMER names it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # These override the worker's own options (the command line's) in every step.
        super().__init__(*args, **{**kwargs, "without_gossip": True, "without_mingle": True, "without_heartbeat": True})


app = Celery("bunco_club", amqp=BrokerAMQP)
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


# A worker or beat writes to the database (the mails, the clock's jobs, the daily backup): like the
# pages and the streams, each holds the serving lock for its life, so `manage.py restore` refuses
# while one runs (bunco_club/site/backups.py). Kept here so the lock is not closed by the collector.
_serving_locks: list[Any] = []


@signals.worker_init.connect
@signals.beat_init.connect
def hold_the_serving_lock(**_: Any) -> None:
    from bunco_club.site.backups import hold_serving_lock

    _serving_locks.append(hold_serving_lock())
