"""The statusReason texts the engine writes, verbatim from AWS where AWS publishes them.

Sources: the AWS Batch user guide's quota-management pages, on preemption events
(https://docs.aws.amazon.com/batch/latest/userguide/quota-management.html) and the
misconfiguration table of "Job stuck in RUNNABLE: misconfiguration".
AWS publishes no text for in-share preemption or for a job failed by its preemption-retry
budget; those two are quotactl's own wording, shaped like AWS's.
"""

from __future__ import annotations

CROSS_SHARE_PREEMPTION = "Cross-share preemption triggered to reclaim borrowed capacity"
"""statusReason of an attempt preempted to give a lending share its capacity back (AWS)."""

IN_SHARE_PREEMPTION = "In-share preemption triggered by a higher-priority job"
"""statusReason of an attempt preempted by a higher-priority job of its own share (quotactl's)."""

PREEMPTION_IN_PROGRESS = "PREEMPTION_IN_PROGRESS: "
"""How AWS prefixes the statusReason of a job while its preemption is under way: it is still
RUNNING ("PREEMPTION_IN_PROGRESS: Cross-share preemption triggered to reclaim borrowed
capacity", the "Batch Service Job Preemption Started" event of
https://docs.aws.amazon.com/batch/latest/userguide/batch-service-job-preemption-events.html)."""

SERVICE_ENVIRONMENT_MAX_RESOURCE = (
    "MISCONFIGURATION:SERVICE_ENVIRONMENT_MAX_RESOURCE - Service environment(s) associated with "
    "the job queue cannot meet the capacity requirement of the job."
)
QUOTA_SHARE_LIMIT = (
    "MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED - Job requirements exceed quota share "
    "capacity limits."
)
QUOTA_SHARE_BORROW_LIMIT = (
    "MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED - Job requirements exceed quota share "
    "capacity limits and borrow limits."
)
QUOTA_SHARE_BORROWABLE = (
    "MISCONFIGURATION:QUOTA_MANAGEMENT_LIMIT_EXCEEDED - Job requires borrowing that exceeds all "
    "configured borrowable capacity."
)


INSUFFICIENT_CAPACITY = (
    "CAPACITY:INSUFFICIENT_INSTANCE_CAPACITY - Unable to provision requested compute resources"
)
"""statusReason of a job whose training job found too few instances (AWS's, from "Jobs stuck
in RUNNABLE due to capacity",
https://docs.aws.amazon.com/batch/latest/userguide/sm_job_stuck_in_runnable_capacity.html)."""

SAGEMAKER = "Received status from SageMaker: "
"""How AWS Batch prefixes a statusReason that SageMaker gave (a refused or failed training job)."""

MAX_RUNTIME_EXCEEDED = (
    SAGEMAKER + "MaxRuntimeExceeded: Training job runtime exceeded MaxRuntimeInSeconds"
)
"""statusReason of an attempt stopped by its StoppingCondition.MaxRuntimeInSeconds."""

ATTEMPT_TIMEOUT = "Job attempt duration exceeded timeout"
"""statusReason of an attempt stopped by the job's timeoutConfig.attemptDurationSeconds."""


def time_limit(reason: str) -> str:
    """statusReason of a RUNNABLE job terminated by a queue's jobStateTimeLimitActions."""
    return f"Terminated by JobStateTimeLimit action due to reason: {reason}"


def share_deleted(share: str) -> str:
    """statusReason of an unfinished job whose quota share was deleted (quotactl's wording)."""
    return f"Quota share {share} was deleted"


def queue_deleted(queue: str) -> str:
    """statusReason of an unfinished job whose job queue was deleted (quotactl's wording)."""
    return f"Job queue {queue} was deleted"


def preemption_retries_exhausted(retries: int, reason: str) -> str:
    """statusReason of a job FAILED because ``preemptionRetriesBeforeTermination`` is used up."""
    budget = f"preemptionRetriesBeforeTermination={retries}"
    return f"Terminated after preemption: {budget} used up. {reason}"
