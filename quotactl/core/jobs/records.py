"""What ``job describe`` shows beyond the live job itself (``LiveJob``): the request, the tags
and the SageMaker training job of each attempt. ``quotactl.aws.responses.detail_of`` builds one
from a DescribeServiceJob response.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from quotactl.core.states import JobStatus

if TYPE_CHECKING:
    from collections.abc import Mapping

    from quotactl.core.resources.observed import LiveJob


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
