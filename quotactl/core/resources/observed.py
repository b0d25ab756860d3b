"""Observed state: what the live account holds, in the configuration's own terms.

A backend (``quotactl.aws.backend``) reads AWS into these values; ``diff`` compares them with
the ``DesiredState``. Each live resource is held as the same spec type the configuration
produces, plus what only the live side knows (ARN, lifecycle status), so one comparison
function serves both sides.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from quotactl.core.resources.desired import (
    STACK_TAG,
    EnvironmentSpec,
    PolicySpec,
    QueueSpec,
    ShareSpec,
    address_of,
)
from quotactl.core.states import GOING, HOLDING, LifecycleStatus

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Mapping

    from quotactl.core.states import JobStatus

Spec = EnvironmentSpec | PolicySpec | QueueSpec | ShareSpec


class Kind(StrEnum):
    """The four kinds of AWS resource quotactl manages, in creation order."""

    ENVIRONMENT = "environment"
    POLICY = "policy"
    QUEUE = "queue"
    SHARE = "share"


def kind_of(spec: Spec) -> Kind:
    if isinstance(spec, EnvironmentSpec):
        return Kind.ENVIRONMENT
    if isinstance(spec, PolicySpec):
        return Kind.POLICY
    if isinstance(spec, QueueSpec):
        return Kind.QUEUE
    return Kind.SHARE


@dataclass(frozen=True, order=True)
class Ref:
    """Names one resource the way AWS looks it up (a share needs its queue)."""

    kind: Kind
    name: str
    queue: str | None = None

    @property
    def address(self) -> str:
        return address_of(self.kind.value, self.name, self.queue)

    @classmethod
    def of(cls, spec: Spec) -> Ref:
        if isinstance(spec, ShareSpec):
            return cls(Kind.SHARE, spec.name, spec.queue)
        return cls(kind_of(spec), spec.name)

    @classmethod
    def parse(cls, address: str) -> Ref:
        """``queue.training`` -> Ref(QUEUE, "training"); ``share.q/s`` -> Ref(SHARE, "s", "q")."""
        prefix, _, rest = address.partition(".")
        kind = Kind(prefix)
        if kind is Kind.SHARE:
            queue, _, name = rest.partition("/")
            return cls(kind, name, queue)
        return cls(kind, rest)


@dataclass(frozen=True)
class ObservedResource:
    """One live resource: its settings as a spec, plus what only the live side knows."""

    spec: Spec
    arn: str
    status: str = LifecycleStatus.VALID
    policy_type: str | None = None
    """Scheduling policies only: ``quota_share``, ``fairshare`` or ``none`` (immutable in AWS)."""

    @property
    def kind(self) -> Kind:
        return kind_of(self.spec)

    @property
    def ref(self) -> Ref:
        return Ref.of(self.spec)

    @property
    def address(self) -> str:
        return self.spec.address

    @property
    def stack(self) -> str | None:
        """The ``quotactl:stack`` tag: which stack owns this resource, if any."""
        return self.spec.tags.get(STACK_TAG)


@dataclass(frozen=True)
class PastPreemption:
    """One entry of DescribeServiceJob's ``preemptionSummary.recentPreemptedAttempts``."""

    started_at: float | None
    stopped_at: float | None
    status_reason: str | None


@dataclass(frozen=True)
class LiveJob:
    """One service job as the live account reports it (times in epoch seconds).

    ListServiceJobs gives the first eight fields and the times; ``priority``, ``attempts``,
    ``preemptions``, ``recent_preemptions``, ``preemption_retries`` and the run-time fields
    (``duration``, ``max_runtime``, ``attempt_timeout``) only come with DescribeServiceJob
    (``detailed``): on a job read from a list alone they are None or empty.
    """

    job_id: str
    name: str
    queue: str
    share: str | None
    status: JobStatus
    instances: Mapping[str, int] = field(default_factory=dict)
    started_at: float | None = None
    created_at: float | None = None
    job_arn: str = ""
    status_reason: str | None = None
    scheduled_at: float | None = None
    stopped_at: float | None = None
    priority: int | None = None
    attempts: int | None = None
    preemptions: int | None = None
    recent_preemptions: tuple[PastPreemption, ...] = ()
    preemption_retries: int | None = None  # preemptionRetriesBeforeTermination; None = no limit
    is_terminated: bool = False
    detailed: bool = False
    duration: float | None = None
    """The ``quotactl:duration`` tag in seconds (how long the emulator runs the job), if set."""
    max_runtime: float | None = None
    """``StoppingCondition.MaxRuntimeInSeconds`` of its request, if read."""
    attempt_timeout: float | None = None
    """``timeoutConfig.attemptDurationSeconds``, if set."""

    @classmethod
    def from_fields(cls, fields: dict[str, Any]) -> LiveJob:
        """A job from a dict of every field (``FIELDS``), equal to ``LiveJob(**fields)`` but
        without the frozen dataclass's one ``object.__setattr__`` per field: most of the cost
        of building the 10,000 jobs of a long listing."""
        job = object.__new__(cls)
        job.__dict__.update(fields)
        return job

    @property
    def holds_instances(self) -> bool:
        return self.status in HOLDING

    @property
    def is_final(self) -> bool:
        return self.status.is_final

    @property
    def instance_type(self) -> str | None:
        """The job's instance type (the largest, should a job ever name several)."""
        instances = self.instances
        if len(instances) == 1:  # nearly every job: no sort
            for only in instances:
                return only
        if not instances:
            return None
        return max(sorted(instances), key=lambda t: instances[t])

    @property
    def instance_count(self) -> int:
        return sum(self.instances.values())

    @property
    def ever_started(self) -> bool:
        """True once an attempt was dispatched (a RUNNABLE job that was is a preempted one)."""
        return self.scheduled_at is not None or self.started_at is not None

    def preempted_since(self, since: float) -> int:
        """Preempted attempts that stopped at or after ``since`` (from the recent window)."""
        return sum(
            1 for p in self.recent_preemptions if p.stopped_at is not None and p.stopped_at >= since
        )


@dataclass(frozen=True)
class ResourceStatus:
    """Lifecycle of one resource while apply waits on it (``None`` in its place means gone)."""

    status: str
    enabled: bool
    reason: str | None = None


@dataclass(frozen=True)
class ObservedState:
    """Everything a backend read; ``jobs`` only for the queues a plan may disturb."""

    resources: tuple[ObservedResource, ...] = ()
    jobs: tuple[LiveJob, ...] = ()

    def present(self) -> dict[str, ObservedResource]:
        """Resources by address, leaving out those already on their way out."""
        return {r.address: r for r in self.resources if r.status not in GOING}

    def with_jobs(self, jobs: Iterable[LiveJob]) -> ObservedState:
        return replace(self, jobs=tuple(jobs))

    def without_tags(self, keys: Collection[str]) -> ObservedState:
        """The same state with the tags ``keys`` left out of every resource (the governor's:
        what plan, apply and export neither show nor remove)."""
        resources = tuple(
            replace(r, spec=replace(r.spec, tags=_without(r.spec.tags, keys)))
            if any(k in keys for k in r.spec.tags)
            else r
            for r in self.resources
        )
        return replace(self, resources=resources)


def _without(tags: Mapping[str, str], keys: Collection[str]) -> dict[str, str]:
    return {k: v for k, v in tags.items() if k not in keys}
