"""The front of a job queue in the order a scheduling pass dispatches it, for
GetJobQueueSnapshot's ``frontOfQueue``.

Inside a share the order is the share's queue: higher ``schedulingPriority`` first, then
earlier submission (``runnable.queue_rank``). Across shares a pass starts heads that fit
their share's own limit before heads that would borrow (phases A and C of ``passes.py``),
each group in submission order. The front repeats that with the usage the jobs ahead would
add, which is AWS's "ordered based on their job priority and share usage"
(https://docs.aws.amazon.com/batch/latest/APIReference/API_GetJobQueueSnapshot.html).
A FIFO queue is one share with no limit: submission order.
"""

from __future__ import annotations

from dataclasses import dataclass
from heapq import heappop, heappush
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence


@dataclass(frozen=True, slots=True)
class Waiting:
    """One RUNNABLE job as the front sees it."""

    job: str
    share: str
    instance_type: str
    count: int
    seq: int  # submission order


def dispatch_order(
    shares: Mapping[str, Sequence[Waiting]],
    limits: Mapping[str, Mapping[str, int]],
    usage: Mapping[str, Mapping[str, int]],
    limit: int,
) -> list[Waiting]:
    """The first ``limit`` jobs of ``shares`` (each already in its share's order) in dispatch
    order; a share missing from ``limits`` has no limit (a FIFO queue)."""
    # Picking a share's head changes only that share's usage and head, so the other shares'
    # keys stand: a heap of one key per share, (borrows, submission order, share's place).
    used = {s: dict(usage.get(s, {})) for s in shares}
    names = list(shares)
    at = [0] * len(names)
    heap: list[tuple[bool, int, int]] = []

    def push(index: int) -> None:
        share = names[index]
        jobs = shares[share]
        if at[index] >= len(jobs):
            return
        job = jobs[at[index]]
        own = limits.get(share)
        borrows = own is not None and (
            used[share].get(job.instance_type, 0) + job.count > own.get(job.instance_type, 0)
        )
        heappush(heap, (borrows, job.seq, index))

    for index in range(len(names)):
        push(index)
    out: list[Waiting] = []
    while len(out) < limit and heap:
        _, _, index = heappop(heap)
        share = names[index]
        pick = shares[share][at[index]]
        out.append(pick)
        at[index] += 1
        kept = used[share]
        kept[pick.instance_type] = kept.get(pick.instance_type, 0) + pick.count
        push(index)
    return out
