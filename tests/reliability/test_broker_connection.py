"""Issue 42: the Celery worker died of a Redis outage in 2 of 5 outages that met it ("Unrecoverable
error: AttributeError("'NoneType' object has no attribute 'hostname'")", kombu #582's trace).

The cause, made here in a second without a worker: when the worker loses its broker it closes the
lost connection twice, `collect()` then `close()` (celery.worker.consumer.Consumer
.on_connection_error_after_connected). kombu closes the connection's channels one after the other
and gives up at the first whose close fails, as they do with Redis gone; the default channel, with
a BRPOP in flight and a task received but not acknowledged, stayed open past `collect()`, which let
go of the transport, and `close()` closed it again: putting the task back needed a Redis client
made from the transport's client, None by then. The site's connection (bunco_club/site/celery.py
BrokerConnection) finishes closing that channel before it lets go of the transport.

The whole worker through ten outages is tests/reliability/test_fault_broker_outage.py's. This one
needs only redis-server (a private one of the test's, killed): it runs in `make test` too."""

from __future__ import annotations

import contextlib
import socket
from types import SimpleNamespace
from typing import Any

import pytest
from celery import Celery
from celery.worker.consumer import Consumer as CeleryConsumer
from kombu import Connection, Consumer, Exchange, Queue
from kombu.common import ignore_errors

from bunco_club.site.celery import BrokerConnection, app
from bunco_club.site.celery import Consumer as SiteConsumer
from tests.reliability.conftest import PrivateRedis

CLOSE_SOCKET_TIMEOUT = 5.0  # Celery's COLLECT_SOCKET_TIMEOUT


def lose_the_broker_as_the_worker_does(connection: Any, redis: PrivateRedis) -> Any:
    """The worker's state when Redis goes: a task received and not yet acknowledged on the default
    channel, whose next BRPOP is in flight, and a channel made after it with an auto-delete fanout
    queue of its own (as gossip's event queue, or the remote control's). Then Redis is killed.
    Returns the default channel."""
    tasks = Queue("tasks", Exchange("tasks"), "tasks")
    with connection.Producer() as producer:
        producer.publish({"task": 1}, exchange=tasks.exchange, routing_key="tasks", declare=[tasks])
    received: list[Any] = []
    consumer = Consumer(connection, [tasks], callbacks=[lambda body, message: received.append(message)])
    consumer.consume()
    connection.drain_events(timeout=5)
    assert len(received) == 1 and not received[0].acknowledged
    with pytest.raises(socket.timeout):
        connection.drain_events(timeout=0.2)  # nothing more: its BRPOP stays in flight
    default = connection.default_channel
    assert default._in_poll and len(default.qos._delivered) == 1
    events = connection.channel()
    Consumer(events, [Queue(exchange=Exchange("events", type="fanout"), auto_delete=True)], no_ack=True).consume()
    redis.kill()
    return default


def close_the_lost_connection_as_the_worker_does(connection: Any) -> None:
    """Celery 5.7's clean-up of a lost broker connection, which ignores only connection errors."""
    with contextlib.suppress(Exception):  # as Celery does
        connection.collect(socket_timeout=CLOSE_SOCKET_TIMEOUT)
    ignore_errors(connection, connection.close)


def test_the_sites_broker_connection_is_closed_after_its_redis_died_without_an_error_that_kills_the_worker(
    private_redis: PrivateRedis,
):
    connection = BrokerConnection(private_redis.url)
    default = lose_the_broker_as_the_worker_does(connection, private_redis)

    close_the_lost_connection_as_the_worker_does(connection)  # raised nothing

    assert default.closed  # closed while its transport was there, and forgotten with it
    assert connection._default_channel is None and connection._transport is None


def test_kombus_own_connection_crashes_there_which_is_why_the_site_has_its_own(private_redis: PrivateRedis):
    # If this fails, kombu no longer leaves the channel half closed: BrokerConnection's
    # _do_close_transport may go (bunco_club/site/celery.py).
    connection = Connection(private_redis.url)
    lose_the_broker_as_the_worker_does(connection, private_redis)

    with pytest.raises(AttributeError, match="'NoneType' object has no attribute 'hostname'"):
        close_the_lost_connection_as_the_worker_does(connection)


def test_every_connection_celery_makes_is_the_sites():
    assert isinstance(app.connection_for_read(), BrokerConnection)  # the worker's, beat's
    assert isinstance(app.connection_for_write(), BrokerConnection)  # every sender's
    assert app.conf.broker_connection_max_retries is None  # a missing broker is tried again for ever


def test_the_sites_worker_leaves_out_gossip_mingle_and_heartbeat_whatever_its_command_line_says():
    assert app.conf.worker_consumer == "bunco_club.site.celery:Consumer"
    on_redis = Celery("steps", broker="redis://127.0.0.1:1/0", set_as_current=False)  # never connected to
    worker = SimpleNamespace(use_eventloop=False, state=None)
    options = {"without_gossip": False, "without_mingle": False, "without_heartbeat": False}

    def steps(consumer_class: type) -> list[str]:
        consumer = consumer_class(lambda *args: None, app=on_redis, controller=worker, worker_options=options)
        return [step.alias for step in consumer.steps]

    assert {"Mingle", "Gossip", "Heart"} <= set(steps(CeleryConsumer))  # Celery's own, on Redis
    assert not {"Mingle", "Gossip", "Heart"} & set(steps(SiteConsumer))
    assert {"Connection", "Tasks", "Control", "event loop"} <= set(steps(SiteConsumer))
