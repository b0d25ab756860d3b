"""Status changes follow the declared tables; any other change raises ``InvalidTransition``,
which is a bug in quotactl and so never a user-facing ``QuotactlError``."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from quotactl.core.engine import Job
from quotactl.core.states import FINAL, JobStatus, LifecycleStatus
from quotactl.core.transitions import (
    JOB_TRANSITIONS,
    RESOURCE_TRANSITIONS,
    InvalidTransition,
    transition,
    transition_resource,
)
from quotactl.errors import QuotactlError


@dataclass
class Resource:
    arn: str
    status: str
    status_since: float = 0.0


def test_every_status_has_a_row_and_final_ones_lead_nowhere() -> None:
    assert set(JOB_TRANSITIONS) == set(JobStatus)
    assert set(RESOURCE_TRANSITIONS) == set(LifecycleStatus)
    assert all(not JOB_TRANSITIONS[s] for s in FINAL)


def test_a_legal_transition_sets_status_reason_and_time() -> None:
    job = Job("j1", "s", "ml.m5.large", 1)
    transition(job, JobStatus.RUNNABLE, "why", 5.0)
    assert (job.status, job.status_reason, job.status_since) == (JobStatus.RUNNABLE, "why", 5.0)


@pytest.mark.parametrize(
    ("start", "to"),
    [
        (JobStatus.SUBMITTED, JobStatus.RUNNING),
        (JobStatus.SUCCEEDED, JobStatus.RUNNABLE),
        (JobStatus.FAILED, JobStatus.FAILED),
        (JobStatus.RUNNING, JobStatus.STARTING),
    ],
)
def test_an_illegal_job_transition_raises_a_programming_error(
    start: JobStatus, to: JobStatus
) -> None:
    job = Job("j1", "s", "ml.m5.large", 1, status=start)
    with pytest.raises(InvalidTransition, match=f"{start} -> {to}") as caught:
        transition(job, to, None, 1.0)
    assert not isinstance(caught.value, QuotactlError)
    assert job.status is start


def test_an_illegal_resource_transition_raises() -> None:
    share = Resource("arn:s", LifecycleStatus.VALID)
    transition_resource(share, LifecycleStatus.UPDATING, 2.0)
    assert (share.status, share.status_since) == (LifecycleStatus.UPDATING, 2.0)
    with pytest.raises(InvalidTransition, match="UPDATING -> DELETED"):
        transition_resource(share, LifecycleStatus.DELETED, 3.0)
