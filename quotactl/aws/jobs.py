"""Service jobs over the Batch API: submit (paced, idempotent), list, describe, resolve a job
by name, ID or ARN, re-prioritise, terminate in bulk, and read a queue's scheduling model.

Every call goes through ``BatchCalls`` (only operations in ``permissions.OPERATIONS``). Time is
injected (``clock``, ``sleep``) so the pacing of SubmitServiceJob is tested without sleeping.
"""

from __future__ import annotations

import re
import time
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from quotactl.aws import convert
from quotactl.aws.calls import BatchCalls
from quotactl.core.engine import QueueModel, ShareModel
from quotactl.core.jobs.records import STATUSES, JobRecord, record_of
from quotactl.core.model import ShareSpec
from quotactl.errors import NotFoundError, QuotactlError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

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


class SubmitIncomplete(QuotactlError):
    """Some jobs of a ``--count`` were submitted, then a call failed: says which went through."""

    code = "submit-incomplete"

    def __init__(self, cause: QuotactlError, submitted: list[Submitted], total: int) -> None:
        left = total - len(submitted)
        super().__init__(
            f"{cause.message} (after {len(submitted)} of {total} jobs were submitted)",
            hint=f"the {len(submitted)} submitted jobs stand; submit the other {left} with "
            f"--count {left}",
        )
        self.submitted = submitted


@dataclass(frozen=True)
class Submitted:
    job_id: str
    job_arn: str
    name: str
    queue: str
    share: str


class JobsApi:
    """The job commands' view of one Batch endpoint."""

    def __init__(self, client: Any, *, pacer: Pacer | None = None) -> None:
        self.api = BatchCalls(client)
        self.pacer = pacer or Pacer()

    @property
    def calls(self) -> Any:
        return self.api.calls

    def close(self) -> None:
        self.api.close()

    # -- submit ---------------------------------------------------------------------------

    def submit(self, requests: Sequence[SubmitRequest]) -> list[Submitted]:
        """Send each request, paced to AWS's limit. A failure stops the rest and says how
        many went through (the client token makes botocore's own retries safe)."""
        done: list[Submitted] = []
        for request in requests:
            self.pacer.wait()
            try:
                out = self.api.call("SubmitServiceJob", **request.params)
            except QuotactlError as exc:
                if not done:
                    raise
                raise SubmitIncomplete(exc, done, len(requests)) from exc
            done.append(
                Submitted(out["jobId"], out["jobArn"], request.name, request.queue, request.share)
            )
        return done

    # -- reads ----------------------------------------------------------------------------

    def queues(self) -> list[str]:
        """Every SAGEMAKER_TRAINING job queue's name (the ones service jobs run on)."""
        return sorted(
            q["jobQueueName"]
            for q in self.api.pages("DescribeJobQueues", "jobQueues")
            if q.get("jobQueueType") == "SAGEMAKER_TRAINING" and q.get("status") != "DELETED"
        )

    def list_jobs(
        self,
        queues: Iterable[str],
        statuses: Iterable[str] = STATUSES,
        *,
        share: str | None = None,
    ) -> list[JobRecord]:
        """Jobs of ``queues`` in ``statuses`` (one paginated ListServiceJobs per pair: without
        a status the API lists RUNNING jobs only), newest first."""
        pairs = [(q, s) for q in queues for s in statuses]
        filters = [{"name": "QUOTA_SHARE_NAME", "values": [share]}] if share else None

        def read(pair: tuple[str, str]) -> list[JobRecord]:
            queue, status = pair
            params: dict[str, Any] = {"jobQueue": queue, "jobStatus": status}
            if filters:
                params["filters"] = filters
            return [
                record_of(item, queue)
                for item in self.api.pages("ListServiceJobs", "jobSummaryList", **params)
                if item.get("status") == status  # a filter may widen what AWS returns
            ]

        found = {r.job_id: r for chunk in self.api.map(read, pairs) for r in chunk}
        return sorted(found.values(), key=lambda r: (-(r.created_at or 0.0), r.job_id))

    def describe(self, job_id: str) -> JobRecord:
        try:
            item = self.api.call("DescribeServiceJob", jobId=job_id)
        except QuotactlError as exc:
            if getattr(exc, "retryable", False):
                raise
            raise NotFoundError(f"no service job {job_id}", hint=exc.message) from exc
        return record_of(item)

    def resolve(self, ref: str) -> JobRecord:
        """A job by ID, ARN or name (a name must match exactly one job)."""
        if JOB_ID.fullmatch(ref) or ref.startswith("arn:"):
            return self.describe(ref)
        filters = [{"name": "JOB_NAME", "values": [ref]}]
        matches: list[JobRecord] = []
        for queue in self.queues():
            items = self.api.pages(
                "ListServiceJobs", "jobSummaryList", jobQueue=queue, filters=filters
            )
            matches += [record_of(i, queue) for i in items if i.get("jobName") == ref]
        if not matches:
            raise NotFoundError(
                f"no service job named {ref!r}", hint="`quotactl jobs` lists jobs with their IDs"
            )
        if len(matches) > 1:
            ids = ", ".join(m.job_id for m in sorted(matches, key=lambda m: -(m.created_at or 0)))
            raise QuotactlError(
                f"{len(matches)} service jobs are named {ref!r}: {ids}",
                code="ambiguous-job",
                hint="name the job by its ID",
            )
        return self.describe(matches[0].job_id)

    def queue_model(self, queue: str) -> QueueModel:
        """The queue's environment capacity and quota shares, as the engine models them."""
        found = self.api.call("DescribeJobQueues", jobQueues=[queue]).get("jobQueues") or []
        live = [q for q in found if q.get("status") != "DELETED"]
        if not live:
            raise NotFoundError(f"no job queue {queue!r}", hint="`quotactl status` lists queues")
        item = live[0]
        order = sorted(item.get("serviceEnvironmentOrder") or [], key=lambda o: o["order"])
        capacity: dict[str, int] = {}
        if order:
            environment = convert.name_from_arn(order[0]["serviceEnvironment"])
            envs = (
                self.api.call("DescribeServiceEnvironments", serviceEnvironments=[environment]).get(
                    "serviceEnvironments"
                )
                or []
            )
            if envs and envs[0].get("state") != "DISABLED":
                capacity = convert.capacity(envs[0].get("capacityLimits"))
        shares = []
        for share in self.api.pages("ListQuotaShares", "quotaShares", jobQueue=queue):
            spec = convert.observed_share(share, queue, {}).spec
            assert isinstance(spec, ShareSpec)
            shares.append(
                ShareModel(
                    name=spec.name,
                    limits=dict(spec.capacity),
                    strategy=spec.strategy,
                    borrow_limit=spec.borrow_limit,
                    in_share_preemption=spec.in_share_preemption,
                    enabled=spec.enabled,
                )
            )
        return QueueModel(name=queue, capacity=capacity, shares=tuple(shares))

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
