"""What the job commands return: ``submit``'s ``SubmitResult`` (the ``Submitted`` jobs),
``job cancel``'s ``Cancelled``, ``job describe``'s ``JobDescription`` and ``job logs``'
``JobLogs`` (each attempt's ``LogLine``\\ s)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from quotactl.core.results import Failable
from quotactl.errors import CancelFailedError, JobFinishedError

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from quotactl.core.jobs.records import JobDetail
    from quotactl.core.jobs.why import Preemption
    from quotactl.errors import QuotactlError, SubmitInterrupted


@dataclass(frozen=True)
class Submitted:
    """One job AWS accepted, and where it went."""

    job_id: str
    job_arn: str
    name: str
    queue: str
    share: str


@dataclass(frozen=True)
class SubmitResult(Failable):
    """The jobs submitted, and warnings about them (a share that can never run the job).
    ``trainer``: submitted through the SageMaker SDK's TrainingQueue (``submit --trainer``).
    ``interrupted``: a ``--count`` submit was stopped after these jobs; the command fails so."""

    submitted: list[Submitted]
    warnings: list[str]
    trainer: bool = False
    interrupted: SubmitInterrupted | None = None

    @classmethod
    def cut_short(cls, stopped: SubmitInterrupted) -> SubmitResult:
        """The jobs that went through before ``stopped``, and that error to end with."""
        return cls(cast("list[Submitted]", list(stopped.submitted)), [], interrupted=stopped)

    def failure(self) -> QuotactlError | None:
        return self.interrupted


@dataclass(frozen=True)
class Cancelled(Failable):
    """What ``cancel_jobs`` did: the jobs named, those that had already finished (not sent to
    AWS), and per-job errors AWS reported. The command fails if any job was not cancelled."""

    details: list[JobDetail]
    job_ids: list[str]
    errors: list[dict[str, str]]
    finished: list[JobDetail]

    @property
    def done(self) -> list[str]:
        failed = {e["job"] for e in self.errors}
        return [i for i in self.job_ids if i not in failed]

    def failure(self) -> QuotactlError | None:
        many = len(self.details) > 1
        if self.errors:
            return CancelFailedError(
                f"{len(self.errors)} of {len(self.details)} jobs could not be cancelled"
                if many
                else "the job could not be cancelled"
            )
        if self.finished:
            return JobFinishedError(
                f"{len(self.finished)} of {len(self.details)} jobs had already finished "
                "and were not cancelled"
                if many
                else "the job had already finished and was not cancelled",
                hint="a finished job cannot be cancelled; `quotactl jobs` shows each job's status",
            )
        return None


@dataclass(frozen=True)
class JobDescription:
    """One job, its preemptions (each with the job that took the capacity), its SageMaker
    training job's status, and the account's clock when it was read."""

    detail: JobDetail
    preemptions: tuple[Preemption, ...]
    training_job: dict[str, object] | None
    now: float


@dataclass(frozen=True)
class LogLine:
    """One CloudWatch log event of a training job's stream (``timestamp`` in milliseconds)."""

    stream: str
    timestamp: int
    message: str


@dataclass(frozen=True)
class AttemptLog:
    """The log lines of one attempt's training job (read as they are iterated)."""

    training_job: str
    attempt: int
    lines: Iterator[LogLine]


@dataclass(frozen=True)
class JobLogs:
    """``job logs``: the job and each attempt's lines (none before it started); ``follow``:
    the last attempt's lines keep coming until the job ends, each written as it arrives."""

    detail: JobDetail
    attempts: Sequence[AttemptLog]
    follow: bool = False
