"""The reads behind one ``LiveReader.read_queues`` call, chained on a ``Fanout``.

Each read's callback stores what it found and spawns the reads that depend on it: the share
list spawns the tags of each share it lists without tags and the rest of a long status (read
share by share); each page of jobs spawns DescribeServiceJob for the jobs ``describe``
picks.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from quotactl.aws import responses as live_responses

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from quotactl.aws.calls import BatchCalls
    from quotactl.aws.fanout import Fanout
    from quotactl.core.resources.observed import LiveJob
    from quotactl.core.states import JobStatus

PAGE = 100
"""ListServiceJobs' largest page."""


class QueueReads:
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
            self._list_jobs(queue, status, PaginationConfig={"StartingToken": token})
        for share in names:
            self._list_jobs(
                queue, status, filters=[{"name": "QUOTA_SHARE_NAME", "values": [share]}]
            )

    def _list_jobs(self, queue: str, status: str, **params: Any) -> None:
        """ListServiceJobs of one status, every page, on the pool."""
        self.run.spawn(
            partial(
                self._pages,
                "ListServiceJobs",
                "jobSummaryList",
                jobQueue=queue,
                jobStatus=status,
                **params,
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
