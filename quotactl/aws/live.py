"""Reading live queues from AWS Batch: the boto3 side of ``quotactl.core.live``.

``read_queue(client, "training")`` returns a ``LiveQueue``. The reads of one queue are
independent, so they run at once on a thread pool: DescribeServiceEnvironments,
ListQuotaShares (then ListTagsForResource per share, for the team tag), GetJobQueueSnapshot
and ListServiceJobs once per status. A status with more than one page is then read share by
share (the QUOTA_SHARE_NAME filter combines with a status), each list paginated with
botocore's paginators, so 10,000 waiting jobs are 20 short lists in parallel rather than 100
pages one after another. As job pages arrive, the jobs that need details are described
(DescribeServiceJob), also in parallel.
Every call goes through ``BatchCalls`` (the operations table, error translation, counters),
so the same code runs against AWS, an endpoint and the embedded emulator.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import TYPE_CHECKING, Any

from quotactl.aws.calls import READ_CONCURRENCY, BatchCalls
from quotactl.aws.fanout import Fanout
from quotactl.core import live, live_responses
from quotactl.core.live import UNFINISHED_STATUSES, LiveQueue
from quotactl.core.observed import GOING_STATUSES
from quotactl.errors import NotFoundError

if TYPE_CHECKING:
    from collections import Counter
    from collections.abc import Callable, Mapping, Sequence

    from mypy_boto3_batch import BatchClient

    from quotactl.core.engine import JobStatus
    from quotactl.core.observed import LiveJob

DESCRIBE_BATCH = 100
"""DescribeJobQueues and DescribeServiceEnvironments take at most 100 names."""
PAGE = 100
"""ListServiceJobs' largest page."""


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
        """The account's quota-managed job queues (SAGEMAKER_TRAINING with a scheduling
        policy), by name."""
        return sorted(
            q["jobQueueName"]
            for q in self.api.pages("DescribeJobQueues", "jobQueues")
            if _quota_managed(q)
        )

    def read_queue(
        self,
        queue: str,
        *,
        statuses: Sequence[JobStatus] = UNFINISHED_STATUSES,
        describe: Callable[[LiveJob], bool] = describe_started,
    ) -> LiveQueue:
        """One queue (name or ARN); ``describe`` picks the jobs to read details of."""
        return self.read_queues([queue], statuses=statuses, describe=describe)[0]

    def read_queues(
        self,
        queues: Sequence[str] | None = None,
        *,
        statuses: Sequence[JobStatus] = UNFINISHED_STATUSES,
        describe: Callable[[LiveJob], bool] = describe_started,
    ) -> list[LiveQueue]:
        """The named queues (default: every quota-managed queue), in the order given."""
        started = self._clock()
        items = self._queues(queues)
        read = _Read(self.api, Fanout(self._pool), describe)
        env_names = sorted({_environment(q) for q in items} - {""})
        for i in range(0, len(env_names), DESCRIBE_BATCH):
            read.environments(env_names[i : i + DESCRIBE_BATCH])
        for item in items:
            read.queue(item["jobQueueName"], statuses)
        read.run.wait()
        return [
            live.live_queue(
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

    def _queues(self, names: Sequence[str] | None) -> list[Mapping[str, Any]]:
        if names is None:
            return sorted(
                (q for q in self.api.pages("DescribeJobQueues", "jobQueues") if _quota_managed(q)),
                key=lambda q: q["jobQueueName"],
            )
        wanted = list(dict.fromkeys(names))
        found: dict[str, Mapping[str, Any]] = {}
        for i in range(0, len(wanted), DESCRIBE_BATCH):
            out = self.api.call("DescribeJobQueues", jobQueues=wanted[i : i + DESCRIBE_BATCH])
            for q in out.get("jobQueues", []):
                if q.get("status") not in GOING_STATUSES:
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
        and queue.get("status") not in GOING_STATUSES
    )


def _environment(queue: Mapping[str, Any]) -> str:
    order = sorted(queue.get("serviceEnvironmentOrder") or [], key=lambda o: o["order"])
    return live_responses.name_from_arn(order[0]["serviceEnvironment"]) if order else ""


class _Read:
    """The reads of one ``read_queues`` call and what they found; callbacks chain follow-ups."""

    def __init__(self, api: BatchCalls, run: Fanout, describe: Callable[[LiveJob], bool]) -> None:
        self.api = api
        self.run = run
        self.describe = describe
        self.envs: dict[str, dict[str, Any]] = {}
        self.shares: dict[str, list[dict[str, Any]]] = {}
        self.tags: dict[str, dict[str, str]] = {}
        self.snapshots: dict[str, dict[str, Any]] = {}
        self.jobs: dict[str, list[tuple[dict[str, Any], LiveJob]]] = {}
        self.details: dict[str, dict[str, Any]] = {}
        self._described: set[str] = set()
        self._long: dict[str, list[tuple[str, str]]] = {}  # statuses awaiting the share list

    def environments(self, names: list[str]) -> None:
        self.run.spawn(
            partial(self.api.call, "DescribeServiceEnvironments", serviceEnvironments=names),
            self._got_environments,
        )

    def queue(self, name: str, statuses: Sequence[JobStatus]) -> None:
        self.jobs[name] = []
        self.run.spawn(
            partial(self._pages, "ListQuotaShares", "quotaShares", jobQueue=name),
            partial(self._got_shares, name),
        )
        self.run.spawn(
            partial(self.api.call, "GetJobQueueSnapshot", jobQueue=name),
            partial(self.snapshots.__setitem__, name),
        )
        for status in statuses:
            self.run.spawn(
                partial(
                    self.api.call,
                    "ListServiceJobs",
                    jobQueue=name,
                    jobStatus=str(status),
                    maxResults=PAGE,
                ),
                partial(self._first_page, name, str(status)),
            )

    def listed(self, queue: str) -> list[LiveJob]:
        """The queue's listed jobs, each built once; a described one again with its details."""
        return [
            live_responses.live_job(summary, queue, self.details[job.job_id])
            if job.job_id in self.details
            else job
            for summary, job in self.jobs.get(queue, [])
        ]

    def _pages(self, operation: str, key: str, **params: Any) -> list[dict[str, Any]]:
        return list(self.api.pages(operation, key, **params))

    def _got_environments(self, out: dict[str, Any]) -> None:
        for env in out.get("serviceEnvironments", []):
            self.envs[env["serviceEnvironmentName"]] = env

    def _got_shares(self, queue: str, found: list[dict[str, Any]]) -> None:
        self.shares[queue] = found
        for item in found:
            if "tags" in item:  # botocore's model of ListQuotaShares has no tags; AWS's docs do
                continue
            arn = item["quotaShareArn"]
            self.run.spawn(
                partial(self.api.call, "ListTagsForResource", resourceArn=arn),
                partial(self._got_tags, arn),
            )
        for status, token in self._long.pop(queue, []):
            self._rest(queue, status, token)

    def _got_tags(self, arn: str, out: dict[str, Any]) -> None:
        self.tags[arn] = dict(out.get("tags") or {})

    def _first_page(self, queue: str, status: str, out: dict[str, Any]) -> None:
        self._got_jobs(queue, out.get("jobSummaryList") or [])
        token = out.get("nextToken")
        if token is None:
            return
        if queue in self.shares:
            self._rest(queue, status, token)
        else:  # the rest is read share by share, once the shares are known
            self._long.setdefault(queue, []).append((status, token))

    def _rest(self, queue: str, status: str, token: str) -> None:
        """A status with more than one page: read it share by share, in parallel (each
        share's list paginated), instead of one page after another. With no shares listed,
        the status's own pages are read on from ``token``."""
        names = [s["quotaShareName"] for s in self.shares.get(queue, [])]
        if not names:
            self.run.spawn(
                partial(
                    self._pages,
                    "ListServiceJobs",
                    "jobSummaryList",
                    jobQueue=queue,
                    jobStatus=status,
                    PaginationConfig={"StartingToken": token},
                ),
                partial(self._got_jobs, queue),
            )
            return
        for share in names:
            self.run.spawn(
                partial(
                    self._pages,
                    "ListServiceJobs",
                    "jobSummaryList",
                    jobQueue=queue,
                    jobStatus=status,
                    filters=[{"name": "QUOTA_SHARE_NAME", "values": [share]}],
                ),
                partial(self._got_jobs, queue),
            )

    def _got_jobs(self, queue: str, found: list[dict[str, Any]]) -> None:
        for summary in found:
            job = live_responses.live_job(summary, queue)
            self.jobs[queue].append((summary, job))
            job_id = job.job_id
            if job_id in self._described or not self.describe(job):
                continue
            self._described.add(job_id)
            self.run.spawn(
                partial(self.api.call, "DescribeServiceJob", jobId=job_id),
                partial(self.details.__setitem__, job_id),
            )
