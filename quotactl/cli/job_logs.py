"""``job logs``: the CloudWatch log streams of a service job's training jobs (aws backend)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from quotactl.aws.jobs import JobsApi
    from quotactl.cli.runtime import Runtime
    from quotactl.core.jobs.records import JobDetail


def print_logs(
    runtime: Runtime,
    api: JobsApi,
    detail: JobDetail,
    *,
    follow: bool,
    sleep: Callable[[float], None] | None = None,
) -> None:
    """Every attempt's training job in turn (a preempted job has one per attempt)."""
    import time

    from quotactl.aws.training import LogReader
    from quotactl.aws.training import follow as follow_lines
    from quotactl.cli.job_support import aws_client

    logs = aws_client(runtime, "logs")
    names = list(detail.training_jobs)
    if not names:
        runtime.notice(f"quotactl: {detail.job.name} has not started: no training job, no logs")
        return
    many = len(names) > 1
    for index, name in enumerate(names):
        reader = LogReader(logs, name)
        if many:
            print(f"==> {name} (attempt {index + 1}) <==", file=runtime.stdout)
        last = index == len(names) - 1
        if follow and last:

            def finished() -> bool:
                return api.describe(detail.job.job_id).job.is_final

            lines = follow_lines(reader, finished, sleep=sleep or time.sleep)
        else:
            lines = iter(reader.read())
        for line in lines:
            stamp = datetime.fromtimestamp(line.timestamp / 1000, UTC).strftime("%H:%M:%S")
            stream = line.stream.split("/", 1)[-1]
            print(f"{stamp} {stream} {line.message}", file=runtime.stdout, flush=follow)
