"""``job logs``: each attempt's training-job log lines, stamped, under a header when several."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from quotactl.core.jobs.results import JobLogs
from quotactl.core.outputs import Output
from quotactl.render.views import Screen, view

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import TextIO

    from quotactl.core.jobs.results import AttemptLog


@view(JobLogs, Output.TEXT)
def show_logs(result: JobLogs, screen: Screen) -> None:
    """The lines as they are read (with ``--follow``, each flushed as it arrives)."""
    if not result.attempts:
        name = result.detail.job.name
        screen.notice(f"quotactl: {name} has not started: no training job, no logs")
        return
    print_logs(screen.stdout, result.attempts, flush=result.follow)


def print_logs(out: TextIO, attempts: Sequence[AttemptLog], *, flush: bool = False) -> None:
    """Every attempt in turn (a preempted job has one training job per attempt)."""
    many = len(attempts) > 1
    for attempt in attempts:
        if many:
            print(f"==> {attempt.training_job} (attempt {attempt.attempt}) <==", file=out)
        for line in attempt.lines:
            stamp = datetime.fromtimestamp(line.timestamp / 1000, UTC).strftime("%H:%M:%S")
            stream = line.stream.split("/", 1)[-1]
            print(f"{stamp} {stream} {line.message}", file=out, flush=flush)
