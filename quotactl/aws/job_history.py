"""Reading the live account's job history as a stream, for ``history``, ``usage`` and
``trace export``.

One ListServiceJobs listing per queue with the ``AFTER_CREATED_AT`` filter: AWS ignores
``jobStatus`` when a filter is given and returns jobs of every status, so one paginated
listing covers a queue's whole history (``--since`` moves the filter's bound; without it the
bound is 0). Pages are handed on as they arrive, never gathered, so a long history is never in
memory whole; DescribeServiceJob is called only for the jobs a figure needs (in parallel on
the read pool, a page at a time).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from quotactl.aws import responses as live_responses
from quotactl.errors import NotFoundError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

    from mypy_boto3_batch.type_defs import ServiceJobSummaryTypeDef

    from quotactl.aws.calls import BatchCalls
    from quotactl.aws.live import LiveReader
    from quotactl.core.resources.observed import LiveJob

PAGE = 100
"""ListServiceJobs' largest page; describes are batched by page."""


def account_time(api: BatchCalls, queue: str) -> float:
    """The account's own clock (GetJobQueueSnapshot's time; the emulator's clock is honoured)."""
    snapshot = api.call("GetJobQueueSnapshot", jobQueue=queue)
    return live_responses.snapshot_time(snapshot) or time.time()


def job_history(
    api: BatchCalls,
    queues: Sequence[str],
    *,
    since: float | None,
    describe: Callable[[LiveJob], bool],
) -> Iterator[tuple[LiveJob, dict[str, Any] | None]]:
    """Every job of ``queues`` created after ``since`` (epoch seconds), with its
    DescribeServiceJob response where ``describe`` asks for one."""
    bound = str(round(since * 1000)) if since is not None else "0"
    for queue in queues:
        items = api.pages(
            "ListServiceJobs",
            "jobSummaryList",
            jobQueue=queue,
            maxResults=PAGE,
            filters=[{"name": "AFTER_CREATED_AT", "values": [bound]}],
        )
        page: list[ServiceJobSummaryTypeDef] = []
        for item in items:
            page.append(item)
            if len(page) == PAGE:
                yield from _described(api, queue, page, describe)
                page = []
        yield from _described(api, queue, page, describe)


def _described(
    api: BatchCalls,
    queue: str,
    page: list[ServiceJobSummaryTypeDef],
    describe: Callable[[LiveJob], bool],
) -> Iterator[tuple[LiveJob, dict[str, Any] | None]]:
    wanted = [item for item in page if describe(live_responses.live_job(item, queue))]
    found = api.map(lambda item: api.call("DescribeServiceJob", jobId=item["jobId"]), wanted)
    details = {item["jobId"]: detail for item, detail in zip(wanted, found, strict=True)}
    for item in page:
        detail = details.get(item["jobId"])
        yield live_responses.live_job(item, queue, detail), detail


def queue_names(live: LiveReader, queues: Sequence[str] | None) -> list[str]:
    """The queues to export: those named (each must exist), or every quota-managed one."""
    api = live.api
    if queues is None:
        names = live.queue_names()
        if not names:
            raise NotFoundError(
                "no quota-managed job queue in this account and region to export jobs from",
            )
        return names
    names = list(dict.fromkeys(queues))
    found = api.call("DescribeJobQueues", jobQueues=names[:PAGE]).get("jobQueues", [])
    known = {q["jobQueueName"] for q in found} | {q["jobQueueArn"] for q in found}
    missing = [n for n in names if n not in known]
    if missing:
        raise NotFoundError(
            f"no job queue {', '.join(repr(n) for n in missing)} in this account and region",
            hint="without --queue, every quota-managed queue is exported",
        )
    return [live_responses.name_from_arn(n) for n in names]
