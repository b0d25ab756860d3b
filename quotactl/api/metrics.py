"""``metrics serve`` and ``status -o openmetrics``: status's figures for Prometheus."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from quotactl.errors import QuotactlError

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from quotactl.aws.account import Account
    from quotactl.core.history.gauges import Reading


def read_metrics(
    account: Account, queues: Sequence[str] | None = None, *, clock: Callable[[], float] = time.time
) -> Reading:
    """One read of the account's queues as the exporter's gauges."""
    from quotactl.core.history.gauges import reading_of
    from quotactl.core.status.compute import status_of

    read = account.live.read_queues(list(queues) if queues else None)
    return reading_of(read, status_of(read, at=clock()))


def openmetrics(
    account: Account, queues: Sequence[str] | None = None, *, clock: Callable[[], float] = time.time
) -> str:
    """The account's status now as OpenMetrics text (preemptions: those the read saw)."""
    from quotactl.core.history.gauges import Preemptions
    from quotactl.render.openmetrics import openmetrics_text

    reading = read_metrics(account, queues, clock=clock)
    tally = Preemptions()
    tally.add(reading)
    return openmetrics_text(reading, tally.counts)


def serve_metrics(
    account: Account,
    *,
    host: str = "127.0.0.1",
    port: int = 9464,
    interval: float = 30.0,
    queues: Sequence[str] | None = None,
    clock: Callable[[], float] = time.time,
    sleep: Callable[[float], None] = time.sleep,
    on_ready: Callable[[str, int], None] = lambda host, port: None,
    on_error: Callable[[QuotactlError], None] = lambda error: None,
) -> None:
    """Serve ``/metrics`` on ``host:port`` and read the account every ``interval`` seconds,
    until interrupted. A read that fails keeps the last good values served (``quotactl_up``
    0 says so) and is retried at the next interval; only a first read that fails for a reason
    that is not transient (a queue that does not exist, missing permissions) raises."""
    from prometheus_client.exposition import start_http_server
    from prometheus_client.registry import CollectorRegistry

    from quotactl.api.local import listen_error
    from quotactl.core.history.gauges import Preemptions
    from quotactl.errors import BackendError
    from quotactl.render.openmetrics import ReadingCollector

    collector = ReadingCollector()
    tally = Preemptions()
    registry = CollectorRegistry(auto_describe=False)
    registry.register(collector)
    try:
        server, thread = start_http_server(port, addr=host, registry=registry)
    except OSError as exc:
        raise listen_error(host, port, exc) from exc
    try:
        on_ready(host, int(server.server_address[1]))
        while True:
            try:
                reading = read_metrics(account, queues, clock=clock)
            except QuotactlError as exc:
                transient = isinstance(exc, BackendError) and exc.retryable
                if collector.reading is None and not transient:
                    raise
                collector.health.up = False
                collector.health.errors += 1
                on_error(exc)
            else:
                tally.add(reading)
                collector.preemptions = dict(tally.counts)
                collector.reading = reading
                collector.health.up = True
                collector.health.last_success = reading.at
            sleep(interval)
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
