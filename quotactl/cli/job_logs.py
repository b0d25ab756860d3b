"""``job logs``: the CloudWatch log streams of a service job's training jobs (aws backend)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from quotactl.aws.jobs import JobsApi
    from quotactl.cli.runtime import Runtime
    from quotactl.core.jobs.records import JobRecord


def print_logs(
    runtime: Runtime,
    api: JobsApi,
    record: JobRecord,
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
    names = [a.training_job_name for a in record.attempts if a.training_job_name]
    if not names and record.latest_training_job_arn:
        names = [record.latest_training_job_arn.rsplit("/", 1)[-1]]
    if not names:
        runtime.notice(f"quotactl: {record.name} has not started yet: no training job, no logs")
        return
    many = len(names) > 1
    for index, name in enumerate(names):
        reader = LogReader(logs, name)
        if many:
            print(f"==> {name} (attempt {index + 1}) <==", file=runtime.stdout)
        last = index == len(names) - 1
        if follow and last:

            def finished() -> bool:
                return api.describe(record.job_id).is_final

            lines = follow_lines(reader, finished, sleep=sleep or time.sleep)
        else:
            lines = iter(reader.read())
        for line in lines:
            stamp = datetime.fromtimestamp(line.timestamp / 1000, UTC).strftime("%H:%M:%S")
            stream = line.stream.split("/", 1)[-1]
            print(f"{stamp} {stream} {line.message}", file=runtime.stdout, flush=follow)
