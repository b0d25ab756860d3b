"""AWS Batch responses, field by field, as the live model: ``LiveJob``, ``ShareModel``, times.

Each function takes one response dict (or part of one) exactly as boto3 returns it. AWS sends
times as epoch milliseconds; everything here is epoch seconds. ``live_queue`` puts the pieces
together into a ``LiveQueue`` (``quotactl.core.jobs.live``), so core receives typed values.
"""

from __future__ import annotations

import json
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any

from quotactl.core.backend import CLOCK_HEADER
from quotactl.core.durations import DurationError, parse_duration
from quotactl.core.engine.model import QueueModel, ShareModel
from quotactl.core.jobs.live import LiveQueue
from quotactl.core.jobs.records import JobDetail, training_job_name
from quotactl.core.jobs.spec import DEFAULT_MAX_RUNTIME, DURATION_TAG
from quotactl.core.resources.desired import TEAM_TAG, UNLIMITED, Strategy
from quotactl.core.resources.observed import LiveJob, PastPreemption
from quotactl.core.states import LISTED, JobStatus, LifecycleStatus, State

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping


def seconds(value: Any) -> float | None:
    """AWS epoch milliseconds -> epoch seconds (None stays None)."""
    return None if value is None else float(value) / 1000.0


def job_status(value: str | None) -> JobStatus:
    """AWS's status -> the engine's. PENDING (in the API enum, never documented for service
    jobs) counts as SUBMITTED: waiting, holding nothing."""
    if not value or value == JobStatus.PENDING:
        return JobStatus.SUBMITTED
    return JobStatus(value)


def capacity_usage(entries: Iterable[Mapping[str, Any]] | None) -> dict[str, int]:
    """``capacityUsage`` / ``totalCapacityUsage`` entries -> instances per instance type."""
    usage: dict[str, int] = {}
    for entry in entries or []:
        unit = entry.get("capacityUnit")
        if unit:
            usage[unit] = usage.get(unit, 0) + round(float(entry.get("quantity", 0)))
    return usage


def name_from_arn(value: str) -> str:
    """A name or an ARN (``...:job-queue/training``) -> the name."""
    return value.rsplit("/", 1)[-1] if value.startswith("arn:") else value


_STATUSES = {str(s): s for s in JobStatus}
_STATUSES[str(JobStatus.PENDING)] = JobStatus.SUBMITTED


def live_job(
    summary: Mapping[str, Any], queue: str, detail: Mapping[str, Any] | None = None
) -> LiveJob:
    """A ListServiceJobs summary (and, if read, its DescribeServiceJob response) -> LiveJob."""
    if not detail:
        return _listed(summary, queue)
    item: Mapping[str, Any] = {**summary, **detail}
    preemption = item.get("preemptionSummary") or {}
    recent = tuple(
        PastPreemption(
            seconds(a.get("startedAt")), seconds(a.get("stoppedAt")), a.get("statusReason")
        )
        for a in preemption.get("recentPreemptedAttempts") or []
    )
    retries = (item.get("preemptionConfiguration") or {}).get("preemptionRetriesBeforeTermination")
    return LiveJob(
        job_id=item["jobId"],
        name=item.get("jobName") or "",
        queue=queue,
        share=item.get("quotaShareName"),
        status=job_status(item.get("status")),
        instances=capacity_usage(item.get("capacityUsage")),
        started_at=seconds(item.get("startedAt")),
        created_at=seconds(item.get("createdAt")),
        job_arn=item.get("jobArn") or "",
        status_reason=item.get("statusReason"),
        scheduled_at=seconds(item.get("scheduledAt")),
        stopped_at=seconds(item.get("stoppedAt")),
        priority=_int(item.get("schedulingPriority")) if detail else None,
        attempts=len(item.get("attempts") or []) if detail else None,
        preemptions=int(preemption.get("preemptedAttemptCount", 0)) if detail else None,
        recent_preemptions=recent,
        preemption_retries=_int(retries),
        is_terminated=bool(item.get("isTerminated")),
        detailed=detail is not None,
        **(_run_time_fields(detail) if detail else {}),
    )


def _listed(item: Mapping[str, Any], queue: str) -> LiveJob:
    """``live_job`` of a summary alone, field by field as there, built in one step (a long
    listing builds 10,000 of them)."""
    get = item.get
    usage = get("capacityUsage")
    status = get("status")
    started, created, scheduled, stopped = (
        get("startedAt"),
        get("createdAt"),
        get("scheduledAt"),
        get("stoppedAt"),
    )
    return LiveJob.from_fields(
        {
            "job_id": item["jobId"],
            "name": get("jobName") or "",
            "queue": queue,
            "share": get("quotaShareName"),
            "status": _STATUSES.get(status or "") or job_status(status),
            "instances": capacity_usage(usage) if usage else {},
            "started_at": None if started is None else started / 1000.0,
            "created_at": None if created is None else created / 1000.0,
            "job_arn": get("jobArn") or "",
            "status_reason": get("statusReason"),
            "scheduled_at": None if scheduled is None else scheduled / 1000.0,
            "stopped_at": None if stopped is None else stopped / 1000.0,
            "priority": None,
            "attempts": None,
            "preemptions": None,
            "recent_preemptions": (),
            "preemption_retries": None,
            "is_terminated": bool(get("isTerminated")),
            "detailed": False,
            "duration": None,
            "max_runtime": None,
            "attempt_timeout": None,
        }
    )


def _run_time_fields(detail: Mapping[str, Any]) -> dict[str, Any]:
    duration, max_runtime, timeout = run_time_of(detail)
    return {"duration": duration, "max_runtime": max_runtime, "attempt_timeout": timeout}


def run_time_of(detail: Mapping[str, Any]) -> tuple[float | None, float | None, float | None]:
    """The run-time fields of a DescribeServiceJob response (or a SubmitServiceJob request):
    the ``quotactl:duration`` tag, ``StoppingCondition.MaxRuntimeInSeconds`` and
    ``timeoutConfig.attemptDurationSeconds``, in seconds (None where absent)."""
    duration: float | None = None
    tag = (detail.get("tags") or {}).get(DURATION_TAG)
    if isinstance(tag, str):
        try:
            duration = parse_duration(tag)
        except DurationError:
            duration = None
    max_runtime: float | None = None
    try:
        stopping = json.loads(detail.get("serviceRequestPayload") or "{}").get("StoppingCondition")
        max_runtime = float(stopping["MaxRuntimeInSeconds"])
    except (ValueError, TypeError, KeyError, AttributeError):
        max_runtime = None
    timeout = (detail.get("timeoutConfig") or {}).get("attemptDurationSeconds")
    return duration, max_runtime, None if timeout is None else float(timeout)


def share_model(item: Mapping[str, Any], tags: Mapping[str, str] | None = None) -> ShareModel:
    """A ListQuotaShares / DescribeQuotaShare item -> the engine's ``ShareModel``.

    ``tags`` (ListTagsForResource) win over the item's own, which ListQuotaShares may omit; the
    team is the ``quotactl:team`` tag.
    """
    sharing = item.get("resourceSharingConfiguration") or {}
    strategy = Strategy(sharing.get("strategy") or "RESERVE")
    borrow = sharing.get("borrowLimit")
    found = dict(item.get("tags") or {})
    found.update(tags or {})
    return ShareModel(
        name=item["quotaShareName"],
        limits=capacity_usage(
            {"capacityUnit": c.get("capacityUnit"), "quantity": c.get("maxCapacity", 0)}
            for c in item.get("capacityLimits") or []
        ),
        strategy=strategy,
        borrow_limit=UNLIMITED if borrow is None else int(borrow),
        in_share_preemption=(item.get("preemptionConfiguration") or {}).get("inSharePreemption")
        == State.ENABLED,
        team=found.get(TEAM_TAG),
        enabled=item.get("state") != State.DISABLED,
    )


def snapshot_heads(snapshot: Mapping[str, Any] | None) -> dict[str, str]:
    """GetJobQueueSnapshot's ``frontOfQuotaShares`` -> share name -> job ARN at its front."""
    fronts = ((snapshot or {}).get("frontOfQuotaShares") or {}).get("quotaShares") or {}
    return {share: jobs[0]["jobArn"] for share, jobs in fronts.items() if jobs}


def snapshot_front(snapshot: Mapping[str, Any] | None) -> tuple[str, ...]:
    """GetJobQueueSnapshot's ``frontOfQueue``: the job ARNs first in line, in order."""
    jobs = ((snapshot or {}).get("frontOfQueue") or {}).get("jobs") or []
    return tuple(j["jobArn"] for j in jobs if j.get("jobArn"))


def snapshot_time(snapshot: Mapping[str, Any] | None) -> float | None:
    """When the account answered the snapshot, epoch seconds (``response_time``); never a
    field of the data: ``lastUpdatedAt`` is when the data last changed, possibly hours ago."""
    return response_time(snapshot) if snapshot else None


def response_time(response: Mapping[str, Any]) -> float | None:
    """The account's time when it answered, epoch seconds: the HTTP ``Date`` header (AWS's
    clock; the emulator puts its emulated clock there), to the millisecond where the default
    emulator also sends its clock header; None when the answer has neither."""
    headers = (response.get("ResponseMetadata") or {}).get("HTTPHeaders") or {}
    stamp = headers.get(CLOCK_HEADER)
    if stamp:
        return seconds(int(stamp))
    date = headers.get("date")
    if not date:
        return None
    try:
        return parsedate_to_datetime(str(date)).timestamp()
    except (TypeError, ValueError):
        return None


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


_RANK = {status: rank for rank, status in enumerate(LISTED)}


def live_queue(
    queue: Mapping[str, Any],
    environment: Mapping[str, Any] | None,
    shares: Iterable[Mapping[str, Any]],
    jobs: Iterable[Mapping[str, Any]] = (),
    *,
    listed: Iterable[LiveJob] = (),
    share_tags: Mapping[str, Mapping[str, str]] | None = None,
    details: Mapping[str, Mapping[str, Any]] | None = None,
    snapshot: Mapping[str, Any] | None = None,
    read_at: float = 0.0,
) -> LiveQueue:
    """Build a ``LiveQueue`` from AWS responses.

    ``queue`` is a DescribeJobQueues entry, ``environment`` the DescribeServiceEnvironments
    entry of its service environment (None: it is gone, no capacity), ``shares`` the
    ListQuotaShares items, ``jobs`` ListServiceJobs summaries and/or ``listed`` jobs already
    built from them with ``live_job`` (a job listed under two statuses, as it moved on between
    two listings, is kept once, in the later of the two in its lifecycle), ``share_tags`` tags
    by share ARN, ``details`` DescribeServiceJob responses by job ID (for ``jobs``),
    ``read_at`` the fallback time when there is no snapshot.
    """
    name = queue["jobQueueName"]
    tags = share_tags or {}
    items = list(shares)
    models = tuple(share_model(s, tags.get(s.get("quotaShareArn", ""))) for s in items)
    tags_by_name = {
        s["quotaShareName"]: {**(s.get("tags") or {}), **tags.get(s.get("quotaShareArn", ""), {})}
        for s in items
    }
    env = environment or {}
    model = QueueModel(
        name=name,
        capacity=capacity_usage(
            {"capacityUnit": c.get("capacityUnit"), "quantity": c.get("maxCapacity", 0)}
            for c in env.get("capacityLimits") or []
        ),
        shares=models,
    )
    found = details or {}
    by_id: dict[str, LiveJob] = {}
    built = (live_job(summary, name, found.get(summary["jobId"])) for summary in jobs)
    for job in (*listed, *built):
        seen = by_id.get(job.job_id)
        if seen is None or _RANK[job.status] >= _RANK[seen.status]:
            by_id[job.job_id] = job
    env_order = sorted(queue.get("serviceEnvironmentOrder") or [], key=lambda o: o["order"])
    return LiveQueue(
        name=name,
        arn=queue.get("jobQueueArn") or "",
        model=model,
        jobs=tuple(sorted(by_id.values(), key=lambda j: (j.created_at or 0.0, j.job_id))),
        enabled=queue.get("state") != State.DISABLED,
        status=queue.get("status") or LifecycleStatus.VALID,
        environment=name_from_arn(env_order[0]["serviceEnvironment"]) if env_order else "",
        environment_enabled=bool(environment) and env.get("state") != State.DISABLED,
        share_arns={s["quotaShareName"]: s.get("quotaShareArn") or "" for s in items},
        heads=snapshot_heads(snapshot),
        read_at=snapshot_time(snapshot) or read_at,
        front=snapshot_front(snapshot),
        share_tags=tags_by_name,
    )


def detail_of(response: Mapping[str, Any]) -> JobDetail:
    """A DescribeServiceJob response -> ``JobDetail``."""
    queue = name_from_arn(str(response.get("jobQueue") or ""))
    arns = [
        str((a.get("serviceResourceId") or {}).get("value"))
        for a in response.get("attempts") or []
        if (a.get("serviceResourceId") or {}).get("value")
    ]
    latest = ((response.get("latestAttempt") or {}).get("serviceResourceId") or {}).get("value")
    if latest and latest not in arns:
        arns.append(str(latest))
    return JobDetail(
        job=live_job(response, queue, response),
        payload=response.get("serviceRequestPayload"),
        tags=dict(response.get("tags") or {}),
        training_jobs=tuple(training_job_name(a) for a in arns),
    )


def requested_seconds(detail: Mapping[str, Any] | None) -> float:
    """The run time a job asked for: its duration tag, its MaxRuntimeInSeconds, or one day."""
    if not detail:
        return DEFAULT_MAX_RUNTIME
    duration, max_runtime, _ = run_time_of(detail)
    for seconds in (duration, max_runtime):
        if seconds is not None:
            return seconds
    return DEFAULT_MAX_RUNTIME
