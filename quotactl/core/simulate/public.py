"""Public cluster traces as quotactl traces: groups mapped to shares, GPUs to instances.

A format's reader (``quotactl.core.simulate.formats``) turns its file into ``Recorded`` jobs:
the group the job belongs to (virtual cluster, user or QoS class, by format), when it was
submitted, when its run was recorded to start and end, and how many GPUs it held. ``convert``
makes trace rows of them:

- a job's share is ``mapping[group]``, else ``mapping["*"]``; a job of an unmapped group is
  dropped and counted by group;
- its duration is from the recorded start to the recorded end; a job without both (never
  started, or still running when the trace was cut) is dropped;
- its instances are ``ceil(gpus / gpus_per_instance)``; a job with no GPU is dropped;
- submit times count from the earliest submission kept, and rows come in submission order
  (stable: jobs submitted in the same second keep the file's order).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from quotactl.core.simulate.trace import TraceRow

ANY_GROUP = "*"


@dataclass(frozen=True)
class Recorded:
    """One job as a public trace recorded it (seconds on the trace's own clock)."""

    group: str
    submitted: float
    started: float | None
    ended: float | None
    gpus: float
    name: str
    line: int


@dataclass
class ImportTally:
    """What ``convert`` kept and why it dropped the rest."""

    read: int = 0
    kept: int = 0
    unmapped: Counter[str] = field(default_factory=Counter)
    """Jobs dropped per group that no ``--map`` names."""
    dropped: Counter[str] = field(default_factory=Counter)
    """Jobs dropped per reason (no GPU, no recorded run)."""
    span: float = 0.0
    """Seconds from the first submission kept to the last."""


def convert(
    records: Iterable[Recorded],
    mapping: Mapping[str, str],
    instance_type: str,
    gpus_per_instance: int,
) -> tuple[list[TraceRow], ImportTally]:
    """The trace rows of ``records``, in submission order, and the tally."""
    tally = ImportTally()
    kept: list[tuple[float, str, int, float, str]] = []
    fallback = mapping.get(ANY_GROUP)
    for job in records:
        tally.read += 1
        share = mapping.get(job.group, fallback)
        if share is None:
            tally.unmapped[job.group] += 1
            continue
        if job.started is None or job.ended is None or job.ended < job.started:
            tally.dropped["no recorded start and end"] += 1
            continue
        if job.gpus <= 0:
            tally.dropped["no GPU"] += 1
            continue
        count = max(1, math.ceil(job.gpus / gpus_per_instance - 1e-9))
        kept.append((job.submitted, share, count, job.ended - job.started, job.name))
    kept.sort(key=lambda row: row[0])
    first = kept[0][0] if kept else 0.0
    rows: list[TraceRow] = [
        (at - first, share, instance_type, count, duration, 0, name, line)
        for line, (at, share, count, duration, name) in enumerate(kept, start=2)
    ]
    tally.kept = len(rows)
    tally.span = rows[-1][0] if rows else 0.0
    return rows, tally


def parse_mapping(pairs: Iterable[str]) -> dict[str, str]:
    """``GROUP=SHARE`` pairs (``*=SHARE`` for every other group); ValueError names a bad one."""
    found: dict[str, str] = {}
    for pair in pairs:
        group, sep, share = pair.partition("=")
        if not sep or not group or not share:
            raise ValueError(f"{pair!r} is not GROUP=SHARE")
        if group in found and found[group] != share:
            raise ValueError(f"group {group!r} is mapped twice ({found[group]}, {share})")
        found[group] = share
    return found
