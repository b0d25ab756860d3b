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
from quotactl.core.jobs.spec import SUBMIT_TOKEN_TAG, resume_options
from quotactl.errors import (
    AmbiguousJobError,
    NotFoundError,
    QuotactlError,
    SubmitIncomplete,
    SubmitInterrupted,
    SubmitUnconfirmed,
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
FIND_WAITS = (0.0, 1.0, 2.0, 4.0, 8.0)
"""Seconds before each look for a job whose submit's answer was lost (reads may lag the
write): some 15 s in all, then ``submit-unconfirmed``."""
NAME_WAITS = (0.0, 0.5, 1.0, 2.0)
"""Seconds before each look for a job by name: a job just submitted may be missing from the
first listings (ListServiceJobs lags SubmitServiceJob), so a name no listing shows is looked
for again, some 3.5 s in all, before ``not-found``."""
JOB_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _unanswered(exc: QuotactlError) -> bool:
    """Whether the one attempt of a call may have run without its answer reaching us (a 5xx,
    a timeout, a dropped connection); a throttle or any other refusal did not run it."""
    from botocore.exceptions import ClientError

    cause = exc.__cause__
    if isinstance(cause, ClientError):
        status = int(cause.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0))
        return status >= 500
    return bool(getattr(exc, "retryable", False))


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
        many went through. A submit whose outcome is unknown (its answer lost, then botocore's
        retry rejected as a repeated client token, or every attempt lost) is resolved by
        finding its job by the ``quotactl:submit-token`` tag: never sent again."""
        done: list[Submitted] = []
        for request in requests:
            try:
                self.pacer.wait()
            except KeyboardInterrupt:
                raise SubmitInterrupted(done, len(requests), None) from None
            sent = self.api.attempts["SubmitServiceJob"]
            try:
                out = self.api.call("SubmitServiceJob", **request.params)
            except KeyboardInterrupt:
                raise SubmitInterrupted(done, len(requests), request.name) from None
            except QuotactlError as exc:
                if self.api.attempts["SubmitServiceJob"] - sent > 1 or _unanswered(exc):
                    done.append(self._confirm(request, exc, done, requests))
                    continue
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

    def _confirm(
        self,
        request: SubmitRequest,
        cause: QuotactlError,
        done: list[Submitted],
        requests: Sequence[SubmitRequest],
    ) -> Submitted:
        """The job ``request`` created, found by its token tag, polling a bounded time."""
        token = str(request.params["clientToken"])
        for wait in FIND_WAITS:
            if wait:
                self.pacer.sleep(wait)
            found = self._by_token(request, token)
            if found is not None:
                return found
        after = requests[len(done) + 1 :]
        raise SubmitUnconfirmed(
            cause,
            [dataclasses.asdict(job) for job in done],
            len(requests),
            name=request.name,
            token=token,
            queue=request.queue,
            rest=shlex.join(resume_options(after)) if after else None,
        ) from cause

    def _by_token(self, request: SubmitRequest, token: str) -> Submitted | None:
        filters = [{"name": "JOB_NAME", "values": [request.name]}]
        items = self.api.pages(
            "ListServiceJobs", "jobSummaryList", jobQueue=request.queue, filters=filters
        )
        for item in items:
            if item.get("jobName") != request.name:
                continue
            job = self.api.call("DescribeServiceJob", jobId=item["jobId"])
            if (job.get("tags") or {}).get(SUBMIT_TOKEN_TAG) == token:
                return Submitted(
                    job["jobId"], job["jobArn"], request.name, request.queue, request.share
                )
        return None

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
        matches: list[tuple[float, str]] = []
        for wait in NAME_WAITS:
            if wait:
                self.pacer.sleep(wait)
            matches = self._named(ref, queues)
            if matches:
                break
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

    def _named(self, ref: str, queues: Sequence[str]) -> list[tuple[float, str]]:
        """(createdAt, job ID) of each job named ``ref`` the queues' listings show now."""
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
        return matches

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
