"""What a service job needs beyond Batch: IAM and S3 before a submit, SageMaker and CloudWatch
Logs after it (``submit``'s pre-flight, ``job describe``, ``job logs``; aws backend only).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from quotactl.aws.calls import BatchCalls
from quotactl.core.jobs.results import LogLine
from quotactl.errors import PreflightFailedError, QuotactlError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from mypy_boto3_iam import IAMClient
    from mypy_boto3_logs import CloudWatchLogsClient
    from mypy_boto3_logs.type_defs import GetLogEventsRequestTypeDef, GetLogEventsResponseTypeDef
    from mypy_boto3_s3 import S3Client
    from mypy_boto3_sagemaker import SageMakerClient
    from mypy_boto3_sagemaker.type_defs import DescribeTrainingJobResponseTypeDef

LOG_GROUP = "/aws/sagemaker/TrainingJobs"
"""Where SageMaker writes training job logs: one stream per instance, ``<job>/algo-N-...``."""
POLL_SECONDS = 5.0


def preflight(
    iam: IAMClient, s3: S3Client, *, role_arn: str | None, output_s3: str | None
) -> list[str]:
    """Refuse a submit whose role or output bucket does not exist (IAM GetRole, S3 HeadBucket):
    SageMaker would only fail the job after it waited for capacity. A check whose service
    cannot be reached is skipped: returned as a warning ("could not check: ... unreachable"),
    never blamed on the role or bucket. The two checks run at once."""
    from concurrent.futures import ThreadPoolExecutor

    checks: list[tuple[str, BatchCalls, str, dict[str, str], str]] = []
    if role_arn:
        role = role_arn.rsplit("/", 1)[-1]
        checks.append((f"role {role_arn}", BatchCalls(iam), "GetRole", {"RoleName": role}, "role"))
    if output_s3 and output_s3.startswith("s3://"):
        bucket = output_s3[len("s3://") :].split("/", 1)[0]
        checks.append(
            (
                f"output bucket s3://{bucket}",
                BatchCalls(s3),
                "HeadBucket",
                {"Bucket": bucket},
                "bucket",
            )
        )

    def run(check: tuple[str, BatchCalls, str, dict[str, str], str]) -> Exception | None:
        _, api, operation, params, _ = check
        try:
            api.call(operation, **params)
        except Exception as exc:
            return exc
        return None

    problems: list[str] = []
    warnings: list[str] = []
    with ThreadPoolExecutor(max_workers=max(1, len(checks))) as pool:
        for check, failure in zip(checks, pool.map(run, checks), strict=True):
            if failure is None:
                continue
            what, api = check[0], check[1]
            if isinstance(failure, QuotactlError) and not unreachable(failure):
                problems.append(f"{what}: {_why(failure, f'no such {check[4]}')}")
            else:
                warnings.append(
                    f"could not check: {endpoint_of(api)} unreachable ({what} not checked)"
                )
    if problems:
        raise PreflightFailedError(
            "pre-flight failed, nothing was submitted: " + "; ".join(problems),
            hint="create the role or bucket (or fix role_arn / output_s3 in the job spec); "
            "the job would otherwise wait for capacity only to fail in SageMaker",
        )
    return warnings


def unreachable(exc: Exception) -> bool:
    """Whether ``exc`` says the service could not be reached: no connection, no answer, or an
    answer that is not the service's (botocore cannot parse it: a proxy, a wrong endpoint)."""
    from botocore.exceptions import ConnectionError as BotoConnectionError, ReadTimeoutError

    if not isinstance(exc, QuotactlError):
        return True
    return isinstance(exc.__cause__, BotoConnectionError | ReadTimeoutError)


def endpoint_of(api: BatchCalls) -> str:
    """The endpoint a client calls (its host URL)."""
    return str(getattr(getattr(api.client, "meta", None), "endpoint_url", None) or "the endpoint")


def _why(exc: QuotactlError, missing: str) -> str:
    text = exc.message.split(": ", 1)[-1]
    lowered = text.lower()
    if any(s in lowered for s in ("404", "not found", "nosuch", "cannot be found")):
        return missing
    return text


@dataclass(frozen=True)
class TrainingJob:
    name: str
    status: str | None
    secondary_status: str | None
    failure_reason: str | None = None


def describe_training_job(sagemaker: SageMakerClient, name: str) -> TrainingJob | None:
    """SageMaker's view of one attempt (None if SageMaker has no such job, e.g. deleted)."""
    try:
        found = BatchCalls(sagemaker).call("DescribeTrainingJob", TrainingJobName=name)
    except QuotactlError as exc:
        if getattr(exc, "retryable", False):
            raise
        return None
    out = cast("DescribeTrainingJobResponseTypeDef", found)  # the shape SageMaker answers with
    return TrainingJob(
        name, out.get("TrainingJobStatus"), out.get("SecondaryStatus"), out.get("FailureReason")
    )


class LogReader:
    """The log streams of one training job; ``read()`` returns lines not returned before."""

    def __init__(self, logs: CloudWatchLogsClient, training_job: str) -> None:
        self.api = BatchCalls(logs)
        self.prefix = f"{training_job}/"
        self._tokens: dict[str, str | None] = {}

    def streams(self) -> list[str]:
        names = [
            s["logStreamName"]
            for s in self.api.pages(
                "DescribeLogStreams",
                "logStreams",
                logGroupName=LOG_GROUP,
                logStreamNamePrefix=self.prefix,
            )
        ]
        return sorted(names)

    def read(self) -> list[LogLine]:
        try:
            streams = self.streams()
        except QuotactlError as exc:
            if "ResourceNotFound" in exc.message or "does not exist" in exc.message:
                return []
            raise
        lines: list[LogLine] = []
        for stream in streams:
            lines += self._read_stream(stream)
        return sorted(lines, key=lambda line: (line.timestamp, line.stream))

    def _read_stream(self, stream: str) -> list[LogLine]:
        out: list[LogLine] = []
        token = self._tokens.get(stream)
        while True:
            params: GetLogEventsRequestTypeDef = {
                "logGroupName": LOG_GROUP,
                "logStreamName": stream,
            }
            if token:
                params["nextToken"] = token
            else:
                params["startFromHead"] = True
            page = cast("GetLogEventsResponseTypeDef", self.api.call("GetLogEvents", **params))
            events = page.get("events") or []
            out += [LogLine(stream, int(e["timestamp"]), str(e["message"])) for e in events]
            following = page.get("nextForwardToken")
            if not events or following == token:
                token = following
                break
            token = following
        self._tokens[stream] = token
        return out


def follow(
    reader: LogReader,
    finished: Callable[[], bool],
    *,
    sleep: Callable[[float], None] = time.sleep,
    poll: float = POLL_SECONDS,
) -> Iterator[LogLine]:
    """Lines as they arrive, until ``finished()`` (checked before each poll) says the job has
    ended; a last read then picks up what it wrote on the way out."""
    while True:
        done = finished()
        yield from reader.read()
        if done:
            return
        sleep(poll)
