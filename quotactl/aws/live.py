"""Reading live queues from AWS Batch: the boto3 side of ``quotactl.core.jobs.live``.

``read_queue(client, "training")`` returns a ``LiveQueue``. The reads of one queue are
independent, so they run at once on a thread pool: DescribeServiceEnvironments,
ListQuotaShares (each share's tags with it, or a ListTagsForResource where the listing has
none: the team is a tag), GetJobQueueSnapshot and ListServiceJobs once per status. A status
with more than one page is then read share by share (the QUOTA_SHARE_NAME filter combines
with a status), each list paginated with botocore's paginators, so 10,000 waiting jobs are
20 short lists in parallel rather than 100 pages one after another. As job pages arrive, the
jobs that need details are described (DescribeServiceJob), also in parallel.
Every call goes through ``BatchCalls`` (the operations table, error translation, counters),
so the same code runs against AWS, an endpoint and the embedded emulator.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from quotactl.aws import responses as live_responses
from quotactl.aws.calls import DESCRIBE_BATCH, READ_CONCURRENCY, BatchCalls
from quotactl.aws.fanout import Fanout
from quotactl.aws.live_reads import QueueReads
from quotactl.core.jobs.live import LiveQueue
from quotactl.core.states import GOING, UNFINISHED
from quotactl.errors import NotFoundError

if TYPE_CHECKING:
    from collections import Counter
    from collections.abc import Callable, Mapping, Sequence

    from mypy_boto3_batch import BatchClient

    from quotactl.core.jobs.live import LiveQueue
    from quotactl.core.resources.observed import LiveJob
    from quotactl.core.states import JobStatus


def describe_none(job: LiveJob) -> bool:
    """Read lists only: no DescribeServiceJob call."""
    return False


def describe_started(job: LiveJob) -> bool:
    """Describe the unfinished jobs that were ever dispatched (active ones and preempted
    ones): their priority and preemption history. Bounded by capacity, not by queue length."""
    return not job.is_final and job.ever_started


def describe_all(job: LiveJob) -> bool:
    """Describe every listed job (one call each)."""
    return True


class LiveReader:
    """Reads live queues through one Batch client; reuse it across reads (``status --watch``)."""

    def __init__(
        self,
        client: BatchClient | BatchCalls,
        *,
        concurrency: int = READ_CONCURRENCY,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.api = client if isinstance(client, BatchCalls) else BatchCalls(client)
        self._clock = clock
        self._pool = ThreadPoolExecutor(concurrency, "quotactl-live")

    @property
    def calls(self) -> Counter[str]:
        """API calls made, by operation (pages included)."""
        return self.api.calls

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> LiveReader:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def queue_names(self) -> list[str]:
        """The account's quota-managed job queues (SAGEMAKER_TRAINING whose scheduling
        policy has a ``quotaSharePolicy``), by name."""
        return [q["jobQueueName"] for q in self.quota_managed()]

    def quota_managed(self) -> list[Mapping[str, Any]]:
        """DescribeJobQueues entries of the quota-managed queues, by name: a SAGEMAKER_TRAINING
        queue whose scheduling policy has a ``quotaSharePolicy`` (FIFO queues, without one, and
        fair-share ones, with a ``fairsharePolicy``, are never asked for quota shares)."""
        candidates = [
            q for q in self.api.pages("DescribeJobQueues", "jobQueues") if _quota_managed(q)
        ]
        arns = sorted({str(q["schedulingPolicyArn"]) for q in candidates})
        quota_share: set[str] = set()
        for i in range(0, len(arns), DESCRIBE_BATCH):
            out = self.api.call("DescribeSchedulingPolicies", arns=arns[i : i + DESCRIBE_BATCH])
            quota_share |= {
                p["arn"] for p in out.get("schedulingPolicies", []) if p.get("quotaSharePolicy")
            }
        return sorted(
            (q for q in candidates if q["schedulingPolicyArn"] in quota_share),
            key=lambda q: q["jobQueueName"],
        )

    def read_queue(
        self,
        queue: str,
        *,
        statuses: Sequence[JobStatus] = UNFINISHED,
        describe: Callable[[LiveJob], bool] = describe_started,
    ) -> LiveQueue:
        """One queue (name or ARN); ``describe`` picks the jobs to read details of."""
        return self.read_queues([queue], statuses=statuses, describe=describe)[0]

    def read_queues(
        self,
        queues: Sequence[str] | None = None,
        *,
        statuses: Sequence[JobStatus] = UNFINISHED,
        describe: Callable[[LiveJob], bool] = describe_started,
    ) -> list[LiveQueue]:
        """The named queues (default: every quota-managed queue), in the order given."""
        started = self._clock()
        items = self.queue_items(queues)
        read = QueueReads(self.api, Fanout(self._pool), describe)
        env_names = sorted({_environment(q) for q in items} - {""})
        for i in range(0, len(env_names), DESCRIBE_BATCH):
            read.environments(env_names[i : i + DESCRIBE_BATCH])
        for item in items:
            read.queue(item["jobQueueName"], statuses)
        read.run.wait()
        return [
            live_responses.live_queue(
                item,
                read.envs.get(_environment(item)),
                read.shares.get(item["jobQueueName"], []),
                listed=read.listed(item["jobQueueName"]),
                share_tags=read.tags,
                snapshot=read.snapshots.get(item["jobQueueName"]),
                read_at=started,
            )
            for item in items
        ]

    def queue_items(self, names: Sequence[str] | None) -> list[Mapping[str, Any]]:
        """DescribeJobQueues entries of the named queues (names or ARNs; an unknown one is
        ``not-found``), in the order given; default: every quota-managed queue, by name."""
        if names is None:
            return self.quota_managed()
        wanted = list(dict.fromkeys(names))
        found: dict[str, Mapping[str, Any]] = {}
        for i in range(0, len(wanted), DESCRIBE_BATCH):
            out = self.api.call("DescribeJobQueues", jobQueues=wanted[i : i + DESCRIBE_BATCH])
            for q in out.get("jobQueues", []):
                if q.get("status") not in GOING:
                    found[q["jobQueueName"]] = found[q["jobQueueArn"]] = q
        missing = [n for n in wanted if n not in found]
        if missing:
            raise NotFoundError(
                f"no job queue {', '.join(repr(n) for n in missing)} in this account and region",
                hint="`quotactl status` without --queue shows every quota-managed queue",
            )
        return [found[n] for n in wanted]


def read_queue(client: BatchClient | BatchCalls, queue: str, **options: Any) -> LiveQueue:
    """One live queue through ``client`` (a boto3 Batch client or ``BatchCalls``)."""
    with LiveReader(client) as reader:
        return reader.read_queue(queue, **options)


def read_queues(
    client: BatchClient | BatchCalls, queues: Sequence[str] | None = None, **options: Any
) -> list[LiveQueue]:
    """Several live queues (default: every quota-managed queue) through ``client``."""
    with LiveReader(client) as reader:
        return reader.read_queues(queues, **options)


def _quota_managed(queue: Mapping[str, Any]) -> bool:
    return (
        queue.get("jobQueueType") == "SAGEMAKER_TRAINING"
        and bool(queue.get("schedulingPolicyArn"))
        and queue.get("status") not in GOING
    )


def _environment(queue: Mapping[str, Any]) -> str:
    order = sorted(queue.get("serviceEnvironmentOrder") or [], key=lambda o: o["order"])
    return live_responses.name_from_arn(order[0]["serviceEnvironment"]) if order else ""
