"""Reading the live account's job attempts for the ledger (``history``).

One ListServiceJobs listing per queue bounded by ``AFTER_CREATED_AT`` (``job_history``), and
DescribeServiceJob for each job whose rows may have changed: every job the ledger does not
hold yet and every job it holds an unfinished row of. A job the ledger already holds only in
finished rows is not described again (its attempts cannot change). Unfinished rows of jobs
older than the window are read with DescribeServiceJob alone; a job AWS no longer knows keeps
its rows as they are.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from quotactl.aws import responses as live_responses
from quotactl.aws.job_history import job_history
from quotactl.core.history.attempts import JobAttempts, Tried, attempts_of
from quotactl.errors import QuotactlError

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping, Sequence

    from quotactl.aws.calls import BatchCalls
    from quotactl.aws.live import LiveReader
    from quotactl.core.history.ledger import Attempt
    from quotactl.core.resources.observed import LiveJob


@dataclass
class AttemptsRead:
    """The rows read, the attempts AWS no longer lists, and the jobs it no longer knows."""

    rows: list[Attempt] = field(default_factory=list)
    missing: int = 0
    jobs: int = 0
    gone: list[str] = field(default_factory=list)

    def add(self, found: JobAttempts) -> None:
        self.rows += found.rows
        self.missing += found.missing
        self.jobs += 1


def share_teams(live: LiveReader, queues: Sequence[str]) -> dict[tuple[str, str], str]:
    """(queue, share) -> team: the ``quotactl:team`` tag of each quota share."""
    teams: dict[tuple[str, str], str] = {}
    for queue in live.read_queues(list(queues), statuses=()):
        for share in queue.shares:
            if share.team:
                teams[queue.name, share.name] = share.team
    return teams


def read_attempts(
    api: BatchCalls,
    queues: Sequence[str],
    *,
    since: float | None,
    teams: Mapping[tuple[str, str], str],
    settled: Collection[str] = (),
    reread: Mapping[str, str] | None = None,
) -> AttemptsRead:
    """The attempts of every job of ``queues`` created after ``since`` (epoch seconds), leaving
    out the jobs in ``settled``; then those of ``reread`` (job ID -> queue) not listed."""
    found = AttemptsRead()
    seen: set[str] = set()
    for job, detail in job_history(
        api, queues, since=since, describe=lambda j: j.job_id not in settled
    ):
        seen.add(job.job_id)
        if detail is not None:
            found.add(_attempts(job, detail, teams))
    left = [(job_id, queue) for job_id, queue in (reread or {}).items() if job_id not in seen]
    for (job_id, queue), detail in zip(
        left, api.map(lambda item: _describe(api, item[0]), left), strict=True
    ):
        if detail is None:
            found.gone.append(job_id)
            continue
        job = live_responses.live_job(detail, queue, detail)
        found.add(_attempts(job, detail, teams))
    return found


def tried(detail: Mapping[str, Any]) -> list[Tried]:
    """DescribeServiceJob's ``attempts``, oldest first."""
    return [
        Tried(
            live_responses.seconds(a.get("startedAt")),
            live_responses.seconds(a.get("stoppedAt")),
            a.get("statusReason"),
        )
        for a in detail.get("attempts") or []
    ]


def _attempts(
    job: LiveJob, detail: Mapping[str, Any], teams: Mapping[tuple[str, str], str]
) -> JobAttempts:
    team = teams.get((job.queue, job.share)) if job.share else None
    return attempts_of(job, tried(detail), team)


def _describe(api: BatchCalls, job_id: str) -> dict[str, Any] | None:
    try:
        return api.call("DescribeServiceJob", jobId=job_id)
    except QuotactlError as exc:
        if getattr(exc, "retryable", False):
            raise
        return None
