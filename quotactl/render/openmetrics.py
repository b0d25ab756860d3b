"""``status -o openmetrics`` and ``metrics serve``: status's figures in the Prometheus
exposition format, through ``prometheus_client``.

Series (labels ``queue, share, team, instance_type`` unless said; ``team`` is "" for a share
without one):

- ``quotactl_share_limit``, ``_in_use``, ``_own``, ``_borrowed``, ``_idle``, ``_lent``,
  ``_headroom``: instances, as ``status`` reports them;
- ``quotactl_share_jobs{queue, share, team, status}``: jobs by AWS status;
- ``quotactl_share_oldest_wait_seconds{queue, share, team}``: how long the share's
  longest-queued job has waited;
- ``quotactl_preemptions_total{queue, share, team}``: preempted attempts seen (a counter);
- ``quotactl_budget_used_ratio{team, instance_type}``: hours counted of a budget over the
  hours allowed (1 reached), ``quotactl_budget_used_hours`` and ``_limit_hours``, as the
  governor's ``quotactl:budget`` tags say;
- ``quotactl_governed{queue, share, policy}``: 1 for each share a policy holds changed (a
  window in force, a budget); ``quotactl_governor_overdue_restores``: how many are past their
  ``until`` (the governor's health: above 0, it stopped running);
- ``quotactl_up``: 1 when the last read of the account succeeded, 0 when the values are
  the last good ones; ``quotactl_last_success_timestamp_seconds`` (the account's clock) and
  ``quotactl_read_errors_total``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.openmetrics.exposition import generate_latest
from prometheus_client.registry import CollectorRegistry

from quotactl.core.history.gauges import Reading
from quotactl.core.outputs import StatusOutput
from quotactl.render.views import Screen, view

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

    from prometheus_client.metrics_core import Metric

    from quotactl.core.history.gauges import ShareKey

SHARE_LABELS = ["queue", "share", "team"]
CAPACITY = (
    ("limit", "The share's limit (instances)"),
    ("in_use", "Instances held by the share's SCHEDULED, STARTING and RUNNING jobs"),
    ("own", "Instances in use within the share's limit"),
    ("borrowed", "Instances in use beyond the share's limit, on idle lendable capacity"),
    ("idle", "The share's lendable capacity not in use by itself (0 for RESERVE)"),
    ("lent", "Borrowed capacity attributed to this share, in proportion to its idle capacity"),
    ("headroom", "The largest job the share could start now without preempting anything"),
)


@dataclass
class Health:
    """Whether the last read succeeded, when one last did, and how many failed."""

    up: bool = True
    last_success: float | None = None
    errors: int = 0


class ReadingCollector:
    """A ``prometheus_client`` collector of the current reading, tally and health (read
    afresh on every scrape, so a new reading is served at once)."""

    def __init__(self) -> None:
        self.reading: Reading | None = None
        self.preemptions: Mapping[ShareKey, int] | None = None
        self.health = Health()

    def collect(self) -> Iterator[Metric]:
        yield from families(self.reading, self.preemptions, self.health)


def families(
    reading: Reading | None, preemptions: Mapping[ShareKey, int] | None, health: Health
) -> Iterator[Metric]:
    """Every metric family of one reading (none of a share's before the first reading)."""
    if reading is not None:
        yield from _capacity(reading)
        jobs = GaugeMetricFamily(
            "quotactl_share_jobs",
            "Jobs of the share by AWS status",
            labels=[*SHARE_LABELS, "status"],
        )
        wait = GaugeMetricFamily(
            "quotactl_share_oldest_wait_seconds",
            "How long the share's longest-queued job has waited",
            labels=SHARE_LABELS,
            unit="seconds",
        )
        for share in reading.shares:
            for status, n in sorted(share.jobs.items()):
                jobs.add_metric([*share.key, status], n)
            wait.add_metric(list(share.key), share.oldest_wait)
        yield jobs
        yield wait
        yield from _governance(reading)
    if preemptions is not None:
        counter = CounterMetricFamily(
            "quotactl_preemptions", "Preempted attempts seen", labels=SHARE_LABELS
        )
        for key, n in sorted(preemptions.items()):
            counter.add_metric(list(key), n)
        yield counter
    yield GaugeMetricFamily(
        "quotactl_up", "1 when the last read of the account succeeded", value=int(health.up)
    )
    if health.last_success is not None:
        yield GaugeMetricFamily(
            "quotactl_last_success_timestamp_seconds",
            "The account's time of the last successful read",
            value=health.last_success,
            unit="seconds",
        )
    yield CounterMetricFamily(
        "quotactl_read_errors", "Reads of the account that failed", value=health.errors
    )


def _governance(reading: Reading) -> Iterator[Metric]:
    labels = ["team", "instance_type"]
    ratio = GaugeMetricFamily(
        "quotactl_budget_used_ratio",
        "Hours a team counted of its budget over the hours allowed (1: reached)",
        labels=labels,
        unit="ratio",
    )
    used = GaugeMetricFamily(
        "quotactl_budget_used_hours", "Instance-hours counted in the budget's period", labels=labels
    )
    limit = GaugeMetricFamily(
        "quotactl_budget_limit_hours", "Instance-hours the budget allows a period", labels=labels
    )
    for row in reading.governance.budgets:
        key = [row.team, row.instance_type]
        ratio.add_metric(key, row.ratio)
        used.add_metric(key, row.used)
        limit.add_metric(key, row.limit)
    governed = GaugeMetricFamily(
        "quotactl_governed",
        "1 for a share a policy holds changed (a window in force, a budget)",
        labels=["queue", "share", "policy"],
    )
    for held in reading.governance.governed:
        queue, _, share = held.address.removeprefix("share.").partition("/")
        governed.add_metric([queue, share, held.policy], 1)
    yield from (ratio, used, limit, governed)
    yield GaugeMetricFamily(
        "quotactl_governor_overdue_restores",
        "Shares still held by a policy past its end (above 0: the governor stopped running)",
        value=len(reading.governance.overdue),
    )


def _capacity(reading: Reading) -> Iterator[Metric]:
    for name, text in CAPACITY:
        family = GaugeMetricFamily(
            f"quotactl_share_{name}", text, labels=[*SHARE_LABELS, "instance_type"]
        )
        for share in reading.shares:
            for row in share.capacity:
                value = getattr(row, name)
                if value is not None:
                    family.add_metric([*share.key, row.instance_type], float(value))
        yield family


@view(Reading, StatusOutput.OPENMETRICS)
def show_openmetrics(reading: Reading, screen: Screen) -> None:
    """``status -o openmetrics``: one reading (preemptions: those the read saw)."""
    from quotactl.core.history.gauges import Preemptions

    tally = Preemptions()
    tally.add(reading)
    screen.write(openmetrics_text(reading, tally.counts))


def openmetrics_text(reading: Reading, preemptions: Mapping[ShareKey, int]) -> str:
    """One reading in the OpenMetrics 1.0 text format (ending in ``# EOF``)."""
    collector = ReadingCollector()
    collector.reading, collector.preemptions = reading, preemptions
    collector.health.last_success = reading.at
    registry = CollectorRegistry(auto_describe=False)
    registry.register(collector)
    return exposition(registry)


def exposition(registry: CollectorRegistry) -> str:
    """The registry's metrics as OpenMetrics text (the library's writer has no type hints)."""
    text: bytes = generate_latest(registry)  # type: ignore[no-untyped-call]
    return text.decode()
