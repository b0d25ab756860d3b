"""The state machines, declared: which status may follow which, and the one way to change one.

``JOB_TRANSITIONS`` is the service-job lifecycle of AWS Batch as quotactl's engine and emulator
run it; ``RESOURCE_TRANSITIONS`` the lifecycle of an environment, job queue or quota share.
Every status change goes through ``transition`` (jobs) or ``transition_resource`` (resources),
which refuse an edge the table does not have with ``InvalidTransition``: a bug in quotactl,
never a user's mistake, so it is not a ``QuotactlError`` and no boundary turns it into a
message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from quotactl.core.states import JobStatus, LifecycleStatus

if TYPE_CHECKING:
    from collections.abc import Mapping

_J = JobStatus
JOB_TRANSITIONS: Mapping[JobStatus, frozenset[JobStatus]] = {
    # The scheduler's first look queues it; a request SageMaker would refuse, or a
    # TerminateServiceJob, fails it.
    _J.SUBMITTED: frozenset({_J.RUNNABLE, _J.FAILED}),
    _J.PENDING: frozenset(),  # in AWS's enum, never entered by a service job
    # RUNNABLE -> RUNNABLE: a new statusReason only. RUNNABLE -> RUNNING: the SCHEDULED and
    # STARTING phases take no time (the simulator's timing). FAILED: terminated (a request,
    # a time limit, its share or queue deleted).
    _J.RUNNABLE: frozenset({_J.RUNNABLE, _J.SCHEDULED, _J.RUNNING, _J.FAILED}),
    # A holding job moves on, or is preempted (RUNNABLE again, or FAILED when its retries are
    # spent), or its attempt fails (retried: RUNNABLE), or it is terminated.
    _J.SCHEDULED: frozenset({_J.STARTING, _J.RUNNABLE, _J.FAILED}),
    _J.STARTING: frozenset({_J.RUNNING, _J.RUNNABLE, _J.FAILED}),
    _J.RUNNING: frozenset({_J.SUCCEEDED, _J.RUNNABLE, _J.FAILED}),
    _J.SUCCEEDED: frozenset(),
    _J.FAILED: frozenset(),
}
"""From each service-job status, the statuses it may change to."""

_R = LifecycleStatus
RESOURCE_TRANSITIONS: Mapping[LifecycleStatus, frozenset[LifecycleStatus]] = {
    _R.CREATING: frozenset({_R.VALID, _R.INVALID}),
    _R.UPDATING: frozenset({_R.VALID, _R.INVALID}),
    _R.VALID: frozenset({_R.UPDATING, _R.DELETING}),
    _R.INVALID: frozenset({_R.UPDATING, _R.DELETING}),
    _R.DELETING: frozenset({_R.DELETED}),
    _R.DELETED: frozenset(),
}
"""From each resource lifecycle status, the statuses it may change to (a CREATING resource
is created in that status; DELETED is where the emulator drops the record)."""


class InvalidTransition(RuntimeError):
    """A status change the machine does not have: a bug in quotactl, raised always."""

    def __init__(self, what: str, source: str, target: str) -> None:
        super().__init__(f"{what}: {source} -> {target} is not a transition of its lifecycle")
        self.source, self.target = source, target


class JobRecord(Protocol):
    """What ``transition`` changes: any record of a service job (the engine's, the emulator's)."""

    @property
    def job_id(self) -> str: ...
    @property
    def status(self) -> str: ...
    @status.setter
    def status(self, value: JobStatus) -> None: ...

    status_reason: str | None
    status_since: float


class ResourceRecord(Protocol):
    """What ``transition_resource`` changes: a resource record with a lifecycle status."""

    @property
    def arn(self) -> str: ...
    @property
    def status(self) -> str: ...
    @status.setter
    def status(self, value: LifecycleStatus) -> None: ...

    status_since: float


def transition(job: JobRecord, to: JobStatus, reason: str | None, at: float) -> None:
    """Move ``job`` to ``to`` at ``at`` with statusReason ``reason``, if the table allows it."""
    if to not in JOB_TRANSITIONS[job.status]:  # type: ignore[index]
        raise InvalidTransition(f"service job {job.job_id}", job.status, to)
    job.status = to
    job.status_reason = reason
    job.status_since = at


def transition_resource(record: ResourceRecord, to: LifecycleStatus, at: float) -> None:
    """Move a resource record to lifecycle status ``to`` at ``at``, if the table allows it."""
    if to not in RESOURCE_TRANSITIONS[record.status]:  # type: ignore[index]
        raise InvalidTransition(record.arn, record.status, to)
    record.status = to
    record.status_since = at
