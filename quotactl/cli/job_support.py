"""What the job commands share: the Batch client and its ``JobsApi``, other AWS clients on the
aws backend, the account's clock, and a queue's live state for the scheduling engine.

Heavy modules (boto3, the emulator) are imported inside the functions.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from quotactl.errors import QuotactlError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from quotactl.aws.jobs import JobsApi
    from quotactl.cli.runtime import Runtime
    from quotactl.core.engine import QueueModel
    from quotactl.core.jobs.records import JobRecord

LIVE_STATUSES = ("SUBMITTED", "PENDING", "RUNNABLE", "SCHEDULED", "STARTING", "RUNNING")


def open_jobs(runtime: Runtime) -> JobsApi:
    from quotactl.aws.jobs import JobsApi
    from quotactl.aws.session import client

    target = runtime.target()
    return JobsApi(client(target, session=runtime.session(target)))


def aws_client(runtime: Runtime, service: str) -> Any:
    """A client of a non-Batch service; only on the aws backend (the emulator has none)."""
    from quotactl.aws.session import client

    target = runtime.target()
    if target.backend != "aws":
        raise QuotactlError(f"{service} is only reachable on --backend aws", code="backend")
    return client(target, service, session=runtime.session(target))


def account_now(runtime: Runtime, seen: Sequence[JobRecord] = ()) -> float:
    """The account's clock: the emulator's own (it moves with `local advance`), else the wall
    clock, never earlier than the newest time a job reports."""
    now = time.time()
    target = runtime.target()
    if target.uses_emulator and target.state_path.exists():
        from quotactl.emulator import Emulator

        with Emulator(target.state_path) as emulator:
            now = emulator.now()
    latest = [t for j in seen for t in (j.created_at, j.scheduled_at, j.stopped_at) if t]
    return max([now, *latest])


def describe_all(api: JobsApi, jobs: Sequence[JobRecord]) -> list[JobRecord]:
    """Each listed job described (priority, attempts and preemptions are not in the list),
    concurrently on the read pool; a job deleted meanwhile keeps its list entry."""

    def one(job: JobRecord) -> JobRecord:
        try:
            described = api.describe(job.job_id)
        except QuotactlError as exc:
            if getattr(exc, "retryable", False):
                raise
            return job
        return described if described.queue == job.queue else _with_queue(described, job.queue)

    return list(api.api.map(one, jobs))


def _with_queue(job: JobRecord, queue: str) -> JobRecord:
    from dataclasses import replace

    return replace(job, queue=queue)


def live_queue(api: JobsApi, queue: str) -> tuple[QueueModel, list[JobRecord]]:
    """The queue's model and its unfinished jobs (described): what the engine is given."""
    model = api.queue_model(queue)
    jobs = describe_all(api, api.list_jobs([queue], LIVE_STATUSES))
    return model, jobs
