"""Every status vocabulary of quotactl, and every set derived from one: the only spelling.

Service jobs (``JobStatus``) and their sets:

- ``JOB_STATUSES``: all eight, in lifecycle order (what ListServiceJobs' ``jobStatus`` takes).
- ``UNFINISHED``: SUBMITTED, RUNNABLE, SCHEDULED, STARTING, RUNNING: not finished yet. These
  are what ``status`` lists and what a delete terminates.
- ``QUEUED``: SUBMITTED, RUNNABLE: waiting, holding nothing.
- ``HOLDING``: SCHEDULED, STARTING, RUNNING: holding instances (the share's usage; the
  ``ACTIVE`` column of ``status``).
- ``FINAL``: SUCCEEDED, FAILED: finished for good.
- ``LISTED``: ``UNFINISHED`` then ``FINAL``: every status a service job is ever listed in.

Resources (environments, queues, shares) have a lifecycle ``LifecycleStatus`` and a ``State``:

- ``SETTLING``: CREATING, UPDATING: on the way to VALID.
- ``GOING``: DELETING, DELETED: on the way out; for planning the resource no longer exists.
- ``CHANGING``: CREATING, UPDATING, DELETING: a change under way that completes by itself.
- ``UNAVAILABLE``: CREATING, DELETING: not there yet, or no longer; takes no new jobs.

Attempts in the ledger of ``history`` end with an ``AttemptOutcome``; RUNNING and WAITING ones have
not ended (``AttemptOutcome.open``).

The transitions between the statuses are declared in ``quotactl.core.transitions``.
"""

from __future__ import annotations

from enum import StrEnum


class JobStatus(StrEnum):
    """AWS Batch service-job statuses.

    PENDING is in AWS's enum (ListServiceJobs accepts it) but service jobs never enter it.
    """

    SUBMITTED = "SUBMITTED"
    PENDING = "PENDING"
    RUNNABLE = "RUNNABLE"
    SCHEDULED = "SCHEDULED"
    STARTING = "STARTING"
    RUNNING = "RUNNING"
    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"

    # The value's own hash, in C: equal to Enum's (the names are the values), but the engine
    # looks statuses up in dicts and sets millions of times.
    __hash__ = str.__hash__

    @property
    def holds_capacity(self) -> bool:
        """SCHEDULED, STARTING and RUNNING jobs count towards their share's usage."""
        return self in _HOLDING

    @property
    def is_final(self) -> bool:
        return self in _FINAL  # a set, not ``JobStatus.SUCCEEDED``: a lookup on the Enum class


JOB_STATUSES = tuple(JobStatus)
"""Every status, in lifecycle order (the values ListServiceJobs' ``jobStatus`` takes)."""
QUEUED = (JobStatus.SUBMITTED, JobStatus.RUNNABLE)
"""Waiting for capacity (or for the scheduler's first look): holding nothing."""
HOLDING = (JobStatus.SCHEDULED, JobStatus.STARTING, JobStatus.RUNNING)
"""The statuses in which a job holds instances (counts towards its share's usage)."""
UNFINISHED = (*QUEUED, *HOLDING)
"""The statuses a service job passes through before SUCCEEDED or FAILED."""
FINAL = (JobStatus.SUCCEEDED, JobStatus.FAILED)
"""A job in one of these has finished for good."""
LISTED = (*UNFINISHED, *FINAL)
"""Every status a service job is listed in (``UNFINISHED``, then ``FINAL``)."""

_HOLDING = frozenset(HOLDING)
_FINAL = frozenset({JobStatus.SUCCEEDED, JobStatus.FAILED})


class LifecycleStatus(StrEnum):
    """The lifecycle status of an environment, a job queue or a quota share (AWS Batch's).

    Scheduling policies have none; they count as VALID. The emulator never produces INVALID.
    """

    CREATING = "CREATING"
    UPDATING = "UPDATING"
    VALID = "VALID"
    INVALID = "INVALID"
    DELETING = "DELETING"
    DELETED = "DELETED"


SETTLING = (LifecycleStatus.CREATING, LifecycleStatus.UPDATING)
"""Lifecycle statuses a resource passes through on its way to VALID."""
GOING = (LifecycleStatus.DELETING, LifecycleStatus.DELETED)
"""A resource in one of these is on its way out: for planning it no longer exists."""
CHANGING = (*SETTLING, LifecycleStatus.DELETING)
"""A lifecycle change under way, which completes by itself after a while."""
UNAVAILABLE = (LifecycleStatus.CREATING, LifecycleStatus.DELETING)
"""Not there yet, or no longer: a queue or share in one of these takes no new jobs."""


class State(StrEnum):
    """Whether an environment, job queue or quota share takes new work."""

    ENABLED = "ENABLED"
    DISABLED = "DISABLED"


STATES = tuple(State)
"""The values a ``state`` parameter takes."""


class AttemptOutcome(StrEnum):
    """How an attempt ended, or that it has not (RUNNING) or never began (WAITING)."""

    SUCCEEDED = "SUCCEEDED"
    FAILED = "FAILED"
    PREEMPTED = "PREEMPTED"
    CANCELLED = "CANCELLED"
    RUNNING = "RUNNING"
    WAITING = "WAITING"

    @property
    def open(self) -> bool:
        """RUNNING and WAITING rows may change: ``history --append`` reads their jobs again."""
        return self is AttemptOutcome.RUNNING or self is AttemptOutcome.WAITING
