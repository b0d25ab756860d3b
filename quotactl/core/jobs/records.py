"""What ``job describe`` shows beyond the live job itself (``quotactl.core.observed.LiveJob``):
the request, the tags and the SageMaker training job of each attempt. Pure: the dicts are
DescribeServiceJob responses, as boto3 returns them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from quotactl.core import live_responses
from quotactl.core.engine.model import JOB_STATUSES, JobStatus

if TYPE_CHECKING:
    from collections.abc import Mapping

    from quotactl.core.observed import LiveJob

STATUSES: tuple[str, ...] = tuple(s.value for s in JOB_STATUSES)
"""Every service-job status the API takes, in lifecycle order (``jobs --status``)."""


@dataclass(frozen=True)
class JobDetail:
    """A described job: the live job, its CreateTrainingJob request and tags, and the
    training job of every attempt (oldest first; each attempt is a new SageMaker job)."""

    job: LiveJob
    payload: str | None = None
    tags: Mapping[str, str] = field(default_factory=dict)
    training_jobs: tuple[str, ...] = ()

    @property
    def latest_training_job(self) -> str | None:
        return self.training_jobs[-1] if self.training_jobs else None


def training_job_name(arn: str) -> str:
    """``arn:aws:sagemaker:...:training-job/NAME`` -> ``NAME``."""
    return arn.rsplit("/", 1)[-1]


def detail_of(response: Mapping[str, Any]) -> JobDetail:
    """A DescribeServiceJob response -> ``JobDetail``."""
    queue = live_responses.name_from_arn(str(response.get("jobQueue") or ""))
    arns = [
        str((a.get("serviceResourceId") or {}).get("value"))
        for a in response.get("attempts") or []
        if (a.get("serviceResourceId") or {}).get("value")
    ]
    latest = ((response.get("latestAttempt") or {}).get("serviceResourceId") or {}).get("value")
    if latest and latest not in arns:
        arns.append(str(latest))
    return JobDetail(
        job=live_responses.live_job(response, queue, response),
        payload=response.get("serviceRequestPayload"),
        tags=dict(response.get("tags") or {}),
        training_jobs=tuple(training_job_name(a) for a in arns),
    )


_SAGEMAKER_STATUS: dict[str, tuple[str, str]] = {
    JobStatus.SCHEDULED: ("InProgress", "Pending"),
    JobStatus.STARTING: ("InProgress", "Downloading"),
    JobStatus.RUNNING: ("InProgress", "Training"),
    JobStatus.SUCCEEDED: ("Completed", "Completed"),
    JobStatus.FAILED: ("Failed", "Failed"),
}


def sagemaker_status(status: str) -> tuple[str | None, str | None]:
    """The training job's (status, secondary status) for a service job status, from AWS's
    documented mapping (used where there is no SageMaker to ask: the emulator)."""
    return _SAGEMAKER_STATUS.get(status, (None, None))
