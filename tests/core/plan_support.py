"""Builders for desired/observed values and an in-memory account that enforces AWS's rules.

``MemoryBackend`` is a test double of the *backend* (the thing apply talks to), never of the
planner or executor under test. It refuses what AWS refuses (a share on a queue that is not
VALID, deleting an ENABLED resource or a policy still in use, more than 20 shares on a queue),
and moves CREATING/UPDATING/DELETING along only as statuses are polled, so an executor that
does not wait, or waits in the wrong order, fails here. ``test_memory_backend_contract.py``
plays the same calls on it and on the emulator and keeps the two equal.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from quotactl.core.engine import JobStatus
from quotactl.core.resources.desired import (
    STACK_TAG,
    DesiredState,
    EnvironmentSpec,
    PolicySpec,
    QueueSpec,
    ShareSpec,
    Strategy,
    policy_name_for,
)
from quotactl.core.resources.observed import (
    Kind,
    LiveJob,
    ObservedResource,
    ObservedState,
    Ref,
    ResourceStatus,
    Spec,
    kind_of,
)
from quotactl.errors import AlreadyExistsError, BackendError, ResourceGoneError

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping

STACK = "demo"
OWNED = {STACK_TAG: STACK}
ACCOUNT = "123456789012"


def env(
    name: str = "gpu", capacity: Mapping[str, int] | None = None, **kw: object
) -> EnvironmentSpec:
    tags = kw.pop("tags", OWNED)
    return EnvironmentSpec(name, dict(capacity or {"ml.g5.xlarge": 8}), tags=tags, **kw)  # type: ignore[arg-type]


def policy(queue: str = "training", **kw: object) -> PolicySpec:
    tags = kw.pop("tags", OWNED)
    return PolicySpec(policy_name_for(queue), tags=tags, **kw)  # type: ignore[arg-type]


def queue(name: str = "training", environment: str = "gpu", **kw: object) -> QueueSpec:
    tags = kw.pop("tags", OWNED)
    return QueueSpec(name, environment, policy_name_for(name), tags=tags, **kw)  # type: ignore[arg-type]


def share(
    name: str = "nlp",
    queue: str = "training",
    capacity: Mapping[str, int] | None = None,
    strategy: Strategy = Strategy.LEND_AND_BORROW,
    **kw: object,
) -> ShareSpec:
    tags = kw.pop("tags", OWNED)
    return ShareSpec(
        queue,
        name,
        dict(capacity or {"ml.g5.xlarge": 4}),
        strategy,
        tags=tags,  # type: ignore[arg-type]
        **kw,  # type: ignore[arg-type]
    )


def stack(*specs: Spec) -> tuple[Spec, ...]:
    return specs


def desired(*specs: Spec) -> DesiredState:
    return DesiredState(
        stack=STACK,
        region="us-east-1",
        account_id=None,
        environments=tuple(s for s in specs if isinstance(s, EnvironmentSpec)),
        policies=tuple(s for s in specs if isinstance(s, PolicySpec)),
        queues=tuple(s for s in specs if isinstance(s, QueueSpec)),
        shares=tuple(s for s in specs if isinstance(s, ShareSpec)),
    )


def arn_of(ref: Ref) -> str:
    base = f"arn:aws:batch:us-east-1:{ACCOUNT}"
    if ref.kind is Kind.SHARE:
        return f"{base}:job-queue/{ref.queue}/quota-share/{ref.name}"
    kind = {Kind.ENVIRONMENT: "service-environment", Kind.POLICY: "scheduling-policy"}
    return f"{base}:{kind.get(ref.kind, 'job-queue')}/{ref.name}"


def live(spec: Spec, status: str = "VALID", policy_type: str | None = None) -> ObservedResource:
    ptype = policy_type or ("quota_share" if isinstance(spec, PolicySpec) else None)
    return ObservedResource(spec, arn_of(Ref.of(spec)), status, ptype)


def observed(*resources: ObservedResource | Spec, jobs: Collection[LiveJob] = ()) -> ObservedState:
    items = tuple(r if isinstance(r, ObservedResource) else live(r) for r in resources)
    return ObservedState(items, tuple(jobs))


def job(
    job_id: str,
    share_name: str = "nlp",
    instances: Mapping[str, int] | None = None,
    status: str = "RUNNING",
    started_at: int = 0,
    queue_name: str = "training",
) -> LiveJob:
    return LiveJob(
        job_id,
        f"job-{job_id}",
        queue_name,
        share_name,
        JobStatus(status),
        dict(instances or {"ml.g5.xlarge": 1}),
        started_at,
        started_at,
    )


@dataclass
class _Record:
    spec: Spec
    status: str
    polls_left: int
    policy_type: str | None = None


@dataclass
class MemoryBackend:
    """An in-memory account; ``delay`` is how many status polls a transition takes."""

    delay: int = 1
    records: dict[Ref, _Record] = field(default_factory=dict)
    jobs: list[LiveJob] = field(default_factory=list)
    failures: dict[tuple[str, str], str] = field(default_factory=dict)
    """(operation, address) -> ClientException message to raise once."""
    throttles: dict[tuple[str, str], int] = field(default_factory=dict)
    """(operation, address) -> how many times to fail with a retryable error first."""
    calls: list[tuple[str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    # -- setup and inspection -------------------------------------------------------------

    def seed(self, *specs: Spec, status: str = "VALID", policy_type: str | None = None) -> None:
        for spec in specs:
            ptype = policy_type or ("quota_share" if isinstance(spec, PolicySpec) else None)
            self.records[Ref.of(spec)] = _Record(spec, status, self.delay, ptype)

    def spec(self, address: str) -> Spec | None:
        record = self.records.get(Ref.parse(address))
        return record.spec if record else None

    def count(self, operation: str) -> int:
        return Counter(op for op, _ in self.calls)[operation]

    # -- StateReader ----------------------------------------------------------------------

    def observe(self, stack: str, queues: Collection[str]) -> ObservedState:
        with self.lock:
            self.calls.append(("observe", stack))
            return ObservedState(
                tuple(
                    ObservedResource(r.spec, arn_of(ref), r.status, r.policy_type)
                    for ref, r in sorted(self.records.items())
                )
            )

    def live_jobs(self, queues: Collection[str]) -> tuple[LiveJob, ...]:
        with self.lock:
            self.calls.append(("live_jobs", ",".join(sorted(queues))))
            return tuple(j for j in self.jobs if j.queue in queues)

    # -- Backend --------------------------------------------------------------------------

    def _enter(self, operation: str, address: str) -> None:
        self.calls.append((operation, address))
        if self.throttles.get((operation, address), 0) > 0:
            self.throttles[(operation, address)] -= 1
            raise BackendError("Too Many Requests", retryable=True)
        message = self.failures.pop((operation, address), None)
        if message is not None:
            raise BackendError(message)

    def create(self, spec: Spec) -> str:
        ref = Ref.of(spec)
        with self.lock:
            self._enter("create", ref.address)
            if ref in self.records:
                raise AlreadyExistsError("Object already exists")
            if isinstance(spec, QueueSpec):
                self._require(Ref(Kind.ENVIRONMENT, spec.environment), "VALID")
                self._require(Ref(Kind.POLICY, spec.policy), "VALID")
            if isinstance(spec, ShareSpec):
                self._require(Ref(Kind.QUEUE, spec.queue), "VALID")
                on_queue = [
                    r for r in self.records if r.kind is Kind.SHARE and r.queue == spec.queue
                ]
                if len(on_queue) >= 20:
                    raise BackendError(f"job queue {spec.queue} already has 20 quota shares")
            status = "VALID" if isinstance(spec, PolicySpec) else "CREATING"
            ptype = "quota_share" if isinstance(spec, PolicySpec) else None
            self.records[ref] = _Record(spec, status, self.delay, ptype)
            return arn_of(ref)

    def update(self, before: Spec, after: Spec, arn: str, fields: frozenset[str]) -> None:
        ref = Ref.of(after)
        with self.lock:
            self._enter("update", ref.address)
            record = self._require(ref, "VALID")
            record.spec = after
            if fields - {"tags"} and kind_of(after) is not Kind.POLICY:
                record.status, record.polls_left = "UPDATING", self.delay

    def set_enabled(self, ref: Ref, arn: str, enabled: bool) -> None:
        with self.lock:
            self._enter("set_enabled" if enabled else "disable", ref.address)
            record = self._require(ref, "VALID")
            record.spec = replace(record.spec, enabled=enabled)  # type: ignore[arg-type]
            record.status, record.polls_left = "UPDATING", self.delay

    def delete(self, ref: Ref, arn: str) -> None:
        with self.lock:
            self._enter("delete", ref.address)
            record = self.records.get(ref)
            if record is None:
                raise ResourceGoneError(f"{ref.address} does not exist")
            stateful = not isinstance(record.spec, PolicySpec)
            if stateful and (record.spec.enabled or record.status != "VALID"):  # type: ignore[union-attr]
                raise BackendError(f"{ref.address} must be DISABLED and VALID to delete")
            users = [r for r in self.records.values() if isinstance(r.spec, QueueSpec)]
            if ref.kind is Kind.POLICY and any(u.spec.policy == ref.name for u in users):  # type: ignore[union-attr]
                raise BackendError(f"scheduling policy {ref.name} is in use by a job queue")
            if ref.kind is Kind.ENVIRONMENT and any(u.spec.environment == ref.name for u in users):  # type: ignore[union-attr]
                raise BackendError(f"service environment {ref.name} is attached to a job queue")
            if ref.kind is Kind.QUEUE:  # the emulator's choice: its shares go with it
                for other, child in self.records.items():
                    if other.kind is Kind.SHARE and other.queue == ref.name:
                        child.status, child.polls_left = "DELETING", self.delay
            if ref.kind is Kind.POLICY:
                del self.records[ref]
            else:
                record.status, record.polls_left = "DELETING", self.delay

    def tag(self, arn: str, tags: Mapping[str, str]) -> None:
        with self.lock:
            for ref, record in self.records.items():
                if arn_of(ref) == arn:
                    self._enter("tag", ref.address)
                    record.spec = replace(record.spec, tags={**record.spec.tags, **tags})

    def describe(self, ref: Ref) -> ObservedResource | None:
        with self.lock:
            self._enter("describe", ref.address)
            record = self.records.get(ref)
            if record is None:
                return None
            return ObservedResource(record.spec, arn_of(ref), record.status, record.policy_type)

    def statuses(self, refs: Collection[Ref]) -> Mapping[Ref, ResourceStatus | None]:
        with self.lock:
            self.calls.append(("statuses", str(len(refs))))
            self._tick()
            found: dict[Ref, ResourceStatus | None] = {}
            for ref in refs:
                record = self.records.get(ref)
                if record is None:
                    found[ref] = None
                else:
                    enabled = getattr(record.spec, "enabled", True)
                    found[ref] = ResourceStatus(record.status, enabled)
            return found

    def _tick(self) -> None:
        for ref, record in list(self.records.items()):
            if record.status in ("CREATING", "UPDATING", "DELETING"):
                record.polls_left -= 1
                if record.polls_left <= 0:
                    if record.status == "DELETING":
                        del self.records[ref]
                    else:
                        record.status = "VALID"

    def _require(self, ref: Ref, status: str) -> _Record:
        record = self.records.get(ref)
        if record is None:
            raise BackendError(f"{ref.address} does not exist")
        if record.status != status:
            raise BackendError(f"{ref.address} is {record.status}, not {status}")
        return record
