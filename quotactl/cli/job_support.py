"""What the job commands share: the Batch client and its ``JobsApi``, other AWS clients on the
aws backend, and live queues read with every job described (priorities matter to the engine).

Heavy modules (boto3) are imported inside the functions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, overload

from quotactl.errors import QuotactlError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from mypy_boto3_iam import IAMClient
    from mypy_boto3_logs import CloudWatchLogsClient
    from mypy_boto3_s3 import S3Client
    from mypy_boto3_sagemaker import SageMakerClient

    from quotactl.aws.jobs import JobsApi
    from quotactl.cli.runtime import Runtime
    from quotactl.core.engine import JobStatus
    from quotactl.core.resources.live import LiveQueue


def open_jobs(runtime: Runtime) -> JobsApi:
    from quotactl.aws.jobs import JobsApi
    from quotactl.aws.session import client

    target = runtime.target()
    return JobsApi(client(target, session=runtime.session(target)))


@overload
def aws_client(runtime: Runtime, service: Literal["iam"]) -> IAMClient: ...
@overload
def aws_client(runtime: Runtime, service: Literal["s3"]) -> S3Client: ...
@overload
def aws_client(runtime: Runtime, service: Literal["sagemaker"]) -> SageMakerClient: ...
@overload
def aws_client(runtime: Runtime, service: Literal["logs"]) -> CloudWatchLogsClient: ...
def aws_client(
    runtime: Runtime, service: Literal["iam", "s3", "sagemaker", "logs"]
) -> IAMClient | S3Client | SageMakerClient | CloudWatchLogsClient:
    """A client of a non-Batch service; only on the aws backend (the emulator has none)."""
    from quotactl.aws.session import client

    target = runtime.target()
    if target.backend != "aws":
        raise QuotactlError(f"{service} is only reachable on --backend aws", code="backend")
    return client(target, service, session=runtime.session(target))


def read_live(
    api: JobsApi,
    queues: Sequence[str] | None,
    statuses: Sequence[JobStatus] | None = None,
    *,
    details: bool = True,
) -> list[LiveQueue]:
    """Live queues (default: every quota-managed one), every listed job described when
    ``details`` (ListServiceJobs has no priority, attempts or preemptions)."""
    from quotactl.aws.live import describe_all, describe_none
    from quotactl.core.states import UNFINISHED

    with api.reader() as reader:
        return reader.read_queues(
            list(queues) if queues else None,
            statuses=UNFINISHED if statuses is None else statuses,
            describe=describe_all if details else describe_none,
        )
