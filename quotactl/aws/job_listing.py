"""The ``jobs`` listing: ListServiceJobs of several queues and statuses, newest first, as the
pages arrive.

ListServiceJobs lists one queue and one status at a time, newest first (AWS documents its
order by ``createdAt``, most recent first). ``JobListing`` reads every (queue, status) list at
once, each list's next page asked for as soon as its previous page is in, and merges them:
a job is handed on as soon as no list still being read can hold a newer one, so the first rows
come after the first pages, long before the last page. ``--since`` ends a list at its first
job older than the window (so a short window reads few pages), ``--share`` is AWS's
QUOTA_SHARE_NAME filter (which combines with a status).

What only DescribeServiceJob has (priority, attempts, preemptions) is read per job when asked
(``wide``), in listing order, with at most ``DESCRIBE_CONCURRENCY`` calls in flight and at
most ``DESCRIBE_PER_SECOND`` a second (``Pacer``).
"""

from __future__ import annotations

import heapq
import itertools
import queue as queues
import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from quotactl.aws import responses
from quotactl.aws.calls import READ_CONCURRENCY
from quotactl.aws.jobs import Pacer
from quotactl.aws.live_reads import PAGE

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from quotactl.aws.calls import BatchCalls
    from quotactl.core.resources.observed import LiveJob
    from quotactl.core.states import JobStatus

DESCRIBE_CONCURRENCY = 8
"""DescribeServiceJob calls in flight at once for ``jobs --wide``."""
DESCRIBE_PER_SECOND = 25
"""DescribeServiceJob calls a second for ``jobs --wide``: half of the 50 calls a second AWS
Batch allows an account across its API, leaving the rest to everything else calling it."""
LOOKAHEAD = 4 * DESCRIBE_CONCURRENCY
"""Described jobs waiting to be handed on in order (one slow answer holds back at most this
many)."""


def newest_first(job: LiveJob) -> tuple[float, str, int, str]:
    """The listing's order: newest first; jobs created in the same millisecond (one ``--count``
    on the emulator's clock) by name with its number read as a number (``run-2`` before
    ``run-10``), then by ID."""
    base, sep, number = job.name.rpartition("-")
    named = (base, int(number)) if sep and number.isdigit() else (job.name, 0)
    return (-(job.created_at or 0.0), named[0], named[1], job.job_id)


class JobListing:
    """Jobs of ``queues`` in ``statuses``, newest first, read lazily as they are iterated.

    ``now`` is the account's clock (the emulator's clock header, else this machine's clock
    when the listing started); it is known once the first job is handed on."""

    def __init__(
        self,
        api: BatchCalls,
        queues: Sequence[str],
        statuses: Sequence[JobStatus],
        *,
        share: str | None = None,
        since: float | None = None,
        wide: bool = False,
        pacer: Pacer | None = None,
    ) -> None:
        self.api = api
        self.lists = [(q, str(s)) for q in queues for s in statuses]
        self.share = share
        self.since = since
        self.wide = wide
        self.pacer = pacer or Pacer(DESCRIBE_PER_SECOND)
        self.now = time.time()

    def __iter__(self) -> Iterator[LiveJob]:
        jobs = self._merged()
        return self._described(jobs) if self.wide else jobs

    # -- the merge ------------------------------------------------------------------------

    def _merged(self) -> Iterator[LiveJob]:
        if not self.lists:
            return
        merge = _Merge(self)
        try:
            yield from merge.jobs()
        finally:
            merge.pool.shutdown(wait=True, cancel_futures=True)

    # -- the details ----------------------------------------------------------------------

    def _described(self, jobs: Iterator[LiveJob]) -> Iterator[LiveJob]:
        """Each job with its DescribeServiceJob, in the order given, calls paced and bounded."""
        pool = ThreadPoolExecutor(DESCRIBE_CONCURRENCY, "quotactl-describe")
        pending: deque[tuple[LiveJob, Future[dict[str, Any]]]] = deque()
        try:
            for job in itertools.chain(jobs, [None]):
                if job is not None:
                    self.pacer.wait()
                    pending.append(
                        (job, pool.submit(self.api.call, "DescribeServiceJob", jobId=job.job_id))
                    )
                while pending and (job is None or len(pending) > LOOKAHEAD or pending[0][1].done()):
                    listed, detail = pending.popleft()
                    yield responses.live_job(detail.result(), listed.queue, detail.result())
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


class _Merge:
    """One pass of a ``JobListing``: its lists in flight, what they may still hold, and the
    jobs read but not yet handed on (a heap in the listing's order).

    A list is (queue, status, share or None). An unfiltered list longer than one page is read
    again share by share (QUOTA_SHARE_NAME combines with a status), the shares' lists at once,
    instead of one page after another; the jobs of its first page seen twice are kept once."""

    def __init__(self, listing: JobListing) -> None:
        self.listing = listing
        self.lists: list[tuple[str, str, str | None]] = [
            (q, s, listing.share) for q, s in listing.lists
        ]
        self.pool = ThreadPoolExecutor(READ_CONCURRENCY, "quotactl-jobs")
        self.arrived: queues.SimpleQueue[tuple[int, Future[dict[str, Any]]]] = queues.SimpleQueue()
        self.bound: dict[int, float | None] = {}
        """The newest createdAt each open list may still hold (None: nothing read yet)."""
        self.ready: list[tuple[tuple[float, str, int, str], LiveJob]] = []
        self.seen: set[str] = set()
        self.clock_read = False
        self.shares: dict[str, Future[list[str]]] = {}
        if listing.share is None:
            for queue in dict.fromkeys(q for q, _ in listing.lists):
                self.shares[queue] = self.pool.submit(self._share_names, queue)
        for index in range(len(self.lists)):
            self._ask(index, None)

    def jobs(self) -> Iterator[LiveJob]:
        listing, bound, ready = self.listing, self.bound, self.ready
        while bound:
            index, future = self.arrived.get()
            out = future.result()
            if not self.clock_read:
                self.clock_read = True
                listing.now = responses.response_time(out) or listing.now
            last, token = self._take(index, out)
            if token is None or (
                bound[index] is None and self.lists[index][2] is None and self._split(index)
            ):
                del bound[index]
            else:
                bound[index] = bound[index] if last is None else last
                self._ask(index, token)
            if any(b is None for b in bound.values()):
                continue
            newest = max((b for b in bound.values() if b is not None), default=None)
            while ready and (newest is None or -ready[0][0][0] > newest):
                yield heapq.heappop(ready)[1]
        while ready:
            yield heapq.heappop(ready)[1]

    def _take(self, index: int, out: dict[str, Any]) -> tuple[float | None, str | None]:
        """Keep a page's jobs; the createdAt of its last one, and the token of the next page
        (None at the end of the list, or past ``since``)."""
        listing = self.listing
        cutoff = None if listing.since is None else listing.now - listing.since
        queue, last = self.lists[index][0], None
        for summary in out.get("jobSummaryList") or []:
            job = responses.live_job(summary, queue)
            last = job.created_at or 0.0
            if cutoff is not None and last < cutoff:
                return last, None
            if job.job_id not in self.seen:
                self.seen.add(job.job_id)
                heapq.heappush(self.ready, (newest_first(job), job))
        return last, out.get("nextToken")

    def _split(self, index: int) -> bool:
        """Read list ``index`` again share by share; False when its queue has fewer than two
        shares."""
        queue, status, _ = self.lists[index]
        names = self.shares[queue].result()
        if len(names) < 2:  # the same pages again, share by share: nothing to gain
            return False
        for name in names:
            self.lists.append((queue, status, name))
            self._ask(len(self.lists) - 1, None)
        return True

    def _share_names(self, queue: str) -> list[str]:
        api = self.listing.api
        return [
            s["quotaShareName"] for s in api.pages("ListQuotaShares", "quotaShares", jobQueue=queue)
        ]

    def _ask(self, index: int, token: str | None) -> None:
        queue, status, share = self.lists[index]
        params: dict[str, Any] = {"jobQueue": queue, "jobStatus": status, "maxResults": PAGE}
        if token is not None:
            params["nextToken"] = token
        if share is not None:
            params["filters"] = [{"name": "QUOTA_SHARE_NAME", "values": [share]}]
        self.bound.setdefault(index, None)
        future = self.pool.submit(self.listing.api.call, "ListServiceJobs", **params)
        future.add_done_callback(lambda done: self.arrived.put((index, done)))
