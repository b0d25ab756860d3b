"""AWS Batch responses, field by field, as the live model: ``LiveJob``, ``ShareModel``, times.

Each function takes one response dict (or part of one) exactly as boto3 returns it. AWS sends
times as epoch milliseconds; everything here is epoch seconds. ``quotactl.core.live`` puts the
pieces together into a ``LiveQueue``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quotactl.core.engine.model import JobStatus, ShareModel
from quotactl.core.model import TEAM_TAG, UNLIMITED, Strategy
from quotactl.core.observed import LiveJob, PastPreemption

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping


def seconds(value: Any) -> float | None:
    """AWS epoch milliseconds -> epoch seconds (None stays None)."""
    return None if value is None else float(value) / 1000.0


def job_status(value: str | None) -> JobStatus:
    """AWS's status -> the engine's. PENDING (in the API enum, never documented for service
    jobs) counts as SUBMITTED: waiting, holding nothing."""
    if not value or value == "PENDING":
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


def live_job(
    summary: Mapping[str, Any], queue: str, detail: Mapping[str, Any] | None = None
) -> LiveJob:
    """A ListServiceJobs summary (and, if read, its DescribeServiceJob response) -> LiveJob."""
    item: Mapping[str, Any] = {**summary, **detail} if detail else summary
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
    )


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
        == "ENABLED",
        team=found.get(TEAM_TAG),
        enabled=item.get("state") != "DISABLED",
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
    """When the account computed the snapshot (its newest ``lastUpdatedAt``), epoch seconds."""
    if not snapshot:
        return None
    times = [
        part.get("lastUpdatedAt")
        for part in (
            snapshot.get("frontOfQueue"),
            snapshot.get("frontOfQuotaShares"),
            snapshot.get("queueUtilization"),
        )
        if part
    ]
    found = [t for t in times if t is not None]
    return seconds(max(found)) if found else None


def _int(value: Any) -> int | None:
    return None if value is None else int(value)
