"""``AwsBackend``: the core ``Backend`` over a boto3 Batch client.

One code path for real AWS, any endpoint and the embedded emulator: only the client differs
(built by ``quotactl.aws.session``). Reads use paginators and list calls (one per kind, one
ListQuotaShares per queue); what the API only offers per resource (a share's tags, jobs per
queue and status) runs concurrently on a small thread pool (``calls.BatchCalls``), and
``observe`` waits only where a read needs another's answer (shares need their queues).
"""

from __future__ import annotations

import threading
from concurrent.futures import FIRST_COMPLETED, Future, wait
from typing import TYPE_CHECKING, cast

from quotactl.aws import convert, responses as live_responses
from quotactl.aws.calls import DESCRIBE_BATCH, READ_CONCURRENCY, BatchCalls
from quotactl.aws.lock import BatchLockStore
from quotactl.core.apply.lock import LOCK_TAG
from quotactl.core.resources.desired import EnvironmentSpec, PolicySpec, QueueSpec, ShareSpec
from quotactl.core.resources.observed import (
    Kind,
    LiveJob,
    ObservedResource,
    ObservedState,
    Ref,
    ResourceStatus,
)
from quotactl.core.states import GOING, UNFINISHED, LifecycleStatus
from quotactl.errors import AlreadyExistsError, BackendError, ResourceGoneError

if TYPE_CHECKING:
    from collections import Counter
    from collections.abc import Callable, Collection, Mapping

    from mypy_boto3_batch import BatchClient
    from mypy_boto3_batch.type_defs import (
        DescribeQuotaShareResponseTypeDef,
        QuotaShareDetailTypeDef,
    )

    from quotactl.core.resources.observed import Spec


class AwsBackend:
    """Reads and writes AWS Batch quota-management resources through ``client`` (a boto3
    Batch client, or the ``BatchCalls`` an ``Account`` shares with its other facades)."""

    def __init__(
        self, client: BatchClient | BatchCalls, *, concurrency: int = READ_CONCURRENCY
    ) -> None:
        self.api = (
            client
            if isinstance(client, BatchCalls)
            else BatchCalls(client, concurrency=concurrency)
        )
        self._lock = threading.Lock()
        self._queue_arns: dict[str, str] = {}
        self._policy_arns: dict[str, str] = {}

    @property
    def calls(self) -> Counter[str]:
        """API calls made, by operation (pages included)."""
        return self.api.calls

    def close(self) -> None:
        self.api.close()

    def lock_store(self) -> BatchLockStore:
        """Where this account keeps the apply lock (``quotactl.aws.lock``)."""
        return BatchLockStore(self.api)

    # -- StateReader ----------------------------------------------------------------------

    def observe(self, stack: str, queues: Collection[str]) -> ObservedState:
        # Environments, policies and queues are read at once; each queue's shares are listed
        # as soon as the queues are in, and their tags as soon as that list is. (On a pool of
        # one, the calls go out in the order they are written here.)
        environments = self.api.submit(self._environments)
        policies = self.api.submit(self._policies)
        live_queues = self.api.submit(self._queues).result()
        wanted = set(queues)
        share_queues = [
            q
            for q in live_queues
            if (q.stack == stack or q.spec.name in wanted) and q.status not in GOING
        ]
        with self._lock:
            self._queue_arns.update({q.spec.name: q.arn for q in live_queues})
        shares = self._shares_of([q.spec.name for q in share_queues])
        resources = [*environments.result(), *policies.result(), *live_queues, *shares]
        return ObservedState(tuple(resources))

    def _environments(self) -> list[ObservedResource]:
        found = self.api.pages("DescribeServiceEnvironments", "serviceEnvironments")
        return [convert.observed_environment(e) for e in found]

    def _queues(self) -> list[ObservedResource]:
        return [convert.observed_queue(q) for q in self.api.pages("DescribeJobQueues", "jobQueues")]

    def _policies(self) -> list[ObservedResource]:
        arns = [p["arn"] for p in self.api.pages("ListSchedulingPolicies", "schedulingPolicies")]
        chunks = [arns[i : i + DESCRIBE_BATCH] for i in range(0, len(arns), DESCRIBE_BATCH)]
        described = self.api.map(
            lambda chunk: self.api.call("DescribeSchedulingPolicies", arns=chunk)[
                "schedulingPolicies"
            ],
            chunks,
        )
        # The apply lock is a scheduling policy too (quotactl.aws.lock): never a resource.
        policies = [
            convert.observed_policy(p)
            for chunk in described
            for p in chunk
            if LOCK_TAG not in (p.get("tags") or {})
        ]
        with self._lock:
            self._policy_arns.update({p.spec.name: p.arn for p in policies})
        return policies

    def _shares_of(self, queues: list[str]) -> list[ObservedResource]:
        listing = [(q, self.api.submit(self._listed_shares, q)) for q in queues]
        # The items carry their tags where the listing has them (quotactl.aws.listed_tags);
        # any other share costs a ListTagsForResource, sent as soon as the queue's list is in,
        # whichever queue answers first (lists that are in together go in queue order, so a
        # pool of one keeps the calls' order).
        tagged: dict[str, list[tuple[QuotaShareDetailTypeDef, Future[dict[str, str]]]]] = {}
        while listing:
            wait([found for _, found in listing], return_when=FIRST_COMPLETED)
            for queue, found in [(q, f) for q, f in listing if f.done()]:
                tagged[queue] = [(item, self._tags_of(item)) for item in found.result()]
            listing = [(q, f) for q, f in listing if q not in tagged]
        return [
            convert.observed_share(item, queue, tags.result())
            for queue in queues
            for item, tags in tagged[queue]
        ]

    def _listed_shares(self, queue: str) -> list[QuotaShareDetailTypeDef]:
        return list(self.api.pages("ListQuotaShares", "quotaShares", jobQueue=queue))

    def _tags_of(self, item: QuotaShareDetailTypeDef) -> Future[dict[str, str]]:
        listed: dict[str, str] | None = item.get("tags")  # type: ignore[assignment]
        if listed is None:
            return self.api.submit(self._tags, item["quotaShareArn"])
        done: Future[dict[str, str]] = Future()
        done.set_result(dict(listed))
        return done

    def _tags(self, arn: str) -> dict[str, str]:
        found = self.api.call("ListTagsForResource", resourceArn=arn)
        return dict(found.get("tags") or {})

    def live_jobs(self, queues: Collection[str]) -> tuple[LiveJob, ...]:
        pairs = [(q, s) for q in sorted(queues) for s in UNFINISHED]

        def read(pair: tuple[str, str]) -> list[LiveJob]:
            queue, status = pair
            items = self.api.pages(
                "ListServiceJobs", "jobSummaryList", jobQueue=queue, jobStatus=status
            )
            return [convert.live_job(i, queue) for i in items]

        def detailed(job: LiveJob) -> LiveJob:
            found = self.api.call("DescribeServiceJob", jobId=job.job_id)
            return live_responses.live_job(found, job.queue, found)

        listed = [job for found in self.api.map(read, pairs) for job in found]
        # The jobs that hold instances are the candidates for preemption, which goes by
        # priority first; ListServiceJobs does not report it (bounded by capacity).
        holding = self.api.map(detailed, [j for j in listed if j.holds_instances])
        by_id = {j.job_id: j for j in holding}
        return tuple(by_id.get(j.job_id, j) for j in listed)

    # -- Backend: writes ------------------------------------------------------------------

    def create(self, spec: Spec) -> str:
        try:
            if isinstance(spec, EnvironmentSpec):
                out = self.api.call("CreateServiceEnvironment", **convert.create_environment(spec))
                return str(out["serviceEnvironmentArn"])
            if isinstance(spec, PolicySpec):
                out = self.api.call("CreateSchedulingPolicy", **convert.create_policy(spec))
                with self._lock:
                    self._policy_arns[spec.name] = out["arn"]
                return str(out["arn"])
            if isinstance(spec, QueueSpec):
                request = convert.create_queue(spec, self._policy_arn(spec.policy))
                out = self.api.call("CreateJobQueue", **request)
                with self._lock:
                    self._queue_arns[spec.name] = out["jobQueueArn"]
                return str(out["jobQueueArn"])
            out = self.api.call("CreateQuotaShare", **convert.create_share(spec))
            return str(out["quotaShareArn"])
        except BackendError as exc:
            if "already exists" in exc.message.lower():
                raise AlreadyExistsError(exc.message) from exc
            raise

    def update(self, before: Spec, after: Spec, arn: str, fields: frozenset[str]) -> None:
        settings = fields - {"tags"}
        if settings and isinstance(after, EnvironmentSpec):
            self.api.call(
                "UpdateServiceEnvironment", **convert.update_environment(after, arn, settings)
            )
        elif settings and isinstance(after, QueueSpec):
            policy = self._policy_arn(after.policy) if "policy" in settings else ""
            self.api.call("UpdateJobQueue", **convert.update_queue(after, arn, settings, policy))
        elif settings and isinstance(after, ShareSpec):
            self.api.call("UpdateQuotaShare", **convert.update_share(after, arn, settings))
        if "tags" in fields:
            added = {k: v for k, v in after.tags.items() if before.tags.get(k) != v}
            # aws:-prefixed tags belong to AWS (CloudFormation etc.) and cannot be removed.
            removed = sorted(
                k for k in before.tags if k not in after.tags and not k.startswith("aws:")
            )
            if added:
                self.api.call("TagResource", resourceArn=arn, tags=added)
            if removed:
                self.api.call("UntagResource", resourceArn=arn, tagKeys=removed)

    def set_enabled(self, ref: Ref, arn: str, enabled: bool) -> None:
        state = convert.state(enabled)
        if ref.kind is Kind.ENVIRONMENT:
            self.api.call("UpdateServiceEnvironment", serviceEnvironment=arn, state=state)
        elif ref.kind is Kind.QUEUE:
            self.api.call("UpdateJobQueue", jobQueue=arn, state=state)
        elif ref.kind is Kind.SHARE:
            self.api.call("UpdateQuotaShare", quotaShareArn=arn, state=state)

    def delete(self, ref: Ref, arn: str) -> None:
        try:
            if ref.kind is Kind.ENVIRONMENT:
                self.api.call("DeleteServiceEnvironment", serviceEnvironment=arn)
            elif ref.kind is Kind.POLICY:
                self.api.call("DeleteSchedulingPolicy", arn=arn)
            elif ref.kind is Kind.QUEUE:
                self.api.call("DeleteJobQueue", jobQueue=arn)
            else:
                self.api.call("DeleteQuotaShare", quotaShareArn=arn)
        except BackendError as exc:
            if exc.retryable:
                raise
            current = self.describe(ref)
            if current is None or current.status in GOING:
                raise ResourceGoneError(f"{ref.address} is already gone") from exc
            raise

    def tag(self, arn: str, tags: Mapping[str, str]) -> None:
        self.api.call("TagResource", resourceArn=arn, tags=dict(tags))

    # -- Backend: point reads -------------------------------------------------------------

    def describe(self, ref: Ref) -> ObservedResource | None:
        if ref.kind is Kind.ENVIRONMENT:
            found = self.api.call("DescribeServiceEnvironments", serviceEnvironments=[ref.name])
            items = [convert.observed_environment(e) for e in found.get("serviceEnvironments", [])]
        elif ref.kind is Kind.QUEUE:
            found = self.api.call("DescribeJobQueues", jobQueues=[ref.name])
            items = [convert.observed_queue(q) for q in found.get("jobQueues", [])]
        elif ref.kind is Kind.POLICY:
            items = [p for p in self._policies() if p.spec.name == ref.name]
        else:
            return self._describe_share(ref)
        return next(
            (i for i in items if i.spec.name == ref.name and i.status != LifecycleStatus.DELETED),
            None,
        )

    def _describe_share(self, ref: Ref) -> ObservedResource | None:
        assert ref.queue is not None
        queue = self.describe(Ref(Kind.QUEUE, ref.queue))
        if queue is None:
            return None
        try:
            item = self.api.call(
                "DescribeQuotaShare", quotaShareArn=convert.share_arn(queue.arn, ref.name)
            )
        except BackendError as exc:
            if exc.retryable:
                raise
            return None  # AWS answers ClientException for a share that does not exist
        described = cast("DescribeQuotaShareResponseTypeDef", item)  # the operation's shape
        return convert.observed_share(described, ref.queue, item.get("tags") or {})

    def statuses(self, refs: Collection[Ref]) -> Mapping[Ref, ResourceStatus | None]:
        found: dict[Ref, ResourceStatus | None] = dict.fromkeys(refs)
        by_kind: dict[Kind, list[Ref]] = {}
        for ref in refs:
            by_kind.setdefault(ref.kind, []).append(ref)
        tasks: list[Callable[[], list[tuple[Ref, ResourceStatus]]]] = []
        for kind, operation, key, param in (
            (
                Kind.ENVIRONMENT,
                "DescribeServiceEnvironments",
                "serviceEnvironments",
                "serviceEnvironments",
            ),
            (Kind.QUEUE, "DescribeJobQueues", "jobQueues", "jobQueues"),
        ):
            names = sorted({r.name for r in by_kind.get(kind, [])})
            for i in range(0, len(names), DESCRIBE_BATCH):
                chunk = names[i : i + DESCRIBE_BATCH]
                tasks.append(_describe_task(self, kind, operation, key, param, chunk))
        for queue in sorted({r.queue for r in by_kind.get(Kind.SHARE, []) if r.queue}):
            tasks.append(_share_task(self, queue))
        for ref in by_kind.get(Kind.POLICY, []):
            found[ref] = ResourceStatus(LifecycleStatus.VALID, True)  # policies have no lifecycle
        for results in self.api.map(lambda task: task(), tasks):
            for ref, status in results:
                if ref in found:
                    found[ref] = status
        return found

    def _policy_arn(self, name: str) -> str:
        with self._lock:
            known = self._policy_arns.get(name)
        if known is None:
            self._policies()
            with self._lock:
                known = self._policy_arns.get(name)
        if known is None:
            raise BackendError(f"scheduling policy {name} does not exist")
        return known


def _describe_task(
    backend: AwsBackend, kind: Kind, operation: str, key: str, param: str, names: list[str]
) -> Callable[[], list[tuple[Ref, ResourceStatus]]]:
    name_key = "serviceEnvironmentName" if kind is Kind.ENVIRONMENT else "jobQueueName"

    def run() -> list[tuple[Ref, ResourceStatus]]:
        items = backend.api.call(operation, **{param: names}).get(key, [])
        return [
            (
                Ref(kind, item[name_key]),
                ResourceStatus(
                    item.get("status") or LifecycleStatus.VALID,
                    convert.enabled(item.get("state")),
                    item.get("statusReason"),
                ),
            )
            for item in items
            if item.get("status") != LifecycleStatus.DELETED
        ]

    return run


def _share_task(backend: AwsBackend, queue: str) -> Callable[[], list[tuple[Ref, ResourceStatus]]]:
    def run() -> list[tuple[Ref, ResourceStatus]]:
        try:
            items = list(backend.api.pages("ListQuotaShares", "quotaShares", jobQueue=queue))
        except BackendError as exc:
            if exc.retryable:
                raise
            return []  # the queue itself is gone, and its shares with it
        return [
            (
                Ref(Kind.SHARE, item["quotaShareName"], queue),
                ResourceStatus(
                    item.get("status") or LifecycleStatus.VALID, convert.enabled(item.get("state"))
                ),
            )
            for item in items
        ]

    return run
