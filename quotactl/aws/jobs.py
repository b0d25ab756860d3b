"""Service jobs over the Batch API: submit (paced, idempotent), describe, resolve a job by
name, ID or ARN, re-prioritise, terminate in bulk. Queues are read by the ``LiveReader`` it is
given (``quotactl.aws.live``; an ``Account`` gives it the one it shares).

Every call goes through ``BatchCalls`` (only operations in ``permissions.OPERATIONS``). Time is
injected (``clock``, ``sleep``) so the pacing of SubmitServiceJob is tested without sleeping.
"""

from __future__ import annotations

import dataclasses
import re
import shlex
import time
from collections import deque
from typing import TYPE_CHECKING

from quotactl.aws.calls import BatchCalls
from quotactl.aws.live import LiveReader
from quotactl.aws.responses import detail_of
from quotactl.core.jobs.results import Submitted
from quotactl.core.jobs.spec import resume_options
from quotactl.errors import (
    AmbiguousJobError,
    NotFoundError,
    QuotactlError,
    SubmitIncomplete,
    SubmitInterrupted,
)

if TYPE_CHECKING:
    from collections import Counter
    from collections.abc import Callable, Sequence

    from mypy_boto3_batch import BatchClient

    from quotactl.core.jobs.records import JobDetail
    from quotactl.core.jobs.spec import SubmitRequest

SUBMIT_PER_SECOND = 5
"""AWS's fixed SubmitServiceJob limit per account (5 TPS)."""
TERMINATE_BATCH = 50
"""TerminateServiceJobs takes at most 50 jobs."""
JOB_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


class Pacer:
    """At most ``rate`` calls in any ``period`` seconds: waits (``sleep``) before a call that
    would pass it. ``clock`` and ``sleep`` are injected; tests drive them by hand."""

    def __init__(
        self,
        rate: int = SUBMIT_PER_SECOND,
        period: float = 1.0,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.rate, self.period = rate, period
        self.clock, self.sleep = clock, sleep
        self._sent: deque[float] = deque()

    def wait(self) -> None:
        now = self.clock()
        if len(self._sent) >= self.rate:
            ready = self._sent[0] + self.period
            if ready > now:
                self.sleep(ready - now)
                now = self.clock()
            self._sent.popleft()
        self._sent.append(now)


class JobsApi:
    """The job commands' view of one Batch endpoint."""

    def __init__(
        self,
        client: BatchClient | BatchCalls,
        *,
        pacer: Pacer | None = None,
        live: LiveReader | None = None,
    ) -> None:
        self.api = client if isinstance(client, BatchCalls) else BatchCalls(client)
        self.pacer = pacer or Pacer()
        self._own_live = live is None
        self.live = live or LiveReader(self.api)

    @property
    def calls(self) -> Counter[str]:
        return self.api.calls

    def close(self) -> None:
        if self._own_live:
            self.live.close()
        self.api.close()

    # -- submit ---------------------------------------------------------------------------

    def submit(self, requests: Sequence[SubmitRequest]) -> list[Submitted]:
        """Send each request, paced to AWS's limit. A failure stops the rest and says how
        many went through (the client token makes botocore's own retries safe)."""
        done: list[Submitted] = []
        for request in requests:
            try:
                self.pacer.wait()
            except KeyboardInterrupt:
                raise SubmitInterrupted(done, len(requests), None) from None
            try:
                out = self.api.call("SubmitServiceJob", **request.params)
            except KeyboardInterrupt:
                raise SubmitInterrupted(done, len(requests), request.name) from None
            except QuotactlError as exc:
                if not done:
                    raise
                raise SubmitIncomplete(
                    exc,
                    [dataclasses.asdict(job) for job in done],
                    len(requests),
                    rest=shlex.join(resume_options(requests[len(done) :])),
                ) from exc
            done.append(
                Submitted(out["jobId"], out["jobArn"], request.name, request.queue, request.share)
            )
        return done

    # -- reads ----------------------------------------------------------------------------

    def describe(self, job_id: str) -> JobDetail:
        try:
            item = self.api.call("DescribeServiceJob", jobId=job_id)
        except QuotactlError as exc:
            if getattr(exc, "retryable", False):
                raise
            raise NotFoundError(f"no service job {job_id}", hint=exc.message) from exc
        return detail_of(item)

    def resolve(self, ref: str) -> JobDetail:
        """A job by ID, ARN or name (a name must match exactly one job of any status)."""
        if JOB_ID.fullmatch(ref) or ref.startswith("arn:"):
            return self.describe(ref)
        queues = self.live.queue_names()
        filters = [{"name": "JOB_NAME", "values": [ref]}]
        matches: list[tuple[float, str]] = []
        for queue in queues:
            items = self.api.pages(
                "ListServiceJobs", "jobSummaryList", jobQueue=queue, filters=filters
            )
            matches += [
                (float(i.get("createdAt") or 0), i["jobId"])
                for i in items
                if i.get("jobName") == ref
            ]
        if not matches:
            raise NotFoundError(
                f"no service job named {ref!r}", hint="`quotactl jobs` lists jobs with their IDs"
            )
        if len(matches) > 1:
            ids = ", ".join(job_id for _, job_id in sorted(matches, reverse=True))
            raise AmbiguousJobError(
                f"{len(matches)} service jobs are named {ref!r}: {ids}",
                hint="name the job by its ID",
            )
        return self.describe(matches[0][1])

    # -- writes ---------------------------------------------------------------------------

    def update_priority(self, job_id: str, priority: int) -> None:
        self.api.call("UpdateServiceJob", jobId=job_id, schedulingPriority=priority)

    def terminate(self, job_ids: Sequence[str], reason: str) -> list[dict[str, str]]:
        """TerminateServiceJobs in batches of 50; returns the per-job errors AWS reports."""
        errors: list[dict[str, str]] = []
        for start in range(0, len(job_ids), TERMINATE_BATCH):
            chunk = list(job_ids[start : start + TERMINATE_BATCH])
            out = self.api.call("TerminateServiceJobs", jobs=chunk, reason=reason)
            errors += [
                {
                    "job": str(e.get("job")),
                    "code": str(e.get("code")),
                    "message": str(e.get("message")),
                }
                for e in out.get("errors") or []
            ]
        return errors
