"""Service-job use cases after submission: ``list_jobs``, ``describe_job``, ``cancel_jobs``,
``set_priority``, ``why`` (with the job's estimated start) and ``job_logs``. Submitting is in
``quotactl.api.submission``."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from quotactl.core.estimate.answers import Explained, JobRows
from quotactl.core.jobs.results import AttemptLog, Cancelled, JobDescription, JobLogs
from quotactl.errors import JobFinishedError, NoLogsError, NotFoundError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from pathlib import Path

    from quotactl.aws.account import Account
    from quotactl.aws.job_listing import JobListing
    from quotactl.core.engine import JobStatus
    from quotactl.core.jobs.live import LiveQueue
    from quotactl.core.jobs.records import JobDetail
    from quotactl.core.jobs.reprioritise import PriorityChange
    from quotactl.core.jobs.results import LogLine
    from quotactl.core.resources.observed import LiveJob


@dataclass(frozen=True)
class JobList:
    """Jobs newest first, and the account's clock when they were read."""

    jobs: list[LiveJob]
    now: float


def read_live(
    account: Account,
    queues: Sequence[str] | None,
    statuses: Sequence[JobStatus] | None = None,
    *,
    details: bool = True,
) -> list[LiveQueue]:
    """Live queues (default: every quota-managed one), every listed job described when
    ``details`` (ListServiceJobs has no priority, attempts or preemptions)."""
    from quotactl.aws.live import describe_all, describe_none
    from quotactl.core.states import UNFINISHED as UNFINISHED_STATUSES

    return account.live.read_queues(
        list(queues) if queues else None,
        statuses=UNFINISHED_STATUSES if statuses is None else statuses,
        describe=describe_all if details else describe_none,
    )


def stream_jobs(
    account: Account,
    queues: Sequence[str] | None = None,
    *,
    statuses: Sequence[JobStatus] | None = None,
    share: str | None = None,
    since: float | None = None,
    wide: bool = False,
) -> JobListing:
    """Jobs of ``statuses`` (default: every status), of one ``share`` if given, submitted in
    the last ``since`` seconds if given; newest first, read as the listing is iterated (each
    job as soon as no list still being read can hold a newer one). ``wide`` adds what only
    DescribeServiceJob has (priority, attempts, preemptions): one paced call per job.

    The queues (and ``share``) are checked at once: a name that does not exist is an error
    before any job is read."""
    from quotactl.aws.job_listing import JobListing
    from quotactl.core.engine import JobStatus

    found = account.live.queue_items(list(queues) if queues else None)
    names = [str(q["jobQueueName"]) for q in found]
    if share is not None:
        shares = {
            str(s["quotaShareName"])
            for name in names
            for s in account.batch.pages("ListQuotaShares", "quotaShares", jobQueue=name)
        }
        if share not in shares:
            raise NotFoundError(
                f"no quota share {share!r} on "
                + ("these job queues" if queues else "any quota-managed job queue"),
                hint=f"its shares: {', '.join(sorted(shares))}" if shares else None,
            )
    return JobListing(
        account.batch,
        names,
        list(JobStatus) if statuses is None else statuses,
        share=share,
        since=since,
        wide=wide,
    )


def list_jobs(
    account: Account,
    queues: Sequence[str] | None = None,
    *,
    statuses: Sequence[JobStatus] | None = None,
    share: str | None = None,
    since: float | None = None,
    wide: bool = True,
) -> JobList:
    """``stream_jobs``, read to the end: the jobs newest first and the account's clock. As
    always, each job is described (``wide``; one paced call per job); ``wide=False`` gives
    what ListServiceJobs returns, as ``quotactl jobs`` shows it."""
    listing = stream_jobs(account, queues, statuses=statuses, share=share, since=since, wide=wide)
    jobs = list(listing)
    return JobList(jobs, listing.now)


def job_rows(
    account: Account,
    queues: Sequence[str] | None = None,
    *,
    statuses: Sequence[JobStatus] | None = None,
    share: str | None = None,
    since: float | None = None,
    wide: bool = False,
    eta: bool = False,
    history_file: Path | None = None,
) -> JobRows:
    """``quotactl jobs``: ``stream_jobs``' listing, read as it is drawn; with ``eta``, read
    whole first and each queue run forward once for all its waiting jobs
    (``estimate_jobs``; ``history_file``: a ledger to draw run times from)."""
    from quotactl.api.estimates import estimate_jobs

    listing = stream_jobs(account, queues, statuses=statuses, share=share, since=since, wide=wide)

    def clock() -> float:  # the account's clock, known once the first job is in
        return listing.now

    if not eta:
        return JobRows(listing, clock, wide)
    listed = list(listing)  # the estimate runs the whole queue forward: list it first
    estimates = estimate_jobs(account, queues, history_file=history_file)
    return JobRows(listed, clock, wide, estimates)


def describe_job(account: Account, ref: str) -> JobDescription:
    """The job named by ``ref`` (name, ID or ARN), with its preemption history."""
    from quotactl.core.jobs.why import preemptions_of
    from quotactl.core.states import LISTED as ALL_STATUSES

    detail = account.jobs.resolve(ref)
    # The queue's jobs name who preempted it; the read also gives the account's clock.
    (live,) = read_live(account, [detail.job.queue], ALL_STATUSES, details=False)
    history = preemptions_of(detail.job, live.jobs)
    now = max(detail.job.created_at or 0.0, live.read_at)
    return JobDescription(detail, history, _training_job(account, detail), now)


def _training_job(account: Account, detail: JobDetail) -> dict[str, object] | None:
    """SageMaker's status of the latest attempt: DescribeTrainingJob on the aws backend; on
    the emulator (no SageMaker) AWS's documented mapping from the service job's status."""
    from quotactl.core.jobs.records import sagemaker_status

    name = detail.latest_training_job
    if name is None:
        return None
    if account.backend_name == "aws":
        from quotactl.aws.training import describe_training_job

        found = describe_training_job(account.client("sagemaker"), name)
        if found is None:
            return {"name": name, "status": None, "secondary_status": None}
        return {"name": name, "status": found.status, "secondary_status": found.secondary_status}
    status, secondary = sagemaker_status(detail.job.status.value)
    return {"name": name, "status": status, "secondary_status": secondary}


def cancel_jobs(account: Account, refs: Sequence[str], reason: str) -> Cancelled:
    """Terminate the jobs named by ``refs`` (TerminateServiceJobs, 50 a call). A job that
    has already finished (succeeded, failed or cancelled) is not sent: TerminateServiceJobs
    would accept it and change nothing, and "cancelled" would be untrue."""
    details = list({d.job.job_id: d for d in map(account.jobs.resolve, refs)}.values())
    finished = [d for d in details if d.job.is_final]
    ids = [d.job.job_id for d in details if not d.job.is_final]
    errors = account.jobs.terminate(ids, reason) if ids else []
    return Cancelled(details, ids, errors, finished)


def set_priority(account: Account, ref: str, priority: int) -> PriorityChange:
    """Change a job's scheduling priority; says which preemptions follow."""
    from quotactl.core.jobs.reprioritise import consequences

    detail = account.jobs.resolve(ref)
    if detail.job.is_final:
        raise JobFinishedError(
            f"job {detail.job.name} is {detail.job.status.value}: its priority is final"
        )
    (live,) = read_live(account, [detail.job.queue])
    job = live.job(detail.job.job_id) or detail.job
    effect = consequences(live, job, priority, timing=account.timing)
    account.jobs.update_priority(detail.job.job_id, priority)
    return effect


def why(
    account: Account,
    ref: str,
    *,
    history_file: Path | None = None,
    seed: int | None = None,
) -> Explained:
    """Why a job waits (what is ahead of it, what it lacks), what preempted it, and when it
    is expected to start (``history_file``: a ledger to draw run times from)."""
    from collections import Counter

    from quotactl.api.estimates import estimate_queue
    from quotactl.core.estimate import Estimates
    from quotactl.core.jobs.why import explain
    from quotactl.core.states import LISTED as ALL_STATUSES

    before = Counter(account.calls)
    detail = account.jobs.resolve(ref)
    (live,) = read_live(account, [detail.job.queue], ALL_STATUSES)
    answer = explain(live, live.job(detail.job.job_id) or detail.job, timing=account.timing)
    if answer.wait is None:
        return Explained(answer, Estimates(calls=dict(account.calls - before)), live.read_at)
    found, source = estimate_queue(
        account, live, wanted=[answer.job.job_id], history_file=history_file, seed=seed
    )
    return Explained(
        answer, Estimates((found,), dict(account.calls - before), source), live.read_at
    )


def job_logs(
    account: Account,
    ref: str,
    *,
    follow: bool = False,
    sleep: Callable[[float], None] = time.sleep,
) -> JobLogs:
    """The job and the CloudWatch logs of each attempt's training job (aws backend); with
    ``follow``, the last attempt's lines keep coming until the job ends."""
    from quotactl.aws.training import LogReader, follow as follow_lines

    detail = account.jobs.resolve(ref)
    if account.backend_name != "aws":
        raise NoLogsError(
            "the local emulator runs no containers, so its jobs write no logs",
            hint="on --backend aws, job logs reads the training job's streams in "
            "/aws/sagemaker/TrainingJobs",
        )
    logs = account.client("logs")
    names = list(detail.training_jobs)

    def finished() -> bool:
        return account.jobs.describe(detail.job.job_id).job.is_final

    def lines(index: int, name: str) -> Iterator[LogLine]:
        reader = LogReader(logs, name)
        if follow and index == len(names) - 1:
            yield from follow_lines(reader, finished, sleep=sleep)
        else:
            yield from reader.read()

    attempts = [AttemptLog(n, i + 1, lines(i, n)) for i, n in enumerate(names)]
    return JobLogs(detail, attempts, follow)
